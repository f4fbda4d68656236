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

How the mapping is laid out: a `View` answers the keys of the JSON (CHANNEL_KEYS for the feed,
ITEM_KEYS for an entry) with one method a key, so each kind of source is a pair of classes,
`ParsedFeed`/`ParsedEntry` over feedparser's result and `JsonFeed`/`JsonItem` over a JSON Feed
document, and `View.render()` asks them for every key in order.
"""
from __future__ import annotations

import argparse
import html
import io
import json
import multiprocessing
import os
import re
import sys
import time
import types
import unicodedata
import urllib.parse
import warnings
from html.parser import HTMLParser

# The expected JSON must come out the same on any machine and in any month: the oracle works in
# UTC, and feedparser's ISO 8601 reader, which completes a date lacking its year, month or day
# from the clock, reads a clock stopped at FROZEN_AT.
os.environ["TZ"] = "UTC"
time.tzset()
warnings.simplefilter("ignore")

import feedparser  # noqa: E402
import feedparser.datetimes.iso8601  # noqa: E402
import feedparser.encodings  # noqa: E402
from feedparser.datetimes import _parse_date  # noqa: E402
from feedparser.mixin import _FeedParserMixin  # noqa: E402
from feedparser.urls import make_safe_absolute_uri  # noqa: E402

from corpus import files_in_order  # noqa: E402

FROZEN_AT = 1796083200  # 2026-12-01T00:00:00Z


def stopped_clock() -> types.ModuleType:
    """A copy of the `time` module whose gmtime() without an argument is FROZEN_AT."""
    clock = types.ModuleType("time")
    clock.__dict__.update(vars(time))
    clock.gmtime = lambda seconds=None: time.gmtime(FROZEN_AT if seconds is None else seconds)
    return clock


feedparser.datetimes.iso8601.time = stopped_clock()
# No charset guessing, whether or not chardet can be imported: the candidates are the HTTP,
# declared and BOM encodings, then utf-8, windows-1252 and iso-8859-2 (docs/parse-json.md).
feedparser.encodings.lazy_chardet_encoding = None

ORACLE = f"feedparser {feedparser.__version__}, sanitize_html=False, resolve_relative_uris=False"
HARNESS_URL = "http://127.0.0.1:8097/tests/"  # where feedparser's test runner serves tests/
JSONFEED_VERSION = "https://jsonfeed.org/version/"

CHANNEL_KEYS = ("format", "title", "link", "subtitle", "language", "updated", "author", "image",
                "entries")
ITEM_KEYS = ("id", "link", "title", "summary", "content", "author", "published", "updated",
             "categories", "enclosures", "image")

# feedparser's `version` for each `format` of the JSON; any other version is "unknown".
FORMAT_OF_VERSION = {version: name for name, versions in {
    "rss090": ("rss090",),
    "rss091": ("rss091n", "rss091u"),
    "rss092": ("rss092",),
    "rss10": ("rss10",),
    "rss20": ("rss093", "rss094", "rss20", "rss"),
    "atom03": ("atom01", "atom02", "atom03", "atom"),
    "atom10": ("atom10",),
}.items() for version in versions}
# feedparser's content types under which a title is markup, to be read as text.
MARKUP_TYPES = frozenset(("text/html", "application/xhtml+xml", "html", "xhtml"))
ANY_TAG = re.compile(r"<[^>]*>")
# A "Header: Name: value" comment line of a test file (feedparser's runner sends it as a header).
HEADER_LINE = re.compile(rb"^Header:([ \t\r\x0b\x0c][^:\n]*):(.*)$", re.MULTILINE)


# ---- values -------------------------------------------------------------------------------------

def one_line(value):
    """VALUE as text in NFC, each run of white space made one space and none at either end; None
    when that leaves nothing."""
    if value is None:
        return None
    return " ".join(unicodedata.normalize("NFC", str(value)).split()) or None


def stripped(value):
    """VALUE as text without white space at its ends; None when that leaves nothing."""
    return None if value is None else (str(value).strip() or None)


def pick(node, key):
    """node[key] as stored: FeedParserDict's own lookup has aliases (`link` would fall back to
    `links`, `description` to `summary`...). None for a missing key or a NODE that is no dict."""
    return dict.get(node, key) if isinstance(node, dict) else None


def heading(value, content_type):
    """A title as one line of plain text; CONTENT_TYPE is feedparser's type for it, and markup is
    read for its text: tags and comments dropped, character references decoded."""
    if value is not None and (content_type or "").lower() in MARKUP_TYPES:
        shown = []
        reader = HTMLParser(convert_charrefs=True)
        reader.handle_data = shown.append
        try:
            reader.feed(value)
            reader.close()
            value = "".join(shown)
        except Exception:  # HTMLParser gives up on some broken declarations
            value = html.unescape(ANY_TAG.sub("", value))
    return one_line(value)


def utc_stamp(parsed):
    """feedparser's time tuple (UTC) as YYYY-MM-DDTHH:MM:SSZ; None when there is none or its year
    is outside 1 to 9999, where RFC 3339 has no way to write it."""
    try:
        if parsed and 1 <= parsed[0] <= 9999:
            year, month, day, hour, minute, second = parsed[:6]
            return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}Z"
    except (TypeError, ValueError, IndexError):
        pass
    return None


def byte_size(value):
    """An enclosure's length: a whole number of bytes, not negative; None for anything else."""
    if type(value) in (int, float):
        return int(value) if value >= 0 and value % 1 == 0 else None
    # Text, and None or true/false, which are no digits: a "+" may lead, white space surround.
    digits = str(value).strip().removeprefix("+")
    return int(digits) if digits.isdecimal() else None


def is_picture(medium=None, mime_type=None):
    return ((medium or "").strip().lower() == "image"
            or (mime_type or "").strip().lower().startswith("image/"))


def first_picture(enclosures):
    return next((each["url"] for each in enclosures if is_picture(mime_type=each["type"])), None)


def empty_document():
    """The JSON of a document nobody could read."""
    document = dict.fromkeys(CHANNEL_KEYS)
    document.update(format="unknown", entries=[])
    return document


# ---- the views ----------------------------------------------------------------------------------

class View:
    """A feed or an entry as the JSON has it: a subclass has a method for each key of KEYS."""

    KEYS: tuple = ()

    def render(self) -> dict:
        return {key: getattr(self, key)() for key in self.KEYS}


class _Parsed(View):
    """What feedparser made of the channel or of one item. ATOM: the feed is Atom, where a `link`
    that is none of the element's <link>s is the <id> feedparser copied there, not a page."""

    def __init__(self, node, atom):
        self.node, self.atom = node, atom

    def get(self, key):
        return pick(self.node, key)

    def every(self, key):
        return self.get(key) or []

    def link(self):
        link = stripped(self.get("link"))
        if link and self.atom and link not in {stripped(pick(each, "href")) for each in self.every("links")}:
            return None
        return link

    def title(self):
        return heading(self.get("title"), pick(self.get("title_detail"), "type"))

    def author(self):
        """The first author with a name (else an e-mail address); else the plain `author`."""
        named = (one_line(pick(person, "name")) or one_line(pick(person, "email"))
                 for person in self.every("authors") if person)
        return next(filter(None, named), None) or one_line(self.get("author"))


class ParsedEntry(_Parsed):
    KEYS = ITEM_KEYS

    def id(self):
        return stripped(self.get("id"))

    def summary(self):
        return stripped(self.get("summary"))

    def content(self):
        bodies = (pick(part, "value") for part in self.every("content"))
        return next((body.strip() for body in bodies if body is not None and body.strip()), None)

    def published(self):
        return utc_stamp(self.get("published_parsed"))

    def updated(self):
        return utc_stamp(self.get("updated_parsed"))

    def categories(self):
        names = (one_line(pick(tag, "term")) or one_line(pick(tag, "label")) for tag in self.every("tags"))
        return [name for name in names if name]

    def enclosures(self):
        found = []
        for link in self.every("links"):
            address = stripped(pick(link, "href"))
            if address and pick(link, "rel") == "enclosure":
                found.append({"url": address, "type": stripped(pick(link, "type")),
                              "length": byte_size(pick(link, "length"))})
        return found

    def image(self):
        return next(filter(None, self._pictures()), None)

    def _pictures(self):
        """Where an entry's picture may be, best first: a media thumbnail, media content that is an
        image, an enclosure that is one, the entry's own image."""
        for thumbnail in self.every("media_thumbnail"):
            yield stripped(pick(thumbnail, "url"))
        for media in self.every("media_content"):
            if is_picture(pick(media, "medium"), pick(media, "type")):
                yield stripped(pick(media, "url"))
        yield first_picture(self.enclosures())
        yield stripped(pick(self.get("image"), "href"))


class ParsedFeed(_Parsed):
    KEYS = CHANNEL_KEYS

    def __init__(self, result):
        self.result = result
        self.version = pick(result, "version") or ""
        super().__init__(pick(result, "feed") or {}, self.version.startswith("atom"))

    def format(self):
        return FORMAT_OF_VERSION.get(self.version, "unknown")

    def subtitle(self):
        return stripped(self.get("subtitle"))

    def language(self):
        return stripped(self.get("language"))

    def updated(self):
        return utc_stamp(self.get("updated_parsed")) or utc_stamp(self.get("published_parsed"))

    def image(self):
        return stripped(pick(self.get("image"), "href")) or stripped(self.get("logo"))

    def entries(self):
        return [ParsedEntry(entry, self.atom).render() for entry in pick(self.result, "entries") or []]


def scalar(value):
    """A JSON string or number as text without white space at its ends; None for anything else."""
    return None if isinstance(value, (dict, list, bool)) else stripped(value)


class _Json(View):
    """An object of a JSON Feed document; BASE (the --url) resolves its relative URLs."""

    def __init__(self, node, base):
        self.node, self.base = node, base

    def text(self, key):
        return scalar(self.node.get(key))

    def array(self, key):
        value = self.node.get(key)
        return value if isinstance(value, list) else []

    def resolved(self, value):
        value = scalar(value)
        return urllib.parse.urljoin(self.base, value) if value and self.base else value

    def headline(self, key):
        """Plain text by the JSON Feed spec, yet often escaped HTML: taken as feedparser takes an
        RSS title, as HTML when it looks like HTML."""
        value = self.text(key)
        if value is None:
            return None
        return heading(value, "text/html" if _FeedParserMixin.looks_like_html(value) else "text/plain")

    def moment(self, key):
        value = self.text(key)
        return utc_stamp(_parse_date(value)) if value else None

    def author(self):
        """The first of `authors` with a name, else the 1.0 `author` when it has one."""
        for person in self.array("authors") + [self.node.get("author")]:
            if isinstance(person, dict) and scalar(person.get("name")):
                return one_line(person["name"])
        return None


class JsonItem(_Json):
    KEYS = ITEM_KEYS

    def id(self):
        return self.text("id")

    def link(self):
        return self.resolved(self.node.get("url"))

    def title(self):
        return self.headline("title")

    def summary(self):
        return self.text("summary")

    def content(self):
        return self.text("content_html") or self.text("content_text")

    def published(self):
        return self.moment("date_published")

    def updated(self):
        return self.moment("date_modified")

    def categories(self):
        # Numbers count as names (true and false too, being ints to Python).
        names = (one_line(tag) for tag in self.array("tags") if isinstance(tag, (str, int, float)))
        return [name for name in names if name]

    def enclosures(self):
        return [{"url": self.resolved(attachment.get("url")), "type": scalar(attachment.get("mime_type")),
                 "length": byte_size(attachment.get("size_in_bytes"))}
                for attachment in self.array("attachments")
                if isinstance(attachment, dict) and scalar(attachment.get("url"))]

    def image(self):
        image = self.resolved(self.node.get("image"))
        return first_picture(self.enclosures()) if image is None else image


class JsonFeed(_Json):
    KEYS = CHANNEL_KEYS

    def format(self):
        return "jsonfeed"

    def title(self):
        return self.headline("title")

    def link(self):
        return self.resolved(self.node.get("home_page_url"))

    def subtitle(self):
        return self.text("description")

    def language(self):
        return self.text("language")

    def updated(self):
        return None

    def image(self):
        return self.resolved(self.node.get("icon"))

    def entries(self):
        return [JsonItem(item, self.base).render() for item in self.array("items") if isinstance(item, dict)]


# ---- one document -------------------------------------------------------------------------------

def json_document(data):
    """The decoded value when DATA is JSON (after a BOM and white space), else None."""
    if data[:64].lstrip(b"\xef\xbb\xbf \t\r\n")[:1] not in (b"{", b"["):
        return None
    try:
        return json.loads(data.decode("utf-8-sig"))
    except (ValueError, RecursionError):
        return None


def response_headers(url, content_type, content_language):
    """The HTTP headers feedparser is given. Given any, it is given a Content-Type too: without
    one it would take iso-8859-1 and flag the feed, where a file (no --content-type) is read as
    application/xml."""
    headers = {name: value for name, value in (("content-location", url), ("content-type", content_type),
                                               ("content-language", content_language)) if value}
    if headers:
        headers.setdefault("content-type", "application/xml")
    return headers


def read(data, url=None, content_type=None, content_language=None):
    """(the JSON of the document DATA, notes on how it was read)."""
    value = json_document(data)
    if isinstance(value, dict) and str(value.get("version", "")).startswith(JSONFEED_VERSION):
        return JsonFeed(value, url).render(), {"reader": "jsonfeed", "bozo": False}
    if value is not None:
        return empty_document(), {"reader": "json", "bozo": True, "problem": "JSON that is not a JSON Feed"}
    headers = response_headers(url, content_type, content_language)
    result = feedparser.parse(io.BytesIO(data), response_headers=headers, sanitize_html=False,
                              resolve_relative_uris=False)
    trouble = pick(result, "bozo_exception")
    notes = {"reader": "feedparser", "version": pick(result, "version") or "",
             "encoding": pick(result, "encoding"), "bozo": bool(pick(result, "bozo")),
             "problem": None if trouble is None else f"{type(trouble).__name__}: {trouble}"}
    return ParsedFeed(result).render(), notes


# ---- the corpus ---------------------------------------------------------------------------------

def served_as(data, test):
    """How feedparser's test runner hands over tests/TEST (DATA its bytes): a test whose path says
    "http" is served from HARNESS_URL, with the headers of its "Header:" lines. {} for a file."""
    if "http" not in test:
        return {}
    headers = {}
    for name, value in HEADER_LINE.findall(data):
        if name.strip():
            headers[name.decode("utf-8").strip().lower()] = value.decode("utf-8").strip()
    here, moved = HARNESS_URL + test, headers.get("content-location", "")
    given = {"url": make_safe_absolute_uri(here, moved) or make_safe_absolute_uri(moved) or here}
    for header in ("content-type", "content-language"):
        if header in headers:
            given[header.replace("-", "_")] = headers[header]
    return given


def write_expected(job):
    """Write PATH.expected.json for JOB = (PATH, its path in the corpus); returns (that path, why
    feedparser failed or None)."""
    path, name = job
    with open(path, "rb") as source:
        data = source.read()
    test = name.partition("feedparser/")[2] if name.startswith("feedparser/") else None
    given = {} if test is None else served_as(data, test)
    failure = None
    try:
        document, notes = read(data, given.get("url"), given.get("content_type"), given.get("content_language"))
    except Exception as error:  # feedparser itself gave up: the expected answer is an empty one
        failure = f"{type(error).__name__}: {error}"
        document, notes = empty_document(), {"reader": "feedparser", "failure": failure}
    document.update(_input=given, _meta={**notes, "oracle": ORACLE})
    with open(path + ".expected.json", "w", encoding="utf-8") as out:
        out.write(json.dumps(document, ensure_ascii=False, indent=1) + "\n")
    return name, failure


def corpus_feeds(root):
    """(path, path in the corpus) of every .xml and .json feed under ROOT."""
    return [(os.path.join(root, *name.split("/")), name) for name in files_in_order(root)
            if name.endswith((".xml", ".json")) and not name.endswith(".expected.json")]


def build(args):
    started = time.monotonic()
    jobs = corpus_feeds(args.corpus)
    with multiprocessing.Pool(max(1, args.jobs)) as workers:
        for name, failure in workers.imap(write_expected, jobs, chunksize=8):
            if failure:
                print(f"oracle: feedparser failed on {name}: {failure}", file=sys.stderr)
    print(f"oracle: {len(jobs)} expected files written in {time.monotonic() - started:.1f} s ({ORACLE})")
    return 0


def parse(args):
    with open(args.file, "rb") as source:
        document, _ = read(source.read(), args.url, args.content_type, args.content_language)
    print(json.dumps(document, ensure_ascii=False))
    return 0


# (function, help, its arguments as (flags, settings of add_argument)) for each subcommand.
COMMANDS = (
    (build, "write the expected JSON of every feed under CORPUS",
     [(("corpus",), {}), (("-j", "--jobs"), {"type": int, "default": os.cpu_count() or 1})]),
    (parse, "print one feed's JSON, as aggregatorctl parse does",
     [(("file",), {}),
      (("--json",), {"action": "store_true", "help": "accepted, as aggregatorctl's; the output is JSON"})]
     + [((option,), {}) for option in ("--url", "--content-type", "--content-language")]),
)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    for run, summary, arguments in COMMANDS:
        command = commands.add_parser(run.__name__, help=summary)
        for flags, settings in arguments:
            command.add_argument(*flags, **settings)
        command.set_defaults(run=run)
    args = parser.parse_args()
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
