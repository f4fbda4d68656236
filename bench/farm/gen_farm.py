#!/usr/bin/env python3
"""Makes the "feed farm" the benchmarks run on (bench/README.md, "The feed farm").

  gen_farm.py DIR [-n N] [--seed S] [--port P]   write a farm of N feeds (default 1000, seed 42)
  gen_farm.py DIR --mutate ROUND                  a later poll: new items on top of a tenth of the feeds
  gen_farm.py DIR --lists-only [--port P]         rewrite only farm.opml and urls, for another port

DIR receives feeds/f#####.{rss,atom,rdf,json}, farm.opml (categories as nested outlines), urls
(newsboat's format, categories as tags) and manifest.json (every feed and the totals a store
should end with). The bytes depend on the arguments alone, and feed files get fixed modification
times (2024-06-01 12:00 UTC, one hour later per mutation round), so nginx's ETag and
Last-Modified are the same on every machine too; bench/farm/check.sh prints the hash that
bench/README.md records.

How it is built: every decision draws from its own stream (a Dice, named like "42:feed:7"), so
a feed can be made without making the others. Within a stream the order of the draws is the
format: one draw more, fewer or moved changes every byte after it, and the figures in
docs/BENCHMARKS.md were measured on farms made with this order. Documents are written with a
small line-per-element writer (Markup), which knows nothing of the random streams.

Also imported by the reference store stage (bench/reference) and by bench/soak_load.sh:
load_manifest, farm_entries and farm_urls.
"""
import argparse
import bisect
import contextlib
import datetime
import email.utils
import functools
import html
import itertools
import json
import math
import os
import random
import sys
import types
from typing import NamedTuple, Optional

UTC = datetime.timezone.utc
START = datetime.datetime(2024, 6, 1, 12, tzinfo=UTC)   # the farm's "now", and its files' mtime
START_EPOCH = int(START.timestamp())
MANIFEST_VERSION = 1
CROSSPOSTED = 0.03   # share of all items that repeat an item of another feed
MUTATED = 0.10       # share of the feeds one mutation round rewrites


class Kind(NamedTuple):
    family: str       # the document written, and the file's suffix
    declared: str     # the encoding an RSS document's XML declaration names
    codec: str        # the encoding its bytes are really in
    label: str        # the manifest's "encoding"
    wellformed: bool


KINDS = {
    "rss2": Kind("rss", "UTF-8", "utf-8", "UTF-8", True),
    "atom": Kind("atom", "UTF-8", "utf-8", "UTF-8", True),
    "rdf": Kind("rdf", "UTF-8", "utf-8", "UTF-8", True),
    "json": Kind("json", "UTF-8", "utf-8", "UTF-8", True),
    "latin1": Kind("rss", "ISO-8859-1", "iso-8859-1", "ISO-8859-1", True),
    "cp1252_as_utf8": Kind("rss", "UTF-8", "cp1252", "windows-1252 (declared UTF-8)", False),
    "html_entities": Kind("rss", "UTF-8", "utf-8", "UTF-8", False),  # undeclared named entities
    "xmlbase": Kind("atom", "UTF-8", "utf-8", "UTF-8", True),
    "media_heavy": Kind("rss", "UTF-8", "utf-8", "UTF-8", True),
}
# Shares of the formats. The order is part of the format: the plan's shuffle starts from it.
MIX = (("rss2", 0.55), ("atom", 0.30), ("rdf", 0.08), ("json", 0.05), ("awkward", 0.02))
AWKWARD_TURNS = ("latin1", "cp1252_as_utf8", "html_entities", "xmlbase", "media_heavy")

# category, its share of the feeds, its sub-categories
TOPICS = [(fields[0], float(fields[1]), fields[2:]) for fields in map(str.split, """
    Technology 0.28 Programming Security Gadgets
    Business 0.14 Markets Startups
    Sports 0.12 Football Cycling
    Health 0.10 Nutrition
    Science 0.14 Space Climate
    Entertainment 0.12 Film Music
    General 0.10
""".strip().splitlines())]

# ---- vocabulary (the order of each list is part of the format)

WORDS = """
    the of and to in is that for it as with was on be by at this from or an are not have which
    one you had but all were when we there can been has more if will what so no out up about into
    them than some time could other these then its two may first new people like only now over
    such after most also made many before must through back years where much your way well down
    should because each just those how too little state good very make world still own see men
    work long get here between both life being under never day same another know while last might
    great old year off come since against go came right used take three system data network
    server cloud model market price growth policy report study team league season match player
    coach health patient doctor diet sleep research energy climate planet space rocket orbit
    galaxy film album series music concert release update version security patch kernel compiler
    language library framework database query index cache latency throughput storage memory
    thread process signal parser feed reader article entry author editor review analysis forecast
    budget revenue profit startup investor funding launch product design interface mobile browser
    protocol standard open source community developer engineer scientist
""".split()
TAG_WORDS = WORDS[60:]
# Words slipped into titles and text now and then: by feed kind, NON_ASCII for the other kinds.
NON_ASCII = ("café|naïve|Zürich|São Paulo|résumé|jalapeño|Ørsted|Kraków|Málaga|über|coöperate|"
             "façade|“quoted”|it’s|—|…|€100|東京|Ελλάδα|Москва|😀|✓|½").split("|")
SPECIAL_WORDS = {
    "latin1": ("café|naïve|Zürich|São|résumé|jalapeño|Málaga|über|façade|garçon|crème|brûlée|años|"
               "niño|déjà|Ærø|Öl|½|£5").split("|"),
    "cp1252_as_utf8": "“quoted”|it’s|don’t|—|–|…|€100|café|naïve|™|Œuvre".split("|"),
    "html_entities": ("&nbsp;|caf&eacute;|&mdash;|it&rsquo;s|&copy; 2024|&hellip;|&ldquo;hi&rdquo;|"
                      "na&iuml;ve|&euro;5").split("|"),
}
GIVEN_NAMES = ("Alice Bob Carmen Deepa Erik Fatima Goran Hana Ivan Jun Kemal Lena Mateo Nina Omar "
               "Priya Quinn Rosa Sven Tariq").split()
FAMILY_NAMES = ("Smith Müller García Nakamura Okafor Kowalski Rossi Dubois Johansson Novak Silva Kim "
                "Ivanova Brown Haddad Lee").split()
GENERATORS = ("WordPress 6.5.3|Hugo 0.126.1|Jekyll v4.3.3|Ghost 5.82|Blogger|Substack|Medium|"
              "Drupal 10|custom").split("|")
TLDS = "com org net io co.uk de".split()
LANGUAGES = "en-us en en-gb de-de fr es".split()
TZ_HOURS = (0, 0, 0, 0, -5, -4, -7, 1, 2, 9, 5.5)
ITEM_COUNTS = (10, 10, 10, 15, 20, 20, 25, 30, 40, 50, 50)
POSTING_GAPS = (1800, 3 * 3600, 12 * 3600, 86400, 3 * 86400)   # a feed's usual seconds between posts
# A feed's text mode: the first bound its roll is under. Summary and medium texts have
# log-uniform lengths in these ranges; full texts share a 50-200 KB budget.
MODES = ((0.60, "summary"), (0.88, "medium"), (math.inf, "full"))
LOG_UNIFORM_LENGTHS = {"summary": (200, 1200), "medium": (600, 3000)}
# Per-feed features, drawn in this order: a feed has one without a draw when its kind (or, for
# "full", its mode) is in `given`; when `only` names kinds, the others lack it without a draw.
TRAITS = (
    ("permalink", (), None, 0.7),
    ("cdata", ("latin1", "media_heavy", "html_entities"), None, 0.4),
    ("dc_creator", ("media_heavy", "rdf", "latin1"), None, 0.5),
    ("tags", ("media_heavy", "xmlbase"), None, 0.7),
    ("enclosure", ("media_heavy",), None, 0.15),
    ("media", ("media_heavy",), None, 0.2),
    ("content_encoded", ("full", "media_heavy"), None, 0.3),
    ("xhtml", (), ("atom",), 0.2),
    ("indent_json", (), None, 0.5),
)
TITLE_ENDINGS = ((0.15, " & %s"), (0.05, " <%s>"))   # chance, what is added to a title
LINK_TARGETS = ("en.wikipedia.org/wiki", "github.com/example", "{}/tag", "news.example.org/a")


def words_for(kind):
    return SPECIAL_WORDS.get(kind, NON_ASCII)


# ---- markup

def escape_text(s):
    return html.escape(s, quote=False)


def escape_attr(s):
    return html.escape(s, quote=True)


def keep_entities(s):
    """html_entities feeds escape only what would break the markup, not their named entities."""
    return s.replace("& ", "&amp; ").replace("<", "&lt;").replace(">", "&gt;")


def cdata(s):
    return "<![CDATA[%s]]>" % s


def attributes(attrs):
    return "".join(' %s="%s"' % pair for pair in dict(attrs).items())


def inline(name, text, attrs=()):
    return "<%s%s>%s</%s>" % (name, attributes(attrs), text, name)


class Markup:
    """A document written one element a line. Values go in as they are: callers escape them.
    Lines are indented only inside elements opened with indent=True (OPML's outlines)."""

    def __init__(self, prolog=""):
        self.parts = [prolog]
        self.stack = []
        self.depth = 0

    def _line(self, text):
        self.parts.append("  " * self.depth + text + "\n")

    def raw(self, text):
        self.parts.append(text)

    def open(self, name, attrs=(), indent=False):
        self._line("<%s%s>" % (name, attributes(attrs)))
        self.stack.append((name, indent))
        self.depth += indent

    def close(self):
        name, indent = self.stack.pop()
        self.depth -= indent
        self._line("</%s>" % name)

    def leaf(self, name, text, attrs=()):
        self._line(inline(name, text, attrs))

    def empty(self, name, attrs=()):
        self._line("<%s%s/>" % (name, attributes(attrs)))

    def done(self):
        """Closes every element still open; the whole document."""
        while self.stack:
            self.close()
        return "".join(self.parts)


# ---- random streams

class Dice(random.Random):
    """random.Random with the draws the farm is made of. Never override random() or
    getrandbits() here: Random would then pick other ways to draw, and other numbers."""

    def flip(self, chance):
        return self.random() < chance

    def words(self, count):
        return self.choices(WORDS, k=count)

    def slip_in(self, words, pool):
        """One word of pool in place of a word of words: the word is drawn before the place."""
        word = self.choice(pool)
        words[self.randrange(len(words))] = word

    def phrase(self, count, pool, rate):
        """count words, about rate of them (rounded up or down at random) from pool."""
        words = self.words(count)
        expected = count * rate
        for _ in range(int(expected) + self.flip(expected % 1)):
            self.slip_in(words, pool)
        return " ".join(words)

    def headline(self, pool):
        title = self.phrase(self.randint(4, 11), pool, 0.08)
        title = title[:1].upper() + title[1:]
        for chance, ending in TITLE_ENDINGS:
            if self.flip(chance):
                title += ending % self.choice(WORDS)
        return title

    def person(self):
        given = self.choice(GIVEN_NAMES)
        return given + " " + self.choice(FAMILY_NAMES)

    def link(self, words, site):
        at = self.randrange(len(words))
        target = self.choice(LINK_TARGETS).format(site)
        number = self.randrange(100000)
        word = words[at]
        words[at] = inline("a", word, {"href": "https://%s/%s-%d" % (target, word.strip("&;"), number)})

    def stress(self, words):
        at = self.randrange(len(words))
        words[at] = inline("em" if self.flip(0.5) else "strong", words[at])

    def sentence(self, left, kind, site):
        """The words of an article's next block, escaped and marked up, when left characters
        are still wanted."""
        words = self.words(max(4, min(self.randint(25, 110), left // 6)))
        for _ in range(max(1, len(words) // 40)):
            if self.flip(0.5):
                self.slip_in(words, words_for(kind))
        if kind != "html_entities":   # that kind keeps its named entities raw
            words = [escape_text(w) for w in words]
        if self.flip(0.35):
            self.link(words, site)
        if self.flip(0.25):
            self.stress(words)
        return words

    def article(self, target, kind, site, xhtml):
        """Well-formed HTML of about target characters (XHTML's empty tags when xhtml)."""
        html_blocks, left = [], target
        while left > 0:
            words = self.sentence(left, kind, site)
            roll = self.random()
            make = next((block for below, room, block in BLOCKS if roll < below and left > room), paragraph)
            html_blocks.append(make(self, words, site, xhtml))
            left -= len(html_blocks[-1])
        return "".join(html_blocks)


def stream(*names):
    """The stream for one decision, named by its parts joined with ':'."""
    return Dice(":".join(map(str, names)))


# The blocks of an article: each gets the block's words (escaped and marked up), and draws what
# else it needs.
def picture(dice, words, site, xhtml):
    number = dice.randrange(1000000)
    alt = dice.choice(WORDS)
    return ('<p><img src="https://%s/wp-content/uploads/2024/05/img-%d.jpg" alt="%s" width="800" '
            'height="450"%s></p>' % (site, number, alt, " /" if xhtml else ""))


def bullets(dice, words, site, xhtml):
    half = len(words) // 2
    return inline("ul", inline("li", " ".join(words[:half])) + inline("li", " ".join(words[half:])))


def code(dice, words, site, xhtml):
    return "<pre><code>if (a &lt; b &amp;&amp; c &gt; 0) { return %s; }</code></pre>" % dice.choice(WORDS)


def quotation(dice, words, site, xhtml):
    return inline("blockquote", inline("p", " ".join(words)))


def heading(dice, words, site, xhtml):
    return inline("h2", " ".join(words[:6]))


def paragraph(dice, words, site, xhtml):
    sentence = " ".join(words)
    return inline("p", sentence[:1].upper() + sentence[1:] + ".")


# (the roll must be under, more characters than this still wanted, block); else a paragraph
BLOCKS = ((0.06, 300, picture), (0.10, 0, bullets), (0.13, 0, code), (0.16, 0, quotation),
          (0.19, 200, heading))


# ---- the farm's plan: one manifest record per feed

def apportion(total, shares):
    """Whole counts for (name, share) pairs that add up to total: largest remainders first,
    the earlier pair on a tie."""
    exact = [total * share for _, share in shares]
    counts = [math.floor(x) for x in exact]
    by_remainder = sorted(range(len(shares)), key=lambda i: (counts[i] - exact[i], i))
    for i in by_remainder[:total - sum(counts)]:
        counts[i] += 1
    return counts


def deal(dice, total, shares):
    labels = []
    for (name, _), count in zip(shares, apportion(total, shares)):
        labels += [name] * count
    dice.shuffle(labels)
    return labels


def plan(seed, count):
    dice = stream(seed, "plan")
    formats = deal(dice, count, MIX)
    topics = deal(dice, count, [topic[:2] for topic in TOPICS])
    subtopics = {name: subs for name, _, subs in TOPICS}
    awkward = itertools.cycle(AWKWARD_TURNS)
    records = []
    for idx, (fmt, topic) in enumerate(zip(formats, topics)):
        kind = next(awkward) if fmt == "awkward" else fmt
        subs = subtopics[topic]
        sub = dice.choice(subs) if subs and dice.flip(0.35) else ""
        records.append(dict(idx=idx, name="f%05d.%s" % (idx, KINDS[kind].family), format=fmt, kind=kind,
                            category=topic, sub=sub))
    return records


def pick_crossposts(seed, records):
    """Makes about 3 % of all items copies of an item of another feed. No item is a copy or an
    original twice, and xml:base feeds get no copies (their links are relative)."""
    sizes = [item_count(seed, record["idx"]) for record in records]
    starts = list(itertools.accumulate(sizes, initial=0))   # item k of feed i is item starts[i]+k
    wanted = round(starts[-1] * CROSSPOSTED) if len(records) > 1 else 0
    dice = stream(seed, "crosspost")
    taken = set()

    def proposal():   # (copy, original), or None once a draw rules the proposal out
        flat = dice.randrange(starts[-1])
        host = bisect.bisect_right(starts, flat) - 1
        copy = (host, flat - starts[host])
        if copy in taken or records[host]["kind"] == "xmlbase":
            return None
        source = dice.randrange(len(records))
        if source == host:
            return None
        original = (source, dice.randrange(sizes[source]))
        return None if original in taken else (copy, original)

    # Lazy: the next proposal is drawn only after the last accepted one is in taken.
    accepted = filter(None, (proposal() for _ in itertools.count()))
    for copy, original in itertools.islice(accepted, wanted):
        taken.update((copy, original))
        records[copy[0]].setdefault("crossposts", []).append([copy[1], *original])


# ---- one feed: its description, its items, and what it serves now

class Item(NamedTuple):
    key: str           # names the stream of its texts
    url: str
    guid: str
    title: str
    author: str
    tags: list
    published: int
    length: int        # of its HTML content, roughly
    image: int
    crosspost_of: Optional[int] = None


def shape(dice, idx):
    """A feed's first draws: (site, text mode, content length of each item)."""
    site = "site%05d.example.%s" % (idx, dice.choice(TLDS))
    roll = dice.random()
    mode = next(name for bound, name in MODES if roll < bound)
    count = dice.choice(ITEM_COUNTS) if dice.flip(0.7) else dice.randint(10, 50)
    if mode in LOG_UNIFORM_LENGTHS:
        low, high = map(math.log, LOG_UNIFORM_LENGTHS[mode])
        return site, mode, [int(math.exp(dice.uniform(low, high))) for _ in range(count)]
    budget = dice.randint(50_000, 200_000)
    count = max(count, min(50, math.ceil(budget / 6000)))
    share = budget / count
    return site, mode, [int(min(8192, max(200, share * dice.uniform(0.6, 1.4)))) for _ in range(count)]


def item_count(seed, idx):
    return len(shape(stream(seed, "feed", idx), idx)[2])


def draw_post(dice, pool, authors, most_tags, length=None):
    """The draws of one post, in order: (slug, title, author, tags, length, image). authors is
    a tuple to draw from, or the one author as a string; a length of None is drawn."""
    slug = "-".join(dice.words(dice.randint(2, 5)))
    title = dice.headline(pool)
    author = dice.choice(authors) if isinstance(authors, tuple) else authors
    tags = dice.sample(TAG_WORDS, dice.randint(1, most_tags))
    if length is None:
        length = int(math.exp(dice.uniform(math.log(300), math.log(3000))))
    return slug, title, author, tags, length, dice.randrange(1_000_000)


@functools.lru_cache(maxsize=1024)
def describe(seed, idx, kind):
    """Feed idx as first generated: a namespace whose posts are its items, oldest first.
    Cached, so shared: nothing may change what it returns."""
    dice = stream(seed, "feed", idx)
    site, mode, lengths = shape(dice, idx)
    feed = types.SimpleNamespace(idx=idx, kind=kind, site=site, mode=mode, tz=dice.choice(TZ_HOURS))
    gap = dice.choice(POSTING_GAPS)
    feed.title = dice.headline(NON_ASCII if kind == "html_entities" else words_for(kind))
    feed.description = dice.phrase(dice.randint(6, 20), words_for(kind), 0.05)
    feed.lang = dice.choice(LANGUAGES)
    feed.generator = dice.choice(GENERATORS)
    feed.author = dice.person()
    for name, given, only, chance in TRAITS:
        if kind in given or mode in given:
            setattr(feed, name, True)
        else:
            setattr(feed, name, (only is None or kind in only) and dice.flip(chance))
    writers = tuple(dice.person() for _ in range(dice.randint(1, 4)))
    when = START_EPOCH - dice.randint(0, 3 * 3600)
    folder = "blog/posts/" if kind == "xmlbase" else ""
    posts = []
    for k, length in enumerate(lengths):
        slug, title, author, tags, length, image = draw_post(dice, words_for(kind), writers, 4, length)
        year = datetime.datetime.fromtimestamp(when, UTC).year
        posts.append(Item("%s:item:%d:%d" % (seed, idx, k), "https://%s/%s%d/%s-%d" % (site, folder, year, slug, k),
                          "%s-post-%d" % (site, 100000 + k), title, author, tags, when, length, image))
        when -= int(gap * dice.uniform(0.3, 1.7)) + 60
    feed.posts = tuple(reversed(posts))
    return feed


def later_posts(seed, feed, round_name, round_number, count):
    """The count posts a mutation round puts on top of a feed, oldest first."""
    dice = stream(seed, "mut", round_name, feed.idx)
    when = START_EPOCH + round_number * 3600 - dice.randint(0, 1800)
    posts = []
    for k in range(count):
        slug, title, author, tags, length, image = draw_post(dice, NON_ASCII, feed.author, 3)
        posts.append(Item("%s:mut:%s:%d:%d" % (seed, round_name, feed.idx, k),
                          "https://%s/2024/%s-m%s-%d" % (feed.site, slug, round_name, k),
                          "%s-post-m%s-%d" % (feed.site, round_name, k), title, author, tags, when, length, image))
        when -= dice.randint(60, 1200)
    return posts[::-1]


def served(seed, records, idx):
    """(feed, items newest first) as the farm serves feed idx now: cross-posts copied in, the
    mutation rounds' posts on top, as many items as the feed first had."""
    record = records[idx]
    feed = describe(seed, idx, record["kind"])
    items = list(feed.posts)
    for k, source, source_k in record.get("crossposts", ()):
        original = describe(seed, source, records[source]["kind"]).posts[source_k]
        items[k] = items[k]._replace(url=original.url, title=original.title, key=original.key,
                                     length=original.length, crosspost_of=source,
                                     guid=original.url if feed.permalink else items[k].guid)
    window = len(items)
    for round_name, count, round_number in record.get("mutations", ()):
        items += later_posts(seed, feed, round_name, round_number, count)
    return feed, items[len(items) - window:][::-1]


def texts(feed, item):
    """(content HTML, plain summary) of an item, in the feed that serves it."""
    dice = stream(item.key)
    content = dice.article(item.length, feed.kind, feed.site, feed.xhtml)
    return content, dice.phrase(max(8, min(60, item.length // 25)), words_for(feed.kind), 0.02)


# ---- documents

def moment(epoch, hours):
    return datetime.datetime.fromtimestamp(epoch, datetime.timezone(datetime.timedelta(hours=hours)))


def rss_date(epoch, hours):
    """RFC 822; half of the UTC dates (odd seconds) say "GMT", the others "+0000"."""
    gmt = hours == 0 and epoch % 2 == 1
    when = moment(epoch, hours)
    return email.utils.format_datetime(when.astimezone(UTC) if gmt else when, usegmt=gmt)


def iso_date(epoch, hours):
    when = moment(epoch, hours)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ") if hours == 0 else when.isoformat()


def newest(items):
    return items[0].published if items else START_EPOCH


NS_CONTENT = "http://purl.org/rss/1.0/modules/content/"
NS_DC = "http://purl.org/dc/elements/1.1/"
RSS_ROOT = {"version": "2.0", "xmlns:content": NS_CONTENT, "xmlns:dc": NS_DC,
            "xmlns:atom": "http://www.w3.org/2005/Atom", "xmlns:media": "http://search.yahoo.com/mrss/",
            "xmlns:sy": "http://purl.org/rss/1.0/modules/syndication/"}
RDF_ROOT = {"xmlns:rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#", "xmlns": "http://purl.org/rss/1.0/",
            "xmlns:dc": NS_DC, "xmlns:content": NS_CONTENT,
            "xmlns:syn": "http://purl.org/rss/1.0/modules/syndication/"}


def rss_document(feed, items):
    kind, site = KINDS[feed.kind], feed.site
    home = "https://%s/" % site
    say = keep_entities if feed.kind == "html_entities" else escape_text   # for titles and texts
    doc = Markup('<?xml version="1.0" encoding="%s"?>\n' % kind.declared)
    if stream(site, "stylesheet").flip(0.1):
        doc.raw('<?xml-stylesheet type="text/xsl" href="/feed.xsl"?>\n')
    doc.open("rss", RSS_ROOT)
    doc.open("channel")
    doc.leaf("title", say(feed.title))
    doc.leaf("link", home)
    doc.leaf("description", say(feed.description))
    doc.empty("atom:link", {"href": home + "feed/", "rel": "self", "type": "application/rss+xml"})
    for name, text in (("language", feed.lang), ("lastBuildDate", rss_date(newest(items), feed.tz)),
                       ("generator", escape_text(feed.generator)), ("sy:updatePeriod", "hourly"), ("ttl", "60")):
        doc.leaf(name, text)
    doc.leaf("image", inline("url", home + "logo.png") + inline("title", say(feed.title)) + inline("link", home))
    for item in items:
        content, summary = texts(feed, item)
        doc.open("item")
        doc.leaf("title", say(item.title))
        doc.leaf("link", escape_text(item.url))
        doc.leaf("guid", escape_text(item.url if feed.permalink else item.guid),
                 {"isPermaLink": "true" if feed.permalink else "false"})
        doc.leaf("pubDate", rss_date(item.published, feed.tz))
        if feed.dc_creator:
            doc.leaf("dc:creator", cdata(item.author))
        else:
            doc.leaf("author", "%s@%s (%s)" % (item.author.split()[0].lower(), site, item.author))
        for tag in item.tags if feed.tags else ():
            doc.leaf("category", escape_text(tag))
        shown = summary if feed.content_encoded else content
        doc.leaf("description", cdata(shown) if feed.cdata and feed.kind != "html_entities" else say(shown))
        if feed.content_encoded:
            doc.leaf("content:encoded", cdata(content))
        image = "https://%s/wp-content/uploads/2024/05/photo-%d.jpg" % (site, item.image)
        if feed.enclosure:
            doc.empty("enclosure", {"url": image, "length": 20000 + item.image % 500000, "type": "image/jpeg"})
        if feed.media:
            doc.leaf("media:content", inline("media:title", say(item.title[:40]), {"type": "plain"}),
                     {"url": image, "medium": "image", "type": "image/jpeg", "width": 1200, "height": 675})
            if feed.kind == "media_heavy":
                doc.empty("media:thumbnail", {"url": image + "?w=150", "width": 150, "height": 84})
        doc.close()
    return doc.done().encode(kind.codec, "xmlcharrefreplace")


def atom_document(feed, items):
    site, relative = feed.site, feed.kind == "xmlbase"
    home = "" if relative else "https://%s/" % site
    root = {"xmlns": "http://www.w3.org/2005/Atom", "xmlns:media": "http://search.yahoo.com/mrss/"}
    if relative:
        root["xml:base"] = "https://%s/blog/" % site
    root["xml:lang"] = feed.lang
    doc = Markup('<?xml version="1.0" encoding="utf-8"?>\n')
    doc.open("feed", root)
    doc.leaf("title", escape_text(feed.title), {"type": "text"})
    doc.leaf("subtitle", escape_text(feed.description))
    doc.empty("link", {"href": home or "./", "rel": "alternate", "type": "text/html"})
    own = {"href": home + "atom.xml", "rel": "self"}
    if not relative:
        own["type"] = "application/atom+xml"
    doc.empty("link", own)
    doc.leaf("id", "tag:%s,2024:feed" % site)
    doc.leaf("updated", iso_date(newest(items), feed.tz))
    doc.leaf("author", inline("name", escape_text(feed.author)))
    doc.leaf("generator", escape_text(feed.generator), {"uri": "https://gohugo.io/"})
    below = "https://%s/blog/posts/" % site
    for item in items:
        content, summary = texts(feed, item)
        nested = relative and item.url.startswith(below)   # relative to xml:base, then posts/
        doc.open("entry", {"xml:base": "posts/"} if nested else {})
        if "&" in item.title or "<" in item.title:
            doc.leaf("title", escape_text(escape_text(item.title)), {"type": "html"})
        else:
            doc.leaf("title", escape_text(item.title))
        doc.empty("link", {"href": escape_text(item.url[len(below):] if nested else item.url),
                           "rel": "alternate", "type": "text/html"})
        doc.leaf("id", escape_text(item.url if feed.permalink else "tag:%s,2024:%s" % (site, item.guid)))
        doc.leaf("published", iso_date(item.published, feed.tz))
        doc.leaf("updated", iso_date(item.published + 600, feed.tz))
        doc.leaf("author", inline("name", escape_text(item.author)))
        for tag in item.tags if feed.tags else ():
            doc.empty("category", {"term": escape_attr(tag), "scheme": "https://%s/tags/" % site})
        doc.leaf("summary", escape_text(summary), {"type": "text"})
        if feed.xhtml:
            doc.leaf("content", inline("div", content, {"xmlns": "http://www.w3.org/1999/xhtml"}), {"type": "xhtml"})
        else:
            if relative:   # the site's own tag links, relative to the entry's base
                content = content.replace('href="https://%s/tag/' % site, 'href="../tag/')
            doc.leaf("content", escape_text(content), {"type": "html"})
        if feed.media:
            doc.empty("media:thumbnail", {"url": "https://%s/img/%d.jpg" % (site, item.image),
                                          "width": 300, "height": 169})
        doc.close()
    return doc.done().encode("utf-8")


def rdf_document(feed, items):
    site = feed.site
    doc = Markup('<?xml version="1.0" encoding="UTF-8"?>\n')
    doc.open("rdf:RDF", RDF_ROOT)
    doc.open("channel", {"rdf:about": "https://%s/index.rdf" % site})
    for name, text in (("title", escape_text(feed.title)), ("link", "https://%s/" % site),
                       ("description", escape_text(feed.description)), ("dc:language", feed.lang),
                       ("dc:date", iso_date(newest(items), feed.tz)), ("syn:updatePeriod", "hourly")):
        doc.leaf(name, text)
    doc.open("items")
    doc.open("rdf:Seq")
    for item in items:
        doc.empty("rdf:li", {"rdf:resource": escape_attr(item.url)})
    for _ in ("rdf:Seq", "items", "channel"):
        doc.close()
    for item in items:
        content, summary = texts(feed, item)
        doc.open("item", {"rdf:about": escape_attr(item.url)})
        for name, text in (("title", item.title), ("link", item.url), ("description", summary),
                           ("dc:creator", item.author)):
            doc.leaf(name, escape_text(text))
        doc.leaf("dc:date", iso_date(item.published, feed.tz))
        for tag in item.tags if feed.tags else ():
            doc.leaf("dc:subject", escape_text(tag))
        doc.leaf("content:encoded", cdata(content))
        doc.close()
    return doc.done().encode("utf-8")


def json_document(feed, items):
    def entry(item):
        content, summary = texts(feed, item)
        out = dict(id=item.url if feed.permalink else item.guid, url=item.url, title=item.title,
                   content_html=content, summary=summary, date_published=iso_date(item.published, feed.tz),
                   date_modified=iso_date(item.published + 600, feed.tz), authors=[dict(name=item.author)])
        if feed.tags:
            out["tags"] = item.tags
        if feed.media or feed.enclosure:
            out["image"] = "https://%s/img/%d.jpg" % (feed.site, item.image)
        return out

    document = dict(version="https://jsonfeed.org/version/1.1", title=feed.title,
                    home_page_url="https://%s/" % feed.site, feed_url="https://%s/feed.json" % feed.site,
                    description=feed.description, language=feed.lang[:2], authors=[dict(name=feed.author)],
                    items=[entry(item) for item in items])
    if feed.indent_json:
        return (json.dumps(document, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


WRITERS = {"rss": rss_document, "atom": atom_document, "rdf": rdf_document, "json": json_document}


# ---- files

def put_file(path, data, mtime=None):
    """Writes path whole or not at all (through path.tmp), with mtime when given."""
    with open(path + ".tmp", "wb") as out:
        out.write(data)
    if mtime is not None:
        os.utime(path + ".tmp", (mtime, mtime))
    os.replace(path + ".tmp", path)


def write_feed(farm, seed, records, idx, mtime):
    """Writes feed idx as served now, updates its record and returns its items."""
    record = records[idx]
    feed, items = served(seed, records, idx)
    kind = KINDS[feed.kind]
    data = WRITERS[kind.family](feed, items)
    path = os.path.join(farm, "feeds", record["name"])
    put_file(path, data, mtime)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path + ".gz")   # serve.sh's compressed copy of the old bytes
    record.update(bytes=len(data), n_items=len(items), site=feed.site, title=feed.title, mode=feed.mode,
                  encoding=kind.label, wellformed=kind.wellformed, mtime=mtime)
    return items


class Census:
    """Counts the items feed after feed, for the totals a store of the whole farm must end with."""

    def __init__(self):
        self.urls, self.xml_urls = set(), set()
        self.items = self.xml_items = self.crossposts = 0
        self.by_kind = {}

    def add(self, record, items):
        urls = [item.url for item in items]
        self.urls.update(urls)
        self.items += len(items)
        self.crossposts += sum(item.crosspost_of is not None for item in items)
        if record["format"] != "json":
            self.xml_urls.update(urls)
            self.xml_items += len(items)
        row = self.by_kind.setdefault(record["kind"], dict.fromkeys(("feeds", "items", "bytes"), 0))
        for key, amount in (("feeds", 1), ("items", len(items)), ("bytes", record["bytes"])):
            row[key] += amount

    def totals(self, records):
        xml_sizes = [r["bytes"] for r in records if r["format"] != "json"]
        return dict(feeds=len(records), items=self.items, unique_urls=len(self.urls),
                    crossposts_in_window=self.crossposts, bytes=sum(r["bytes"] for r in records),
                    xml_feeds=len(xml_sizes), xml_bytes=sum(xml_sizes), xml_items=self.xml_items,
                    xml_unique_urls=len(self.xml_urls),
                    not_wellformed=sum(not r["wellformed"] for r in records), by_kind=self.by_kind)


def write_lists(farm, manifest, port):
    """urls (newsboat's format) and farm.opml, for the farm served on 127.0.0.1:port."""
    records = manifest["feeds"]
    base = "http://127.0.0.1:%d/feeds/" % port
    about = "(seed %s, %d feeds)" % (manifest["seed"], len(records))
    lines = ["# newsboat urls file generated by gen_farm.py %s\n" % about]
    for r in records:
        tags = [r["category"]] + (["%s/%s" % (r["category"], r["sub"])] if r["sub"] else [])
        lines.append("%s%s %s\n" % (base, r["name"], " ".join('"%s"' % tag for tag in tags)))
    put_file(os.path.join(farm, "urls"), "".join(lines).encode("utf-8"))

    members = {}
    for r in records:
        members.setdefault((r["category"], r["sub"]), []).append(r)
    opml = Markup('<?xml version="1.0" encoding="UTF-8"?>\n')
    opml.open("opml", {"version": "2.0"})
    opml.open("head")
    opml.leaf("title", "Feed farm " + about)
    opml.leaf("dateCreated", email.utils.format_datetime(START, usegmt=True))
    opml.close()
    opml.open("body")
    for topic, _, subs in TOPICS:
        opml.open("outline", {"text": topic, "title": topic}, indent=True)
        for sub in ["", *subs]:   # the topic's own feeds, then each sub-topic's
            group = members.get((topic, sub))
            if not group:
                continue
            if sub:
                opml.open("outline", {"text": sub, "title": sub}, indent=True)
            for r in group:
                title = escape_attr(r["title"])
                opml.empty("outline", {"type": "rss", "text": title, "title": title,
                                       "xmlUrl": base + r["name"], "htmlUrl": "https://%s/" % r["site"]})
            if sub:
                opml.close()
        opml.close()
    put_file(os.path.join(farm, "farm.opml"), opml.done().encode("utf-8"))


def settle(farm, manifest, census, logged=None):
    """Puts the census's totals (and a mutation round's log entry) in the manifest and saves it."""
    manifest["totals"] = census.totals(manifest["feeds"])
    if logged is not None:
        manifest.setdefault("mutation_log", []).append(logged)
    text = json.dumps(manifest, ensure_ascii=False, separators=(",", ":"))
    put_file(os.path.join(farm, "manifest.json"), text.encode("utf-8"))
    return manifest


def load_manifest(farm):
    with open(os.path.join(farm, "manifest.json"), encoding="utf-8") as source:
        return json.load(source)


def generate(farm, count, seed, port):
    feeds_dir = os.path.join(farm, "feeds")
    os.makedirs(feeds_dir, exist_ok=True)
    for leftover in os.listdir(feeds_dir):
        os.unlink(os.path.join(feeds_dir, leftover))
    records = plan(seed, count)
    pick_crossposts(seed, records)
    census = Census()
    for record in records:
        census.add(record, write_feed(farm, seed, records, record["idx"], START_EPOCH))
    manifest = dict(manifest_version=MANIFEST_VERSION, seed=seed, n=count, t0=START.isoformat(), mutations=[],
                    feeds=records)
    write_lists(farm, manifest, port)
    return settle(farm, manifest, census)


def mutate(farm, round_name):
    """A later poll: about a tenth of the feeds get 1 to 5 new items (as many of their oldest
    drop out) and a modification time one hour later per round; the others stay as they are."""
    manifest = load_manifest(farm)
    seed, records, rounds = manifest["seed"], manifest["feeds"], manifest["mutations"]
    if str(round_name) in map(str, rounds):
        sys.exit("this farm already had mutation round %s" % round_name)
    rounds.append(round_name)
    dice = stream(seed, "mutate", round_name)
    changed = sorted(dice.sample(range(len(records)), max(1, round(len(records) * MUTATED))))
    added = [dice.randint(1, 5) for _ in changed]
    for idx, count in zip(changed, added):
        records[idx].setdefault("mutations", []).append([round_name, count, len(rounds)])
        write_feed(farm, seed, records, idx, START_EPOCH + 3600 * len(rounds))
    census = Census()
    for record in records:
        census.add(record, served(seed, records, record["idx"])[1])
    settle(farm, manifest, census, dict(seed=round_name, feeds_changed=len(changed), new_items=sum(added),
                                        feeds=[records[idx]["name"] for idx in changed]))
    return manifest, len(changed), sum(added)


# ---- reading a farm (the reference store stage, the soak)

def farm_entries(farm):
    """(feed index, url, title, content HTML, published epoch) of every item the farm serves now,
    feed by feed in the manifest's order: what a parser would read from the files."""
    manifest = load_manifest(farm)
    seed, records = manifest["seed"], manifest["feeds"]
    for record in records:
        feed, items = served(seed, records, record["idx"])
        for item in items:
            yield record["idx"], item.url, item.title, texts(feed, item)[0], item.published


def farm_urls(farm):
    """The set of item URLs the farm serves now."""
    manifest = load_manifest(farm)
    seed, records = manifest["seed"], manifest["feeds"]
    return {item.url for record in records for item in served(seed, records, record["idx"])[1]}


def without_by_kind(totals):
    return json.dumps({key: value for key, value in totals.items() if key != "by_kind"})


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir", help="the farm's directory")
    new = parser.add_argument_group("a new farm")
    new.add_argument("-n", type=int, default=1000, help="feeds to make (1000)")
    new.add_argument("--seed", default="42", help="seed of everything generated (42)")
    parser.add_argument("--port", type=int, default=8080, help="port of the URLs in farm.opml and urls (8080)")
    existing = parser.add_argument_group("an existing farm")
    existing.add_argument("--mutate", metavar="ROUND", help="mutation round: any name not used before on this farm")
    existing.add_argument("--lists-only", action="store_true", help="rewrite farm.opml and urls only (for --port)")
    args = parser.parse_args(argv)
    if args.mutate is not None:
        manifest, changed, added = mutate(args.dir, args.mutate)
        print("round %s: %d feeds changed, %d new items; now %s"
              % (args.mutate, changed, added, without_by_kind(manifest["totals"])))
    elif args.lists_only:
        write_lists(args.dir, load_manifest(args.dir), args.port)
        print("farm.opml and urls now point at port %d" % args.port)
    else:
        totals = generate(args.dir, args.n, args.seed, args.port)["totals"]
        print(without_by_kind(totals))
        for kind in sorted(totals["by_kind"]):
            row = totals["by_kind"][kind]
            print("  %-15s %5d feeds %7d items %10d bytes" % (kind, row["feeds"], row["items"], row["bytes"]))


if __name__ == "__main__":
    main()
