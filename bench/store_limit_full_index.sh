#!/usr/bin/env bash
# store_limit_full_index.sh SHARED_BENCH_DIR OUT.py: writes ../shared/bench/store_limit.py changed in
# one place only, its FTS5 declaration, to the index the FeedStore issue asks for (detail=full for
# phrases, prefix='3', remove_diacritics 2). Derived as it runs, so the two never drift apart.
set -euo pipefail
bench=$(cd "$1" && pwd)
sed -e "s|fts5(title, body, content='', detail=column)|fts5(title, body, content='', tokenize='unicode61 remove_diacritics 2', prefix='3')|" \
    -e "s|os.path.dirname(os.path.abspath(__file__))|'$bench'|" "$bench/store_limit.py" > "$2"
grep -q "prefix='3'" "$2" || { echo "store_limit.py has changed: cannot derive its full-index variant" >&2; exit 1; }
