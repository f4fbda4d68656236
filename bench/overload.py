"""The load of bench/overload.sh: GET PATH with an API token, against the daemon on 127.0.0.1:PORT,
from one process per source address (127.0.0.2, .3, ... : each address has its own connection cap),
for SECONDS. Two shapes:

  closed N      N clients in all, each sending its next request when the last is answered (on a
                keep-alive connection; a new one after the server closes it); with
                RETRY_AFTER=1 in the environment a client told 503 waits the Retry-After it was
                given, as a polite app does, else it asks again at once
  open R        R requests a second in all, due on schedule whatever the server does, over at most
                CONNECTIONS keep-alive connections in all (default 400, as many clients): a request
                due while every connection is busy waits for one on the client's side; its latency
                is counted from when it is sent, and the wait before (the client's backlog) apart

A request answered 2xx is accepted; 503 is shed; a connection reset or closed without an answer
is dropped. Prints one JSON line: the shape, requests sent, accepted a second, shed and dropped
counts, and accepted latency p50/p99/max in milliseconds.

Arguments: PORT TOKEN PATH SHAPE N SECONDS PROCESSES
"""
import asyncio
import json
import multiprocessing
import os
import sys
import time

PORT, TOKEN, PATH, SHAPE, AMOUNT, SECONDS, PROCESSES = sys.argv[1:8]
PORT, AMOUNT, SECONDS, PROCESSES = int(PORT), float(AMOUNT), float(SECONDS), int(PROCESSES)
POLITE = os.environ.get("RETRY_AFTER") == "1"
REQUEST = (f"GET {PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Auth-Token: {TOKEN}\r\n"
           "Accept: application/json\r\n\r\n").encode()


class Connection:
    def __init__(self, source):
        self.source = source
        self.streams = None
        self.retry_after = 0

    async def request(self):
        """Status of one request (0: dropped); the connection is closed after a close or an error."""
        try:
            if self.streams is None:
                self.streams = await asyncio.open_connection("127.0.0.1", PORT, local_addr=(self.source, 0))
            reader, writer = self.streams
            writer.write(REQUEST)
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            status = int(lines[0].split()[1])
            headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
            await reader.readexactly(int(headers.get("content-length", "0")))
            self.retry_after = int(headers.get("retry-after", "0")) if status == 503 else 0
            if headers.get("connection", "").lower() == "close":
                self.close()
            return status
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError):
            self.close()
            return 0

    def close(self):
        if self.streams:
            self.streams[1].close()
        self.streams = None


async def closed_loop(source, clients, stats):
    deadline = time.monotonic() + SECONDS

    async def client():
        connection = Connection(source)
        while time.monotonic() < deadline:
            started = time.monotonic()
            status = await connection.request()
            stats.record(status, time.monotonic() - started)
            if status == 0:
                await asyncio.sleep(0.01)  # a refused connect would otherwise spin
            elif POLITE and connection.retry_after:
                await asyncio.sleep(connection.retry_after)
        connection.close()

    await asyncio.gather(*(client() for _ in range(clients)))


async def open_loop(source, rate, connections, stats):
    idle, tasks, interval = [], set(), 1 / rate
    available = asyncio.Semaphore(connections)
    start = time.monotonic()

    async def one(due):
        async with available:
            connection = idle.pop() if idle else Connection(source)
            sent = time.monotonic()
            stats.backlog.append(sent - due)
            status = await connection.request()
            stats.record(status, time.monotonic() - sent)
            idle.append(connection)  # one the server closed connects again when next used

    sent = 0
    while (due := start + sent * interval) < start + SECONDS:
        await asyncio.sleep(max(0, due - time.monotonic()))
        task = asyncio.ensure_future(one(due))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        sent += 1
    await asyncio.gather(*tasks)
    for connection in idle:
        connection.close()


class Stats:
    def __init__(self):
        self.latencies, self.backlog, self.shed, self.dropped, self.other = [], [], 0, 0, 0

    def record(self, status, seconds):
        if 200 <= status < 300:
            self.latencies.append(seconds)
        elif status == 503:
            self.shed += 1
        elif status <= 0:
            self.dropped += 1
        else:
            self.other += 1


def work(index, queue):
    source = f"127.0.0.{index + 2}"
    stats = Stats()
    share = AMOUNT / PROCESSES
    if SHAPE == "closed":
        asyncio.run(closed_loop(source, int(share), stats))
    else:
        asyncio.run(open_loop(source, share, max(1, int(os.environ.get("CONNECTIONS", "400")) // PROCESSES), stats))
    queue.put((stats.latencies, stats.shed, stats.dropped, stats.other, stats.backlog))


def main():
    queue = multiprocessing.Queue()
    workers = [multiprocessing.Process(target=work, args=(index, queue)) for index in range(PROCESSES)]
    for worker in workers:
        worker.start()
    started = time.monotonic()
    latencies, backlog, shed, dropped, other = [], [], 0, 0, 0
    for _ in workers:
        part = queue.get()
        latencies += part[0]
        shed, dropped, other = shed + part[1], dropped + part[2], other + part[3]
        backlog += part[4]
    for worker in workers:
        worker.join()
    elapsed = time.monotonic() - started  # past SECONDS when requests due at the end were answered late
    latencies.sort()
    backlog.sort()

    def percentile(values, p):
        return round(1000 * values[min(len(values) - 1, int(p * len(values)))], 1) if values else None

    sent = len(latencies) + shed + dropped + other
    result = {"shape": SHAPE, "amount": AMOUNT, "sent": sent, "seconds": round(elapsed, 1),
              "accepted_per_second": round(len(latencies) / elapsed), "shed": shed,
              "shed_rate": round(shed / sent, 3) if sent else 0, "dropped": dropped, "other": other,
              "p50_ms": percentile(latencies, 0.5), "p99_ms": percentile(latencies, 0.99), "max_ms": percentile(latencies, 1.0)}
    if backlog:
        result["client_backlog_p99_ms"] = percentile(backlog, 0.99)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
