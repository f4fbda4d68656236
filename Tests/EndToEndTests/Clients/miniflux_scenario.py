"""Drives aggregatord's Miniflux API with the `miniflux` client from PyPI, as an app would.

Usage: miniflux_scenario.py BASE_URL TOKEN USER PASSWORD FEED_SERVER
The daemon is subscribed to FEED_SERVER/many.xml (250 items, in category "News") and
FEED_SERVER/crosspost.xml (uncategorized), both fetched. Prints a JSON object of ids for the
caller to check through aggregatorctl; any failed check raises (exit status 1).
"""
import json
import sys

import miniflux

base, token, user, password, feeds = sys.argv[1:6]
client = miniflux.Client(base, api_key=token)
basic = miniflux.Client(base, username=user, password=password)


def check(condition, message):
    if not condition:
        raise SystemExit(f"check failed: {message}")


check(client.me()["username"] == user, "me() names the account")
check(basic.me()["username"] == user, "Basic works too")
version = client.get_version()
check(version["version"] and version["build_date"].startswith("20"), f"version {version}")

# Categories: the seeded one, the uncategorized feeds' own, and one made here.
categories = {c["title"]: c for c in client.get_categories()}
check(set(categories) == {"News", "Uncategorized"}, f"categories: {sorted(categories)}")
news = categories["News"]
later = client.create_category("Later")
check(later["title"] == "Later" and isinstance(later["id"], int), "create_category")
check(client.update_category(later["id"], "Someday")["title"] == "Someday", "update_category")
try:
    client.create_category("News")
    check(False, "a duplicate category is refused")
except miniflux.BadRequest:
    pass

# Feeds, each with an integer category id (newsboat needs one).
feed_list = client.get_feeds()
check(len(feed_list) == 2 and all(isinstance(f["category"]["id"], int) for f in feed_list), "feeds")
many = next(f for f in feed_list if f["feed_url"].endswith("/many.xml"))
crosspost = next(f for f in feed_list if f["feed_url"].endswith("/crosspost.xml"))
check(many["category"]["id"] == news["id"] and crosspost["category"]["title"] == "Uncategorized", "feed categories")
check(client.get_feed(many["id"])["title"] == "Many", "get_feed")
check([f["id"] for f in client.get_category_feeds(news["id"])] == [many["id"]], "get_category_feeds")

# Entries: 251 in all (item 2 is carried by both feeds, stored once); paged as mobile apps do.
everything = client.get_entries(limit=1)
check(everything["total"] == 251, f"total {everything['total']}")
seen, offset = [], 0
while True:
    page = client.get_entries(status="unread", limit=100, offset=offset, order="published_at", direction="desc")
    seen += [e["id"] for e in page["entries"]]
    offset += 100
    if len(page["entries"]) < 100:
        break
check(len(seen) == 251 and len(set(seen)) == 251, f"paging saw {len(seen)} entries, {len(set(seen))} distinct")
# Newest first. (Item 2 may be newest of all: when the cross-posting feed, which gives it no date, was
# stored first, its date is the time it was first seen.)
newest = client.get_feed_entries(many["id"], order="published_at", direction="desc", limit=5)["entries"]
dates = [e["published_at"] for e in newest]
check(dates == sorted(dates, reverse=True) and newest[-1]["title"] in ("Item 246", "Item 247"), f"newest first: {dates}")
oldest = client.get_entries(order="id", direction="asc", limit=2)["entries"]
check(oldest[0]["id"] < oldest[1]["id"], "order=id")
by_title = client.get_entries(order="title", direction="asc", limit=3)["entries"]
check([e["title"] for e in by_title] == ["Item 1", "Item 10", "Item 100"], f"order=title: {[e['title'] for e in by_title]}")

# The hostile item comes out sanitized.
item1 = next(e for e in client.get_feed_entries(many["id"], limit=1000)["entries"] if e["title"] == "Item 1")
content = item1["content"].lower()
for bad in ("<script", "onclick", "onerror", "javascript:", "<iframe", "<form", "<input", "<style", "<svg"):
    check(bad not in content, f"sanitized content still has {bad}: {item1['content']}")
check("hello" in content and 'src="http://example.org/pic.png"' in content, f"kept content: {item1['content']}")

# The cross-posted entry lists under each feed, with one state.
item2_many = next(e for e in client.get_feed_entries(many["id"], limit=1000)["entries"] if e["title"] == "Item 2")
item2_cross = next(e for e in client.get_feed_entries(crosspost["id"])["entries"] if e["title"] == "Item 2")
check(item2_many["id"] == item2_cross["id"] and item2_cross["feed_id"] == crosspost["id"], "cross-post under both feeds")
check(client.get_feed_entry(crosspost["id"], item2_many["id"])["id"] == item2_many["id"], "get_feed_entry of a cross-post")

# Marks.
client.update_entries([item2_many["id"]], "read")
check(client.get_entry(item2_many["id"])["status"] == "read", "update_entries read")
check(client.get_feed_entries(crosspost["id"], status="unread")["total"] == 1, "the read state is shared")
client.toggle_bookmark(item1["id"])
starred = client.get_entries(starred=True)
check(starred["total"] == 1 and starred["entries"][0]["id"] == item1["id"], "toggle_bookmark starred it")
search = client.get_entries(search="item 117")
check(search["total"] >= 1 and any(e["title"] == "Item 117" for e in search["entries"]), "search")
counters = client.get_feed_counters()
check(counters["unreads"][str(many["id"])] == 249 and counters["reads"][str(many["id"])] == 1, f"counters {counters}")
client.mark_category_entries_as_read(categories["Uncategorized"]["id"])
check(client.get_feed_entries(crosspost["id"], status="unread")["total"] == 0, "mark_category_entries_as_read")
check(client.get_entries(status="unread")["total"] == 249, "only the category was marked")

# OPML, and feeds made, changed and removed through the API.
check(feeds + "/many.xml" in client.export_feeds(), "export")
new_id = client.create_feed(feeds + "/page.html", category_id=later["id"])  # discovery: the page links /feed.xml
added = client.get_feed(new_id)
check(added["feed_url"] == feeds + "/feed.xml" and added["category"]["title"] == "Someday", f"create_feed {added}")
check(client.update_feed(new_id, title="Renamed")["title"] == "Renamed", "update_feed")
# Every field PUT /v1/feeds/{id} takes is applied, or refused by name: never silently ignored.
moved = client.update_feed(new_id, site_url="https://blog.example/", disabled=True, crawler=False)
check(moved["site_url"] == "https://blog.example/" and moved["disabled"] is True, f"site_url, disabled: {moved}")
check(client.update_feed(new_id, disabled=False)["disabled"] is False, "enabled again")
# Fields Miniflux does not take are ignored as its JSON decoding ignores them (an app may send back the feed).
check(client.update_feed(new_id, user_id=7, checked_at="2024-01-01T00:00:00Z")["title"] == "Renamed", "unknown fields")
check(client.update_feed(new_id, feed_url=feeds + "/old.xml")["feed_url"] == feeds + "/old.xml", "feed_url moves")
# A fetch setting makes the feed this account's private copy, under the same id (docs/ARCHITECTURE.md, §15).
copied = client.update_feed(new_id, ignore_http_cache=True, user_agent="ScenarioReader/1")
check(copied["id"] == new_id and copied["ignore_http_cache"] is True and copied["user_agent"] == "ScenarioReader/1",
      "fetch settings are kept")
for refused in ({"feed_url": feeds + "/many.xml"}, {"rewrite_rules": "add_dynamic_image"}, {"feed_url": "ftp://x/"}):
    try:
        client.update_feed(new_id, **refused)
        check(False, f"update_feed {refused} is refused")
    except miniflux.BadRequest as error:
        check(next(iter(refused)) in str(error) or "already subscribed" in str(error) or "http(s)" in str(error),
              f"the refusal names the field: {error}")
client.refresh_feed(new_id)
check([d["url"] for d in client.discover(feeds + "/page.html")][:1] == [feeds + "/feed.xml"], "discover")
client.delete_feed(new_id)
client.delete_category(later["id"])
try:
    client.get_feed(new_id)
    check(False, "a deleted feed is gone")
except miniflux.ResourceNotFound:
    pass
# category_id 0 (Miniflux's Go client always sends it) files the feed in the first category by name,
# and the answer comes once the first fetch is stored: the new feed lists its entries at once.
zero_id = client.create_feed(feeds + "/feed.xml", category_id=0)
zero = client.get_feed(zero_id)
check(zero["category"]["title"] == "News", f"category_id 0: {zero['category']}")
check(client.get_feed_entries(zero_id)["total"] > 0, "a new feed lists its entries at once")
try:
    client.create_feed(feeds + "/feed.xml", category_id=news["id"])
    check(False, "a duplicate feed is refused")
except miniflux.BadRequest:
    pass  # as Miniflux: 400 "already subscribed"
client.delete_feed(zero_id)
try:
    client.discover(base + "/login")  # a page with no feed, linking to none
    check(False, "discovery with nothing found")
except miniflux.ResourceNotFound:
    pass

# No third-party integrations: the status says so, and saving an entry to one is a 400 as in Miniflux.
check(client.get_integrations_status() is False, "integrations status")
try:
    client.save_entry(item1["id"])
    check(False, "saving an entry without an integration is refused")
except miniflux.BadRequest as error:
    check("integration" in str(error), f"save_entry: {error}")

# API keys are our tokens.
key = client.create_api_key("script")
check(len(key["token"]) == 64, "create_api_key shows the token once")
check(miniflux.Client(base, api_key=key["token"]).me()["username"] == user, "the new key logs in")
check(any(k["description"] == "script" for k in client.get_api_keys()), "get_api_keys")
client.delete_api_key(key["id"])
try:
    miniflux.Client(base, api_key=key["token"]).me()
    check(False, "a deleted key is refused")
except miniflux.AccessUnauthorized:
    pass

# Reading preferences are kept and echoed, with Miniflux's defaults and its rules for values.
me = client.me()
check((me["theme"], me["entry_sorting_direction"], me["entries_per_page"], me["mark_read_on_view"])
      == ("light_serif", "asc", 100, True), f"default settings: {me}")
changed = client.update_user(me["id"], theme="dark_serif", timezone="Europe/Paris", entries_per_page=25,
                             external_font_hosts="  fonts.example.org  ", custom_js="alert('hi');",
                             block_filter_entry_rules="EntryTitle=(?i)sponsored")
check((changed["theme"], changed["timezone"], changed["entries_per_page"], changed["external_font_hosts"])
      == ("dark_serif", "Europe/Paris", 25, "fonts.example.org"), f"update_user echoes: {changed}")
for refused in [{"theme": "invalid_theme"}, {"timezone": "Mars/Olympus"}, {"entries_per_page": 0},
                {"external_font_hosts": "'self' *"}, {"block_filter_entry_rules": "Title=x"},
                {"keep_filter_entry_rules": "EntryTitle=("}, {"is_admin": "yes"}]:
    try:
        client.update_user(me["id"], **refused)
        check(False, f"update_user({refused}) is refused")
    except miniflux.BadRequest:
        pass
again = client.me()
check((again["theme"], again["custom_js"], again["block_filter_entry_rules"])
      == ("dark_serif", "alert('hi');", "EntryTitle=(?i)sponsored"), f"kept after refusals: {again}")

print(json.dumps({"starred": item1["id"], "read": item2_many["id"]}))
