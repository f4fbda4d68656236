#!/usr/bin/env python3
"""Score a feed parser against the conformance corpus (conformance/README.md).

    compare.py CORPUS --cmd "aggregatorctl parse {file} --json {opts}" [--min PCT] [-j N]
               [--timeout S] [--show N] [--report FILE] [--filter TEXT]

Every FILE under CORPUS with a FILE.expected.json is given to the command (run by /bin/sh; the
placeholders are shell-quoted): {file} is FILE's absolute path, {opts} the --url, --content-type
and --content-language options the expected file's "_input" holds, and {url}, {content_type},
{content_language} those values alone ('' when absent). The command prints one JSON object.

The score (docs/parse-json.md, "The score") is the share of compared fields on which the
command's JSON and the expected JSON agree once normalised. The last line reads
    agreement: 99.45% of 4688 fields (26 disagree), 0 crashes, 0 timeouts, 0 non-json (1452 files)
Exit status 0; 1 when --min PCT is given and the agreement is below it; 2 on a usage error.
Python 3 standard library only.
"""
from __future__ import annotations

import argparse
import datetime
import html.parser
import json
import os
import re
import shlex
import subprocess
import sys
import time
import unicodedata
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

FEED_FIELDS = ("format", "title", "link", "subtitle", "language", "updated", "author", "image")
ENTRY_FIELDS = ("id", "link", "title", "summary", "content", "author", "published", "updated",
                "categories", "enclosures", "image")
SPACES = re.compile(r"\s+")
# Elements without content: their end tags are ignored, <br> and <br/> are one token.
VOID_ELEMENTS = frozenset(("area", "base", "basefont", "br", "col", "embed", "frame", "hr", "img",
                           "input", "isindex", "keygen", "link", "meta", "param", "source", "track",
                           "wbr"))
RFC3339 = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?\s*"
                     r"(Z|z|[+-]\d{2}:?\d{2})?$")
WHOLE_NUMBER = re.compile(r"\s*\+?(\d+)\s*")


# ---- normal forms: two values agree when their normal forms are equal --------------------------

def text(value):
    """NFC, whitespace runs as one space, trimmed; None for nothing. Non-strings as text first
    (objects and arrays as sorted JSON)."""
    if value is None:
        return None
    if not isinstance(value, str):
        value = json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else str(value)
    return SPACES.sub(" ", unicodedata.normalize("NFC", value)).strip() or None


def url(value):
    """Text, then scheme and host in lower case, the scheme's default port dropped, an empty
    path as "/". Anything that is not an absolute URL stays as text."""
    value = text(value)
    if value is None:
        return None
    try:
        parts = urllib.parse.urlsplit(value)
    except ValueError:
        return value
    if not (parts.scheme and parts.netloc):
        return value
    scheme = parts.scheme.lower()
    netloc = (parts.hostname or "").lower()
    if parts.username is not None:
        credentials = parts.username if parts.password is None else f"{parts.username}:{parts.password}"
        netloc = f"{credentials}@{netloc}"
    try:
        port = parts.port
    except ValueError:
        port = None
    if port and (scheme, port) not in (("http", 80), ("https", 443)):
        netloc += f":{port}"
    return urllib.parse.urlunsplit((scheme, netloc, parts.path or "/", parts.query, parts.fragment))


def date(value):
    """The instant an RFC 3339 value names (seconds kept, fraction dropped, no zone = UTC); a
    value that is not RFC 3339 stays as its text, marked so that it never equals an instant."""
    value = text(value)
    if value is None:
        return None
    match = RFC3339.match(value)
    if not match:
        return ("not a date", value)
    year, month, day, hour, minute, second, zone = match.groups()
    try:
        moment = datetime.datetime(int(year), int(month), int(day), int(hour), int(minute),
                                   min(int(second), 59))
        if zone and zone not in "Zz":
            sign = -1 if zone[0] == "-" else 1
            digits = zone[1:].replace(":", "")
            moment -= sign * datetime.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    except (ValueError, OverflowError):
        return ("not a date", value)
    return (moment.year, moment.month, moment.day, moment.hour, moment.minute, moment.second)


class _Tokens(html.parser.HTMLParser):
    """HTML as a list of tokens: ("<", name, sorted attributes), ("/", name) and ("text", ...)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tokens = []
        self.pending = []

    def settle(self):
        if self.pending:
            joined = SPACES.sub(" ", "".join(self.pending)).strip()
            if joined:
                self.tokens.append(("text", joined))
            self.pending = []

    def handle_starttag(self, tag, attrs):
        self.settle()
        kept = sorted((name.lower(), SPACES.sub(" ", value or "").strip()) for name, value in attrs
                      if name.lower() != "xmlns" and not name.lower().startswith("xmlns:"))
        self.tokens.append(("<", tag.lower(), tuple(kept)))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag.lower() not in VOID_ELEMENTS:
            self.settle()
            self.tokens.append(("/", tag.lower()))

    def handle_data(self, data):
        self.pending.append(data)

    def unknown_decl(self, data):
        if data.upper().startswith("CDATA["):
            self.pending.append(data[len("CDATA["):])


def markup(value):
    """HTML as tokens: attribute order and quoting, entities, white space, comments, xmlns
    attributes and the spelling of empty elements make no difference."""
    if not isinstance(value, str):
        value = text(value)
    if value is None or not value.strip():
        return None
    value = unicodedata.normalize("NFC", value)
    reader = _Tokens()
    try:
        reader.feed(value)
        reader.close()
        reader.settle()
    except Exception:
        return ("unreadable", SPACES.sub(" ", value).strip())
    return tuple(reader.tokens) or None


def language(value):
    value = text(value)
    return value.lower().replace("_", "-") if value else None


def categories(value):
    """A multiset: the normalised names, sorted."""
    if not isinstance(value, list):
        value = [] if value is None else [value]
    names = sorted(name for name in map(text, value) if name)
    return tuple(names) or None


def whole_number(value):
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    match = WHOLE_NUMBER.fullmatch(str(value))
    return int(match.group(1)) if match else None


def enclosures(value):
    """In order: (URL, type in lower case, length as a whole number); those without a URL dropped."""
    if not isinstance(value, list):
        return None
    kept = []
    for enclosure in value:
        if not isinstance(enclosure, dict):
            continue
        address = url(enclosure.get("url"))
        if address:
            kind = text(enclosure.get("type"))
            kept.append((address, kind.lower() if kind else None, whole_number(enclosure.get("length"))))
    return tuple(kept) or None


NORMAL_FORM = {
    "format": text, "title": text, "author": text, "id": text,
    "link": url, "image": url,
    "updated": date, "published": date,
    "subtitle": markup, "summary": markup, "content": markup,
    "language": language, "categories": categories, "enclosures": enclosures,
}


def agreements(expected, actual):
    """(field, agreed, expected value, actual value) for every field compared: those where either
    side has something, and the entry count when either side has entries."""
    actual = actual if isinstance(actual, dict) else {}
    for name in FEED_FIELDS:
        want, got = NORMAL_FORM[name](expected.get(name)), NORMAL_FORM[name](actual.get(name))
        if want or got:
            yield "feed." + name, want == got, expected.get(name), actual.get(name)
    wanted = expected.get("entries") or []
    given = actual.get("entries") if isinstance(actual.get("entries"), list) else []
    if wanted or given:
        yield "entries.count", len(wanted) == len(given), len(wanted), len(given)
    for index in range(max(len(wanted), len(given))):
        want_entry = wanted[index] if index < len(wanted) and isinstance(wanted[index], dict) else {}
        got_entry = given[index] if index < len(given) and isinstance(given[index], dict) else {}
        for name in ENTRY_FIELDS:
            want, got = NORMAL_FORM[name](want_entry.get(name)), NORMAL_FORM[name](got_entry.get(name))
            if want or got:
                yield "entry." + name, want == got, want_entry.get(name), got_entry.get(name)


# ---- running the parser under test -------------------------------------------------------------

def command_line(template, path, given):
    quoted = {key: shlex.quote(given.get(key) or "") for key in ("url", "content_type", "content_language")}
    options = []
    for key, option in (("url", "--url"), ("content_type", "--content-type"),
                        ("content_language", "--content-language")):
        if given.get(key):
            options.append(f"{option} {quoted[key]}")
    return template.format(file=shlex.quote(os.path.abspath(path)), opts=" ".join(options), **quoted)


def run(template, path, given, timeout):
    """("ok", document, "") or ("crash" | "timeout" | "non-json", None, what happened)."""
    try:
        finished = subprocess.run(command_line(template, path, given), shell=True, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", None, f"still running after {timeout:g} s"
    if finished.returncode != 0:
        lines = finished.stderr.decode("utf-8", "replace").strip().splitlines()
        return "crash", None, f"exit status {finished.returncode}: {(lines or [''])[-1][:200]}"
    try:
        document = json.loads(finished.stdout.decode("utf-8"))
    except (ValueError, RecursionError) as error:
        return "non-json", None, str(error)[:160]
    if not isinstance(document, dict):
        return "non-json", None, "the output is JSON but not an object"
    return "ok", document, ""


def cases(corpus):
    """Every FILE under CORPUS that has a FILE.expected.json, in a stable order."""
    found = []
    for folder, subfolders, names in os.walk(corpus):
        subfolders.sort()
        present = set(names)
        for name in sorted(names):
            if name.endswith(".expected.json") and name[:-len(".expected.json")] in present:
                found.append(os.path.join(folder, name[:-len(".expected.json")]))
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus")
    parser.add_argument("--cmd", required=True, help="the command template, with {file} in it")
    parser.add_argument("--min", type=float, metavar="PCT", help="fail (exit 1) below PCT %% agreement")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="files at once")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds a file may take (10)")
    parser.add_argument("--show", type=int, default=0, metavar="N", help="print the first N disagreements")
    parser.add_argument("--report", metavar="FILE", help="write every disagreement to FILE, one JSON line each")
    parser.add_argument("--filter", metavar="TEXT", help="only the files whose path contains TEXT")
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:
        return 2 if stop.code else 0
    if "{file}" not in args.cmd:
        print("compare.py: --cmd needs {file}", file=sys.stderr)
        return 2
    try:
        command_line(args.cmd, "feed.xml", {})
    except (KeyError, IndexError, ValueError) as error:
        print(f"compare.py: --cmd: unknown placeholder {error}; there are {{file}} {{opts}} {{url}} "
              "{content_type} {content_language}", file=sys.stderr)
        return 2
    if not os.path.isdir(args.corpus):
        print(f"compare.py: {args.corpus} is not a folder", file=sys.stderr)
        return 2
    paths = [path for path in cases(args.corpus) if not args.filter or args.filter in path]
    if not paths:
        print(f"compare.py: no FILE with a FILE.expected.json under {args.corpus}", file=sys.stderr)
        return 2

    def score_one(path):
        with open(path + ".expected.json", encoding="utf-8") as handle:
            expected = json.load(handle)
        outcome, document, detail = run(args.cmd, path, expected.get("_input") or {}, args.timeout)
        return path, expected, outcome, document, detail

    started = time.monotonic()
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = list(pool.map(score_one, paths))
    elapsed = time.monotonic() - started

    per_field = {}
    outcomes = {"ok": 0, "crash": 0, "timeout": 0, "non-json": 0}
    compared = agreed = whole_files = shown = 0
    report = open(args.report, "w", encoding="utf-8") if args.report else None
    for path, expected, outcome, document, detail in results:
        relpath = os.path.relpath(path, args.corpus)
        outcomes[outcome] += 1
        if outcome != "ok":
            if report:
                report.write(json.dumps({"file": relpath, "outcome": outcome, "detail": detail}) + "\n")
            if shown < args.show:
                print(f"{outcome}: {relpath}: {detail}")
                shown += 1
        all_agree = outcome == "ok"
        for name, same, want, got in agreements(expected, document):
            tally = per_field.setdefault(name, [0, 0])
            tally[0] += 1
            compared += 1
            if same:
                tally[1] += 1
                agreed += 1
                continue
            all_agree = False
            if report:
                report.write(json.dumps({"file": relpath, "field": name, "expected": want, "actual": got},
                                        ensure_ascii=False) + "\n")
            if outcome == "ok" and shown < args.show:
                print(f"differs: {relpath} {name}\n  expected {json.dumps(want, ensure_ascii=False)[:300]}"
                      f"\n  actual   {json.dumps(got, ensure_ascii=False)[:300]}")
                shown += 1
        whole_files += all_agree
    if report:
        report.close()

    print(f"{'field':<16} {'agree':>7} {'of':>7} {'share':>8}")
    for name in ["feed." + each for each in FEED_FIELDS] + ["entries.count"] + ["entry." + each for each in ENTRY_FIELDS]:
        if name in per_field:
            total, same = per_field[name]
            print(f"{name:<16} {same:>7} {total:>7} {100.0 * same / total:>7.2f}%")
    share = 100.0 * agreed / compared if compared else 100.0
    print(f"files: {len(results)}, {whole_files} agreeing in every field, {elapsed:.1f} s")
    print(f"agreement: {share:.2f}% of {compared} fields ({compared - agreed} disagree), "
          f"{outcomes['crash']} crashes, {outcomes['timeout']} timeouts, {outcomes['non-json']} non-json "
          f"({len(results)} files)")
    if args.min is not None and share < args.min:
        print(f"compare.py: agreement {share:.2f}% is below the minimum {args.min:g}%", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
