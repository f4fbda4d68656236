#!/usr/bin/env python3
"""precompress.py FEEDS_DIR: writes NAME.gz beside every feed whose .gz is missing or stale, for
nginx's gzip_static (bench/farm/serve.sh). gzip level 6 with a zero timestamp in the header, so the
bytes never change; the .gz gets its feed's modification time, so a compressed response carries
the same Last-Modified and ETag as an uncompressed one."""
import gzip
import os
import sys

feeds = sys.argv[1]
written = 0
for name in sorted(os.listdir(feeds)):
    if name.endswith(".gz") or name.endswith(".tmp"):
        continue
    source = os.path.join(feeds, name)
    target = source + ".gz"
    mtime = os.stat(source).st_mtime
    if os.path.exists(target) and os.stat(target).st_mtime == mtime:
        continue     # gen_farm.py deletes the .gz of a feed it rewrites, so this one is current
    with open(source, "rb") as data:
        packed = gzip.compress(data.read(), compresslevel=6, mtime=0)
    with open(target + ".tmp", "wb") as out:
        out.write(packed)
    os.utime(target + ".tmp", (mtime, mtime))
    os.replace(target + ".tmp", target)
    written += 1
if written:
    print("compressed %d feeds (gzip -6)" % written)
