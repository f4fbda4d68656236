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

How it is laid out: each kind of field is a `Kind`, whose key() gives a value's normal form;
FEED_SCHEMA and ENTRY_SCHEMA give every key of the JSON its kind. `fields()` lists what there is
to compare in one file, a `Candidate` runs the command, and a `Scoreboard` keeps the count and
says what it is told to show or report.
"""
from __future__ import annotations

import argparse
import collections
import datetime
import html.parser
import itertools
import json
import os
import re
import shlex
import subprocess
import sys
import time
import unicodedata
import urllib.parse
from multiprocessing.pool import ThreadPool

from corpus import files_in_order

EXPECTED = ".expected.json"


def one_line(text):
    """TEXT with each run of white space one space, and none at its ends."""
    return " ".join(text.split())


# ---- kinds of field: two values agree when their keys are equal ---------------------------------

class Kind:
    """A field whose values are compared as they are. A field is compared only when the key of
    one side or the other is something (not None, not empty, not 0)."""

    def key(self, value):
        return value


class Text(Kind):
    """NFC, white space runs as one space, trimmed; None for nothing. Other JSON as text first:
    objects and arrays as JSON with sorted keys."""

    def key(self, value):
        if value is None:
            return None
        if isinstance(value, (dict, list)):
            value = json.dumps(value, sort_keys=True)
        return one_line(unicodedata.normalize("NFC", str(value))) or None


class Address(Text):
    """Text; an absolute URL with its scheme and host in lower case, its scheme's default port
    dropped and an empty path as "/"."""

    DEFAULT_PORT = {"http": 80, "https": 443}

    def key(self, value):
        value = super().key(value)
        parts = self.absolute(value)
        if parts is None:
            return value
        scheme = parts.scheme.lower()
        credentials, at, _ = parts.netloc.rpartition("@")
        netloc = credentials + at + (parts.hostname or "").lower()
        port = self.port(parts)
        if port and self.DEFAULT_PORT.get(scheme) != port:
            netloc += f":{port}"
        return urllib.parse.urlunsplit((scheme, netloc, parts.path or "/", parts.query, parts.fragment))

    @staticmethod
    def absolute(value):
        """VALUE (text or None) split, when it is a URL with a scheme and a host; else None."""
        try:
            parts = urllib.parse.urlsplit(value or "")
        except ValueError:
            return None
        return parts if parts.scheme and parts.netloc else None

    @staticmethod
    def port(parts):
        try:
            return parts.port
        except ValueError:  # not a number, or out of range
            return None


class Moment(Text):
    """The instant an RFC 3339 value names (fractions dropped, a leap second as :59, no zone as
    UTC). Other text is kept, marked, so that it equals only the same text, never an instant."""

    RFC3339 = re.compile(r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?\s*"
                         r"([Zz]|[+-]\d{2}:?\d{2})?")

    def key(self, value):
        value = super().key(value)
        if value is None:
            return None
        found = self.RFC3339.fullmatch(value)
        instant = self.utc(found.groups()) if found else None
        return ("not a date", value) if instant is None else instant

    @staticmethod
    def utc(groups):
        *numbers, zone = groups
        year, month, day, hour, minute, second = map(int, numbers)
        try:
            local = datetime.datetime(year, month, day, hour, minute, min(second, 59))
            if zone is None or zone in "Zz":
                return local
            offset = datetime.timedelta(hours=int(zone[1:3]), minutes=int(zone[-2:]))
            return local - offset if zone[0] == "+" else local + offset
        except (ValueError, OverflowError):  # no such day, or out of datetime's years
            return None


VOID_ELEMENTS = frozenset("area base basefont br col embed frame hr img input isindex keygen link "
                          "meta param source track wbr".split())


class Markup(Kind):
    """HTML as a tuple of tokens, ("<", tag, sorted attributes), ("/", tag) and ("text", text):
    attribute order and quoting, character references, white space, comments, xmlns attributes,
    end tags of void elements and so the spelling <br>, <br/> make no difference."""

    def key(self, value):
        if not isinstance(value, str):
            value = TEXT.key(value)
        if value is None or not value.strip():
            return None
        value = unicodedata.normalize("NFC", value)
        try:
            events = self.events(value)
        except Exception:  # HTMLParser gives up on some broken declarations
            return ("unreadable", one_line(value))
        return tuple(self.tokens(events)) or None

    @staticmethod
    def events(fragment):
        """FRAGMENT as read by HTMLParser: ("<", tag, attributes), ("/", tag) for an element that is
        not void, and (None, text), CDATA sections included."""
        events = []
        reader = html.parser.HTMLParser(convert_charrefs=True)

        def opened(tag, attributes):
            kept = ((name.lower(), one_line(value or "")) for name, value in attributes
                    if name.lower().partition(":")[0] != "xmlns")
            events.append(("<", tag.lower(), tuple(sorted(kept))))

        def closed(tag):
            if tag.lower() not in VOID_ELEMENTS:
                events.append(("/", tag.lower()))

        def declaration(text):  # <![CDATA[...]]> arrives here without "<![" and "]]>"
            if text.upper().startswith("CDATA["):
                events.append((None, text[len("CDATA["):]))

        # HTMLParser's own handle_startendtag calls these two in turn.
        reader.handle_starttag, reader.handle_endtag, reader.unknown_decl = opened, closed, declaration
        reader.handle_data = lambda text: events.append((None, text))
        reader.feed(fragment)
        reader.close()
        return events

    @staticmethod
    def tokens(events):
        """The tags as they are; each run of text between two of them as one token, unless blank."""
        for is_text, run in itertools.groupby(events, key=lambda event: event[0] is None):
            if not is_text:
                yield from run
                continue
            text = one_line("".join(piece for _, piece in run))
            if text:
                yield ("text", text)


class Language(Text):
    """Text in lower case with "_" as "-"."""

    def key(self, value):
        value = super().key(value)
        return value and value.lower().replace("_", "-")


class Names(Kind):
    """A multiset of texts (a single value as a list of one): order does not matter, repeats do."""

    def key(self, value):
        values = value if isinstance(value, list) else [] if value is None else [value]
        return tuple(sorted(filter(None, map(TEXT.key, values)))) or None


class Attachments(Kind):
    """A list in order of (URL as an Address, type in lower case, length as a whole number);
    those without a URL left out."""

    def key(self, value):
        if not isinstance(value, list):
            return None
        triples = (self.triple(attachment) for attachment in value if isinstance(attachment, dict))
        return tuple(filter(None, triples)) or None

    @classmethod
    def triple(cls, attachment):
        address = ADDRESS.key(attachment.get("url"))
        if not address:
            return None
        mime = TEXT.key(attachment.get("type"))
        return address, mime and mime.lower(), cls.whole(attachment.get("length"))

    @staticmethod
    def whole(value):
        if type(value) is int:
            return value
        if type(value) is float:
            return int(value) if value.is_integer() else None
        # Text (a "+" may lead, white space surround the digits); None, true and false are no digits.
        digits = str(value).strip().removeprefix("+")
        return int(digits) if digits.isdecimal() else None


TEXT, ADDRESS, MOMENT, MARKUP = Text(), Address(), Moment(), Markup()
FEED_SCHEMA = (("format", TEXT), ("title", TEXT), ("link", ADDRESS), ("subtitle", MARKUP),
               ("language", Language()), ("updated", MOMENT), ("author", TEXT), ("image", ADDRESS))
ENTRY_SCHEMA = (("id", TEXT), ("link", ADDRESS), ("title", TEXT), ("summary", MARKUP),
                ("content", MARKUP), ("author", TEXT), ("published", MOMENT), ("updated", MOMENT),
                ("categories", Names()), ("enclosures", Attachments()), ("image", ADDRESS))
COUNT = Kind()  # entries.count: the numbers of entries, compared as they are
LABELS = ([f"feed.{name}" for name, _ in FEED_SCHEMA] + ["entries.count"]
          + [f"entry.{name}" for name, _ in ENTRY_SCHEMA])


def fields(expected, actual):
    """(label, kind, expected value, actual value) for every field there may be to compare: the
    feed's, the number of entries, then each entry's, the entries paired by position."""
    actual = actual if isinstance(actual, dict) else {}
    for name, kind in FEED_SCHEMA:
        yield f"feed.{name}", kind, expected.get(name), actual.get(name)
    wanted = expected.get("entries") or []
    given = actual.get("entries") if isinstance(actual.get("entries"), list) else []
    yield "entries.count", COUNT, len(wanted), len(given)
    for pair in itertools.zip_longest(wanted, given):
        want, got = (entry if isinstance(entry, dict) else {} for entry in pair)
        for name, kind in ENTRY_SCHEMA:
            yield f"entry.{name}", kind, want.get(name), got.get(name)


# ---- the parser under test ----------------------------------------------------------------------

Outcome = collections.namedtuple("Outcome", "status document detail")


class Candidate:
    """The command under test, from TEMPLATE, run through /bin/sh once a file."""

    OPTIONS = (("url", "--url"), ("content_type", "--content-type"), ("content_language", "--content-language"))

    def __init__(self, template, timeout):
        self.template, self.timeout = template, timeout

    def command(self, path, given):
        values = {key: shlex.quote(given.get(key) or "") for key, _ in self.OPTIONS}
        opts = " ".join(f"{option} {values[key]}" for key, option in self.OPTIONS if given.get(key))
        return self.template.format(file=shlex.quote(os.path.abspath(path)), opts=opts, **values)

    def outcome(self, path, given):
        """Outcome("ok", the JSON object, ""), or a status of "crash", "timeout" or "non-json" with
        no document and what happened."""
        try:
            finished = subprocess.run(self.command(path, given), shell=True, stdin=subprocess.DEVNULL,
                                      capture_output=True, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            return Outcome("timeout", None, f"still running after {self.timeout:g} s")
        if finished.returncode:
            said = finished.stderr.decode("utf-8", "replace").strip().splitlines() or [""]
            return Outcome("crash", None, f"exit status {finished.returncode}: {said[-1][:200]}")
        return self.decoded(finished.stdout)

    @staticmethod
    def decoded(stdout):
        try:
            document = json.loads(stdout.decode("utf-8"))
        except (ValueError, RecursionError) as error:
            return Outcome("non-json", None, str(error)[:160])
        if isinstance(document, dict):
            return Outcome("ok", document, "")
        return Outcome("non-json", None, "the output is JSON but not an object")


# ---- the score ----------------------------------------------------------------------------------

class Scoreboard:
    """The count: per field label [compared, agreed], the outcomes, the files in full agreement.
    Prints the first SHOW problems and writes all of them to REPORT (a file, or None)."""

    def __init__(self, show, report):
        self.per_label = collections.defaultdict(lambda: [0, 0])
        self.outcomes = collections.Counter()
        self.files = self.whole_files = 0
        self.show_left, self.report = show, report

    def score(self, relpath, expected, outcome):
        self.files += 1
        self.outcomes[outcome.status] += 1
        if outcome.status != "ok":
            self.log({"file": relpath, "outcome": outcome.status, "detail": outcome.detail},
                     f"{outcome.status}: {relpath}: {outcome.detail}", ascii_only=True)
        disagreements = 0
        for label, kind, want, got in fields(expected, outcome.document):
            want_key, got_key = kind.key(want), kind.key(got)
            if not (want_key or got_key):
                continue
            tally = self.per_label[label]
            tally[0] += 1
            if want_key == got_key:
                tally[1] += 1
                continue
            disagreements += 1
            shown = json.dumps(want, ensure_ascii=False)[:300], json.dumps(got, ensure_ascii=False)[:300]
            self.log({"file": relpath, "field": label, "expected": want, "actual": got},
                     f"differs: {relpath} {label}\n  expected {shown[0]}\n  actual   {shown[1]}"
                     if outcome.status == "ok" else None)
        self.whole_files += outcome.status == "ok" and not disagreements

    def log(self, record, line, ascii_only=False):
        """REPORT gets the record; stdout the line (if any), while fewer than SHOW have been printed."""
        if self.report:
            self.report.write(json.dumps(record, ensure_ascii=ascii_only) + "\n")
        if line is not None and self.show_left > 0:
            print(line)
            self.show_left -= 1

    def totals(self):
        compared = sum(tally[0] for tally in self.per_label.values())
        agreed = sum(tally[1] for tally in self.per_label.values())
        return compared, agreed

    def summary(self, seconds):
        """Prints the table and the last two lines; returns the agreement in %."""
        print(f"{'field':<16} {'agree':>7} {'of':>7} {'share':>8}")
        for label in filter(self.per_label.__contains__, LABELS):
            compared, agreed = self.per_label[label]
            print(f"{label:<16} {agreed:>7} {compared:>7} {100.0 * agreed / compared:>7.2f}%")
        compared, agreed = self.totals()
        share = 100.0 * agreed / compared if compared else 100.0
        crashes, timeouts, garbled = (self.outcomes[status] for status in ("crash", "timeout", "non-json"))
        print(f"files: {self.files}, {self.whole_files} agreeing in every field, {seconds:.1f} s")
        print(f"agreement: {share:.2f}% of {compared} fields ({compared - agreed} disagree), {crashes} crashes, "
              f"{timeouts} timeouts, {garbled} non-json ({self.files} files)")
        return share


# ---- the command line ---------------------------------------------------------------------------

def cases(root):
    """Every FILE under ROOT beside which there is a FILE.expected.json, in the corpus's order."""
    names = files_in_order(root)
    present = set(names)
    return [os.path.join(root, *name[:-len(EXPECTED)].split("/")) for name in names
            if name.endswith(EXPECTED) and name[:-len(EXPECTED)] in present]


ARGUMENTS = (
    (("corpus",), {}),
    (("--cmd",), {"required": True, "help": "the command template, with {file} in it"}),
    (("--min",), {"type": float, "metavar": "PCT", "help": "fail (exit 1) below PCT %% agreement"}),
    (("-j", "--jobs"), {"type": int, "default": os.cpu_count() or 1, "help": "files at once"}),
    (("--timeout",), {"type": float, "default": 10.0, "help": "seconds a file may take (10)"}),
    (("--show",), {"type": int, "default": 0, "metavar": "N", "help": "print N disagreements, the first ones"}),
    (("--report",), {"metavar": "FILE", "help": "write every disagreement to FILE, one JSON line each"}),
    (("--filter",), {"metavar": "TEXT", "help": "only the files whose path contains TEXT"}),
)


def usage_error(args):
    """What is wrong with the command line ARGS, or None."""
    if "{file}" not in args.cmd:
        return "--cmd needs {file}"
    try:
        Candidate(args.cmd, args.timeout).command("feed.xml", {})
    except (KeyError, IndexError, ValueError) as error:
        return (f"--cmd: unknown placeholder {error}; there are {{file}} {{opts}} {{url}} "
                "{content_type} {content_language}")
    if not os.path.isdir(args.corpus):
        return f"{args.corpus} is not a folder"
    return None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for flags, settings in ARGUMENTS:
        parser.add_argument(*flags, **settings)
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:
        return 2 if stop.code else 0
    problem = usage_error(args)
    paths = [] if problem else [path for path in cases(args.corpus) if not args.filter or args.filter in path]
    if not problem and not paths:
        problem = f"no FILE with a FILE.expected.json under {args.corpus}"
    if problem:
        print(f"compare.py: {problem}", file=sys.stderr)
        return 2

    candidate = Candidate(args.cmd, args.timeout)

    def judged(path):
        with open(path + EXPECTED, encoding="utf-8") as handle:
            expected = json.load(handle)
        return path, expected, candidate.outcome(path, expected.get("_input") or {})

    started = time.monotonic()
    report = open(args.report, "w", encoding="utf-8") if args.report else None
    board = Scoreboard(args.show, report)
    with ThreadPool(max(1, args.jobs)) as workers:
        for path, expected, outcome in workers.imap(judged, paths):
            board.score(os.path.relpath(path, args.corpus), expected, outcome)
    if report:
        report.close()
    share = board.summary(time.monotonic() - started)
    failed = args.min is not None and share < args.min
    if failed:
        print(f"compare.py: agreement {share:.2f}% is below the minimum {args.min:g}%", file=sys.stderr)
    return int(failed)


if __name__ == "__main__":
    sys.exit(main())
