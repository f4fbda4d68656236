-- Rebuilds every kept counter from the rows (after load; in tests to check nothing drifted).
-- visible(a, e): no hidden mark, and some source of e on a feed a follows with seq >= visible_from.
DROP TABLE IF EXISTS temp.vis;
CREATE TEMP TABLE vis (account_id INTEGER, entry_id INTEGER, PRIMARY KEY (account_id, entry_id)) WITHOUT ROWID;
INSERT OR IGNORE INTO temp.vis
    SELECT sub.account_id, s.entry_id FROM subscriptions sub
    JOIN entry_sources s ON s.feed_id = sub.feed_id AND s.seq >= sub.visible_from
    JOIN entry_state st ON st.entry_id = s.entry_id AND st.removed = 0
    WHERE NOT EXISTS (SELECT 1 FROM entry_marks m WHERE m.account_id = sub.account_id AND m.entry_id = s.entry_id AND m.hidden)
      AND sub.account_id IN (SELECT id FROM temp.recount_accounts);
UPDATE feeds SET entry_count = (SELECT count(*) FROM entry_sources s JOIN entry_state st ON st.entry_id = s.entry_id
                                WHERE s.feed_id = feeds.id AND st.removed = 0);
UPDATE subscriptions SET
    hidden_count = (SELECT count(*) FROM entry_sources s JOIN entry_state st ON st.entry_id = s.entry_id AND st.removed = 0
                    WHERE s.feed_id = subscriptions.feed_id
                      AND NOT EXISTS (SELECT 1 FROM temp.vis v WHERE v.account_id = subscriptions.account_id AND v.entry_id = s.entry_id)),
    read_count = (SELECT count(*) FROM entry_sources s JOIN temp.vis v ON v.account_id = subscriptions.account_id AND v.entry_id = s.entry_id
                  JOIN entry_marks m ON m.account_id = v.account_id AND m.entry_id = s.entry_id AND m.read
                  WHERE s.feed_id = subscriptions.feed_id)
WHERE account_id IN (SELECT id FROM temp.recount_accounts);
