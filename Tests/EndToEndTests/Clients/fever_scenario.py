"""A Fever client written from the protocol (feedafever.com's API page), with `requests` from PyPI.

Usage: fever_scenario.py BASE_URL USER PASSWORD
The daemon carries the test server's /many.xml (250 items, category News) and /crosspost.xml (one
of those items and one of its own); Fever is turned on. Prints the ids it marked, as JSON.
"""
import hashlib
import json
import sys
import time

import requests

base, user, password = sys.argv[1:4]
key = hashlib.md5(f"{user}:{password}".encode()).hexdigest()


def check(condition, message):
    if not condition:
        raise SystemExit(f"check failed: {message}")


def call(selectors, path="/fever/", api_key=key, **form):
    response = requests.post(base + path + "?api" + "".join("&" + s for s in selectors),
                             data=dict(api_key=api_key, **form), timeout=30)
    check(response.status_code == 200, f"{selectors}: HTTP {response.status_code} {response.text}")
    answer = response.json()
    check(answer["api_version"] == 3 and "last_refreshed_on_time" in answer, f"base keys: {answer}")
    return answer


check(call([], api_key="0" * 32)["auth"] == 0, "a wrong key is refused with auth 0")
check(call([])["auth"] == 1, "md5 of user:password logs in")
check(call([], path="/api/fever.php")["auth"] == 1, "the path apps configured for Miniflux use")

groups = call(["groups"])
news = next(g for g in groups["groups"] if g["title"] == "News")
feeds = call(["feeds"])["feeds"]
many = next(f for f in feeds if f["url"].endswith("/many.xml"))
crosspost = next(f for f in feeds if f["url"].endswith("/crosspost.xml"))
check(any(fg["group_id"] == news["id"] and str(many["id"]) in fg["feed_ids"].split(",") for fg in groups["feeds_groups"]),
      f"feeds_groups: {groups['feeds_groups']}")
check(call(["favicons"])["favicons"] == [] and call(["links"])["links"] == [], "favicons and links")

# Items, 50 a page, oldest first from since_id.
seen, since = [], 0
while True:
    page = call(["items", f"since_id={since}"])
    check(page["total_items"] == 251, f"total_items {page['total_items']}")
    if not page["items"]:
        break
    check(len(page["items"]) <= 50, "50 a page")
    ids = [item["id"] for item in page["items"]]
    check(ids == sorted(ids), "oldest first")
    seen += ids
    since = ids[-1]
check(len(seen) == 251 and len(set(seen)) == 251, f"since_id paging saw {len(seen)}")
newest = call(["items", "max_id=0"])["items"]
check([i["id"] for i in newest] == sorted(seen, reverse=True)[:50], "max_id=0 gives the newest 50")
older = call(["items", f"max_id={newest[-1]['id']}"])["items"]
check(older[0]["id"] < newest[-1]["id"], "max_id pages back")
chosen = call(["items", f"with_ids={seen[0]},{seen[1]},{seen[2]}"])["items"]
check(sorted(i["id"] for i in chosen) == seen[:3], "with_ids")

item1 = next(i for i in call(["items", f"with_ids={','.join(map(str, seen[:50]))}"])["items"] if i["title"] == "Item 1")
for bad in ("<script", "onclick", "javascript:", "<iframe"):
    check(bad not in item1["html"].lower(), f"sanitized html still has {bad}")

unread = call(["unread_item_ids"])["unread_item_ids"]
check(isinstance(unread, str) and len(unread.split(",")) == 251, "unread_item_ids is a comma-separated string")

# Marks.
target = item1["id"]
# A mark answers with the list it changed (as FreshRSS does): unread ids after read/unread, saved
# ids after saved/unsaved; the answer agrees with asking again.
marked = call([], mark="item", **{"as": "read"}, id=str(target))
check(str(target) not in marked["unread_item_ids"].split(",") and len(marked["unread_item_ids"].split(",")) == 250
      and "saved_item_ids" not in marked, "a read mark answers the unread ids")
check(call(["unread_item_ids"])["unread_item_ids"] == marked["unread_item_ids"], "mark item read")
saved = call([], mark="item", **{"as": "saved"}, id=str(target))
check(saved["saved_item_ids"] == str(target) and "unread_item_ids" not in saved, "a saved mark answers the saved ids")
check(call(["saved_item_ids"])["saved_item_ids"] == str(target), "mark item saved")
marked = call([], mark="feed", **{"as": "read"}, id=str(crosspost["id"]), before=str(int(time.time())))
left = call(["unread_item_ids"])["unread_item_ids"].split(",")
# 251 - item 1 - the crosspost's two
check(len(left) == 248 and marked["unread_item_ids"].split(",") == left, f"mark feed read: {len(left)} left")
call([], mark="group", **{"as": "read"}, id=str(news["id"]), before="1")  # before anything was stored
check(len(call(["unread_item_ids"])["unread_item_ids"].split(",")) == 248, "before limits a group mark")
call([], mark="group", **{"as": "read"}, id="0", before=str(int(time.time())))
check(call(["unread_item_ids"])["unread_item_ids"] == "", "group 0 marks everything")

print(json.dumps({"saved": target}))
