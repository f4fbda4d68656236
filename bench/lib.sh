# What several benchmark scripts share; sourced (`. bench/lib.sh`) from the repository's root.

# A free TCP port on 127.0.0.1.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Serves an RSS feed of 20 entries as http://127.0.0.1:$feed_port/feed.xml from DIR (Python's own
# server, in the background): sets feed_port and feed_pid (the caller stops it).
serve_small_feed() {
    mkdir -p "$1"
    python3 - "$1/feed.xml" << 'PY'
import sys
items = "".join(f"<item><title>Item {n}</title><link>https://bench.example/{n}</link></item>" for n in range(20))
open(sys.argv[1], "w").write(f"<rss version='2.0'><channel><title>Bench</title>{items}</channel></rss>")
PY
    feed_port=$(free_port)
    python3 -m http.server "$feed_port" --bind 127.0.0.1 --directory "$1" > /dev/null 2>&1 &
    feed_pid=$!
}
