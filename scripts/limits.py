#!/usr/bin/env python3
"""Limits (issue 15, deliverable 5; docs/reliability.md "Limits"): bounded memory and a clear answer each.

  log-2gb       `eddy replay` of a flight whose accelerometer.csv (2 GB, generated on the fly) and location.csv are
                FIFOs fed by this script: nothing is written to disk; peak RSS of the replay, its exit status
  line-1mb      a flight with one 1,000,000-byte line in accelerometer.csv (and one of 1 MiB + 1): exit 1, the error
                names the file and the line, stderr stays short; peak RSS
  concurrent    10,000 concurrent requests to one eddy-server (asyncio, one connection each: half GET /v1/tick,
                half POST /v1/fetch on one session): every one answered 200/429/503, the server up after; server RSS
  body-100mb    a POST /v1/reports announcing and streaming a 100 MB body: answered 413 before the body is all sent
                (bytes sent when the answer came), server RSS before, peak, after
  tiles-1m      a flight that crosses 10^6 tiles (synthesized, layer zig-zag) is the Swift test
                `LimitsTests` (see docs/reliability.md), not run here
  global-fetch  (issue 30) --reports reports (400,000) uploaded over the last 6 h, then 4 clients at once fetch the
                global 6-h turbulence answer page by page (pageSize 10,000, gzip): each gets every report once; server
                RSS before, peak, after; with --compare-unbounded the same with --max-answer-items 1000000 (one answer
                per fetch, as before pages). A request without pageSize is answered 400 answerTooLarge
  half-open     (issue 30) 1,001 connections opened and left silent: the server closes every one within its header
                timeout (10 s) plus slack; seconds until the last closed
  stalled-body  (issue 30) a POST whose body stops after 10 bytes: the connection is closed within the body timeout
                (30 s) plus slack

Prints `name: value` lines and exits 1 when a check fails. Python standard library only.
"""
import argparse
import asyncio
import json
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

from eddy_harness import AIRLINE, MIB, ServerProcess, log, rss_kib

failures = []


def check(ok, message):
    if not ok:
        failures.append(message)
        log("limits: FAILED " + message)


def run_measured(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE):
    """Runs `command`; returns (exit status, stderr text, peak RSS KiB of that child, seconds)."""
    started = time.time()
    process = subprocess.Popen(command, stdout=stdout, stderr=stderr)
    err = b""
    if stderr == subprocess.PIPE:
        err = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, err.decode(errors="replace"), usage.ru_maxrss, time.time() - started


META = {"format": "eddy-sensor-log", "version": 1, "time_origin": "2026-11-22T10:00:00Z",
        "aircraft": {"class": "medium", "type": "B738"}, "device": {"model": "limits.py", "pressurized_cabin": True}}


def log_2gb(args, workdir):
    """A 2 GB accelerometer log streamed through a FIFO (50 Hz, one location fix per second through another)."""
    flight = os.path.join(workdir, "flight-2gb")
    os.makedirs(flight)
    with open(os.path.join(flight, "meta.json"), "w") as f:
        json.dump(META, f)
    accel, location = os.path.join(flight, "accelerometer.csv"), os.path.join(flight, "location.csv")
    os.mkfifo(accel)
    os.mkfifo(location)
    target = int(args.log_gb * 1e9)
    rate = 50
    seconds_needed = [0]   # set by the accelerometer writer once it knows how long the flight is
    written = [0]

    def write_accel():
        with open(accel, "w", buffering=1 << 20) as f:
            f.write("t,ax,ay,az\n")
            n = 0
            total = 11
            while total < target:
                t = n / rate
                # A gentle deterministic wobble around 1 g (no randomness: a reproducible log).
                line = f"{t:.2f},{0.01 * ((n * 7) % 13 - 6):.4f},{0.01 * ((n * 5) % 11 - 5):.4f},{1.0 + 0.02 * ((n * 3) % 7 - 3):.4f}\n"
                f.write(line)
                total += len(line)
                n += 1
            written[0] = total
            seconds_needed[0] = n / rate

    def write_location():
        with open(location, "w", buffering=1 << 16) as f:
            f.write("t,lat,lon,alt_m,h_acc_m,v_acc_m,speed_mps,course_deg,pressure_alt_ft,source\n")
            # 2 GB at ≈ 37 bytes per line and 50 Hz is ≈ 1.1e6 s of flight: fixes for all of it, circling at FL350.
            seconds = int(args.log_gb * 1e9 / 37 / rate) + 10
            for s in range(seconds):
                lon = 8.0 + 0.3 * ((s % 3600) / 3600.0)
                f.write(f"{s}.0,47.0,{lon:.6f},10668.0,5.0,8.0,230.0,90.0,,device\n")

    threads = [threading.Thread(target=write_accel, daemon=True), threading.Thread(target=write_location, daemon=True)]
    for t in threads:
        t.start()
    status, err, peak, seconds = run_measured([args.eddy, "replay", flight, "--json"], stdout=subprocess.DEVNULL)
    for t in threads:
        t.join(timeout=5)
    log(f"limits_log_2gb_bytes: {written[0]}")
    log(f"limits_log_2gb_exit: {status} ({err.strip()[:300]!r})")
    log(f"limits_log_2gb_peak_rss_mib: {peak / 1024:.1f}")
    log(f"limits_log_2gb_seconds: {seconds:.0f}")
    check(status == 0, f"2 GB log: exit {status}")
    check(peak / 1024 <= args.log_rss_bound_mib, f"2 GB log: peak RSS {peak / 1024:.1f} MiB > {args.log_rss_bound_mib} MiB")


def line_1mb(args, workdir):
    source = args.flight
    for length, name in ((1_000_000, "1mb"), (MIB + 1, "1mib-plus-1")):
        flight = os.path.join(workdir, f"flight-line-{name}")
        shutil.copytree(source, flight)
        path = os.path.join(flight, "accelerometer.csv")
        with open(path) as f:
            lines = f.readlines()
        lines.insert(99, "1" * length + "\n")   # becomes line 100
        with open(path, "w") as f:
            f.writelines(lines)
        for extra in ([], ["--lenient"]):
            status, err, peak, _ = run_measured([args.eddy, "replay", flight, *extra])
            label = f"limits_line_{name.replace('-', '_')}{'_lenient' if extra else ''}"
            log(f"{label}: exit {status}, peak RSS {peak / 1024:.1f} MiB, stderr {len(err)} bytes: {err.strip()[:240]!r}")
            if extra and length < MIB:
                # Lenient: a bad line is skipped and counted; the run goes on.
                check(status == 0, f"{label}: lenient run failed ({status})")
            else:
                check(status == 1, f"{label}: exit {status}, expected 1")
                check("accelerometer.csv" in err and "100" in err, f"{label}: the error does not name the file and line 100")
            check(len(err) < 4000, f"{label}: stderr is {len(err)} bytes (the line echoed?)")
            check(peak / 1024 <= args.line_rss_bound_mib, f"{label}: peak RSS {peak / 1024:.1f} MiB")


class Server(ServerProcess):
    """One eddy-server over a fresh database file, started, with a key and an open session (`token`)."""

    def __init__(self, binary, workdir, extra=()):
        super().__init__(binary, ["--db", os.path.join(workdir, "limits-server.sqlite")], workdir, "limits-server")
        self.key = self.add_key("limits")
        self.start(extra)
        body = json.dumps({"apiKey": self.key, "airline": AIRLINE, "userId": "limits", "clientVersion": "1.0.0"}).encode()
        request = urllib.request.Request(f"{self.url}/v1/session", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            self.token = json.loads(answer.read())["token"]

    def answers_health(self):
        try:
            with urllib.request.urlopen(f"{self.url}/health", timeout=30) as answer:
                return answer.status == 200
        except OSError:
            return False


class RSSWatch:
    """Samples a process's RSS every 0.2 s in a thread: before, peak, after."""

    def __init__(self, pid):
        self.pid, self.peak, self.stop_event = pid, 0, threading.Event()
        self.before = rss_kib(pid) or 0
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def loop(self):
        while not self.stop_event.is_set():
            self.peak = max(self.peak, rss_kib(self.pid) or 0)
            self.stop_event.wait(0.2)

    def finish(self):
        self.stop_event.set()
        self.thread.join()
        return self.before / 1024, self.peak / 1024, (rss_kib(self.pid) or 0) / 1024


async def one_request(port, raw, timeout):
    """One request on its own connection: the answer's status, or what failed and at which stage."""
    stage = "connect"
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout)
        stage = "send"
        writer.write(raw)
        await writer.drain()
        stage = "read"
        status_line = await asyncio.wait_for(reader.readline(), timeout)
        await asyncio.wait_for(reader.read(), timeout)
        writer.close()
        parts = status_line.split()
        return int(parts[1]) if len(parts) >= 2 else f"no status line ({stage})"
    except asyncio.TimeoutError:
        return f"timeout ({stage})"
    except OSError as error:
        return f"{type(error).__name__} ({stage})"


async def many_requests(port, token, count, timeout):
    tick = b"GET /v1/tick HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    body = json.dumps({"dataType": "turbulence", "area": {"type": "global", "polygon": []}, "historyHours": 1,
                       "minLayer": 0, "maxLayer": 60, "viewerClass": "medium"}).encode()
    fetch = (f"POST /v1/fetch HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\n"
             f"Authorization: Bearer {token}\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
    return await asyncio.gather(*(one_request(port, tick if i % 2 == 0 else fetch, timeout) for i in range(count)))


def concurrent(args, workdir):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = args.requests + 200
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, need), hard))
    server = Server(args.server, workdir)
    try:
        watch = RSSWatch(server.process.pid)
        started = time.time()
        results = asyncio.run(many_requests(server.port, server.token, args.requests, args.request_timeout))
        seconds = time.time() - started
        before, peak, after = watch.finish()
        tally = {}
        for r in results:
            tally[str(r)] = tally.get(str(r), 0) + 1
        alive = server.answers_health()
        log(f"limits_concurrent_requests: {args.requests} in {seconds:.1f} s, answers {json.dumps(tally, sort_keys=True)}")
        log(f"limits_concurrent_server_rss_mib: before {before:.1f}, peak {peak:.1f}, after {after:.1f}")
        log(f"limits_concurrent_server_up_after: {'yes' if alive else 'no'}")
        unanswered = sum(n for k, n in tally.items() if k not in ("200", "429", "503"))
        check(unanswered == 0, f"concurrent: {unanswered} requests not answered 200/429/503: {tally}")
        check(alive, "concurrent: the server is not up afterwards")
        check(peak <= args.server_rss_bound_mib, f"concurrent: server peak RSS {peak:.1f} MiB")
    finally:
        server.stop()


def body_100mb(args, workdir):
    import socket
    server = Server(args.server, workdir)
    try:
        watch = RSSWatch(server.process.pid)
        size = args.body_mb * 1_000_000
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=60)
        sock.sendall((f"POST /v1/reports HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                      f"Authorization: Bearer {server.token}\r\nContent-Length: {size}\r\n\r\n").encode())
        sock.setblocking(False)
        chunk = b"[" * 65536
        sent, answer, started = 0, b"", time.time()
        while sent < size and time.time() - started < 120:
            try:
                data = sock.recv(65536)
                if not data:
                    break   # closed by the server
                answer += data
                if b"\r\n\r\n" in answer:
                    break
            except BlockingIOError:
                pass
            except OSError:
                break
            try:
                sent += sock.send(chunk[: min(len(chunk), size - sent)])
            except BlockingIOError:
                time.sleep(0.001)
            except OSError:
                break   # reset by the server
        if b"\r\n\r\n" not in answer:
            sock.setblocking(True)
            sock.settimeout(30)
            try:
                while b"\r\n\r\n" not in answer:
                    data = sock.recv(65536)
                    if not data:
                        break
                    answer += data
            except OSError:
                pass
        sock.close()
        before, peak, after = watch.finish()
        status = answer.split(b"\r\n", 1)[0].decode(errors="replace")
        alive = server.answers_health()
        log(f"limits_body_100mb: {status!r} after {sent / MIB:.1f} MiB of {size / MIB:.0f} MiB sent")
        log(f"limits_body_100mb_server_rss_mib: before {before:.1f}, peak {peak:.1f}, after {after:.1f}")
        check(" 413 " in status + " ", f"body: answer {status!r}, expected 413")
        check(sent < size, "body: the whole body was sent before the answer")
        check(peak - before <= args.body_rss_growth_mib, f"body: server RSS grew {peak - before:.1f} MiB")
        check(alive, "body: the server is not up afterwards")
    finally:
        server.stop()


def h3_cells(count, seed=20261127):
    """`count` valid H3 resolution-5 cells without an H3 library: mode 1, resolution 5, a base cell that is not a
    pentagon, five digits 0-6 and the unused digits 7 (any such index is a valid cell)."""
    import random
    rng = random.Random(seed)
    pentagons = {4, 14, 24, 38, 49, 58, 63, 72, 83, 97, 107, 117}
    bases = [b for b in range(122) if b not in pentagons]
    cells = set()
    while len(cells) < count:
        index = (1 << 59) | (5 << 52) | (rng.choice(bases) << 45)
        for digit in range(1, 16):
            value = rng.randrange(7) if digit <= 5 else 7
            index |= value << ((15 - digit) * 3)
        cells.add(index)
    return sorted(cells)


def api(port, method, path, body=None, token=None, timeout=300, gzip_ok=False):
    """One request to the server: (status, decoded JSON or None, bytes on the wire)."""
    import gzip
    headers = {"Content-Type": "application/json", "X-Eddy-Client-Version": "1.0.0"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if gzip_ok:
        headers["Accept-Encoding"] = "gzip"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            raw = answer.read()
            text = gzip.decompress(raw) if answer.headers.get("Content-Encoding") == "gzip" else raw
            return answer.status, json.loads(text), len(raw)
    except urllib.error.HTTPError as error:
        raw = error.read()
        return error.code, (json.loads(raw) if raw else None), len(raw)


def seed_reports(port, token, count, now):
    """Uploads `count` reports with exit times spread over the last 6 h, 1,000 a batch from 4 threads."""
    import uuid
    cells = h3_cells(min(count, 200_000))
    batches = [list(range(start, min(start + 1000, count))) for start in range(0, count, 1000)]
    errors = []

    def worker(mine):
        for batch in mine:
            reports = []
            for i in batch:
                exit_time = now - 21_000 + (i * 20_000.0 / count)
                reports.append({"id": str(uuid.uuid4()), "tile": {"h3": cells[i % len(cells)], "layer": 20 + i % 21},
                                "enterTime": exit_time - 60, "exitTime": exit_time, "edrPeak": 0.2, "edrMedian": 0.1,
                                "reporterClass": "medium"})
            status, answer, _ = api(port, "POST", "/v1/reports", {"reports": reports}, token)
            if status != 200 or answer["newCount"] != len(reports):
                errors.append(f"{status} {answer}")
                return

    threads = [threading.Thread(target=worker, args=(batches[k::4],)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def paged_global_fetch(port, token, page_size):
    """Every page of the global 6-h turbulence fetch: (report ids seen, pages, bytes on the wire, seconds)."""
    request = {"dataType": "turbulence", "area": {"type": "global", "polygon": []}, "historyHours": 6,
               "minLayer": -2, "maxLayer": 99, "viewerClass": "medium", "pageSize": page_size}
    ids, pages, wire, started = [], 0, 0, time.time()
    while True:
        status, answer, size = api(port, "POST", "/v1/fetch", request, token, gzip_ok=True)
        if status != 200:
            raise RuntimeError(f"fetch page {pages + 1}: {status} {answer}")
        pages, wire = pages + 1, wire + size
        ids.extend(o["report"]["id"] for o in answer["observations"])
        if "nextCursor" not in answer:
            return ids, pages, wire, time.time() - started
        request["cursor"] = answer["nextCursor"]


def global_fetch_run(args, workdir, label, extra):
    """Seeds a server, then 4 concurrent paged global fetches; logs and checks the figures."""
    server = ServerProcess(args.server, ["--db", os.path.join(workdir, f"{label}.sqlite")], workdir, label,
                           serve_args=["--rate-limit", "0", "--key-rate-limit", "0", *extra])
    server.key = server.add_key(label)
    server.start()
    try:
        now = time.time()
        status, session, _ = api(server.port, "POST", "/v1/session",
                                 {"apiKey": server.key, "airline": AIRLINE, "userId": "limits", "clientVersion": "1.0.0"})
        token = session["token"]
        started = time.time()
        errors = seed_reports(server.port, token, args.reports, now)
        check(not errors, f"{label}: seeding failed: {errors[:3]}")
        log(f"limits_{label}_seeded: {args.reports} reports in {time.time() - started:.0f} s, server RSS "
            f"{(rss_kib(server.process.pid) or 0) / 1024:.1f} MiB")
        legacy = {"dataType": "turbulence", "area": {"type": "global", "polygon": []}, "historyHours": 6,
                  "minLayer": -2, "maxLayer": 99, "viewerClass": "medium"}
        status, answer, _ = api(server.port, "POST", "/v1/fetch", legacy, token)
        log(f"limits_{label}_without_page_size: {status} {answer.get('error') if answer else ''}")
        watch = RSSWatch(server.process.pid)
        results = [None] * 4

        def client(k):
            try:
                results[k] = paged_global_fetch(server.port, token, 10_000)
            except Exception as error:   # noqa: BLE001 — reported as a failed check
                results[k] = error

        threads = [threading.Thread(target=client, args=(k,)) for k in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        before, peak, after = watch.finish()
        for k, result in enumerate(results):
            if isinstance(result, Exception):
                check(False, f"{label}: client {k}: {result}")
                continue
            ids, pages, wire, seconds = result
            log(f"limits_{label}_client_{k}: {len(ids)} reports in {pages} pages, {wire / MIB:.1f} MiB on the wire, {seconds:.1f} s")
            check(len(ids) == args.reports and len(set(ids)) == args.reports,
                  f"{label}: client {k} got {len(ids)} reports ({len(set(ids))} distinct), expected {args.reports}")
        log(f"limits_{label}_server_rss_mib: before {before:.1f}, peak {peak:.1f}, after {after:.1f}")
        return status, peak - before
    finally:
        server.stop()


def global_fetch(args, workdir):
    status, growth = global_fetch_run(args, workdir, "global_fetch", [])
    check(status == 400, f"global fetch without pageSize: {status}, expected 400 answerTooLarge")
    check(growth <= args.fetch_rss_growth_mib, f"global fetch: server RSS grew {growth:.1f} MiB (bound {args.fetch_rss_growth_mib})")
    if args.compare_unbounded:
        _, unbounded = global_fetch_run(args, workdir, "global_fetch_unbounded", ["--max-answer-items", "1000000"])
        log(f"limits_global_fetch_rss_growth_mib: paged {growth:.1f}, unbounded {unbounded:.1f}")


def half_open(args, workdir):
    """1,001 connections opened and left silent; seconds until the server has closed each."""
    import selectors
    import socket
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < args.half_open + 200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, args.half_open + 200), hard))
    server = Server(args.server, workdir)
    try:
        selector = selectors.DefaultSelector()
        started = time.time()
        for _ in range(args.half_open):
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ)
        closed_at = []
        while selector.get_map() and time.time() - started < args.half_open_wait:
            for key, _ in selector.select(timeout=0.5):
                try:
                    data = key.fileobj.recv(4096)
                except OSError:
                    data = b""
                if not data:
                    closed_at.append(time.time() - started)
                    selector.unregister(key.fileobj)
                    key.fileobj.close()
        left = len(selector.get_map())
        for key in list(selector.get_map().values()):
            key.fileobj.close()
        closed_at.sort()
        last = closed_at[-1] if closed_at else float("nan")
        median = closed_at[len(closed_at) // 2] if closed_at else float("nan")
        log(f"limits_half_open: {len(closed_at)} of {args.half_open} closed by the server, median {median:.1f} s, "
            f"last {last:.1f} s after opening; {left} still open after {args.half_open_wait:.0f} s")
        check(left == 0, f"half-open: {left} connections still open after {args.half_open_wait} s")
        check(last <= 10 + args.close_slack, f"half-open: the last connection closed after {last:.1f} s")
        check(server.answers_health(), "half-open: the server is not up afterwards")
    finally:
        server.stop()


def stalled_body(args, workdir):
    """A POST whose body stops after 10 of 100 bytes: seconds until the server closes the connection."""
    import socket
    server = Server(args.server, workdir)
    try:
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=120)
        started = time.time()
        sock.sendall(("POST /v1/reports HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                      f"Authorization: Bearer {server.token}\r\nContent-Length: 100\r\n\r\n{{\"reports\"").encode())
        try:
            while sock.recv(4096):
                pass
        except OSError:
            pass
        seconds = time.time() - started
        sock.close()
        log(f"limits_stalled_body: closed by the server after {seconds:.1f} s")
        check(seconds <= 30 + args.close_slack, f"stalled body: closed after {seconds:.1f} s")
    finally:
        server.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--eddy", default=".build/debug/eddy")
    parser.add_argument("--server", default=".build/debug/eddy-server")
    parser.add_argument("--flight", default="Fixtures/flights/sim-medium-mixed")
    parser.add_argument("--only", default="line-1mb,body-100mb,concurrent,log-2gb,global-fetch,half-open,stalled-body")
    parser.add_argument("--log-gb", type=float, default=2.0)
    parser.add_argument("--log-rss-bound-mib", type=float, default=256)
    parser.add_argument("--line-rss-bound-mib", type=float, default=128)
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--connect-spread", type=float, default=0.0,
                        help="seconds over which the connections are opened (0: all at once)")
    parser.add_argument("--request-timeout", type=float, default=300)
    parser.add_argument("--server-rss-bound-mib", type=float, default=1024)
    parser.add_argument("--body-mb", type=int, default=100)
    parser.add_argument("--body-rss-growth-mib", type=float, default=16)
    parser.add_argument("--reports", type=int, default=400_000, help="global-fetch: reports in the 6-h window")
    parser.add_argument("--fetch-rss-growth-mib", type=float, default=256,
                        help="global-fetch: most the server's RSS may grow during the 4 concurrent paged fetches")
    parser.add_argument("--compare-unbounded", action="store_true",
                        help="global-fetch: also measure one answer per fetch (--max-answer-items 1000000)")
    parser.add_argument("--half-open", type=int, default=1001)
    parser.add_argument("--half-open-wait", type=float, default=60)
    parser.add_argument("--close-slack", type=float, default=5, help="seconds a close may come after its timeout")
    parser.add_argument("--workdir", default=None)
    args = parser.parse_args()
    workdir = args.workdir or f"/tmp/eddy-limits-{os.getpid()}"
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    try:
        for name in args.only.split(","):
            log(f"limits: {name}")
            {"log-2gb": log_2gb, "line-1mb": line_1mb, "concurrent": concurrent, "body-100mb": body_100mb,
             "global-fetch": global_fetch, "half-open": half_open, "stalled-body": stalled_body}[name](args, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    log("limits: " + ("ok" if not failures else f"FAILED ({len(failures)})"))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
