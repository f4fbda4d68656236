#!/usr/bin/env python3
"""The conformance oracle: feedparser's reading of a feed, as the JSON of docs/parse-json.md.

Runs in the oracle's venv (feedparser and feedparser-sgmllib, pinned in
conformance/requirements.txt; `make conformance` makes it).

    oracle.py build CORPUS [-j N]
        writes FILE.expected.json beside every feed FILE under CORPUS (conformance/README.md)
    oracle.py parse FILE [--json] [--url U] [--content-type T] [--content-language L]
        prints FILE's JSON, as `aggregatorctl parse FILE --json` does

feedparser is called with sanitize_html=False and resolve_relative_uris=False: the JSON carries
the markup as the feed has it. JSON Feed, which feedparser 6 does not read, is mapped here.
"""
from __future__ import annotations

import argparse
import html
import html.parser
import io
import json
import os
import re
import sys
import time
import unicodedata
import urllib.parse
import warnings
from concurrent.futures import ProcessPoolExecutor

# The oracle's answer must not depend on the machine: its zone is UTC, and feedparser's "now"
# (its ISO 8601 reader fills a missing year, month or day from the clock) is a fixed day.
os.environ["TZ"] = "UTC"
time.tzset()
warnings.simplefilter("ignore")

import feedparser  # noqa: E402
import feedparser.datetimes.iso8601  # noqa: E402
import feedparser.encodings  # noqa: E402
from feedparser.datetimes import _parse_date  # noqa: E402
from feedparser.mixin import _FeedParserMixin  # noqa: E402
from feedparser.urls import make_safe_absolute_uri  # noqa: E402

FIXED_NOW = 1796083200  # 2026-12-01T00:00:00Z


class _FixedClock:
    """Stands in for the `time` module inside feedparser's ISO 8601 reader."""

    def gmtime(self, seconds=None):
        return time.gmtime(FIXED_NOW if seconds is None else seconds)

    def __getattr__(self, name):
        return getattr(time, name)


feedparser.datetimes.iso8601.time = _FixedClock()
# No charset guessing, whether or not chardet happens to be importable: the candidates are the
# HTTP, declared and BOM encodings, then utf-8, windows-1252 and iso-8859-2 (docs/parse-json.md).
feedparser.encodings.lazy_chardet_encoding = None

ORACLE = f"feedparser {feedparser.__version__}, sanitize_html=False, resolve_relative_uris=False"
HARNESS_URL = "http://127.0.0.1:8097/tests/"  # where feedparser's test runner serves tests/
FEED_SUFFIXES = (".xml", ".json")

FORMATS = {
    "rss090": "rss090", "rss091n": "rss091", "rss091u": "rss091", "rss092": "rss092",
    "rss093": "rss20", "rss094": "rss20", "rss20": "rss20", "rss": "rss20", "rss10": "rss10",
    "atom01": "atom03", "atom02": "atom03", "atom03": "atom03", "atom": "atom03",
    "atom10": "atom10",
}
MARKUP_TYPES = ("text/html", "application/xhtml+xml", "html", "xhtml")
SPACES = re.compile(r"\s+")
DIGITS = re.compile(r"\s*\+?(\d+)\s*")


# ---- values -------------------------------------------------------------------------------------

def squash(value):
    """NFC, every whitespace run one space, trimmed; None when nothing is left."""
    if value is None:
        return None
    value = SPACES.sub(" ", unicodedata.normalize("NFC", str(value))).strip()
    return value or None


def trim(value):
    """Trimmed text, None when nothing is left."""
    if value is None:
        return None
    return str(value).strip() or None


def field(node, key):
    """node[key] without FeedParserDict's aliases (`link` must not fall back to `links`...)."""
    return dict.get(node, key) if isinstance(node, dict) else None


class _TextOnly(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.pieces = []

    def handle_data(self, data):
        self.pieces.append(data)


def markup_to_text(markup):
    """The text of an HTML fragment: tags and comments gone, entities decoded."""
    if not markup:
        return markup
    reader = _TextOnly()
    try:
        reader.feed(markup)
        reader.close()
    except Exception:
        return html.unescape(re.sub(r"<[^>]*>", "", markup))
    return "".join(reader.pieces)


def title_text(value, content_type):
    if value is None:
        return None
    if (content_type or "").lower() in MARKUP_TYPES:
        value = markup_to_text(value)
    return squash(value)


def instant(parsed):
    """A feedparser time tuple as YYYY-MM-DDTHH:MM:SSZ; None outside years 1 to 9999."""
    if not parsed:
        return None
    try:
        if not 1 <= parsed[0] <= 9999:
            return None
        return "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}Z".format(*parsed[:6])
    except (TypeError, ValueError, IndexError):
        return None


def length(value):
    """An enclosure's size: a non-negative whole number, else None."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float):
        return int(value) if value >= 0 and value.is_integer() else None
    match = DIGITS.fullmatch(str(value))
    return int(match.group(1)) if match else None


def author_of(node):
    """The first author's name, else that author's e-mail; else the plain `author` string."""
    for person in field(node, "authors") or []:
        if not person:
            continue
        name = squash(field(person, "name")) or squash(field(person, "email"))
        if name:
            return name
    return squash(field(node, "author"))


# ---- feeds feedparser reads ---------------------------------------------------------------------

def page_link(node, atom):
    """feedparser's `link`, but in Atom only a real <link>: feedparser also copies an entry's
    <id> there when it has no alternate link, and an id is not a page."""
    link = trim(field(node, "link"))
    if link and atom:
        hrefs = {trim(field(each, "href")) for each in field(node, "links") or []}
        if link not in hrefs:
            return None
    return link


def entry_image(entry, enclosures):
    for thumbnail in field(entry, "media_thumbnail") or []:
        url = trim(field(thumbnail, "url"))
        if url:
            return url
    for media in field(entry, "media_content") or []:
        url = trim(field(media, "url"))
        medium = (field(media, "medium") or "").strip().lower()
        kind = (field(media, "type") or "").strip().lower()
        if url and (medium == "image" or kind.startswith("image/")):
            return url
    for enclosure in enclosures:
        if (enclosure["type"] or "").lower().startswith("image/"):
            return enclosure["url"]
    image = field(entry, "image")
    return trim(field(image, "href")) if isinstance(image, dict) else None


def entry_json(entry, atom):
    content = None
    for part in field(entry, "content") or []:
        value = field(part, "value")
        if value is not None and value.strip():
            content = value.strip()
            break
    categories = []
    for tag in field(entry, "tags") or []:
        name = squash(field(tag, "term")) or squash(field(tag, "label"))
        if name:
            categories.append(name)
    enclosures = []
    for link in field(entry, "links") or []:
        url = trim(field(link, "href"))
        if field(link, "rel") == "enclosure" and url:
            enclosures.append({"url": url, "type": trim(field(link, "type")),
                               "length": length(field(link, "length"))})
    return {
        "id": trim(field(entry, "id")),
        "link": page_link(entry, atom),
        "title": title_text(field(entry, "title"), field(field(entry, "title_detail"), "type")),
        "summary": trim(field(entry, "summary")),
        "content": content,
        "author": author_of(entry),
        "published": instant(field(entry, "published_parsed")),
        "updated": instant(field(entry, "updated_parsed")),
        "categories": categories,
        "enclosures": enclosures,
        "image": entry_image(entry, enclosures),
    }


def feed_json(result):
    feed = field(result, "feed") or {}
    version = field(result, "version") or ""
    atom = version.startswith("atom")
    image = field(feed, "image")
    return {
        "format": FORMATS.get(version, "unknown"),
        "title": title_text(field(feed, "title"), field(field(feed, "title_detail"), "type")),
        "link": page_link(feed, atom),
        "subtitle": trim(field(feed, "subtitle")),
        "language": trim(field(feed, "language")),
        "updated": instant(field(feed, "updated_parsed")) or instant(field(feed, "published_parsed")),
        "author": author_of(feed),
        "image": (trim(field(image, "href")) if isinstance(image, dict) else None) or trim(field(feed, "logo")),
        "entries": [entry_json(entry, atom) for entry in field(result, "entries") or []],
    }


# ---- JSON Feed ----------------------------------------------------------------------------------

def scalar(value):
    """A JSON string or number as trimmed text; None for anything else or nothing."""
    if value is None or isinstance(value, (dict, list, bool)):
        return None
    return trim(value)


def json_author(node):
    people = node.get("authors")
    for person in people if isinstance(people, list) else []:
        if isinstance(person, dict) and scalar(person.get("name")):
            return squash(person["name"])
    person = node.get("author")
    if isinstance(person, dict) and scalar(person.get("name")):
        return squash(person["name"])
    return None


def json_title(value):
    """Plain text by the JSON Feed spec, yet often escaped HTML: read as feedparser reads an
    RSS title, HTML when it looks like HTML."""
    value = scalar(value)
    if value is None:
        return None
    return title_text(value, "text/html" if _FeedParserMixin.looks_like_html(value) else "text/plain")


def json_date(value):
    value = scalar(value)
    return instant(_parse_date(value)) if value else None


def jsonfeed_json(document, base):
    def url(value):
        value = scalar(value)
        return urllib.parse.urljoin(base, value) if value and base else value

    entries = []
    items = document.get("items")
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        attachments = item.get("attachments")
        enclosures = [
            {"url": url(each.get("url")), "type": scalar(each.get("mime_type")),
             "length": length(each.get("size_in_bytes"))}
            for each in (attachments if isinstance(attachments, list) else [])
            if isinstance(each, dict) and scalar(each.get("url"))
        ]
        image = url(item.get("image"))
        if image is None:
            image = next((each["url"] for each in enclosures
                          if (each["type"] or "").lower().startswith("image/")), None)
        tags = item.get("tags")
        categories = []
        for tag in tags if isinstance(tags, list) else []:
            if isinstance(tag, (str, int, float)) and squash(tag):
                categories.append(squash(tag))
        entries.append({
            "id": scalar(item.get("id")),
            "link": url(item.get("url")),
            "title": json_title(item.get("title")),
            "summary": scalar(item.get("summary")),
            "content": scalar(item.get("content_html")) or scalar(item.get("content_text")),
            "author": json_author(item),
            "published": json_date(item.get("date_published")),
            "updated": json_date(item.get("date_modified")),
            "categories": categories,
            "enclosures": enclosures,
            "image": image,
        })
    return {
        "format": "jsonfeed",
        "title": json_title(document.get("title")),
        "link": url(document.get("home_page_url")),
        "subtitle": scalar(document.get("description")),
        "language": scalar(document.get("language")),
        "updated": None,
        "author": json_author(document),
        "image": url(document.get("icon")),
        "entries": entries,
    }


def nothing():
    return {"format": "unknown", "title": None, "link": None, "subtitle": None, "language": None,
            "updated": None, "author": None, "image": None, "entries": []}


def as_json(data):
    """The decoded document when DATA is JSON (a BOM and white space may lead), else None."""
    start = data[:64].lstrip(b"\xef\xbb\xbf \t\r\n")
    if not start.startswith((b"{", b"[")):
        return None
    try:
        return json.loads(data.decode("utf-8-sig"))
    except (ValueError, RecursionError):
        return None


# ---- one document -------------------------------------------------------------------------------

def read(data, url=None, content_type=None, content_language=None):
    """(the JSON, what feedparser said about the document)."""
    document = as_json(data)
    if document is not None:
        if isinstance(document, dict) and str(document.get("version", "")).startswith("https://jsonfeed.org/version/"):
            return jsonfeed_json(document, url), {"reader": "jsonfeed", "bozo": False}
        return nothing(), {"reader": "json", "bozo": True, "problem": "JSON that is not a JSON Feed"}
    headers = {}
    if url:
        headers["content-location"] = url
    if content_type:
        headers["content-type"] = content_type
    if content_language:
        headers["content-language"] = content_language
    if headers and "content-type" not in headers:
        # Given headers without a Content-Type, feedparser assumes iso-8859-1 and flags the feed;
        # application/xml is what it assumes for a local file, which is what "no type" means here.
        headers["content-type"] = "application/xml"
    result = feedparser.parse(io.BytesIO(data), response_headers=headers,
                              sanitize_html=False, resolve_relative_uris=False)
    problem = field(result, "bozo_exception")
    return feed_json(result), {
        "reader": "feedparser",
        "version": field(result, "version") or "",
        "encoding": field(result, "encoding"),
        "bozo": bool(field(result, "bozo")),
        "problem": f"{type(problem).__name__}: {problem}" if problem is not None else None,
    }


def harness_input(data, relpath):
    """What feedparser's test runner gives a test of tests/RELPATH whose name says "http": it is
    served at HARNESS_URL + RELPATH with the headers of its "Header:" comment lines."""
    if "http" not in relpath:
        return {}
    headers = {}
    for line in data.split(b"\n"):
        if line.startswith(b"Header:"):
            name, colon, value = line[len(b"Header:"):].partition(b":")
            if colon and name.strip() and name[:1].isspace():
                headers[name.decode("utf-8").strip().lower()] = value.decode("utf-8").strip()
    served = HARNESS_URL + relpath
    location = headers.get("content-location", "")
    given = {"url": make_safe_absolute_uri(served, location) or make_safe_absolute_uri(location) or served}
    if "content-type" in headers:
        given["content_type"] = headers["content-type"]
    if "content-language" in headers:
        given["content_language"] = headers["content-language"]
    return given


def expect(task):
    """Write PATH.expected.json; returns (RELPATH, trouble or None)."""
    path, relpath = task
    with open(path, "rb") as handle:
        data = handle.read()
    given = harness_input(data, relpath[len("feedparser/"):]) if relpath.startswith("feedparser/") else {}
    trouble = None
    try:
        document, notes = read(data, given.get("url"), given.get("content_type"), given.get("content_language"))
    except Exception as error:  # feedparser itself failed: the expected answer is "nothing"
        trouble = f"{type(error).__name__}: {error}"
        document, notes = nothing(), {"reader": "feedparser", "failure": trouble}
    notes["oracle"] = ORACLE
    document["_input"] = given
    document["_meta"] = notes
    with open(path + ".expected.json", "w", encoding="utf-8") as handle:
        json.dump(document, handle, ensure_ascii=False, indent=1)
        handle.write("\n")
    return relpath, trouble


def feed_files(corpus):
    for folder, subfolders, names in os.walk(corpus):
        subfolders.sort()
        for name in sorted(names):
            if name.endswith(FEED_SUFFIXES) and not name.endswith(".expected.json"):
                path = os.path.join(folder, name)
                yield path, os.path.relpath(path, corpus).replace(os.sep, "/")


def build(args):
    started = time.monotonic()
    tasks = list(feed_files(args.corpus))
    with ProcessPoolExecutor(max(1, args.jobs)) as pool:
        outcomes = list(pool.map(expect, tasks, chunksize=8))
    for relpath, trouble in outcomes:
        if trouble:
            print(f"oracle: feedparser failed on {relpath}: {trouble}", file=sys.stderr)
    print(f"oracle: {len(tasks)} expected files written in {time.monotonic() - started:.1f} s ({ORACLE})")
    return 0


def parse(args):
    with open(args.file, "rb") as handle:
        document, _ = read(handle.read(), args.url, args.content_type, args.content_language)
    sys.stdout.write(json.dumps(document, ensure_ascii=False) + "\n")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("build", help="write the expected JSON of every feed under CORPUS")
    one.add_argument("corpus")
    one.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    one.set_defaults(run=build)
    two = commands.add_parser("parse", help="print one feed's JSON")
    two.add_argument("file")
    two.add_argument("--json", action="store_true", help="accepted, as aggregatorctl's; the output is JSON")
    two.add_argument("--url")
    two.add_argument("--content-type")
    two.add_argument("--content-language")
    two.set_defaults(run=parse)
    args = parser.parse_args()
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
