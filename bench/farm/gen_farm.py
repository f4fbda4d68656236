#!/usr/bin/env python3
"""Makes the "feed farm" the benchmarks run on (bench/README.md, "The feed farm").

  gen_farm.py DIR [-n N] [--seed S] [--port P]   write a farm of N feeds (default 1000, seed 42)
  gen_farm.py DIR --mutate ROUND                  a later poll: new items on top of a tenth of the feeds
  gen_farm.py DIR --lists-only [--port P]         rewrite only farm.opml and urls, for another port

DIR receives feeds/f#####.{rss,atom,rdf,json}, farm.opml (categories as nested outlines), urls
(newsboat's format, categories as tags) and manifest.json (every feed and the totals a store
should end with). The output depends on the arguments alone: each decision draws from a
random.Random seeded with a string that names it, and feed files get fixed modification times
(2024-06-01 12:00 UTC, one hour later per mutation), so the bytes, and nginx's ETag and
Last-Modified, are the same on every machine. The figures in docs/BENCHMARKS.md rely on that:
bench/farm/check.sh prints the hash to compare with bench/README.md. So does any edit here: one
draw more, fewer or moved changes every byte after it.

Also imported by the reference store stage (bench/reference) and by bench/soak_load.sh: see
load_manifest, farm_entries and farm_urls.
"""
import argparse
import bisect
import datetime
import email.utils
import html
import json
import math
import os
import random
import sys

UTC = datetime.timezone.utc
FIRST_MTIME = datetime.datetime(2024, 6, 1, 12, 0, 0, tzinfo=UTC)
FIRST_EPOCH = int(FIRST_MTIME.timestamp())
MANIFEST_VERSION = 1

# Shares of the feeds, in this order (the order feeds the seeded shuffle: do not reorder).
FORMAT_MIX = [("rss2", 0.55), ("atom", 0.30), ("rdf", 0.08), ("json", 0.05), ("awkward", 0.02)]
# The awkward feeds take these kinds in turn.
AWKWARD = ["latin1", "cp1252_as_utf8", "html_entities", "xmlbase", "media_heavy"]
SUFFIX = {"rss2": "rss", "atom": "atom", "rdf": "rdf", "json": "json", "latin1": "rss",
          "cp1252_as_utf8": "rss", "html_entities": "rss", "xmlbase": "atom", "media_heavy": "rss"}
# (category, share of the feeds, sub-categories)
TOPICS = [
    ("Technology", 0.28, ["Programming", "Security", "Gadgets"]),
    ("Business", 0.14, ["Markets", "Startups"]),
    ("Sports", 0.12, ["Football", "Cycling"]),
    ("Health", 0.10, ["Nutrition"]),
    ("Science", 0.14, ["Space", "Climate"]),
    ("Entertainment", 0.12, ["Film", "Music"]),
    ("General", 0.10, []),
]
CROSSPOSTED = 0.03   # share of all items that repeat another feed's item
MUTATED = 0.10       # share of the feeds a mutation touches

# Vocabulary. Index 60 onwards is where item tags are drawn from.
WORDS = (
    "the of and to in is that for it as with was on be by at this from or an are not "
    "have which one you had but all were when we there can been has more if will what so no "
    "out up about into them than some time could other these then its two may first new "
    "people like only now over such after most also made many before must through back "
    "years where much your way well down should because each just those how too little "
    "state good very make world still own see men work long get here between both life "
    "being under never day same another know while last might great old year off come since "
    "against go came right used take three system data network server cloud model market "
    "price growth policy report study team league season match player coach health patient "
    "doctor diet sleep research energy climate planet space rocket orbit galaxy film album "
    "series music concert release update version security patch kernel compiler language "
    "library framework database query index cache latency throughput storage memory thread "
    "process signal parser feed reader article entry author editor review analysis forecast "
    "budget revenue profit startup investor funding launch product design interface mobile "
    "browser protocol standard open source community developer engineer scientist"
).split()
TAG_WORDS = WORDS[60:]
# Words slipped into the text now and then, by feed kind.
NON_ASCII = ["café", "naïve", "Zürich", "São Paulo", "résumé", "jalapeño", "Ørsted", "Kraków",
             "Málaga", "über", "coöperate", "façade", "“quoted”", "it’s", "—", "…", "€100",
             "東京", "Ελλάδα", "Москва", "😀", "✓", "½"]
LATIN1_ONLY = ["café", "naïve", "Zürich", "São", "résumé", "jalapeño", "Málaga", "über",
               "façade", "garçon", "crème", "brûlée", "años", "niño", "déjà", "Ærø", "Öl", "½", "£5"]
CP1252_ONLY = ["“quoted”", "it’s", "don’t", "—", "–", "…", "€100", "café", "naïve", "™", "Œuvre"]
NAMED_ENTITIES = ["&nbsp;", "caf&eacute;", "&mdash;", "it&rsquo;s", "&copy; 2024", "&hellip;",
                  "&ldquo;hi&rdquo;", "na&iuml;ve", "&euro;5"]
GIVEN_NAMES = ["Alice", "Bob", "Carmen", "Deepa", "Erik", "Fatima", "Goran", "Hana", "Ivan", "Jun",
               "Kemal", "Lena", "Mateo", "Nina", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq"]
FAMILY_NAMES = ["Smith", "Müller", "García", "Nakamura", "Okafor", "Kowalski", "Rossi", "Dubois",
                "Johansson", "Novak", "Silva", "Kim", "Ivanova", "Brown", "Haddad", "Lee"]
GENERATORS = ["WordPress 6.5.3", "Hugo 0.126.1", "Jekyll v4.3.3", "Ghost 5.82", "Blogger",
              "Substack", "Medium", "Drupal 10", "custom"]
TZ_HOURS = [0, 0, 0, 0, -5, -4, -7, 1, 2, 9, 5.5]
TLDS = ["com", "org", "net", "io", "co.uk", "de"]
ITEM_COUNTS = [10, 10, 10, 15, 20, 20, 25, 30, 40, 50, 50]
POSTING_GAPS = [1800, 3600 * 3, 3600 * 12, 86400, 86400 * 3]   # seconds between a feed's posts
LANGUAGES = ["en-us", "en", "en-gb", "de-de", "fr", "es"]
LINK_HOSTS = ["en.wikipedia.org/wiki", "github.com/example", None, "news.example.org/a"]  # None: the site's tags


def seeded(*parts):
    """The random stream for one decision, named by its parts joined with ':'."""
    return random.Random(":".join(str(p) for p in parts))


def escape_text(s):
    return html.escape(s, quote=False)


def escape_attr(s):
    return html.escape(s, quote=True)


# ---- dates

def rss_date(epoch, hours):
    zone = datetime.timezone(datetime.timedelta(hours=hours))
    moment = datetime.datetime.fromtimestamp(epoch, zone)
    if hours == 0 and epoch % 2:   # half of the UTC dates say "GMT", the other half "+0000"
        return email.utils.format_datetime(moment.astimezone(UTC), usegmt=True)
    return email.utils.format_datetime(moment)


def iso_date(epoch, hours):
    if hours == 0:
        return datetime.datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    zone = datetime.timezone(datetime.timedelta(hours=hours))
    return datetime.datetime.fromtimestamp(epoch, zone).isoformat()


# ---- words, titles and HTML

def quotas(total, shares):
    """Whole counts adding up to total, by largest remainder (ties: the earlier name)."""
    exact = [(name, total * share) for name, share in shares]
    counts = {name: math.floor(value) for name, value in exact}
    missing = total - sum(counts.values())
    by_remainder = sorted(exact, key=lambda pair: pair[1] - math.floor(pair[1]), reverse=True)
    for name, _ in by_remainder[:missing]:
        counts[name] += 1
    return counts


def extras(kind):
    return {"latin1": LATIN1_ONLY, "cp1252_as_utf8": CP1252_ONLY,
            "html_entities": NAMED_ENTITIES}.get(kind, NON_ASCII)


def phrase(rng, length, special, rate):
    """length words, about rate of them (rounded at random) replaced by special ones."""
    words = rng.choices(WORDS, k=length)
    expected = length * rate
    swaps = int(expected) + (1 if rng.random() < expected % 1 else 0)
    for _ in range(swaps):
        word = rng.choice(special)             # drawn before its position
        words[rng.randrange(length)] = word
    return " ".join(words)


def headline(rng, kind):
    title = phrase(rng, rng.randint(4, 11), extras(kind), 0.08)
    title = title[0].upper() + title[1:]
    if rng.random() < 0.15:
        title += " & " + rng.choice(WORDS)
    if rng.random() < 0.05:
        title += " <" + rng.choice(WORDS) + ">"
    return title


def article(rng, target, kind, site, xhtml):
    """Well-formed HTML (XHTML's empty tags when xhtml) of about target characters."""
    special = extras(kind)
    blocks, written = [], 0
    while written < target:
        left = target - written
        length = max(4, min(rng.randint(25, 110), left // 6))
        words = rng.choices(WORDS, k=length)
        for _ in range(max(1, length // 40)):
            if rng.random() < 0.5:
                word = rng.choice(special)
                words[rng.randrange(length)] = word
        if kind != "html_entities":        # that kind keeps its entities raw
            words = [escape_text(w) for w in words]
        if rng.random() < 0.35:
            at = rng.randrange(length)
            host = rng.choice(LINK_HOSTS) or site + "/tag"
            words[at] = '<a href="https://%s/%s-%d">%s</a>' % (host, words[at].strip("&;"), rng.randrange(100000), words[at])
        if rng.random() < 0.25:
            at = rng.randrange(length)
            tag = "em" if rng.random() < 0.5 else "strong"
            words[at] = "<%s>%s</%s>" % (tag, words[at], tag)
        sentence = " ".join(words)
        roll = rng.random()
        if roll < 0.06 and left > 300:
            block = '<p><img src="https://%s/wp-content/uploads/2024/05/img-%d.jpg" alt="%s" width="800" height="450"%s></p>' % (
                site, rng.randrange(1000000), rng.choice(WORDS), " /" if xhtml else "")
        elif roll < 0.10:
            half = len(words) // 2
            block = "<ul><li>%s</li><li>%s</li></ul>" % (" ".join(words[:half]), " ".join(words[half:]))
        elif roll < 0.13:
            block = "<pre><code>if (a &lt; b &amp;&amp; c &gt; 0) { return %s; }</code></pre>" % rng.choice(WORDS)
        elif roll < 0.16:
            block = "<blockquote><p>%s</p></blockquote>" % sentence
        elif roll < 0.19 and left > 200:
            block = "<h2>%s</h2>" % " ".join(words[:6])
        else:
            block = "<p>%s.</p>" % (sentence[:1].upper() + sentence[1:])
        blocks.append(block)
        written += len(block)
    return "".join(blocks)


def person(rng):
    given = rng.choice(GIVEN_NAMES)
    return "%s %s" % (given, rng.choice(FAMILY_NAMES))


# ---- the farm's plan, and each feed's description

def plan(seed, count):
    """One manifest record per feed: name, format, kind, category and sub-category."""
    rng = seeded(seed, "plan")
    format_counts = quotas(count, FORMAT_MIX)
    formats = [name for name, _ in FORMAT_MIX for _ in range(format_counts[name])]
    rng.shuffle(formats)
    topic_counts = quotas(count, [(name, share) for name, share, _ in TOPICS])
    topics = [name for name, _, _ in TOPICS for _ in range(topic_counts[name])]
    rng.shuffle(topics)
    subtopics = {name: subs for name, _, subs in TOPICS}
    records, awkward_seen = [], 0
    for idx in range(count):
        kind = formats[idx]
        if kind == "awkward":
            kind = AWKWARD[awkward_seen % len(AWKWARD)]
            awkward_seen += 1
        sub = ""
        if subtopics[topics[idx]] and rng.random() < 0.35:
            sub = rng.choice(subtopics[topics[idx]])
        records.append({"idx": idx, "name": "f%05d.%s" % (idx, SUFFIX[kind]), "format": formats[idx],
                        "kind": kind, "category": topics[idx], "sub": sub})
    return records


class Feed:
    """What a feed says about itself, and its items (oldest first until window() has run)."""


def describe(seed, record):
    idx, kind = record["idx"], record["kind"]
    rng = seeded(seed, "feed", idx)
    feed = Feed()
    feed.idx, feed.kind = idx, kind
    feed.site = "site%05d.example.%s" % (idx, rng.choice(TLDS))
    roll = rng.random()
    feed.mode = "summary" if roll < 0.60 else "medium" if roll < 0.88 else "full"
    if rng.random() < 0.7:
        count = rng.choice(ITEM_COUNTS)
    else:
        count = rng.randint(10, 50)
    if feed.mode == "full":     # 50-200 KB of content in all, items of 200 B to 8 KB
        total = rng.randint(50_000, 200_000)
        count = max(count, min(50, math.ceil(total / 6000)))
        mean = total / count
        lengths = [int(min(8192, max(200, mean * rng.uniform(0.6, 1.4)))) for _ in range(count)]
    else:                       # log-uniform lengths
        low, high = (200, 1200) if feed.mode == "summary" else (600, 3000)
        lengths = [int(math.exp(rng.uniform(math.log(low), math.log(high)))) for _ in range(count)]
    feed.tz = rng.choice(TZ_HOURS)
    gap = rng.choice(POSTING_GAPS)
    feed.title = headline(rng, kind if kind in ("latin1", "cp1252_as_utf8") else "rss2")
    feed.description = phrase(rng, rng.randint(6, 20), extras(kind), 0.05)
    feed.lang = rng.choice(LANGUAGES)
    feed.generator = rng.choice(GENERATORS)
    feed.author = person(rng)
    feed.permalink = rng.random() < 0.7
    # Some kinds always have a feature; the others draw for it (and only they do).
    feed.cdata = kind in ("latin1", "media_heavy", "html_entities") or rng.random() < 0.4
    feed.dc_creator = kind in ("media_heavy", "rdf", "latin1") or rng.random() < 0.5
    feed.tags = kind in ("media_heavy", "xmlbase") or rng.random() < 0.7
    feed.enclosure = kind == "media_heavy" or rng.random() < 0.15
    feed.media = kind == "media_heavy" or rng.random() < 0.2
    feed.content_encoded = feed.mode == "full" or kind == "media_heavy" or rng.random() < 0.3
    feed.xhtml = kind == "atom" and rng.random() < 0.2
    feed.indent_json = rng.random() < 0.5
    writers = [person(rng) for _ in range(rng.randint(1, 4))]
    when = FIRST_EPOCH - rng.randint(0, 3 * 3600)
    feed.items = []
    for k in range(count):
        slug = "-".join(rng.choices(WORDS, k=rng.randint(2, 5)))
        year = datetime.datetime.fromtimestamp(when, UTC).year
        folder = "blog/posts/" if kind == "xmlbase" else ""
        item = {"key": "%s:item:%d:%d" % (seed, idx, k),   # seeds the item's text
                "url": "https://%s/%s%d/%s-%d" % (feed.site, folder, year, slug, k),
                "guid": "%s-post-%d" % (feed.site, 100000 + k)}
        item["title"] = headline(rng, "atom" if kind == "xmlbase" else kind)
        item["author"] = rng.choice(writers)
        item["cats"] = rng.sample(TAG_WORDS, rng.randint(1, 4))
        item["published"] = when
        item["clen"] = lengths[k]
        item["img"] = rng.randrange(1_000_000)
        feed.items.append(item)
        when -= int(gap * rng.uniform(0.3, 1.7)) + 60
    feed.items.reverse()
    return feed


def later_items(seed, feed, round_name, round_number, count):
    """The count items a mutation round puts on top of a feed, oldest first."""
    rng = seeded(seed, "mut", round_name, feed.idx)
    when = FIRST_EPOCH + round_number * 3600 - rng.randint(0, 1800)
    items = []
    for k in range(count):
        slug = "-".join(rng.choices(WORDS, k=rng.randint(2, 5)))
        item = {"key": "%s:mut:%s:%d:%d" % (seed, round_name, feed.idx, k),
                "url": "https://%s/2024/%s-m%s-%d" % (feed.site, slug, round_name, k),
                "guid": "%s-post-m%s-%d" % (feed.site, round_name, k)}
        item["title"] = headline(rng, "rss2")
        item["author"] = feed.author
        item["cats"] = rng.sample(TAG_WORDS, rng.randint(1, 3))
        item["published"] = when
        item["clen"] = int(math.exp(rng.uniform(math.log(300), math.log(3000))))
        item["img"] = rng.randrange(1_000_000)
        items.append(item)
        when -= rng.randint(60, 1200)
    items.reverse()
    return items


def window(seed, records, idx, sources=None):
    """Feed idx as served now, newest item first: cross-posts copied in, mutation rounds on top,
    as many items as it first had. sources caches other feeds' items (idx -> list)."""
    record = records[idx]
    feed = describe(seed, record)
    items = feed.items
    for k, source_idx, source_k in record.get("crossposts", []):
        source = sources.get(source_idx) if sources is not None else None
        if source is None:
            source = describe(seed, records[source_idx]).items
            if sources is not None:
                sources[source_idx] = source
        original = source[source_k]
        copy = dict(items[k], url=original["url"], title=original["title"], key=original["key"],
                    clen=original["clen"], crosspost_of=source_idx)
        if feed.permalink:
            copy["guid"] = original["url"]
        items[k] = copy
    size = len(items)
    for round_name, count, round_number in record.get("mutations", []):
        items = items + later_items(seed, feed, round_name, round_number, count)
    feed.items = items[-size:][::-1]
    return feed


def texts(item, feed):
    """(content HTML, plain summary) of an item, in the feed it appears in."""
    rng = random.Random(item["key"])
    content = article(rng, item["clen"], feed.kind, feed.site, feed.xhtml)
    summary = phrase(rng, max(8, min(60, item["clen"] // 25)), extras(feed.kind), 0.02)
    return content, summary


# ---- documents

def node_text(s, kind):
    """Escaped text for an RSS element; html_entities feeds keep their named entities unescaped."""
    if kind == "html_entities":
        return s.replace("& ", "&amp; ").replace("<", "&lt;").replace(">", "&gt;")
    return escape_text(s)


def newest_date(feed):
    return feed.items[0]["published"] if feed.items else FIRST_EPOCH


def rss_document(feed):
    kind, site = feed.kind, feed.site
    out = ['<?xml version="1.0" encoding="%s"?>\n' % ("ISO-8859-1" if kind == "latin1" else "UTF-8")]
    if seeded(site, "stylesheet").random() < 0.1:
        out.append('<?xml-stylesheet type="text/xsl" href="/feed.xsl"?>\n')
    out.append('<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" '
               'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom" '
               'xmlns:media="http://search.yahoo.com/mrss/" xmlns:sy="http://purl.org/rss/1.0/modules/syndication/">\n'
               '<channel>\n')
    out.append("<title>%s</title>\n<link>https://%s/</link>\n" % (node_text(feed.title, kind), site))
    out.append("<description>%s</description>\n" % node_text(feed.description, kind))
    out.append('<atom:link href="https://%s/feed/" rel="self" type="application/rss+xml"/>\n' % site)
    out.append("<language>%s</language>\n<lastBuildDate>%s</lastBuildDate>\n" % (feed.lang, rss_date(newest_date(feed), feed.tz)))
    out.append("<generator>%s</generator>\n<sy:updatePeriod>hourly</sy:updatePeriod>\n<ttl>60</ttl>\n"
               % escape_text(feed.generator))
    out.append("<image><url>https://%s/logo.png</url><title>%s</title><link>https://%s/</link></image>\n"
               % (site, node_text(feed.title, kind), site))
    for item in feed.items:
        content, summary = texts(item, feed)
        out.append("<item>\n<title>%s</title>\n<link>%s</link>\n" % (node_text(item["title"], kind), escape_text(item["url"])))
        if feed.permalink:
            out.append('<guid isPermaLink="true">%s</guid>\n' % escape_text(item["url"]))
        else:
            out.append('<guid isPermaLink="false">%s</guid>\n' % escape_text(item["guid"]))
        out.append("<pubDate>%s</pubDate>\n" % rss_date(item["published"], feed.tz))
        if feed.dc_creator:
            out.append("<dc:creator><![CDATA[%s]]></dc:creator>\n" % item["author"])
        else:
            mailbox = item["author"].split()[0].lower()
            out.append("<author>%s@%s (%s)</author>\n" % (mailbox, site, item["author"]))
        if feed.tags:
            out.extend("<category>%s</category>\n" % escape_text(tag) for tag in item["cats"])
        description = summary if feed.content_encoded else content
        if kind == "html_entities":
            out.append("<description>%s</description>\n" % node_text(description, kind))
        elif feed.cdata:
            out.append("<description><![CDATA[%s]]></description>\n" % description)
        else:
            out.append("<description>%s</description>\n" % escape_text(description))
        if feed.content_encoded:
            out.append("<content:encoded><![CDATA[%s]]></content:encoded>\n" % content)
        image = "https://%s/wp-content/uploads/2024/05/photo-%d.jpg" % (site, item["img"])
        if feed.enclosure:
            out.append('<enclosure url="%s" length="%d" type="image/jpeg"/>\n' % (image, 20000 + item["img"] % 500000))
        if feed.media:
            out.append('<media:content url="%s" medium="image" type="image/jpeg" width="1200" height="675">'
                       '<media:title type="plain">%s</media:title></media:content>\n'
                       % (image, node_text(item["title"][:40], kind)))
            if kind == "media_heavy":
                out.append('<media:thumbnail url="%s?w=150" width="150" height="84"/>\n' % image)
        out.append("</item>\n")
    out.append("</channel>\n</rss>\n")
    document = "".join(out)
    if kind == "latin1":
        return document.encode("iso-8859-1", "xmlcharrefreplace")
    if kind == "cp1252_as_utf8":     # Windows-1252 bytes under a UTF-8 declaration, on purpose
        return document.encode("cp1252", "xmlcharrefreplace")
    return document.encode("utf-8")


def atom_document(feed):
    site, relative = feed.site, feed.kind == "xmlbase"
    base = ' xml:base="https://%s/blog/"' % site if relative else ""
    out = ['<?xml version="1.0" encoding="utf-8"?>\n',
           '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/"%s xml:lang="%s">\n'
           % (base, feed.lang),
           '<title type="text">%s</title>\n<subtitle>%s</subtitle>\n' % (escape_text(feed.title), escape_text(feed.description))]
    if relative:
        out.append('<link href="./" rel="alternate" type="text/html"/>\n<link href="atom.xml" rel="self"/>\n')
    else:
        out.append('<link href="https://%s/" rel="alternate" type="text/html"/>\n'
                   '<link href="https://%s/atom.xml" rel="self" type="application/atom+xml"/>\n' % (site, site))
    out.append("<id>tag:%s,2024:feed</id>\n<updated>%s</updated>\n" % (site, iso_date(newest_date(feed), feed.tz)))
    out.append('<author><name>%s</name></author>\n<generator uri="https://gohugo.io/">%s</generator>\n'
               % (escape_text(feed.author), escape_text(feed.generator)))
    posts = "https://%s/blog/posts/" % site
    for item in feed.items:
        content, summary = texts(item, feed)
        url = item["url"]
        below_base = relative and url.startswith(posts)
        out.append('<entry xml:base="posts/">\n' if below_base else "<entry>\n")
        if "&" in item["title"] or "<" in item["title"]:
            out.append('<title type="html">%s</title>\n' % escape_text(escape_text(item["title"])))
        else:
            out.append("<title>%s</title>\n" % escape_text(item["title"]))
        href = url[len(posts):] if below_base else url
        out.append('<link href="%s" rel="alternate" type="text/html"/>\n' % escape_text(href))
        entry_id = url if feed.permalink else "tag:%s,2024:%s" % (site, item["guid"])
        out.append("<id>%s</id>\n" % escape_text(entry_id))
        out.append("<published>%s</published>\n<updated>%s</updated>\n"
                   % (iso_date(item["published"], feed.tz), iso_date(item["published"] + 600, feed.tz)))
        out.append("<author><name>%s</name></author>\n" % escape_text(item["author"]))
        if feed.tags:
            out.extend('<category term="%s" scheme="https://%s/tags/"/>\n' % (escape_attr(tag), site) for tag in item["cats"])
        out.append('<summary type="text">%s</summary>\n' % escape_text(summary))
        if feed.xhtml:
            out.append('<content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">%s</div></content>\n' % content)
        else:
            if relative:    # the site's own tag links, relative to the entry's base
                content = content.replace('href="https://%s/tag/' % site, 'href="../tag/')
            out.append('<content type="html">%s</content>\n' % escape_text(content))
        if feed.media:
            out.append('<media:thumbnail url="https://%s/img/%d.jpg" width="300" height="169"/>\n' % (site, item["img"]))
        out.append("</entry>\n")
    out.append("</feed>\n")
    return "".join(out).encode("utf-8")


def rdf_document(feed):
    site = feed.site
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
           'xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/" '
           'xmlns:content="http://purl.org/rss/1.0/modules/content/" '
           'xmlns:syn="http://purl.org/rss/1.0/modules/syndication/">\n',
           '<channel rdf:about="https://%s/index.rdf">\n<title>%s</title>\n<link>https://%s/</link>\n'
           '<description>%s</description>\n<dc:language>%s</dc:language>\n<dc:date>%s</dc:date>\n'
           '<syn:updatePeriod>hourly</syn:updatePeriod>\n<items>\n<rdf:Seq>\n'
           % (site, escape_text(feed.title), site, escape_text(feed.description), feed.lang,
              iso_date(newest_date(feed), feed.tz))]
    out.extend('<rdf:li rdf:resource="%s"/>\n' % escape_attr(item["url"]) for item in feed.items)
    out.append("</rdf:Seq>\n</items>\n</channel>\n")
    for item in feed.items:
        content, summary = texts(item, feed)
        out.append('<item rdf:about="%s">\n<title>%s</title>\n<link>%s</link>\n<description>%s</description>\n'
                   '<dc:creator>%s</dc:creator>\n<dc:date>%s</dc:date>\n'
                   % (escape_attr(item["url"]), escape_text(item["title"]), escape_text(item["url"]),
                      escape_text(summary), escape_text(item["author"]), iso_date(item["published"], feed.tz)))
        if feed.tags:
            out.extend("<dc:subject>%s</dc:subject>\n" % escape_text(tag) for tag in item["cats"])
        out.append("<content:encoded><![CDATA[%s]]></content:encoded>\n</item>\n" % content)
    out.append("</rdf:RDF>\n")
    return "".join(out).encode("utf-8")


def json_document(feed):
    entries = []
    for item in feed.items:
        content, summary = texts(item, feed)
        entry = {"id": item["url"] if feed.permalink else item["guid"], "url": item["url"], "title": item["title"],
                 "content_html": content, "summary": summary,
                 "date_published": iso_date(item["published"], feed.tz),
                 "date_modified": iso_date(item["published"] + 600, feed.tz),
                 "authors": [{"name": item["author"]}]}
        if feed.tags:
            entry["tags"] = item["cats"]
        if feed.media or feed.enclosure:
            entry["image"] = "https://%s/img/%d.jpg" % (feed.site, item["img"])
        entries.append(entry)
    document = {"version": "https://jsonfeed.org/version/1.1", "title": feed.title,
                "home_page_url": "https://%s/" % feed.site, "feed_url": "https://%s/feed.json" % feed.site,
                "description": feed.description, "language": feed.lang[:2],
                "authors": [{"name": feed.author}], "items": entries}
    if feed.indent_json:
        return (json.dumps(document, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def document(feed):
    if feed.kind in ("atom", "xmlbase"):
        return atom_document(feed)
    if feed.kind == "rdf":
        return rdf_document(feed)
    if feed.kind == "json":
        return json_document(feed)
    return rss_document(feed)


# ---- subscription lists

def write_lists(farm, manifest, port):
    records = manifest["feeds"]
    prefix = "http://127.0.0.1:%d/feeds/" % port
    lines = ["# newsboat urls file generated by gen_farm.py (seed %s, %d feeds)\n" % (manifest["seed"], len(records))]
    for record in records:
        tags = '"%s"' % record["category"]
        if record["sub"]:
            tags += ' "%s/%s"' % (record["category"], record["sub"])
        lines.append("%s%s %s\n" % (prefix, record["name"], tags))
    with open(os.path.join(farm, "urls"), "w", encoding="utf-8") as out:
        out.write("".join(lines))
    opml = ['<?xml version="1.0" encoding="UTF-8"?>\n<opml version="2.0">\n<head>\n'
            '<title>Feed farm (seed %s, %d feeds)</title>\n<dateCreated>%s</dateCreated>\n</head>\n<body>\n'
            % (manifest["seed"], len(records), email.utils.format_datetime(FIRST_MTIME, usegmt=True))]
    for topic, _, subs in TOPICS:
        opml.append('<outline text="%s" title="%s">\n' % (topic, topic))
        for sub in [""] + subs:          # the topic's own feeds first, then each sub-topic's
            members = [r for r in records if r["category"] == topic and r["sub"] == sub]
            if not members:
                continue
            indent = "    " if sub else "  "
            if sub:
                opml.append('  <outline text="%s" title="%s">\n' % (sub, sub))
            for r in members:
                title = escape_attr(r["title"])
                opml.append('%s<outline type="rss" text="%s" title="%s" xmlUrl="%s%s" htmlUrl="https://%s/"/>\n'
                            % (indent, title, title, prefix, r["name"], r["site"]))
            if sub:
                opml.append("  </outline>\n")
        opml.append("</outline>\n")
    opml.append("</body>\n</opml>\n")
    with open(os.path.join(farm, "farm.opml"), "w", encoding="utf-8") as out:
        out.write("".join(opml))


# ---- writing a farm

def write_feed(farm, seed, records, idx, mtime, sources):
    feed = window(seed, records, idx, sources)
    data = document(feed)
    path = os.path.join(farm, "feeds", records[idx]["name"])
    with open(path + ".tmp", "wb") as out:
        out.write(data)
    os.utime(path + ".tmp", (mtime, mtime))
    os.replace(path + ".tmp", path)
    if os.path.exists(path + ".gz"):    # serve.sh's compressed copy of the old bytes
        os.unlink(path + ".gz")
    encoding = {"latin1": "ISO-8859-1", "cp1252_as_utf8": "windows-1252 (declared UTF-8)"}.get(feed.kind, "UTF-8")
    records[idx].update(bytes=len(data), n_items=len(feed.items), site=feed.site, title=feed.title, mode=feed.mode,
                        encoding=encoding, wellformed=feed.kind not in ("cp1252_as_utf8", "html_entities"), mtime=mtime)


def totals(seed, records):
    """What a store of every item now served should hold, overall and for the XML feeds alone."""
    sources = {}
    urls, xml_urls = set(), set()
    items = xml_items = crossposts = 0
    kinds = {}
    for record in records:
        feed = window(seed, records, record["idx"], sources)
        is_xml = record["format"] != "json"
        for item in feed.items:
            urls.add(item["url"])
            if is_xml:
                xml_urls.add(item["url"])
            if item.get("crosspost_of") is not None:
                crossposts += 1
        items += len(feed.items)
        if is_xml:
            xml_items += len(feed.items)
        kind = kinds.setdefault(record["kind"], {"feeds": 0, "items": 0, "bytes": 0})
        kind["feeds"] += 1
        kind["items"] += len(feed.items)
        kind["bytes"] += record["bytes"]
    xml = [r for r in records if r["format"] != "json"]
    return {"feeds": len(records), "items": items, "unique_urls": len(urls), "crossposts_in_window": crossposts,
            "bytes": sum(r["bytes"] for r in records), "xml_feeds": len(xml), "xml_bytes": sum(r["bytes"] for r in xml),
            "xml_items": xml_items, "xml_unique_urls": len(xml_urls),
            "not_wellformed": sum(1 for r in records if not r["wellformed"]), "by_kind": kinds}


def pick_crossposts(seed, records):
    """Marks about 3 % of all items as copies of an item of another feed: each copy and each
    original is used once, and xml:base feeds get no copies (their links are relative)."""
    sizes = [len(describe(seed, r).items) for r in records]
    starts = [0]
    for size in sizes:
        starts.append(starts[-1] + size)
    total = starts[-1]
    wanted = round(total * CROSSPOSTED) if len(records) > 1 else 0
    rng = seeded(seed, "crosspost")
    copies, originals = set(), set()
    while len(copies) < wanted:
        flat = rng.randrange(total)
        idx = bisect.bisect_right(starts, flat) - 1
        target = (idx, flat - starts[idx])
        if target in copies or target in originals or records[idx]["kind"] == "xmlbase":
            continue
        source_idx = rng.randrange(len(records))
        if source_idx == idx:
            continue
        source = (source_idx, rng.randrange(sizes[source_idx]))
        if source in copies or source in originals:
            continue
        copies.add(target)
        originals.add(source)
        records[idx].setdefault("crossposts", []).append([target[1], source[0], source[1]])


def generate(farm, count, seed, port):
    feeds_dir = os.path.join(farm, "feeds")
    os.makedirs(feeds_dir, exist_ok=True)
    for name in os.listdir(feeds_dir):
        os.unlink(os.path.join(feeds_dir, name))
    records = plan(seed, count)
    pick_crossposts(seed, records)
    sources = {}
    for idx in range(count):
        write_feed(farm, seed, records, idx, FIRST_EPOCH, sources)
        if len(sources) > 2000:      # bounds memory on large farms
            sources.clear()
    manifest = {"manifest_version": MANIFEST_VERSION, "seed": seed, "n": count, "t0": FIRST_MTIME.isoformat(),
                "mutations": [], "feeds": records}
    manifest["totals"] = totals(seed, records)
    save_manifest(farm, manifest)
    write_lists(farm, manifest, port)
    return manifest


def mutate(farm, round_name):
    """A later poll: about a tenth of the feeds get 1 to 5 new items (their oldest as many drop
    out) and a modification time one hour later per round; the others are left untouched."""
    manifest = load_manifest(farm)
    seed, records = manifest["seed"], manifest["feeds"]
    if str(round_name) in [str(done) for done in manifest["mutations"]]:
        sys.exit("this farm already had mutation round %s" % round_name)
    manifest["mutations"].append(round_name)
    round_number = len(manifest["mutations"])
    rng = seeded(seed, "mutate", round_name)
    changed = sorted(rng.sample(range(len(records)), max(1, round(len(records) * MUTATED))))
    added, sources = 0, {}
    for idx in changed:
        count = rng.randint(1, 5)
        records[idx].setdefault("mutations", []).append([round_name, count, round_number])
        write_feed(farm, seed, records, idx, FIRST_EPOCH + 3600 * round_number, sources)
        added += count
    manifest["totals"] = totals(seed, records)
    manifest.setdefault("mutation_log", []).append({"seed": round_name, "feeds_changed": len(changed),
                                                    "new_items": added, "feeds": [records[i]["name"] for i in changed]})
    save_manifest(farm, manifest)
    return manifest, len(changed), added


def save_manifest(farm, manifest):
    path = os.path.join(farm, "manifest.json")
    with open(path + ".tmp", "w", encoding="utf-8") as out:
        json.dump(manifest, out, ensure_ascii=False, separators=(",", ":"))
    os.replace(path + ".tmp", path)


# ---- reading a farm (for the reference store stage and the soak)

def load_manifest(farm):
    with open(os.path.join(farm, "manifest.json"), encoding="utf-8") as source:
        return json.load(source)


def farm_entries(farm):
    """(feed index, url, title, content HTML, published epoch) of every item the farm serves now,
    feed by feed in the manifest's order: what a parser would read from the files."""
    manifest = load_manifest(farm)
    seed, records = manifest["seed"], manifest["feeds"]
    sources = {}
    for record in records:
        feed = window(seed, records, record["idx"], sources)
        for item in feed.items:
            content, _ = texts(item, feed)
            yield record["idx"], item["url"], item["title"], content, item["published"]
        if len(sources) > 2000:
            sources.clear()


def farm_urls(farm):
    """The set of item URLs the farm serves now."""
    manifest = load_manifest(farm)
    seed, records, sources = manifest["seed"], manifest["feeds"], {}
    return {item["url"] for r in records for item in window(seed, records, r["idx"], sources).items}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dir")
    parser.add_argument("-n", type=int, default=1000, help="feeds to make (1000)")
    parser.add_argument("--seed", default="42", help="seed of everything generated (42)")
    parser.add_argument("--port", type=int, default=8080, help="port of the URLs in farm.opml and urls (8080)")
    parser.add_argument("--mutate", metavar="ROUND", help="mutation round: any name not used before on this farm")
    parser.add_argument("--lists-only", action="store_true", help="rewrite farm.opml and urls only (for --port)")
    args = parser.parse_args()
    if args.mutate is not None:
        manifest, changed, added = mutate(args.dir, args.mutate)
        summary = {k: v for k, v in manifest["totals"].items() if k != "by_kind"}
        print("round %s: %d feeds changed, %d new items; now %s" % (args.mutate, changed, added, json.dumps(summary)))
    elif args.lists_only:
        write_lists(args.dir, load_manifest(args.dir), args.port)
        print("farm.opml and urls now point at port %d" % args.port)
    else:
        result = generate(args.dir, args.n, args.seed, args.port)["totals"]
        print(json.dumps({k: v for k, v in result.items() if k != "by_kind"}))
        for kind, row in sorted(result["by_kind"].items()):
            print("  %-15s %5d feeds %7d items %10d bytes" % (kind, row["feeds"], row["items"], row["bytes"]))


if __name__ == "__main__":
    main()
