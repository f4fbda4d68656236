"""Date feeds for the conformance corpus (conformance/README.md).

Every date string is put in five feeds, one item each, so that each way a feed carries a date is
scored: RSS 2.0 `pubDate` and `dc:date`, RSS 1.0 `dc:date`, Atom 1.0 `updated` and `published`.
The strings are the date tests of feedparser's tests/runtests.py (read from the sdist, so they
follow the pinned version) followed by the variants below, seen in real feeds.
"""
from __future__ import annotations

import ast
import os
from xml.sax.saxutils import escape

# Forms real feeds use, beyond feedparser's own tests: zone names and offsets, missing parts,
# long names, lower case, fractions, and a few that no parser should accept.
REAL_WORLD = [
    "Tue, 10 Jun 2003 04:00:00 GMT",
    "Tue, 10 Jun 2003 04:00:00 +0000",
    "Tue, 10 Jun 2003 04:00:00 -0400",
    "Tue, 10 Jun 2003 04:00:00 EDT",
    "Tue, 10 Jun 2003 04:00:00 PST",
    "Tue, 10 Jun 2003 04:00:00 UT",
    "Tue, 10 Jun 2003 04:00:00 Z",
    "Tue, 10 Jun 2003 4:00:00 GMT",
    "Tue, 10 Jun 2003 04:00 +0530",
    "10 Jun 2003 04:00:00 +0200",
    "Tuesday, 10 June 2003 04:00:00 GMT",
    "tue, 10 jun 2003 04:00:00 gmt",
    "Tue, 10 Jun 2003 04:00:00",
    "Sat, 01 Jan 2000 00:00:00 +1400",
    "Mon, 29 Feb 2016 12:00:00 GMT",
    "Tue, 31 Jun 2003 04:00:00 GMT",
    "2003-06-10T04:00:00+02:00",
    "2003-06-10T04:00:00-0700",
    "2003-06-10T04:00:00.123456Z",
    "2003-06-10T04:00Z",
    "2003-06-10 04:00:00Z",
    "2003-06-10T04:00:00",
    "20030610T040000Z",
    "not a date",
]


def vectors(runtests: bytes) -> list[str]:
    """The date strings: runtests.py's, then REAL_WORLD's, each once, none empty.

    runtests.py's are the first element of every pair in its `date_tests` table and every string
    literal passed to one of its `_parse_date*` functions."""
    found: list[str] = []

    def add(value):
        if isinstance(value, str) and value.strip() and value not in found:
            found.append(value)

    tree = ast.parse(runtests)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id == "date_tests" for target in node.targets):
            if isinstance(node.value, ast.Dict):
                for cases in node.value.values:
                    for case in getattr(cases, "elts", []):
                        if isinstance(case, ast.Tuple) and case.elts:
                            try:
                                add(ast.literal_eval(case.elts[0]))
                            except ValueError:
                                pass
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id.startswith("_parse_date"):
            for argument in node.args:
                if isinstance(argument, ast.Constant):
                    add(argument.value)
    if len(found) < 50:
        raise SystemExit(f"conformance: only {len(found)} date tests found in runtests.py")
    for value in REAL_WORLD:
        add(value)
    return found


def _rss20(element, namespace=""):
    def render(items):
        return (f'<?xml version="1.0" encoding="utf-8"?>\n'
                f'<rss version="2.0"{namespace}>\n<channel>\n'
                f'<title>Dates in {element}</title>\n<link>http://example.com/</link>\n'
                f'<description>One item per date string</description>\n'
                + "".join(f'<item>\n  <title>{text}</title>\n  <guid isPermaLink="false">d{number}</guid>\n'
                          f'  <{element}>{text}</{element}>\n</item>\n' for number, text in items)
                + "</channel>\n</rss>\n")
    return render


def _rss10(items):
    return ('<?xml version="1.0" encoding="utf-8"?>\n'
            '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"'
            ' xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">\n'
            '<channel rdf:about="http://example.com/">\n<title>Dates in dc:date</title>\n'
            '<link>http://example.com/</link>\n<description>One item per date string</description>\n'
            '</channel>\n'
            + "".join(f'<item rdf:about="http://example.com/d{number}">\n  <title>{text}</title>\n'
                      f'  <link>http://example.com/d{number}</link>\n  <dc:date>{text}</dc:date>\n</item>\n'
                      for number, text in items)
            + "</rdf:RDF>\n")


def _atom(element):
    def render(items):
        return ('<?xml version="1.0" encoding="utf-8"?>\n'
                '<feed xmlns="http://www.w3.org/2005/Atom">\n'
                f'<title>Dates in {element}</title>\n<id>urn:example:dates:{element}</id>\n'
                '<link href="http://example.com/"/>\n'
                + "".join(f'<entry>\n  <title>{text}</title>\n  <id>urn:example:d{number}</id>\n'
                          f'  <{element}>{text}</{element}>\n</entry>\n' for number, text in items)
                + "</feed>\n")
    return render


FEEDS = {
    "rss20-pubDate.xml": _rss20("pubDate"),
    "rss20-dc-date.xml": _rss20("dc:date", ' xmlns:dc="http://purl.org/dc/elements/1.1/"'),
    "rss10-dc-date.xml": _rss10,
    "atom10-updated.xml": _atom("updated"),
    "atom10-published.xml": _atom("published"),
}


def write(folder: str, strings: list[str]) -> int:
    """Write the feeds to FOLDER; returns how many."""
    os.makedirs(folder, exist_ok=True)
    items = [(number, escape(text)) for number, text in enumerate(strings)]
    for name, render in FEEDS.items():
        with open(os.path.join(folder, name), "w", encoding="utf-8", newline="\n") as handle:
            handle.write(render(items))
    return len(FEEDS)
