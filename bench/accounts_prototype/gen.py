#!/usr/bin/env python3
"""Builds bench/out/accounts-proto.db: 1M entries / 5,000 feeds / 1,000 accounts x 500 subscriptions."""
import os, sqlite3, time, sys
import numpy as np

DB = sys.argv[1] if len(sys.argv) > 1 else "bench/out/accounts-proto.db"
NFEEDS, PER_FEED, NACC, SUBS = 5000, 200, 1000, 500
XPOST = 0.02
NOW = 1_750_000_000
rng = np.random.default_rng(28)
t0 = time.time()
for p in (DB, DB + "-wal", DB + "-shm"):
    if os.path.exists(p): os.remove(p)
db = sqlite3.connect(DB, isolation_level=None)
db.executescript(open(os.path.join(os.path.dirname(__file__), "schema.sql")).read())
db.execute("PRAGMA cache_size = -1000000")

# --- entries: each feed has its own posting rate; 20 % of feeds are dead (last post long ago)
rate = np.exp(rng.uniform(np.log(0.05), np.log(50), NFEEDS))          # entries/day
dead = rng.random(NFEEDS) < 0.2
last = NOW - np.where(dead, rng.uniform(30, 1000, NFEEDS) * 86400, rng.exponential(86400 / rate))
feed_of = np.repeat(np.arange(1, NFEEDS + 1), PER_FEED)
k = np.tile(np.arange(PER_FEED), NFEEDS)
gaps = rng.exponential(1.0, NFEEDS * PER_FEED) * (86400 / rate[feed_of - 1])
# cumulative gaps per feed, going back from the last post
gaps = gaps.reshape(NFEEDS, PER_FEED); gaps[:, 0] = 0
back = np.cumsum(gaps, axis=1).reshape(-1)
sort_at = (last[feed_of - 1] - back).astype(np.int64)
order = np.argsort(sort_at, kind="stable")           # ids in order of arrival
sort_at = sort_at[order]; feed_of = feed_of[order]
N = len(sort_at)
ids = np.arange(1, N + 1)
# cross-posts: 2 % of entries also carried by another feed, arriving a few minutes later
xp = rng.random(N) < XPOST
xp_ids = ids[xp]
xp_feed = rng.integers(1, NFEEDS + 1, len(xp_ids))
xp_feed = np.where(xp_feed == feed_of[xp], xp_feed % NFEEDS + 1, xp_feed)
xp_time = sort_at[xp] + rng.integers(60, 3600, len(xp_ids))
# seq: one store-wide counter over all (feed, entry) arrivals in time order
ev_time = np.concatenate([sort_at, xp_time]); ev_kind = np.concatenate([np.zeros(N, int), np.ones(len(xp_ids), int)])
ev_idx = np.concatenate([np.arange(N), np.arange(len(xp_ids))])
ev_order = np.lexsort((ev_kind, ev_time))
seq_primary = np.zeros(N, np.int64); seq_xp = np.zeros(len(xp_ids), np.int64)
seqs = np.arange(1, len(ev_order) + 1)
kinds = ev_kind[ev_order]; idxs = ev_idx[ev_order]
seq_primary[idxs[kinds == 0]] = seqs[kinds == 0]
seq_xp[idxs[kinds == 1]] = seqs[kinds == 1]
print(f"generated entries {time.time()-t0:.1f}s", flush=True)

db.execute("BEGIN")
db.executemany("INSERT INTO feeds(id, url) VALUES (?, ?)", ((f, f"https://feed{f}.example/rss") for f in range(1, NFEEDS + 1)))
db.executemany("INSERT INTO entries(id, key, sort_at, first_seen_at, title) VALUES (?,?,?,?,?)",
               ((int(i), f"https://e.example/{i}", int(s), int(s), f"Entry {i}") for i, s in zip(ids, sort_at)))
print(f"entries {time.time()-t0:.1f}s", flush=True)
is_xp = np.zeros(N + 1, bool); is_xp[xp_ids] = True
db.executemany("INSERT INTO entry_state(entry_id, feed_id, sources, seq, sort_at) VALUES (?,?,?,?,?)",
               ((int(i), int(f), 2 if is_xp[i] else 1, int(q), int(s)) for i, f, q, s in zip(ids, feed_of, seq_primary, sort_at)))
print(f"entry_state {time.time()-t0:.1f}s", flush=True)
src = [(int(f), int(i), int(q), int(is_xp[i]), int(s)) for i, f, q, s in zip(ids, feed_of, seq_primary, sort_at)]
src += [(int(f), int(i), int(q), 1, int(sort_at[i - 1])) for i, f, q in zip(xp_ids, xp_feed, seq_xp)]
src.sort()
db.executemany("INSERT INTO entry_sources(feed_id, entry_id, seq, shared, sort_at) VALUES (?,?,?,?,?)", src)
db.execute("INSERT INTO store_seq VALUES (1, ?)", (int(len(ev_order) + 1),))
db.execute("UPDATE feeds SET entry_count = (SELECT count(*) FROM entry_sources s WHERE s.feed_id = feeds.id)")
print(f"sources {time.time()-t0:.1f}s", flush=True)

# per-feed source lists (entry ids, seqs) in arrival order, for visibility/marks
feed_src = {}
for f, i, q, _, _ in src:
    feed_src.setdefault(f, []).append((q, i))
for f in feed_src: feed_src[f].sort()

# --- accounts and subscriptions: Zipf popularity, 500 distinct feeds each (Efraimidis-Spirakis)
pop_rank = rng.permutation(NFEEDS) + 1
w = 1.0 / pop_rank ** 1.0
db.executemany("INSERT INTO accounts(id, name) VALUES (?, ?)", ((a, f"user{a}") for a in range(1, NACC + 1)))
cats = []
for a in range(1, NACC + 1):
    for c in range(10):
        cats.append(((a - 1) * 10 + c + 1, a, "All" if c == 0 else f"Cat {c}"))
db.executemany("INSERT INTO categories(id, account_id, name) VALUES (?,?,?)", cats)
subs = []
acc_feeds = {}
sid = 0
for a in range(1, NACC + 1):
    keys = rng.random(NFEEDS) ** (1.0 / w)
    chosen = np.argpartition(-keys, SUBS)[:SUBS] + 1
    if a == 1:   # the measured account: make sure it follows the most popular feed
        top = int(np.argmin(pop_rank)) + 1
        if top not in chosen: chosen[0] = top
    chosen = sorted(int(x) for x in chosen)
    acc_feeds[a] = chosen
    catids = rng.integers(0, 10, SUBS)
    for f, c in zip(chosen, catids):
        sid += 1
        vis_from = 0
        # accounts 1-10: 20 % of subscriptions made recently (backlog hidden: visible from the
        # 50th-newest source of the feed, i.e. its latest document)
        if a <= 10 and rng.random() < 0.2 and len(feed_src[f]) > 50:
            vis_from = feed_src[f][-50][0]
        subs.append((sid, a, f, (a - 1) * 10 + int(c) + 1, vis_from))
db.executemany("INSERT INTO subscriptions(id, account_id, feed_id, category_id, visible_from) VALUES (?,?,?,?,?)", subs)
followers = np.bincount([s[2] for s in subs], minlength=NFEEDS + 1)
print(f"subscriptions {time.time()-t0:.1f}s; followers max {followers.max()} median {np.median(followers[1:])} "
      f"feeds with 0: {(followers[1:] == 0).sum()} with 1: {(followers[1:] == 1).sum()}", flush=True)

# --- marks. Visible entries of an account (account-level): some source on a followed feed with seq >= visible_from.
sub_vis = {}
for s in subs: sub_vis.setdefault(s[1], {})[s[2]] = s[4]
def visible(a):
    vis = set()
    for f, vf in sub_vis[a].items():
        for q, i in feed_src[f]:
            if q >= vf: vis.add(i)
    return np.array(sorted(vis))   # sorted by id == by arrival ~ by sort_at
marks = []
for a in range(1, NACC + 1):
    if a <= 4:
        vis = visible(a)
        n = len(vis)
        if a == 1: read = rng.random(n) < 0.5                  # random half read
        elif a == 2: read = np.arange(n) >= n // 2             # newest half read (old backlog unread)
        elif a == 3: read = np.arange(n) < n // 2              # oldest half read
        else: read = np.zeros(n, bool)                         # nothing read (bar 3)
        star = rng.random(n) < 0.01
        for i, r, s in zip(vis, read, star):
            if r or s: marks.append((a, int(i), int(r), int(s)))
        print(f"account {a}: visible {n}, read {int(read.sum())}, starred {int(star.sum())}", flush=True)
    else:   # lighter history for the others (all their subscriptions old: everything visible): ~5,000 read, 50 starred
        fs = acc_feeds[a]
        pick = set()
        for f in rng.choice(fs, 5200):
            lst = feed_src[int(f)]
            pick.add(lst[int(rng.integers(len(lst)))][1])
        pick = sorted(pick)
        st = set(rng.choice(pick, 50, replace=False).tolist())
        for i in pick: marks.append((a, int(i), 1, int(i in st)))
db.executemany("INSERT INTO entry_marks(account_id, entry_id, read, starred) VALUES (?,?,?,?)", marks)
print(f"marks inserted {time.time()-t0:.1f}s", flush=True)
from collections import Counter
stars = Counter(m[1] for m in marks if m[3])
db.executemany("UPDATE entry_state SET stars = ? WHERE entry_id = ?", ((n, e) for e, n in stars.items()))
print(f"marks {len(marks)} {time.time()-t0:.1f}s", flush=True)
db.execute("COMMIT")
print(f"commit {time.time()-t0:.1f}s", flush=True)
