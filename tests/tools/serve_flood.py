#!/usr/bin/env python3
"""Floods and slow clients against `cookgraph serve` (docs/commands.md#the-explorers-safety).

usage: serve_flood.py COOKGRAPH INPUT [--rss-growth-mb N]

Starts the server on a free loopback port, with its token. First, while the
server is stopped (SIGSTOP) for 0.3 s, 64 clients connect and ask for
/api/index: each must be answered 200 within 1 s of its connect. The kernel
queues such a burst only as deep as the server's listen backlog; a client
past it has its SYN dropped and tries again after 1 s (cpp-httplib's default
backlog of 5 made a normal request take 1.02 s on a loaded machine). Then,
while a normal client asks for /api/index (with the token) every 100 ms:
  1. 12 connections each send a request line and then 30 MB of short header
     lines (`X-a: b`): each is refused (431) and closed, and the server stays
     under 100 MB resident (or, with --rss-growth-mb, grows by less than N MB:
     a sanitizer's shadow memory is not the server's);
  2. 40 slow-loris connections (a header line every 2 s, never the blank
     line) and 40 half-sent requests (a head announcing 1,000 bytes of body,
     10 of them sent), held for 12 s: the slow-loris ones get 408 after the
     10 s deadline for a request head;
  3. 24 connections that ask for the node table and never read it (a 4 KiB
     receive buffer), held for 3 s: what they do not take waits in the
     gate, not in a worker.
Throughout, every one of the normal client's requests must be answered 200
within 1 s. Exits 1 with one line per failed check. Standard library only.
"""

import http.client
import os
import re
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
    return ok


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Watch(threading.Thread):
    """The normal client and the server's memory, every 100 ms."""

    def __init__(self, port, token, pid):
        super().__init__(daemon=True)
        self.port, self.token, self.pid = port, token, pid
        self.stop = threading.Event()
        self.slow = []  # (seconds, status or error) of answers not 200 within 1 s
        self.count = 0
        self.worst = 0.0
        self.peak_mb = 0.0

    def run(self):
        while not self.stop.is_set():
            self.peak_mb = max(self.peak_mb, rss_mb(self.pid))
            t = time.monotonic()
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
                c.request("GET", "/api/index", headers={"Authorization": f"Bearer {self.token}"})
                r = c.getresponse()
                r.read()
                c.close()
                status = r.status
            except OSError as e:
                status = repr(e)
            took = time.monotonic() - t
            self.count += 1
            self.worst = max(self.worst, took)
            if status != 200 or took > 1.0:
                self.slow.append((round(took, 2), status))
            time.sleep(0.1)


def flood(port, results, i):
    """A request line, then 30 MB of header lines until the server stops it."""
    sent = 0
    reply = b""
    try:
        c = socket.create_connection(("127.0.0.1", port), timeout=10)
    except OSError as e:
        results[i] = (sent, repr(e))
        return
    try:
        c.sendall(b"GET /api/index HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port)
        chunk = b"X-a: b\r\n" * 8192  # 64 KiB
        while sent < 30 << 20:
            c.sendall(chunk)
            sent += len(chunk)
    except OSError:
        pass  # closed by the server: what should happen
    try:
        while True:
            piece = c.recv(65536)
            if not piece:
                break
            reply += piece
    except OSError:
        pass
    c.close()
    results[i] = (sent, reply.split(b"\r\n")[0].decode("latin-1"))


def burst(pid, port, token, clients=64):
    """Clients that connect while the server is stopped: the seconds from each
    connect to its answer's status line, or the error."""
    request = (b"GET /api/index HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n"
               b"Authorization: Bearer %s\r\n\r\n" % (port, token.encode()))
    os.kill(pid, signal.SIGSTOP)
    try:
        pending = {}
        for _ in range(clients):
            s = socket.socket()
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", port))
            pending[s] = [time.monotonic(), b"", False]  # connect time, reply, request sent
        time.sleep(0.3)
    finally:
        os.kill(pid, signal.SIGCONT)
    results = []
    deadline = time.monotonic() + 10
    while pending and time.monotonic() < deadline:
        waiting_to_send = [s for s, v in pending.items() if not v[2]]
        readable, writable, _ = select.select(list(pending), waiting_to_send, [], 0.5)
        for s in writable:
            if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
                s.setblocking(True)
                s.sendall(request)
                s.setblocking(False)
                pending[s][2] = True
        for s in readable:
            try:
                piece = s.recv(65536)
            except OSError as e:
                piece, pending[s][1] = b"", repr(e).encode()
            if piece:
                pending[s][1] += piece
            if not piece or b"\r\n" in pending[s][1]:
                started, reply, _ = pending.pop(s)
                results.append((round(time.monotonic() - started, 3), reply.split(b"\r\n")[0].decode("latin-1")))
                s.close()
    for s, (started, reply, _) in pending.items():
        results.append((round(time.monotonic() - started, 3), "no answer in 10 s"))
        s.close()
    return results


def main():
    cookgraph, example = sys.argv[1], sys.argv[2]
    growth = None
    if "--rss-growth-mb" in sys.argv:
        growth = float(sys.argv[sys.argv.index("--rss-growth-mb") + 1])
    # The server's messages (a sanitizer's report) go to a file, shown when a check fails.
    errors = tempfile.TemporaryFile(mode="w+")
    p = subprocess.Popen([cookgraph, "serve", example, "--port", "0"], stdout=subprocess.PIPE,
                         stderr=errors, text=True)
    line = p.stdout.readline()
    m = re.search(r"explorer at http://127\.0\.0\.1:(\d+)/(?:\?token=([0-9a-f]+))?", line)
    if not m:
        p.kill()
        p.wait()
        errors.seek(0)
        raise SystemExit(f"serve_flood: no address from cookgraph serve: {line!r} {errors.read()}")
    port, token = int(m.group(1)), m.group(2) or ""
    time.sleep(0.3)
    base_mb = rss_mb(p.pid)
    # 0. A burst of connections while the server cannot accept them.
    answers = burst(p.pid, port, token)
    late = [a for a in answers if a[0] >= 1.0 or not a[1].startswith("HTTP/1.1 200")]
    print(f"serve_flood: a burst of {len(answers)} connections while stopped 0.3 s: "
          f"the slowest answered {max(a[0] for a in answers):.3f} s after its connect")
    check(not late, f"{len(late)} of the burst's {len(answers)} were not answered 200 within 1 s: {late[:3]}")
    watch = Watch(port, token, p.pid)
    watch.start()
    flood_peak = 0.0
    try:
        # 1. Header floods.
        results = [None] * 12
        threads = [threading.Thread(target=flood, args=(port, results, i)) for i in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        check(all(not t.is_alive() for t in threads), "a flooding connection was not closed within 60 s")
        refused = sum(1 for r in results if r and r[1].startswith("HTTP/1.1 431"))
        print(f"serve_flood: 12 floods: {refused} read their 431; "
              f"bytes sent each {sorted(r[0] >> 10 for r in results if r)} KiB")
        check(refused >= 1, f"no flood read a 431: {results}")
        flood_peak = watch.peak_mb

        # 2. Slow-loris and half-sent requests.
        slow, half = [], []
        for _ in range(40):
            c = socket.create_connection(("127.0.0.1", port), timeout=20)
            c.sendall(b"GET /api/index HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port)
            slow.append(c)
            c = socket.create_connection(("127.0.0.1", port), timeout=20)
            c.sendall(b"POST /api/v/0/ask HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 1000\r\n\r\n{\"question" % port)
            half.append(c)
        started = time.monotonic()
        timed_out = 0
        while time.monotonic() - started < 12:
            time.sleep(2)
            for c in slow:
                try:
                    c.sendall(b"X-a: b\r\n")
                except OSError:
                    pass
        for c in slow:
            c.settimeout(2)
            try:
                timed_out += c.recv(4096).startswith(b"HTTP/1.1 408")
            except OSError:
                pass
            c.close()
        check(timed_out == 40, f"slow-loris: {timed_out} of 40 were answered 408 after the head deadline")
        for c in half:
            c.close()

        # 3. Clients that do not read their answers.
        readers = []
        for _ in range(24):
            c = socket.socket()
            c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            c.connect(("127.0.0.1", port))
            c.sendall(b"GET /api/v/0/nodes?top=5000 HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                      b"Authorization: Bearer %s\r\n\r\n" % (port, token.encode()))
            readers.append(c)
        time.sleep(3)
        for c in readers:
            c.close()
    except OSError as e:
        state = "still running" if p.poll() is None else f"exited with {p.returncode}"
        check(False, f"a connection failed: {e!r}; the server {state}")
    finally:
        watch.stop.set()
        watch.join(timeout=10)
        p.terminate()
        p.wait(timeout=20)
    print(f"serve_flood: {watch.count} normal requests, slowest {watch.worst:.3f} s; "
          f"resident {base_mb:.1f} MB at the start, {flood_peak:.1f} MB peak in the floods, "
          f"{watch.peak_mb:.1f} MB peak")
    check(not watch.slow, f"the normal client was not answered 200 within 1 s: {watch.slow[:5]}")
    check(watch.count >= 50, f"only {watch.count} normal requests ran")
    if growth is None:
        check(watch.peak_mb < 100, f"resident {watch.peak_mb:.1f} MB, over 100 MB")
    else:
        check(watch.peak_mb - base_mb < growth, f"resident grew {watch.peak_mb - base_mb:.1f} MB, over {growth} MB")
    check(p.returncode == 0, f"serve exited with {p.returncode} on SIGTERM")
    if failures:
        for f in failures:
            print("serve_flood: FAIL: " + f)
        errors.seek(0)
        print("serve_flood: the server's messages, last 40 lines:\n" + "".join(errors.readlines()[-40:]))
        return 1
    print("serve_flood: every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
