#!/usr/bin/env python3
"""Parse speed of `aggregatorctl parse --json` against `xmllint --stream --noout` on the same files.

    parse_bench.py --farm DIR [--runs 5] [--bin .build/release/aggregatorctl]

Runs the two commands alternately (one process each over every XML feed of the farm, output to
/dev/null), prints the median wall time, MB/s and entries/s of each, and the ratio. Then measures
peak RSS of parsing the farm's largest feed against parsing a tiny one, with /usr/bin/time -v.
Prints a markdown table; nothing is made up: every figure comes from a run here.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def wall(cmd):
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def peak_rss_kb(cmd):
    result = subprocess.run(["/usr/bin/time", "-v"] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in result.stderr.splitlines():
        if "Maximum resident set size" in line:
            return int(line.split(":")[1])
    raise RuntimeError("no RSS reported")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--farm", required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--bin", default=".build/release/aggregatorctl")
    args = parser.parse_args()

    feeds = os.path.join(args.farm, "feeds")
    files = sorted(os.path.join(feeds, name) for name in os.listdir(feeds)
                   if name.endswith((".rss", ".atom", ".rdf")))
    total_bytes = sum(os.path.getsize(path) for path in files)
    ours = [args.bin, "parse", "--json"] + files
    xmllint = ["xmllint", "--stream", "--noout"] + files

    # Entries come from our own output, counted once (a warm-up run that also fills the page cache).
    output = subprocess.run(ours, stdout=subprocess.PIPE, check=True).stdout
    entries = sum(len(json.loads(line)["entries"]) for line in output.splitlines())
    wall(xmllint)

    ours_times, xmllint_times = [], []
    for _ in range(args.runs):
        xmllint_times.append(wall(xmllint))
        ours_times.append(wall(ours))
    ours_median = statistics.median(ours_times)
    xmllint_median = statistics.median(xmllint_times)

    largest = max(files, key=os.path.getsize)
    with tempfile.NamedTemporaryFile("w", suffix=".rss", delete=False) as tiny:
        tiny.write("<rss><channel><title>t</title></channel></rss>")
    base_rss = statistics.median(peak_rss_kb([args.bin, "parse", "--json", tiny.name]) for _ in range(9))
    large_rss = statistics.median(peak_rss_kb([args.bin, "parse", "--json", largest]) for _ in range(9))
    os.unlink(tiny.name)
    size_kb = os.path.getsize(largest) / 1024

    mb = total_bytes / 1e6
    print(f"{len(files)} XML feeds, {mb:.1f} MB, {entries} entries; medians of {args.runs} alternating runs")
    print()
    print("| command | wall s (median) | min–max | MB/s | entries/s |")
    print("|---|---|---|---|---|")
    print(f"| aggregatorctl parse --json | {ours_median:.2f} | {min(ours_times):.2f}–{max(ours_times):.2f} "
          f"| {mb / ours_median:.1f} | {entries / ours_median:,.0f} |")
    print(f"| xmllint --stream --noout | {xmllint_median:.2f} | {min(xmllint_times):.2f}–{max(xmllint_times):.2f} "
          f"| {mb / xmllint_median:.1f} | – |")
    print()
    print(f"speed ratio (xmllint wall / ours): {xmllint_median / ours_median:.2f}x")
    print(f"largest feed {os.path.basename(largest)}: {size_kb:.0f} KB; peak RSS {large_rss} KB vs {base_rss} KB "
          f"for a tiny feed: {large_rss - base_rss} KB extra = {(large_rss - base_rss) / size_kb:.2f}x its size")


if __name__ == "__main__":
    sys.exit(main())
