#!/usr/bin/env python3
"""Bars 3 and 4 (writes), each run in a transaction rolled back afterwards."""
import os, sqlite3, statistics, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ops
DB = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1].endswith(".db") else "bench/out/accounts-proto.db"
db = sqlite3.connect(DB, isolation_level=None)
db.execute("PRAGMA cache_size = -2000000"); db.execute("PRAGMA temp_store = MEMORY")
print(f"load average: {os.getloadavg()}")

def timed_rollback(fn, reps=7, warm=1):
    ts = []
    for r in range(warm + reps):
        db.execute("BEGIN")
        t = time.perf_counter(); out = fn(r); db.execute("SELECT 1"); el = (time.perf_counter() - t) * 1000
        db.execute("ROLLBACK")
        if r >= warm: ts.append(el)
    return statistics.median(ts), out

WHICH = [a for a in sys.argv[1:] if a in ('3', '4')] or ['3', '4']
if '3' in WHICH:
    # ---- bar 3: account 4 (nothing read) marks 100,000 entries read in one transaction
    ids = [r[0] for r in db.execute("""SELECT DISTINCT s.entry_id FROM subscriptions sub JOIN entry_sources s ON s.feed_id = sub.feed_id
                                       WHERE sub.account_id = 4 LIMIT 100000""")]
    ids += [r[0] for r in db.execute("SELECT entry_id FROM entry_state WHERE entry_id NOT IN (SELECT s.entry_id FROM subscriptions sub JOIN entry_sources s ON s.feed_id = sub.feed_id WHERE sub.account_id = 4) LIMIT ?", (100000 - len(ids),))]
    print(f"\n== bar 3: mark {len(ids)} ids read for account 4 ({len(set(ids))} distinct)")
    def mark(_):
        n = ops.mark_read(db, 4, ids)
        db.execute("COMMIT"); db.execute("BEGIN")   # include the commit cost (rolled back below by re-marking? no: measure commit separately)
        return n
    def mark_nocommit(_): return ops.mark_read(db, 4, ids)
    ms, n = timed_rollback(mark_nocommit)
    print(f"mark 100k read, in transaction (rolled back):        {ms:8.1f} ms, changed {n}")
    # committed: mark read + COMMIT, then undo (unread, rows deleted) + COMMIT; 7 rounds
    tr, tu = [], []
    for _ in range(7):
        t = time.perf_counter(); db.execute("BEGIN"); ops.mark_read(db, 4, ids); db.execute("COMMIT"); tr.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter(); db.execute("BEGIN"); ops.mark_read(db, 4, ids, read=False)
        db.execute("DELETE FROM entry_marks WHERE account_id = 4 AND read = 0 AND starred = 0 AND hidden = 0"); db.execute("COMMIT")
        tu.append((time.perf_counter() - t) * 1000)
    print(f"mark 100k read + COMMIT: median {statistics.median(tr):.1f} ms (min {min(tr):.0f}, max {max(tr):.0f}); "
          f"mark unread + delete rows + COMMIT: median {statistics.median(tu):.1f} ms")
    # variant: without the index on entry_marks(entry_id)
    db.execute("DROP INDEX entry_marks_by_entry")
    ms2, _ = timed_rollback(mark_nocommit, reps=7)
    db.execute("CREATE INDEX entry_marks_by_entry ON entry_marks(entry_id) WHERE read OR hidden")
    print(f"variant without index entry_marks(entry_id), rolled back: {ms2:8.1f} ms")
if '4' in WHICH:
    # ---- bar 4: ingest cost per new entry, feed with 1,000 followers vs 1 follower
    pop = db.execute("SELECT feed_id, count(*) FROM subscriptions GROUP BY feed_id ORDER BY 2 DESC LIMIT 1").fetchone()
    lonely = db.execute("SELECT feed_id, count(*) FROM subscriptions GROUP BY feed_id ORDER BY 2 ASC LIMIT 1").fetchone()
    print(f"\n== bar 4: ingest, feed {pop[0]} ({pop[1]} followers) vs feed {lonely[0]} ({lonely[1]} follower)")
    N = 50
    for feed, nf in (pop, lonely, pop, lonely):
        ms, _ = timed_rollback(lambda r: ops.ingest_new(db, feed, N, 1_760_000_000 + r, f"https://new.example/{feed}/{r}"), reps=9)
        print(f"new entries, {nf:5d} followers: {ms / N * 1000:8.1f} us/entry (batch of {N}, median of 9)")
    # cross-post arrivals: an entry another feed carries arrives in the popular feed (followers probed)
    cands = [r[0] for r in db.execute("SELECT entry_id FROM entry_state WHERE sources = 1 AND feed_id != ? ORDER BY entry_id DESC LIMIT 200", (pop[0],))]
    for feed, nf in (pop, lonely, pop, lonely):
        ms, _ = timed_rollback(lambda r: [ops.ingest_crosspost(db, feed, e) for e in cands[r * 20:(r + 1) * 20]], reps=9)
        print(f"cross-post arrival, {nf:5d} followers: {ms / 20 * 1000:8.1f} us/entry")
