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
of every answer and of the 2xx answers alone; `behind_ms`, how late the generator itself was in
handing requests out (p99 of that time minus the scheduled time; a wait for a free connection is
not in it): when it nears the latencies, the generator, not the server, is the bound.

Each connection is an asyncio Protocol parsing its answers itself (no stream objects, no task or
timer per request): one request costs the generator a few tens of microseconds, so that on a
small machine it takes as little CPU as it can from the server it loads."""
import argparse
import asyncio
import collections
import json
import resource
import time
import urllib.parse


def pct(values, p):
    if not values:
        return None
    values = sorted(values)
    return round(values[min(len(values) - 1, int(p / 100.0 * len(values)))] * 1000, 2)


class Stats:
    def __init__(self):
        self.latency, self.latency_2xx, self.behind = [], [], []
        self.status = collections.Counter()
        self.timeouts = 0
        self.errors = 0


class Target:
    """One server: its request bytes, the requests waiting for a connection, its connections."""

    def __init__(self, url, args, stats, limit):
        u = urllib.parse.urlsplit(url)
        self.host, self.port = u.hostname, u.port or 80
        path = (u.path or "/") + ("?" + u.query if u.query else "")
        body = args.body.encode() if args.body is not None else b""
        head = ["%s %s HTTP/1.1" % (args.method, path), "Host: %s:%d" % (self.host, self.port)]
        head += args.header
        if args.body is not None:
            head += ["Content-Type: application/json", "Content-Length: %d" % len(body)]
        self.request = ("\r\n".join(head) + "\r\n\r\n").encode() + body
        self.waiting = collections.deque()  # scheduled times of requests with no connection yet
        self.idle = []  # connected, nothing in flight
        self.connections = set()  # every open or opening connection
        self.opening = 0
        self.opened = 0
        self.limit = limit
        self.stats = stats

    def offer(self, scheduled):
        if self.idle:
            self.idle.pop().send(scheduled)
            return
        self.waiting.append(scheduled)
        if self.opening < len(self.waiting) and len(self.connections) < self.limit:
            self.open()

    def open(self):
        conn = Connection(self)
        self.connections.add(conn)
        self.opening += 1
        self.opened += 1
        loop = asyncio.get_running_loop()
        task = loop.create_task(loop.create_connection(lambda: conn, self.host, self.port))
        task.add_done_callback(lambda t: conn.failed() if t.cancelled() or t.exception() else None)

    def ready(self, conn):
        """A connection is free: it takes the oldest waiting request, or waits itself."""
        if self.waiting:
            conn.send(self.waiting.popleft())
        else:
            self.idle.append(conn)

    def gone(self, conn):
        self.connections.discard(conn)
        if conn in self.idle:
            self.idle.remove(conn)
        if self.waiting and len(self.connections) < self.limit and self.opening < len(self.waiting):
            self.open()


class Connection(asyncio.Protocol):
    def __init__(self, target):
        self.target = target
        self.transport = None
        self.scheduled = None  # the request in flight, by its scheduled time
        self.buffer = b""
        self.connecting = True

    def connection_made(self, transport):
        self.transport = transport
        self.connecting = False
        self.target.opening -= 1
        self.target.ready(self)

    def failed(self):
        """The connection could not be made: the oldest request waiting for one fails with it
        (an error, as it would on a connection of its own), so a refused port is not retried
        more often than requests are scheduled."""
        if self.connecting:
            self.connecting = False
            self.target.opening -= 1
            self.target.stats.errors += 1
            if self.target.waiting:
                self.target.waiting.popleft()
            self.target.gone(self)

    def send(self, scheduled):
        self.scheduled = scheduled
        self.buffer = b""
        self.transport.write(self.target.request)

    def data_received(self, data):
        self.buffer += data
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0 or self.scheduled is None:
            return
        lines = self.buffer[:end].decode("latin-1").split("\r\n")
        length, close = 0, False
        for line in lines[1:]:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value.strip())
            elif name == "connection" and value.strip().lower() == "close":
                close = True
        if len(self.buffer) < end + 4 + length:
            return
        try:
            status = int(lines[0].split(" ")[1])
        except (IndexError, ValueError):
            self.abort(error=True)
            return
        now = time.monotonic()
        stats = self.target.stats
        stats.latency.append(now - self.scheduled)
        stats.status[status] += 1
        if 200 <= status < 300:
            stats.latency_2xx.append(now - self.scheduled)
        self.scheduled = None
        self.buffer = b""
        if close:
            self.abort(error=False)
        else:
            self.target.ready(self)

    def connection_lost(self, exc):
        if self.scheduled is not None:  # closed with a request in flight
            self.target.stats.errors += 1
            self.scheduled = None
        self.target.gone(self)

    def abort(self, error):
        if error:
            self.target.stats.errors += 1
        self.scheduled = None
        if self.transport:
            self.transport.close()

    def timed_out(self, now, timeout):
        if self.scheduled is not None and now - self.scheduled > timeout:
            self.target.stats.timeouts += 1
            self.target.stats.latency.append(now - self.scheduled)  # at least --timeout: it counts
            self.scheduled = None
            self.transport.abort()


async def sweep(targets, timeout):
    """Every 50 ms: requests past --timeout are counted as such, their connections dropped."""
    while True:
        await asyncio.sleep(0.05)
        now = time.monotonic()
        for t in targets:
            for conn in list(t.connections):
                conn.timed_out(now, timeout)
            while t.waiting and now - t.waiting[0] > timeout:  # never got a connection
                t.stats.timeouts += 1
                t.stats.latency.append(now - t.waiting.popleft())


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
    stats = Stats()
    per_target = max(1, args.max_connections // len(args.url))
    targets = [Target(u, args, stats, per_target) for u in args.url]
    sweeper = asyncio.get_running_loop().create_task(sweep(targets, args.timeout))
    total = int(args.rate * args.seconds)
    start = time.monotonic()
    i = 0
    while i < total:
        now = time.monotonic()
        # Everything due by now goes out in one pass (a late wake-up sends its backlog at once).
        while i < total and start + i / args.rate <= now:
            scheduled = start + i / args.rate
            stats.behind.append(now - scheduled)
            targets[i % len(targets)].offer(scheduled)
            i += 1
        if i < total:
            await asyncio.sleep(max(0.0, start + i / args.rate - time.monotonic()))
    sent_for = time.monotonic() - start
    deadline = time.monotonic() + args.timeout + 1
    while time.monotonic() < deadline and any(t.waiting or any(c.scheduled is not None for c in t.connections) for t in targets):
        await asyncio.sleep(0.02)
    sweeper.cancel()
    for t in targets:
        for conn in list(t.connections):
            if conn.transport:
                conn.transport.close()
    answered = sum(stats.status.values())
    print(json.dumps({
        "offered_rps": args.rate, "seconds": round(sent_for, 2), "scheduled": total, "answered": answered,
        "answered_rps": round(answered / max(sent_for, 1e-9), 1),
        "status": {str(k): v for k, v in sorted(stats.status.items())},
        "timeouts": stats.timeouts, "errors": stats.errors,
        "connections": sum(t.opened for t in targets),
        "p50_ms": pct(stats.latency, 50), "p99_ms": pct(stats.latency, 99), "max_ms": pct(stats.latency, 100),
        "p50_2xx_ms": pct(stats.latency_2xx, 50), "p99_2xx_ms": pct(stats.latency_2xx, 99),
        "behind_ms": pct(stats.behind, 99),
        # this generator's own CPU seconds: on a 2-core machine it competes with the server it loads
        "generator_cpu_s": round(resource.getrusage(resource.RUSAGE_SELF).ru_utime + resource.getrusage(resource.RUSAGE_SELF).ru_stime, 2),
    }))


asyncio.run(main())
