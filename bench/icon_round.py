#!/usr/bin/env python3
"""Feed icons on the 1,000-feed farm (issue 29's icon bar), driven by bench/icon_round.sh.

The farm's feeds are served by a local server whose sites are named siteNNNNN.localhost (libcurl
resolves every *.localhost to 127.0.0.1 itself, so no resolver is asked). Site N offers its icon by
N % 4: 0 a <link rel="icon"> to a PNG, 1 a "shortcut icon" GIF, 2 only /favicon.ico, 3 none. RSS
feeds name <image> logos at /logo.png, which the sites do not have (a 404, as often in the wild).
The daemon (--feed-icons true) imports the farm, runs one round and its icon pass; every request
the server gets is logged. Then, as two weeks later, the pass runs again over the found icons.
"""
import glob, http.client, http.server, json, os, re, signal, socket, sqlite3, statistics, subprocess
import sys, tempfile, threading, time

bin_dir, farm = sys.argv[1], sys.argv[2]
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d4944415478da63f8cf00000301010018dd8db00000000049454e44ae426082")
GIF = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"
ICO = b"\x00\x00\x01\x00\x01\x00\x01\x01\x00\x00\x01\x00\x20\x00\x30\x00\x00\x00\x16\x00\x00\x00" + b"\x00" * 48
requests, lock = [], threading.Lock()

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

port = free_port()
feeds = {}
for path in sorted(glob.glob(farm + "/feeds/*")):
    text = open(path, "rb").read().decode("utf-8", "surrogateescape")
    text = re.sub(r"https?://(site\d+)\.example\.[a-z.]+", lambda m: f"http://{m.group(1)}.localhost:{port}", text)
    feeds["/feeds/" + os.path.basename(path)] = text.encode("utf-8", "surrogateescape")

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args): pass
    def send(self, status, body=b"", kind="text/html"):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        host = self.headers.get("Host", "").split(":")[0]
        with lock:
            requests.append((time.time(), host, self.path, status))
    def do_GET(self):
        if self.path in feeds:
            return self.send(200, feeds[self.path], "application/xml")
        match = re.match(r"site(\d+)\.localhost", self.headers.get("Host", ""))
        if not match:
            return self.send(404)
        kind = int(match.group(1)) % 4
        if self.path.endswith("/"):  # the home page, at the path the feed names (some are /blog/)
            link = {0: '<link rel="icon" type="image/png" href="/i/icon.png">',
                    1: '<link rel="shortcut icon" href="/static/fav.gif">'}.get(kind, "")
            return self.send(200, f"<!doctype html><html><head><title>Site</title>{link}</head><body>Hi</body></html>".encode())
        if (kind, self.path) == (0, "/i/icon.png"): return self.send(200, PNG, "image/png")
        if (kind, self.path) == (1, "/static/fav.gif"): return self.send(200, GIF, "image/gif")
        if (kind, self.path) == (2, "/favicon.ico"): return self.send(200, ICO, "image/x-icon")
        return self.send(404)

server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
work = tempfile.mkdtemp()
opml = work + "/farm.opml"
with open(opml, "w") as out:
    out.write('<?xml version="1.0"?><opml version="2.0"><body>\n')
    for path in feeds:
        out.write(f'<outline type="rss" text="{path}" xmlUrl="http://127.0.0.1:{port}{path}"/>\n')
    out.write("</body></opml>\n")
http_port = free_port()
log = open(work + "/daemon.log", "w+")
env = dict(os.environ, AGGREGATOR_FEED_ICONS="true")
def start():
    return subprocess.Popen([bin_dir + "/aggregatord", "--database", work + "/a.db", "--socket", work + "/ctl.sock",
                             "--seed-opml", opml, "--http-listen", f"127.0.0.1:{http_port}", "--private-networks", "all",
                             "--log-level", "debug"], stdout=subprocess.DEVNULL, stderr=log, env=env)

def wait_for(text, after=0, timeout=300):
    deadline = time.time() + timeout
    while time.time() < deadline:
        log.seek(after)
        if text in log.read():
            return
        time.sleep(0.2)
    sys.exit(f"timed out waiting for {text!r}")

def site_requests(since):
    with lock:
        return [r for r in requests if r[0] >= since and r[1].startswith("site")]

def summary(label, since):
    taken = site_requests(since)
    per_site = {}
    for _, host, _, _ in taken:
        per_site[host] = per_site.get(host, 0) + 1
    by_kind = {k: [n for h, n in per_site.items() if int(h[4:9]) % 4 == k] for k in range(4)}
    print(f"{label}: {len(taken)} requests to {len(per_site)} sites; per site by kind (0 link icon, 1 shortcut icon, "
          f"2 favicon.ico only, 3 none): " + ", ".join(
              f"{k}: {statistics.mean(v):.2f}" if v else f"{k}: -" for k, v in by_kind.items()))

daemon = start()
try:
    t0 = time.time()
    wait_for('msg="Refresh round done"')
    round_done = time.time()
    wait_for('msg="Looked for feed icons"')
    pass_done = time.time()
    print(f"round {round_done - t0:.1f} s; icon pass after it {pass_done - round_done:.1f} s")
    db = sqlite3.connect(work + "/a.db")
    ok = db.execute("SELECT count(*) FROM feeds WHERE status = 'ok'").fetchone()[0]
    with_icon = db.execute("SELECT count(*) FROM feeds WHERE icon_id IS NOT NULL").fetchone()[0]
    offered = db.execute("SELECT count(*) FROM feeds WHERE status = 'ok' AND CAST(substr(site_url, 12, 5) AS INTEGER) % 4 < 3").fetchone()[0]
    icons = db.execute("SELECT count(*), coalesce(sum(length(data)), 0) FROM icons").fetchone()
    print(f"feeds fetched ok {ok}; offering an icon {offered}; with an icon {with_icon}; "
          f"distinct images kept {icons[0]} ({icons[1]} bytes)")
    summary("first pass", t0)

    # The Miniflux icon endpoint, timed on this machine (median of 200, one connection).
    token = subprocess.run([bin_dir + "/aggregatorctl", "--socket", work + "/ctl.sock", "token", "create"],
                           capture_output=True, text=True, check=True).stdout.strip()
    feed_id = db.execute("SELECT id FROM feeds WHERE icon_id IS NOT NULL LIMIT 1").fetchone()[0]
    connection = http.client.HTTPConnection("127.0.0.1", http_port)
    times = []
    for _ in range(200):
        start_time = time.perf_counter()
        connection.request("GET", f"/v1/feeds/{feed_id}/icon", headers={"X-Auth-Token": token})
        response = connection.getresponse()
        response.read()
        times.append((time.perf_counter() - start_time) * 1000)
        assert response.status == 200
    print(f"GET /v1/feeds/{{id}}/icon: median {statistics.median(times):.2f} ms (min {min(times):.2f}, max {max(times):.2f})")
    db.close()

    # Two weeks later: every feed due for its icon again, and due for a fetch (the pass follows a round).
    daemon.send_signal(signal.SIGTERM)
    daemon.wait(30)
    db = sqlite3.connect(work + "/a.db")
    db.execute("UPDATE feeds SET icon_checked_at = icon_checked_at - 15 * 86400, next_check_at = NULL")
    db.commit()
    db.close()
    offset = log.tell()
    daemon = start()
    wait_for("msg=Started", offset)
    t1 = time.time()
    wait_for('msg="Refresh round done"', offset)
    t2 = time.time()
    wait_for('msg="Looked for feed icons"', offset)
    print(f"two weeks later: icon pass {time.time() - t2:.1f} s")
    db = sqlite3.connect(work + "/a.db")
    print(f"two weeks later: feeds with an icon {db.execute('SELECT count(*) FROM feeds WHERE icon_id IS NOT NULL').fetchone()[0]}")
    summary("second pass", t1)  # the round asks 127.0.0.1 only: every site request is the pass
finally:
    daemon.terminate()
    daemon.wait(30)
    server.shutdown()
