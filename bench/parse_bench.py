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

    # Memory: the largest feed against a tiny document (includes the fixed cost of the code paths a
    # real feed touches) and against the smallest farm feed of the same format (growth with size).
    largest = max(files, key=os.path.getsize)
    same_format = [path for path in files if os.path.splitext(path)[1] == os.path.splitext(largest)[1]]
    smallest = min(same_format, key=os.path.getsize)
    with tempfile.NamedTemporaryFile("w", suffix=".rss", delete=False) as tiny:
        tiny.write("<rss><channel><title>t</title></channel></rss>")
    def rss_of(path):
        return statistics.median(peak_rss_kb([args.bin, "parse", "--json", path]) for _ in range(9))
    tiny_rss, small_rss, large_rss = rss_of(tiny.name), rss_of(smallest), rss_of(largest)
    os.unlink(tiny.name)
    size_kb = os.path.getsize(largest) / 1024
    growth_kb = size_kb - os.path.getsize(smallest) / 1024

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
    # The machine's other load slows a two-thread run more than a one-thread one: the fastest runs
    # of each are the comparison least touched by it.
    print(f"  fastest runs (xmllint min / ours min): {min(xmllint_times) / min(ours_times):.2f}x")
    print(f"largest feed {os.path.basename(largest)} ({size_kb:.0f} KB): peak RSS {large_rss:.0f} KB (median of 9)")
    print(f"  vs a tiny document ({tiny_rss:.0f} KB): {large_rss - tiny_rss:.0f} KB extra = "
          f"{(large_rss - tiny_rss) / size_kb:.2f}x its size")
    print(f"  vs the smallest {os.path.splitext(largest)[1]} feed {os.path.basename(smallest)} ({small_rss:.0f} KB): "
          f"{large_rss - small_rss:.0f} KB extra for {growth_kb:.0f} KB more input = "
          f"{(large_rss - small_rss) / growth_kb:.2f}x")

if __name__ == "__main__":
    sys.exit(main())
