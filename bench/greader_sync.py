"""A first sync through the Google Reader API the way NetNewsWire makes it: login, tags,
subscriptions, unread counts, every unread id in pages of 1,000 (with continuation), then the
items' contents in POST batches of 150. Prints the wall time and what it got.
Usage: greader_sync.py BASE_URL USER PASSWORD     (needs requests: make test-venv)"""
import sys
import time

import requests

base, user, password = sys.argv[1:4]
start = time.monotonic()
session = requests.Session()
login = session.post(base + "/accounts/ClientLogin", data={"Email": user, "Passwd": password}, timeout=60)
auth = dict(line.split("=", 1) for line in login.text.strip().split("\n"))["Auth"]
session.headers["Authorization"] = f"GoogleLogin auth={auth}"
api = base + "/reader/api/0"
session.get(api + "/tag/list", params={"output": "json"}, timeout=60).json()
subscriptions = session.get(api + "/subscription/list", params={"output": "json"}, timeout=60).json()["subscriptions"]
session.get(api + "/unread-count", params={"output": "json"}, timeout=60).json()
ids, continuation = [], None
while True:
    params = {"s": "user/-/state/com.google/reading-list", "xt": "user/-/state/com.google/read", "n": 1000, "output": "json"}
    if continuation:
        params["c"] = continuation
    page = session.get(api + "/stream/items/ids", params=params, timeout=60).json()
    ids += [ref["id"] for ref in page["itemRefs"]]
    continuation = page.get("continuation")
    if not continuation:
        break
items = 0
for first in range(0, len(ids), 150):
    batch = session.post(api + "/stream/items/contents", data=[("i", i) for i in ids[first:first + 150]], timeout=60)
    items += len(batch.json()["items"])
print(f"sync: {time.monotonic() - start:.2f} s, {len(subscriptions)} subscriptions, {len(ids)} unread ids, {items} items")
