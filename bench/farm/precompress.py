#!/usr/bin/env python3
"""precompress.py FEEDS_DIR: makes NAME.gz beside each feed whose copy is missing or stale, for
nginx's gzip_static (bench/farm/serve.sh). A copy is current when it has its feed's modification
time: it gets that time when made, and gen_farm.py deletes the copy of a feed it rewrites. gzip
level 6 with a zero timestamp in the header, so the same feed always gives the same bytes, and
nginx gives both forms the same Last-Modified."""
import gzip
import os
import pathlib
import sys

from gen_farm import put_file


def copy_time(path):
    try:
        return os.stat(path).st_mtime
    except FileNotFoundError:
        return None


def stale(feeds_dir):
    """(path, mtime) of each feed without a current .gz copy."""
    for entry in os.scandir(feeds_dir):
        if entry.name.endswith((".gz", ".tmp")):
            continue
        mtime = entry.stat().st_mtime
        if copy_time(entry.path + ".gz") != mtime:
            yield entry.path, mtime


todo = sorted(stale(sys.argv[1]))
for path, mtime in todo:
    put_file(path + ".gz", gzip.compress(pathlib.Path(path).read_bytes(), compresslevel=6, mtime=0), mtime)
if todo:
    print("compressed %d feeds (gzip -6)" % len(todo))
