#!/usr/bin/env bash
# Start-up of two builds side by side, runs interleaved (A, B, A, B, …) so both see the same machine:
#   bash bench/startup_compare.sh BIN_DIR_A BIN_DIR_B [RUNS]
# e.g. .build/release (two executables) against the package's one (`make deb` leaves it, with its
# aggregatorctl link, in .build/deb/work-VERSION/root/usr/bin). For each: the wall time of
# `aggregatorctl --version`, and of the daemon from exec to its first answer on the control socket
# (a fresh database each run, no seed list, no HTTP server; polled every millisecond). RUNS: 40.
set -euo pipefail
cd "$(dirname "$0")/.."
a=${1:?usage: bash bench/startup_compare.sh BIN_DIR_A BIN_DIR_B [RUNS]}
b=${2:?usage: bash bench/startup_compare.sh BIN_DIR_A BIN_DIR_B [RUNS]}
runs=${3:-40}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$a" "$b" "$runs" "$work" <<'PY'
import os, signal, socket, statistics, subprocess, sys, time
a, b, runs, work = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
env = dict(os.environ, AGGREGATOR_HTTP_LISTEN="none")

def client(bin_dir):
    start = time.perf_counter()
    subprocess.run([bin_dir + "/aggregatorctl", "--version"], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start

def daemon(bin_dir, run):
    path = f"{work}/{run}-{os.path.basename(bin_dir.rstrip('/'))}"
    os.makedirs(path)
    sock = path + "/ctl.sock"
    start = time.perf_counter()
    process = subprocess.Popen([bin_dir + "/aggregatord", "--database", path + "/a.db", "--socket", sock,
                                "--seed-opml", "", "--log-level", "error"], env=env, stderr=subprocess.DEVNULL)
    try:
        while True:
            if process.poll() is not None:
                sys.exit(f"{bin_dir}/aggregatord exited with {process.returncode}")
            try:
                with socket.socket(socket.AF_UNIX) as connection:
                    connection.connect(sock)
                    connection.sendall(b'{"id":1,"jsonrpc":"2.0","method":"status"}\n')
                    if connection.recv(65536):
                        return time.perf_counter() - start
            except OSError:
                time.sleep(0.001)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait()

results = {(which, kind): [] for which in (a, b) for kind in ("client", "daemon")}
for bin_dir in (a, b):  # warm-up: page cache
    client(bin_dir); daemon(bin_dir, "warm")
for run in range(runs):
    for bin_dir in ((a, b) if run % 2 == 0 else (b, a)):
        results[(bin_dir, "client")].append(client(bin_dir))
        results[(bin_dir, "daemon")].append(daemon(bin_dir, run))

print(f"{runs} runs each, interleaved, after one warm-up; wall time in ms\n")
print("| build | `aggregatorctl --version` median (min–max) | daemon to first answer median (min–max) |")
print("|---|---|---|")
for bin_dir in (a, b):
    cells = []
    for kind in ("client", "daemon"):
        times = [t * 1000 for t in results[(bin_dir, kind)]]
        cells.append(f"{statistics.median(times):.1f} ({min(times):.1f}–{max(times):.1f})")
    print(f"| {bin_dir} | {cells[0]} | {cells[1]} |")
for kind in ("client", "daemon"):
    ratio = statistics.median(results[(b, kind)]) / statistics.median(results[(a, kind)])
    print(f"\n{kind}: B/A = {ratio:.3f}", end="")
print()
PY
