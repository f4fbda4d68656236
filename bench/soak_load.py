"""The load of bench/soak_load.sh: several clients at once against the daemon for SECONDS, each in a
thread of its own, counting every request and every failure (an exception, or a status that is not
2xx/3xx), written to OUT (JSON) at the end. Only requests a user could make:

  miniflux   unread pages, counters, categories with counts, a search, marks read and unread
  greader    ClientLogin, unread ids in pages of 1,000 with continuation, contents of 50, unread counts
  web        the unread page and a search through a logged-in session
  control    aggregatorctl: unread articles, a search, status; and a churn feed added and removed
             (the farm's first feed under another URL: its entries are the same, stored once)

Arguments: BASE_URL SOCKET USER PASSWORD CHURN_FEED_URL SECONDS OUT
"""
import json
import random
import re
import subprocess
import sys
import threading
import time

import requests

BASE, SOCKET, USER, PASSWORD, CHURN, SECONDS, OUT = sys.argv[1:8]
DEADLINE = time.monotonic() + float(SECONDS)
WORDS = ["the", "data", "network", "market", "über", "café", "model", "time", "report", "game"]
counts = {}
failures = []
lock = threading.Lock()


def record(client, ok, detail=""):
    with lock:
        done, failed = counts.get(client, (0, 0))
        counts[client] = (done + 1, failed + (0 if ok else 1))
        if not ok and len(failures) < 50:
            failures.append(f"{client}: {detail}")


def http(client, session, method, path, **arguments):
    try:
        response = session.request(method, BASE + path, timeout=60, **arguments)
        record(client, response.status_code < 400, f"{method} {path} -> {response.status_code} {response.text[:200]}")
        return response
    except requests.RequestException as error:
        record(client, False, f"{method} {path}: {error}")
        return None


def miniflux():
    session = requests.Session()
    session.auth = (USER, PASSWORD)
    while time.monotonic() < DEADLINE:
        page = http("miniflux", session, "GET", "/v1/entries?status=unread&limit=100&direction=desc")
        http("miniflux", session, "GET", "/v1/feeds/counters")
        http("miniflux", session, "GET", "/v1/categories?counts=true")
        http("miniflux", session, "GET", f"/v1/entries?search={random.choice(WORDS)}&limit=20")
        if page is not None and page.ok:
            ids = [entry["id"] for entry in page.json().get("entries", [])][:10]
            if ids:
                http("miniflux", session, "PUT", "/v1/entries", json={"entry_ids": ids, "status": "read"})
                http("miniflux", session, "PUT", "/v1/entries", json={"entry_ids": ids, "status": "unread"})


def greader():
    session = requests.Session()
    login = http("greader", session, "POST", "/accounts/ClientLogin", data={"Email": USER, "Passwd": PASSWORD})
    if login is None or not login.ok:
        return
    token = re.search(r"Auth=(\S+)", login.text).group(1)
    session.headers["Authorization"] = f"GoogleLogin auth={token}"
    while time.monotonic() < DEADLINE:
        continuation, pages = None, 0
        while pages < 5:
            query = "s=user/-/state/com.google/reading-list&xt=user/-/state/com.google/read&n=1000&output=json"
            query += f"&c={continuation}" if continuation else ""
            ids = http("greader", session, "GET", f"/reader/api/0/stream/items/ids?{query}")
            if ids is None or not ids.ok:
                break
            body = ids.json()
            refs = [item["id"] for item in body.get("itemRefs", [])][:50]
            if refs:
                http("greader", session, "POST", "/reader/api/0/stream/items/contents?output=json",
                     data=[("i", ref) for ref in refs])
            continuation, pages = body.get("continuation"), pages + 1
            if not continuation:
                break
        http("greader", session, "GET", "/reader/api/0/unread-count?output=json")


def web():
    session = requests.Session()
    page = http("web", session, "GET", "/login")
    if page is None:
        return
    token = re.search(r'name="login_token" value="([0-9a-f]+)"', page.text).group(1)
    http("web", session, "POST", "/login", data={"login_token": token, "name": USER, "password": PASSWORD})
    while time.monotonic() < DEADLINE:
        http("web", session, "GET", "/unread")
        http("web", session, "GET", f"/search?q={random.choice(WORDS)}")
        time.sleep(0.2)


def ctl(*arguments):
    try:
        result = subprocess.run(["./.build/release/aggregatorctl", "--socket", SOCKET, *arguments],
                                capture_output=True, text=True, timeout=120)
        record("control", result.returncode == 0, f"{' '.join(arguments)} -> {result.returncode} {result.stderr[:200]}")
        return result
    except subprocess.TimeoutExpired:
        record("control", False, f"{' '.join(arguments)}: no answer in 120 s")
        return None


def control():
    while time.monotonic() < DEADLINE:
        ctl("articles", "--unread", "--limit", "50")
        ctl("search", random.choice(WORDS), "--limit", "20")
        ctl("status")
        added = ctl("add", CHURN, "--category", "Churn")
        if added is not None and added.returncode == 0:
            time.sleep(1)
            ctl("remove", CHURN)
        time.sleep(0.5)


threads = [threading.Thread(target=target, name=target.__name__) for target in (miniflux, miniflux, greader, web, control)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
with open(OUT, "w") as out:
    json.dump({"counts": counts, "failures": failures}, out, indent=1)
total = sum(done for done, _ in counts.values())
failed = sum(bad for _, bad in counts.values())
print(f"requests: {total}, failed: {failed}; " + ", ".join(f"{k} {v[0]}" for k, v in sorted(counts.items())))
sys.exit(1 if failed else 0)
