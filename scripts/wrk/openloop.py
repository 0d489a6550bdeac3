#!/usr/bin/env python3
"""An open-loop HTTP/1.1 load generator: requests are *scheduled* at a fixed rate, whatever the
server does, and each one's latency is counted from its scheduled time (so a server that falls
behind is charged for the queue, unlike a closed loop such as wrk, which waits for answers
before sending more). Keep-alive connections are opened as needed, up to --max-connections; a
request that finds none free waits, and that wait counts.

    openloop.py --url URL [--url URL ...] --rate R --seconds S [--method M] [--body TEXT]
                [--header 'Name: value' ...] [--max-connections N] [--timeout T]

URLs (one per server instance) take turns. Prints one JSON object: the offered rate, how many
requests were answered by status, timeouts and connection errors, and p50/p99/max latency in ms
of every answer and of the 2xx answers alone."""
import argparse
import asyncio
import collections
import json
import time
import urllib.parse


def pct(values, p):
    if not values:
        return None
    values = sorted(values)
    return round(values[min(len(values) - 1, int(p / 100.0 * len(values)))] * 1000, 2)


class Target:
    def __init__(self, url, args):
        u = urllib.parse.urlsplit(url)
        self.host, self.port = u.hostname, u.port or 80
        path = (u.path or "/") + ("?" + u.query if u.query else "")
        body = args.body.encode() if args.body is not None else b""
        head = ["%s %s HTTP/1.1" % (args.method, path), "Host: %s:%d" % (self.host, self.port)]
        head += args.header
        if args.body is not None:
            head += ["Content-Type: application/json", "Content-Length: %d" % len(body)]
        self.request = ("\r\n".join(head) + "\r\n\r\n").encode() + body
        self.queue = asyncio.Queue()
        self.workers = 0
        self.idle = 0


async def exchange(reader, writer, request, timeout):
    writer.write(request)
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    length, close = 0, False
    for line in lines[1:]:
        name, _, value = line.partition(":")
        name = name.strip().lower()
        if name == "content-length":
            length = int(value.strip())
        elif name == "connection" and value.strip().lower() == "close":
            close = True
    if length:
        await asyncio.wait_for(reader.readexactly(length), timeout)
    return status, close


async def worker(target, stats, args):
    target.workers += 1
    conn = None
    try:
        while True:
            target.idle += 1
            scheduled = await target.queue.get()
            target.idle -= 1
            if scheduled is None:
                return
            try:
                if conn is None:
                    conn = await asyncio.wait_for(asyncio.open_connection(target.host, target.port), args.timeout)
                remaining = max(0.001, scheduled + args.timeout - time.monotonic())
                status, close = await asyncio.wait_for(exchange(*conn, target.request, remaining), remaining)
                stats["latency"].append(time.monotonic() - scheduled)
                stats["status"][status] += 1
                if 200 <= status < 300:
                    stats["latency_2xx"].append(time.monotonic() - scheduled)
                if close:
                    conn[1].close()
                    conn = None
            except asyncio.TimeoutError:
                stats["timeouts"] += 1
                stats["latency"].append(time.monotonic() - scheduled)  # at least --timeout: it counts
                if conn:
                    conn[1].close()
                conn = None
            except (OSError, asyncio.IncompleteReadError, ValueError, IndexError):
                stats["errors"] += 1
                if conn:
                    conn[1].close()
                conn = None
    finally:
        target.workers -= 1
        if conn:
            conn[1].close()


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", action="append", required=True)
    ap.add_argument("--rate", type=float, required=True)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--method", default="GET")
    ap.add_argument("--body")
    ap.add_argument("--header", action="append", default=[])
    ap.add_argument("--max-connections", type=int, default=1000)
    ap.add_argument("--timeout", type=float, default=10)
    args = ap.parse_args()
    targets = [Target(u, args) for u in args.url]
    per_target = max(1, args.max_connections // len(targets))
    stats = {"latency": [], "latency_2xx": [], "status": collections.Counter(), "timeouts": 0, "errors": 0}
    tasks = []
    total = int(args.rate * args.seconds)
    start = time.monotonic()
    for i in range(total):
        when = start + i / args.rate
        delay = when - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        t = targets[i % len(targets)]
        t.queue.put_nowait(when)
        if t.idle < t.queue.qsize() and t.workers < per_target:
            tasks.append(asyncio.create_task(worker(t, stats, args)))
    sent_for = time.monotonic() - start
    for t in targets:
        for _ in range(t.workers):
            t.queue.put_nowait(None)
    if tasks:
        await asyncio.wait(tasks, timeout=args.timeout + 5)
    answered = sum(stats["status"].values())
    print(json.dumps({
        "offered_rps": args.rate, "seconds": round(sent_for, 2), "scheduled": total, "answered": answered,
        "answered_rps": round(answered / max(sent_for, 1e-9), 1),
        "status": {str(k): v for k, v in sorted(stats["status"].items())},
        "timeouts": stats["timeouts"], "errors": stats["errors"],
        "connections": len(tasks),
        "p50_ms": pct(stats["latency"], 50), "p99_ms": pct(stats["latency"], 99), "max_ms": pct(stats["latency"], 100),
        "p50_2xx_ms": pct(stats["latency_2xx"], 50), "p99_2xx_ms": pct(stats["latency_2xx"], 99),
    }))


asyncio.run(main())
