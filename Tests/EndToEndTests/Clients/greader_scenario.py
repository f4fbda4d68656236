"""A Google Reader client written from the protocol (as FreshRSS documents it), with `requests`.

Usage: greader_scenario.py BASE_URL USER PASSWORD FEED_SERVER
The daemon carries the test server's /many.xml (250 items, label News) and /crosspost.xml.
Syncs the way NetNewsWire does (ids in pages, contents in batches of 150 by POST), marks, and
prints the ids it marked, as JSON.
"""
import json
import sys

import requests

base, user, password, feeds = sys.argv[1:5]


def check(condition, message):
    if not condition:
        raise SystemExit(f"check failed: {message}")


# ClientLogin, form and query, text and JSON; the token has no '=' (NetNewsWire splits on it).
bad = requests.post(base + "/accounts/ClientLogin", data={"Email": user, "Passwd": "wrong"}, timeout=30)
check(bad.status_code == 401, f"bad login: {bad.status_code}")
login = requests.post(base + "/api/greader.php/accounts/ClientLogin", data={"Email": user, "Passwd": password}, timeout=30)
check(login.status_code == 200, f"login: {login.status_code} {login.text}")
fields = dict(line.split("=", 1) for line in login.text.strip().split("\n"))
auth = fields["Auth"]
check("=" not in auth and fields["SID"] == auth, "Auth token")
as_json = requests.get(base + "/accounts/ClientLogin", params={"Email": user, "Passwd": password, "output": "json"}, timeout=30)
check(as_json.json()["Auth"], "output=json")

session = requests.Session()
session.headers["Authorization"] = f"GoogleLogin auth={auth}"
api = base + "/reader/api/0"


def get(path, **params):
    response = session.get(api + path, params=params, timeout=30)
    check(response.status_code == 200, f"{path}: {response.status_code} {response.text[:200]}")
    return response


bad_token = requests.get(api + "/user-info", headers={"Authorization": "GoogleLogin auth=nope"}, timeout=30)
check(bad_token.headers.get("Google-Bad-Token") == "true" and bad_token.headers.get("X-Reader-Google-Bad-Token") == "true",
      "a bad token gets FreshRSS's and Miniflux's bad-token headers")
check(requests.options(api + "/stream/contents", timeout=30).status_code == 204, "a browser's preflight")
check(get("/user-info").json()["userName"] == user, "user-info")
write_token = get("/token").text.strip()
check(len(write_token) > 10, "token")
# Some desktop apps send no Authorization header on a POST, only the token as the form field T (as
# Miniflux and FreshRSS accept): that is enough; a wrong T is not, and T is never read on a GET.
no_header = requests.post(api + "/user-info", data={"T": write_token + "\n"}, timeout=30)
check(no_header.status_code == 200 and no_header.json()["userName"] == user, f"T alone: {no_header.status_code}")
for bad_t in ({"T": write_token + "x"}, {}):
    refused = requests.post(api + "/user-info", data=bad_t, timeout=30)
    check(refused.status_code == 401 and refused.headers.get("Google-Bad-Token") == "true", f"bad T {bad_t}: {refused.status_code}")
check(requests.get(api + "/user-info", params={"T": write_token}, timeout=30).status_code == 401, "T on a GET")

tags = [t["id"] for t in get("/tag/list", output="json").json()["tags"]]
check("user/-/label/News" in tags and "user/-/state/com.google/starred" in tags, f"tags {tags}")
subscriptions = get("/subscription/list", output="json").json()["subscriptions"]
many = next(s for s in subscriptions if s["url"].endswith("/many.xml"))
crosspost = next(s for s in subscriptions if s["url"].endswith("/crosspost.xml"))
check(many["categories"] == [{"id": "user/-/label/News", "label": "News"}] and crosspost["categories"] == [], "categories")
# Some clients build objects from every key: only the documented ones.
check(set(many) == {"id", "title", "categories", "url", "htmlUrl", "iconUrl"}, f"subscription keys {sorted(many)}")
check(all(set(t) <= {"id", "type"} for t in get("/tag/list", output="json").json()["tags"]), "tag keys")
counts = {c["id"]: c["count"] for c in get("/unread-count", output="json").json()["unreadcounts"]}
check(counts["user/-/state/com.google/reading-list"] == 251 and counts[many["id"]] == 250, f"unread counts {counts}")

# Unread ids in pages of 100 with continuation (absent at the end), then contents in batches of 150.
ids, continuation = [], None
while True:
    params = {"s": "user/-/state/com.google/reading-list", "xt": "user/-/state/com.google/read", "n": 100, "output": "json"}
    if continuation:
        params["c"] = continuation
    page = get("/stream/items/ids", **params).json()
    ids += [ref["id"] for ref in page["itemRefs"]]
    continuation = page.get("continuation")
    if continuation is None:
        break
    check(isinstance(continuation, str), "continuation is a string")
check(len(ids) == 251 and len(set(ids)) == 251, f"ids {len(ids)}")
items = []
for start in range(0, len(ids), 150):
    batch = ids[start:start + 150]
    response = session.post(api + "/stream/items/contents", params={"output": "json"},
                            data=[("i", i) for i in batch] + [("T", write_token)], timeout=30)
    check(response.status_code == 200, f"contents {response.status_code}")
    items += response.json()["items"]
check(len(items) == 251, f"contents {len(items)}")
# Gaps real apps hit: stream/contents with no stream (Fluent Reader: the reading list), pages over
# 1,000 (Vienna asks 10,000 and follows no continuation), the unread state (Readrops: xt=unread for
# the read ids), and every key an item may be read by.
everything = get("/stream/contents", n=1000, output="json").json()
check(everything["id"] == "user/-/state/com.google/reading-list" and len(everything["items"]) == 251, "stream/contents alone")
check(len(get("/stream/contents", s="feed/" + many["id"].split("/")[-1], n=10, output="json").json()["items"]) == 10,
      "stream/contents?s=")
big = get("/stream/contents/user/-/state/com.google/reading-list", n=10000, output="json").json()
check(len(big["items"]) == 251 and "continuation" not in big, "n up to 10,000 in one answer")
two_pages = get("/stream/contents/user/-/state/com.google/reading-list", n=200, output="json").json()
check(len(two_pages["items"]) == 200 and "continuation" in two_pages, "n=200 of 251 continues")
unread_only = get("/stream/items/ids", s="user/-/state/com.google/reading-list", it="user/-/state/com.google/unread",
                  n=1000, output="json").json()["itemRefs"]
check(len(unread_only) == 251, "it=unread")
check(get("/stream/items/ids", s="user/-/state/com.google/reading-list", xt="user/-/state/com.google/unread", n=1000,
          output="json").json()["itemRefs"] == [], "xt=unread: the read ids (none yet)")
check(len(get("/stream/items/ids", s="user/-/state/com.google/unread", n=1000, output="json").json()["itemRefs"]) == 251,
      "s=unread")
# newestItemTimestampUsec is when the stream's newest item was stored (its timestampUsec), not the
# last fetch or now: apps read a stream again only when it moves.
unread_counts = get("/unread-count", output="json").json()["unreadcounts"]
newest = {c["id"]: int(c["newestItemTimestampUsec"]) for c in unread_counts}
stored = max(int(i["timestampUsec"]) for i in items)
check(newest[many["id"]] == max(int(i["timestampUsec"]) for i in items if i["origin"]["streamId"] == many["id"])
      and newest["user/-/state/com.google/reading-list"] == stored and newest["user/-/label/News"] == newest[many["id"]],
      f"newestItemTimestampUsec {newest} (items stored up to {stored})")
check({c["id"]: c["newestItemTimestampUsec"] for c in get("/unread-count", output="json").json()["unreadcounts"]}
      == {c["id"]: c["newestItemTimestampUsec"] for c in unread_counts}, "stable between two asks")
first = items[0]
for key in ("enclosure", "canonical"):
    check(key in first, f"item key {key}")
check(first["canonical"][0]["href"], "canonical[0].href")
check(all(i["origin"]["htmlUrl"] for i in items), "origin.htmlUrl: the feed's site")
for key in ("id", "crawlTimeMsec", "timestampUsec", "published", "title", "categories", "origin", "summary", "alternate"):
    check(key in first, f"item key {key}")
check(first["id"].startswith("tag:google.com,2005:reader/item/") and len(first["id"]) == 32 + 16, "long item id")
check(isinstance(first["published"], int) and isinstance(first["timestampUsec"], str), "types")
item1 = next(i for i in items if i["title"] == "Item 1")
check("<script" not in item1["summary"]["content"] and "onclick" not in item1["summary"]["content"], "sanitized")

# Item refs are 16-digit decimals (entry id + 10^15, as FreshRSS's ids look), and every form of an id
# each app sends is read back by each route that takes ids: long padded (FreshRSS, Readrops), long
# unpadded (NetNewsWire), bare hex padded (Reeder: its 16 digits start with 0) and not, decimal
# (Liferea, Readrops). A ref from before the offset (zero-padded decimal) names no item.
check(all(len(i) == 16 and i.isdigit() and not i.startswith("0") for i in ids), f"short ids {ids[:3]}")
target = int(ids[len(ids) // 2])
forms = (f"tag:google.com,2005:reader/item/{target:016x}", f"tag:google.com,2005:reader/item/{target:x}",
         f"{target:016x}", f"{target:x}", str(target))
check(f"{target:016x}".startswith("0003"), "the long form's hex starts with 0")
for form in forms:
    got = session.post(api + "/stream/items/contents", data={"i": form}, timeout=30).json()["items"]
    check(len(got) == 1 and got[0]["id"].endswith(f"{target:016x}"), f"item id form {form}")
    check(session.post(api + "/edit-tag", data={"i": form, "a": "user/-/state/com.google/starred"}, timeout=30).text == "OK",
          f"edit-tag with {form}")
    starred_refs = get("/stream/items/ids", s="user/-/state/com.google/starred", output="json").json()["itemRefs"]
    check([r["id"] for r in starred_refs] == [str(target)], f"{form} starred the item it names: {starred_refs}")
    session.post(api + "/edit-tag", data={"i": form, "r": "user/-/state/com.google/starred"}, timeout=30)
old_ref = f"{target - 10**15:016d}"
check(session.post(api + "/edit-tag", data={"i": old_ref, "a": "user/-/state/com.google/starred"}, timeout=30).status_code == 400
      and get("/stream/items/ids", s="user/-/state/com.google/starred", output="json").json()["itemRefs"] == [],
      "an id from before the offset marks nothing")

# A stream's contents with continuation, oldest first.
feed_page = get(f"/stream/contents/{many['id']}", n=100, r="o", output="json").json()
check(feed_page["id"] == many["id"] and isinstance(feed_page["updated"], int), "the stream object has id and updated")
check(len(feed_page["items"]) == 100 and "continuation" in feed_page, "stream/contents page")
rest = get(f"/stream/contents/{many['id']}", n=1000, r="o", c=feed_page["continuation"], output="json").json()
check(len(rest["items"]) == 150 and "continuation" not in rest, "stream/contents last page")

# Marks: edit-tag answers exactly OK; T with a trailing newline and an empty T are accepted.
item1_id = item1["id"]
response = session.post(api + "/edit-tag", data={"i": item1_id, "a": "user/-/state/com.google/read", "T": write_token + "\n"},
                        timeout=30)
check(response.text == "OK", f"edit-tag: {response.text}")
check(session.post(api + "/edit-tag", data={"i": item1_id, "a": "user/-/state/com.google/starred", "T": ""},
                   timeout=30).text == "OK", "star")
starred = get("/stream/items/ids", s="user/-/state/com.google/starred", output="json").json()["itemRefs"]
check([r["id"] for r in starred] == [str(int(item1_id[-16:], 16))], "starred stream")
def reading_list_unread():
    counts = get("/unread-count", output="json").json()["unreadcounts"]
    return next(c["count"] for c in counts if c["id"] == "user/-/state/com.google/reading-list")
before_marks = reading_list_unread()
# ts in microseconds, 1973: everything was stored after it, so nothing is marked.
check(session.post(api + "/mark-all-as-read", data={"s": many["id"], "ts": "100000000000000"}, timeout=30).text == "OK"
      and reading_list_unread() == before_marks, "mark-all-as-read leaves what was stored after ts")
check(session.post(api + "/mark-all-as-read", data={"s": crosspost["id"], "ts": "9999999999000000"},
                   timeout=30).text == "OK", "mark-all-as-read")
counts = {c["id"]: c["count"] for c in get("/unread-count", output="json").json()["unreadcounts"]}
check(counts["user/-/state/com.google/reading-list"] == 248, f"after marks: {counts}")
unknown = session.get(api + "/stream/items/ids", params={"s": "user/-/label/Nope", "output": "json"}, timeout=30)
check(unknown.status_code == 200 and unknown.json()["itemRefs"] == [], "an unknown label is an empty stream, as FreshRSS")
check(session.post(api + "/edit-tag", data={"i": "zzz", "a": "user/-/state/com.google/read"}, timeout=30).status_code == 400,
      "malformed id")

# Thousands of `i`: answered (unknown ids left out) up to 10,000; more is a 400; a huge body a 413.
many_ids = session.post(api + "/stream/items/contents", data=[("i", str(10**15 + n)) for n in range(1, 5001)], timeout=60)
check(many_ids.status_code == 200 and len(many_ids.json()["items"]) == 251, "5,000 i")
too_many = session.post(api + "/stream/items/contents", data=[("i", str(10**15 + n)) for n in range(1, 20002)], timeout=60)
check(too_many.status_code == 400, f"20,001 i: {too_many.status_code}")
huge = session.post(api + "/edit-tag", data={"i": "1" * (2 << 20)}, timeout=60)
check(huge.status_code == 413, f"huge body: {huge.status_code}")

# Subscriptions: quickadd (a page that links to its feed), rename, file under a label, take it out,
# rename and delete labels, unsubscribe.
added = session.post(api + "/subscription/quickadd", data={"quickadd": feeds + "/page.html", "T": write_token},
                     timeout=30).json()
check(added["numResults"] == 1 and added["streamId"].startswith("feed/"), f"quickadd {added}")
stream = added["streamId"]


def subscription(stream_id):
    return next(s for s in get("/subscription/list", output="json").json()["subscriptions"] if s["id"] == stream_id)


check(subscription(stream)["url"] == feeds + "/feed.xml", "quickadd found the page's feed")
edit = {"ac": "edit", "s": stream, "t": "Renamed", "a": "user/-/label/Later", "T": write_token}
check(session.post(api + "/subscription/edit", data=edit, timeout=30).text == "OK", "subscription/edit")
check(subscription(stream)["title"] == "Renamed" and subscription(stream)["categories"][0]["label"] == "Later", "renamed, filed")
check(session.post(api + "/rename-tag", data={"s": "user/-/label/Later", "dest": "user/-/label/Someday"}, timeout=30).text
      == "OK", "rename-tag")
check(subscription(stream)["categories"][0]["label"] == "Someday", "the label was renamed")
check(session.post(api + "/subscription/edit", data={"ac": "edit", "s": stream, "r": "user/-/label/Elsewhere"},
                   timeout=30).text == "OK", "a stale r")
check(subscription(stream)["categories"][0]["label"] == "Someday", "a stale r keeps the feed's real label")
check(session.post(api + "/subscription/edit", data={"ac": "edit", "s": stream, "r": "user/-/label/Someday"},
                   timeout=30).text == "OK", "take out of a label")
check(subscription(stream)["categories"] == [], "no label")
check(session.post(api + "/disable-tag", data={"s": "user/-/label/Someday"}, timeout=30).text == "OK", "disable-tag")
check("user/-/label/Someday" not in [t["id"] for t in get("/tag/list", output="json").json()["tags"]], "label gone")
check(session.post(api + "/subscription/edit", data={"ac": "unsubscribe", "s": stream}, timeout=30).text == "OK",
      "unsubscribe")
check(all(s["id"] != stream for s in get("/subscription/list", output="json").json()["subscriptions"]), "unsubscribed")

# A feed already subscribed: a 200 that found nothing, as FreshRSS and Miniflux answer (apps show "not found").
again = session.post(api + "/subscription/quickadd", data={"quickadd": feeds + "/many.xml", "T": write_token}, timeout=30)
check(again.status_code == 200 and again.json()["numResults"] == 0, f"quickadd twice: {again.status_code} {again.text}")
# OPML out and back in (NetNewsWire's and RSS Guard's import/export); what is subscribed already is skipped.
opml = get("/subscription/export").text
check(feeds + "/many.xml" in opml and opml.lstrip().startswith("<?xml"), "subscription/export")
check(session.post(api + "/subscription/import", data=opml.encode(), headers={"Content-Type": "text/xml"},
                   timeout=30).text == "OK", "subscription/import")

print(json.dumps({"starred": int(item1_id[-16:], 16) - 10**15}))
