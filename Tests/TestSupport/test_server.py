#!/usr/bin/env python3
"""A misbehaving HTTP server for FeedFetcher's tests. Binds 127.0.0.1 on a free port, prints the
port on the first line of stdout, and serves until killed (or until its stdin closes)."""
import base64
import gzip
import http.server
import socketserver
import sys
import threading
import time

FEED = b"""<?xml version="1.0"?><rss version="2.0"><channel><title>Test feed</title>
<item><title>One</title><link>http://example.org/1</link></item></channel></rss>"""
OLD = b"""<?xml version="1.0"?><rss version="2.0"><channel><title>Old feed</title>
<item><title>Old 1</title><link>http://example.org/old/1</link><pubDate>Mon, 06 Jan 2020 10:00:00 GMT</pubDate></item>
<item><title>Old 2</title><link>http://example.org/old/2</link><pubDate>Tue, 07 Jan 2020 10:00:00 GMT</pubDate></item>
<item><title>Old 3</title><link>http://example.org/old/3</link><pubDate>Wed, 08 Jan 2020 10:00:00 GMT</pubDate></item>
</channel></rss>"""
# 250 items a day apart (paging), the first with hostile markup (sanitizing), the second also
# carried by /crosspost.xml (an entry under two feeds).
HOSTILE = ("<p onclick=\"steal()\">Hello<script>alert(1)</script><a href=\"javascript:alert(2)\">x</a>"
           "<iframe src=\"http://evil.example/\"></iframe><form action=\"/x\"><input name=\"q\"></form>"
           "<style>body{display:none}</style><svg><script>alert(3)</script></svg>"
           "<img src=\"/pic.png\" onerror=\"alert(4)\"></p>")
TEASER_FEED = """<?xml version="1.0"?><rss version="2.0"><channel><title>Teasers</title><link>http://example.org/</link>
<item><title>The whole story</title><link>{link}</link><description>Only the first line…</description></item></channel></rss>"""
ARTICLE_PAGE = ("""<!doctype html><html><head><title>The whole story - Example News</title></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/world">World</a></li><li><a href="/sport">Sport</a></li></ul></nav>
<div class="sidebar"><h3>Most read</h3><ul><li><a href="/a">Sidebar headline one</a></li>
<li><a href="/b">Sidebar headline two</a></li></ul></div>
<article><h1>The whole story</h1>"""
    + "".join(f"<p>Paragraph {n} of the whole story, with enough words in it, commas, and sentences to read "
              f"as the body of an article rather than a caption or a menu of links.</p>" for n in range(1, 7))
    + """<p><img src="/images/figure.png" alt="A figure"> <a href="javascript:alert(1)">a trap</a></p>
<script>alert('script')</script></article>
<section class="comments"><h3>Comments</h3><p>First comment, not part of the article.</p></section>
<footer>Copyright Example News. Footer links.</footer></body></html>""").encode()
MANY = ("""<?xml version="1.0"?><rss version="2.0"><channel><title>Many</title><link>http://example.org/many/</link>"""
        + "".join(f"""<item><title>Item {n}</title><link>http://example.org/many/{n}</link>
<pubDate>{time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(1_600_000_000 + n * 86400))}</pubDate>
<description>{(HOSTILE if n == 1 else f"<p>Body of item {n}</p>").replace("&", "&amp;").replace("<", "&lt;")}</description>
</item>""" for n in range(1, 251)) + "</channel></rss>").encode()
CROSSPOST = b"""<?xml version="1.0"?><rss version="2.0"><channel><title>Crosspost</title>
<item><title>Item 2</title><link>http://example.org/many/2</link></item>
<item><title>Own</title><link>http://example.org/crosspost/own</link></item></channel></rss>"""
# For the web page's test: every way an article could make a browser run script or call another
# origin (this server: /beacon/… counts each call; /beacons lists them).
HOSTILE_WEB = """<p onclick="fetch('{o}/beacon/onclick')" onmouseover="alert('onmouseover')">Hostile article</p>
<script>alert('script'); fetch('{o}/beacon/script')</script>
<img src="/missing.png" onerror="alert('onerror'); fetch('{o}/beacon/onerror')">
<a id="js-link" href="javascript:alert('javascript-link')">a javascript: link</a>
<a href=" JaVaScRiPt:alert('spaced')">a spaced javascript: link</a>
<iframe src="{o}/beacon/iframe"></iframe><frame src="{o}/beacon/frame">
<form action="{o}/beacon/form" method="post"><input name="q" value="x"><button>Send</button></form>
<style>@import url('{o}/beacon/style-import'); body {{ display: none }}</style>
<link rel="stylesheet" href="{o}/beacon/link">
<meta http-equiv="refresh" content="0; url={o}/beacon/meta-refresh">
<div style="background: url('{o}/beacon/inline-style')">styled</div>
<svg xmlns="http://www.w3.org/2000/svg" onload="alert('svg-onload')"><script>alert('svg-script')</script>
<image href="{o}/beacon/svg-image"/></svg>
<object data="{o}/beacon/object"></object><embed src="{o}/beacon/embed">
<math><mtext><script>alert('math')</script></mtext></math>
<noscript><p title="</noscript><img src=x onerror=alert('mxss')>">mutation</p></noscript>
<base href="{o}/beacon/base/">
<p>The end.</p>"""
# Feed icons: a site whose page names its icon (served with a wrong type: icons are read by their
# bytes), a feed whose document names its image, and a feed whose site has none.
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
GIF = base64.b64decode("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7")
ICON_FEED = """<?xml version="1.0"?><rss version="2.0"><channel><title>{title}</title><link>{site}</link>{image}
<item><title>{title} item</title><link>{site}#1</link></item></channel></rss>"""
# A podcast: one episode with two files, one with none.
PODCAST = b"""<?xml version="1.0"?><rss version="2.0"><channel><title>Podcast</title><link>http://example.org/pod/</link>
<item><title>Episode 1</title><link>http://example.org/pod/1</link>
<enclosure url="http://example.org/pod/1.mp3" type="audio/mpeg" length="1234567"/>
<enclosure url="http://example.org/pod/1.ogg" type="audio/ogg" length="999"/></item>
<item><title>Notes</title><link>http://example.org/pod/notes</link></item></channel></rss>"""
MEMBERS = b"""<?xml version="1.0"?><rss version="2.0"><channel><title>Members</title>
<item><title>Members-only take on item 2</title><link>http://example.org/many/2</link></item>
<item><title>Members only</title><link>http://example.org/members/1</link></item>
<item><title>Members article</title><link>{origin}/members-page</link></item></channel></rss>"""
MEMBERS_SEEN = []
BEACONS = []
HITS = {}  # GET path -> how many times it was asked for (/hits lists them: several daemons fetch each feed once)
RUNNING = [0, 0]  # requests to /concurrent/ now, and the most at once
COUNT = threading.Lock()
BOMB = gzip.compress(b"\0" * (64 << 20), compresslevel=9)  # 64 MiB of zeros in ~64 KiB


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.startswith("/beacon/"):
            BEACONS.append(self.path)
            return self.send(200, b"")
        return self.send(404, b"")

    def do_GET(self):
        path = self.path
        with COUNT:
            HITS[path] = HITS.get(path, 0) + 1
        if path == "/hits":
            with COUNT:
                body = "".join("%d %s\n" % (n, p) for p, n in sorted(HITS.items()) if p != "/hits")
            return self.send(200, body.encode())
        if path == "/members-seen":  # what the last request for a /members… path sent
            return self.send(200, "\n".join(MEMBERS_SEEN).encode())
        if path in ("/members.xml", "/members-away", "/members-echo", "/members-page", "/members-moved"):
            # Behind HTTP Basic and a cookie: a private copy's settings (docs/ARCHITECTURE.md). Its first item has the
            # URL of an item /many.xml carries too: a private copy's entries are never merged with those.
            authorization = self.headers.get("Authorization") or ""
            authorized = (authorization == "Basic " + base64.b64encode(b"member:open sesame").decode()
                          and "session=s3cret" in (self.headers.get("Cookie") or ""))
            MEMBERS_SEEN[:] = ["path: " + path, "user-agent: " + (self.headers.get("User-Agent") or ""),
                               "if-none-match: " + (self.headers.get("If-None-Match") or ""),
                               "cookie: " + (self.headers.get("Cookie") or ""), "authorization: " + authorization,
                               "authorized: " + str(authorized)]
            if path == "/members-moved":  # moved for good to another host: a private copy does not move there
                return self.send(301, headers=[("Location", "http://localhost:%d/members.xml" % self.server.server_port)])
            if path == "/members-away":  # to another host name: neither the cookie nor the password may follow
                return self.send(302, headers=[("Location", "http://localhost:%d/members-echo" % self.server.server_port)])
            if not authorized and path in ("/members.xml", "/members-page"):
                return self.send(401, b"members only", [("WWW-Authenticate", 'Basic realm="members"')])
            if path == "/members-page":  # an article on the feed's own host, behind the same login
                return self.send(200, ARTICLE_PAGE, [("Content-Type", "text/html")])
            origin = "http://" + self.headers.get("Host", "127.0.0.1")
            return self.send(200, MEMBERS.replace(b"{origin}", origin.encode()),
                             [("ETag", '"m1"'), ("Content-Type", "application/rss+xml")])
        if path == "/feed.xml":
            if self.headers.get("If-None-Match") == '"v1"':
                return self.send(304, headers=[("ETag", '"v1"')])
            return self.send(200, FEED, [("ETag", '"v1"'), ("Last-Modified", "Sat, 01 Jun 2024 12:00:00 GMT"),
                                         ("Content-Type", "application/rss+xml"), ("Cache-Control", "max-age=900")])
        if path == "/page.html":
            return self.send(200, b"""<html><head><title>Blog</title>
<link rel="alternate" type="application/rss+xml" title="Posts" href="/feed.xml">
<link rel="alternate" type="application/atom+xml" title="Comments" href="/comments.atom"></head>
<body><p>Hello</p></body></html>""", [("Content-Type", "text/html")])
        if path in ("/iconic.xml", "/imaged.xml", "/bare.xml"):
            origin = "http://" + self.headers.get("Host", "127.0.0.1")
            site = {"/iconic.xml": "/site.html", "/imaged.xml": "/nolinks.html", "/bare.xml": "/nolinks.html"}[path]
            image = f"<image><url>{origin}/icons/logo.gif</url></image>" if path == "/imaged.xml" else ""
            return self.send(200, ICON_FEED.format(title=path[1:-4], site=origin + site, image=image).encode(),
                             [("Content-Type", "application/rss+xml")])
        if path == "/article.xml":  # a teaser whose link is a page with the whole article
            origin = "http://" + self.headers.get("Host", "127.0.0.1")
            return self.send(200, TEASER_FEED.format(link=origin + "/articles/1.html").encode(),
                             [("Content-Type", "application/rss+xml")])
        if path == "/articles/1.html":
            return self.send(200, ARTICLE_PAGE, [("Content-Type", "text/html; charset=utf-8")])
        if path == "/podcast.xml":
            return self.send(200, PODCAST, [("Content-Type", "application/rss+xml")])
        if path == "/site.html":
            return self.send(200, b'<html><head><link rel="shortcut icon" href="icons/site.png"></head><body>Hi</body></html>',
                             [("Content-Type", "text/html")])
        if path == "/icons/site.png":
            return self.send(200, PNG, [("Content-Type", "text/plain")])
        if path == "/icons/logo.gif":
            return self.send(200, GIF, [("Content-Type", "image/gif")])
        if path == "/nolinks.html":
            return self.send(200, b"<html><body>No feed links here</body></html>", [("Content-Type", "text/html")])
        if path.startswith("/beacon/"):
            BEACONS.append(path)
            return self.send(200, b"")
        if path == "/beacons":
            return self.send(200, "\n".join(BEACONS).encode())
        if path == "/hostile-web.xml":
            origin = "http://127.0.0.1:%d" % self.server.server_address[1]
            content = HOSTILE_WEB.format(o=origin).replace("&", "&amp;").replace("<", "&lt;")
            body = ('<?xml version="1.0"?><rss version="2.0"><channel><title>Hostile</title>'
                    '<link>http://example.org/hostile/</link><item><title>Hostile article</title>'
                    '<link>http://example.org/hostile/1</link><description>%s</description></item>'
                    '</channel></rss>' % content).encode()
            return self.send(200, body, [("Content-Type", "application/rss+xml")])
        if path == "/many.xml":
            return self.send(200, MANY, [("Content-Type", "application/rss+xml")])
        if path == "/crosspost.xml":
            return self.send(200, CROSSPOST, [("Content-Type", "application/rss+xml")])
        if path == "/old.xml":
            return self.send(200, OLD, [("Content-Type", "application/rss+xml")])
        if path == "/feed":
            return self.send(200, FEED, [("Content-Type", "application/rss+xml")])
        if path == "/other.xml":
            return self.send(200, FEED.replace(b"One", b"Two").replace(b"/1<", b"/2<"),
                             [("Content-Type", "application/rss+xml")])
        if path == "/large.xml":  # a valid feed of 18 MiB, over the default 16 MiB cap
            large = FEED.replace(b"<title>One</title>", b"<title>Large</title><description>" + b"words " * (3 << 20)
                                 + b"</description>")
            return self.send(200, large, [("Content-Type", "application/rss+xml")])
        if path == "/wrong-type.xml":
            return self.send(200, FEED.replace(b"One", b"Three").replace(b"/1<", b"/3<"), [("Content-Type", "image/png")])
        if path == "/gzip.xml":
            assert "gzip" in self.headers.get("Accept-Encoding", "")
            return self.send(200, gzip.compress(FEED), [("Content-Encoding", "gzip")])
        if path.startswith("/status/"):
            status = int(path.rsplit("/", 1)[1])
            return self.send(status, b"no", [("Retry-After", "120")] if status in (429, 503) else [])
        if path == "/moved":
            return self.send(301, headers=[("Location", "/feed.xml")])
        if path == "/redirect-loop":
            return self.send(302, headers=[("Location", "/redirect-loop")])
        if path == "/redirect-file":
            return self.send(302, headers=[("Location", "file:///etc/passwd")])
        if path == "/big-length":
            self.send_response(200)
            self.send_header("Content-Length", str(100 << 20))
            self.end_headers()
            self.wfile.write(b"x" * 1024)
            return
        if path == "/gzip-bomb":
            return self.send(200, BOMB, [("Content-Encoding", "gzip")])
        if path in ("/endless", "/slow"):
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk, pause = (b"x" * 65536, 0) if path == "/endless" else (b"x", 1.0)
            try:
                for _ in range(100000):
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
                    time.sleep(pause)
            except (BrokenPipeError, ConnectionResetError):
                pass
            return
        if path.startswith("/concurrent/"):
            # /concurrent/MS[/anything] answers after MS milliseconds and remembers the most requests it
            # held at once; /most-concurrent tells that number and starts counting afresh.
            with COUNT:
                RUNNING[0] += 1
                RUNNING[1] = max(RUNNING[1], RUNNING[0])
            time.sleep(int(path.split("/")[2]) / 1000)
            with COUNT:
                RUNNING[0] -= 1
            return self.send(200, FEED, [("Content-Type", "application/rss+xml")])
        if path.startswith("/numbered/"):
            # /numbered/MS/N answers after MS milliseconds with feed N: 20 items of its own (counted
            # by /most-concurrent as /concurrent/ is).
            _, _, delay, number = path.split("/")
            with COUNT:
                RUNNING[0] += 1
                RUNNING[1] = max(RUNNING[1], RUNNING[0])
            time.sleep(int(delay) / 1000)
            with COUNT:
                RUNNING[0] -= 1
            items = "".join("<item><title>Feed %s item %d</title><link>http://example.org/n/%s/%d</link></item>"
                            % (number, i, number, i) for i in range(20))
            body = ('<?xml version="1.0"?><rss version="2.0"><channel><title>Feed %s</title>%s</channel></rss>'
                    % (number, items)).encode()
            return self.send(200, body, [("Content-Type", "application/rss+xml")])
        if path == "/most-concurrent":
            with COUNT:
                most, RUNNING[1] = RUNNING[1], 0
            return self.send(200, str(most).encode())
        if path == "/hang":
            time.sleep(30)
            return
        return self.send(404, b"not found")


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64  # a whole round connects at once; the default 5 drops the rest's SYNs for a second


server = Server(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
sys.stdin.read()  # the test closes our stdin (or kills us) to stop
