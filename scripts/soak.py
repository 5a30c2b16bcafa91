#!/usr/bin/env python3
"""Soak run (issue 15, deliverable 4; docs/reliability.md "Soak").

N simulated aircraft (default 10) fly M minutes each (default 120) at the same time through real engines
(`eddy replay --engine --speed S`, paced against the wall clock, default 10x real time) against one eddy-server
started with --test-hooks, while faults are injected on a schedule given as fractions of the flight:

  8 %  server SIGTERM, restarted on the same database with a low rate limit: a 429 phase
 18 %  server SIGKILL, restarted on the same database with the normal rate limit
 25-35 %  injected 500s (and a few malformed 200 bodies), POST /v1/_test/faults
 40-50 %  slow answers (delay faults)
 55-70 %  disk full for engines 0 and 1: their --db lives on a small tmpfs (an unprivileged user + mount namespace,
          `unshare -rm`, no root needed) which the harness fills with a file, then frees

Measured and printed (`name: value` lines, then a JSON summary):
 - RSS of every engine and of the server, sampled every --rss-interval seconds: at start, at the flight's 10-minute
   mark (--mark-minutes), at the end; memory flat = end - mark <= max(--flat-mib MiB, --flat-fraction x mark) for every engine and
   for the last server process (its own 10-minute mark after its start);
 - reports sent = reports stored: every engine's outbox (all rows sent) equals, id for id, the observations the
   server answers through its API (POST /v1/fetch, global, 6 h) for that engine's reporter id; no id twice;
 - change-only callbacks: in every engine run's JSON timeline no two consecutive deliveries of a change-only
   callback (docs/engine.md "Delegate") carry the same state; didUpdateAltitudeContext is also checked against the
   engine's own "changed enough" rule.

Only the Python standard library is used. Exit status 0 when every check holds, 1 otherwise.
"""
import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid

from eddy_harness import AIRLINE, MIB, ServerProcess, fill_disk, log, rss_kib

CHANGE_ONLY = ["serverReachabilityUpdated", "didUpdateFetchingStatus", "didChangeDevicePosition",
               "didUpdateLowPowerMode", "didReceiveAlert", "didUpdateAltitudeContext"]


class Server(ServerProcess):
    """One eddy-server (--test-hooks) on 127.0.0.1 over a database file, with one key; restarts reuse the port."""

    def __init__(self, binary, db, workdir):
        super().__init__(binary, ["--db", db], workdir, "server", serve_args=["--test-hooks"])
        self.db = db
        self.key = self.add_key("soak")

    def post(self, path, body, token=None, timeout=30):
        request = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
        if token:
            request.add_header("Authorization", "Bearer " + token)
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return json.loads(answer.read())


def outbox(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT id, status FROM own_report").fetchall()
    finally:
        con.close()
    return {str(uuid.UUID(bytes=bytes(i))): status for i, status in rows}


def engine_shift(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        row = con.execute("SELECT value FROM configuration WHERE key = 'replay.record'").fetchone()
    finally:
        con.close()
    return json.loads(row[0])["shiftSeconds"]


def callback_state(line):
    """The state a change-only callback carries (what must differ from its previous delivery), and its stream key."""
    name = line["callback"]
    if name == "serverReachabilityUpdated":
        return name, line["reachable"]
    if name == "didUpdateFetchingStatus":
        return (name, line["area"], line["data_type"]), line["status"]
    if name == "didChangeDevicePosition":
        return name, (line["in_position"], line["horizontal"])
    if name == "didUpdateLowPowerMode":
        return name, line["low_power"]
    if name == "didReceiveAlert":
        # The alerted set: each tile at its worst severity (AlertMonitor notifies when that set changes).
        worst = {}
        for item in line["items"]:
            tile = (item["h3"], item["layer"])
            worst[tile] = max(worst.get(tile, 0), SEVERITY_ORDER.index(item["severity"]))
        return name, (line["cleared"], line["mode"], tuple(sorted(worst.items())))
    if name == "didUpdateAltitudeContext":
        return name, tuple(sorted((k, json.dumps(v)) for k, v in line.items() if k not in ("t", "t_unix")))
    return None, None


SEVERITY_ORDER = ["none", "light", "lightModerate", "moderate", "moderateSevere", "severe"]


def altitude_changed_enough(old, new):
    """The engine's rule (EngineCore.changedEnough) on the printed fields, with slack for their 0.1-ft rounding."""
    for key in ("altitude_source", "layer", "held_fl_ft", "layer_uncertain", "cabin", "barometer_calibration",
                "status", "problems"):
        if old.get(key) != new.get(key):
            return True
    if abs(old["pressure_alt_ft"] - new["pressure_alt_ft"]) >= 100 - 0.1:
        return True
    if abs(old["pressure_alt_u90_ft"] - new["pressure_alt_u90_ft"]) >= 0.25 * max(1, old["pressure_alt_u90_ft"]) - 0.1:
        return True
    a, b = old.get("vs_fpm"), new.get("vs_fpm")
    if a is not None and b is not None and abs(a - b) >= 500 - 0.1:
        return True
    return (a is None) != (b is None)


def check_timeline(path):
    """Checks one engine run's JSON Lines output; returns counts and violations."""
    last = {}
    last_altitude = None
    counts = {name: 0 for name in CHANGE_ONLY}
    violations, not_enough = [], []
    detected, store_failures, summary = [], [], None
    with open(path) as f:
        for number, text in enumerate(f, 1):
            if not text.startswith("{"):
                continue
            line = json.loads(text)
            if line.get("type") == "summary":
                summary = line
                continue
            if line.get("type") != "delegate":
                continue
            name = line["callback"]
            if name == "detectedTurbulence":
                detected.append(line["id"])
            elif name == "didFailToAccessStore":
                store_failures.append((line["t"], line["operation"], line.get("id")))
            if name not in CHANGE_ONLY:
                continue
            counts[name] += 1
            key, state = callback_state(line)
            if key in last and last[key] == state:
                violations.append(f"{os.path.basename(path)}:{number}: {name} repeated {state!r:.120}")
            last[key] = state
            if name == "didUpdateAltitudeContext":
                if last_altitude is not None and not altitude_changed_enough(last_altitude, line):
                    not_enough.append(f"{os.path.basename(path)}:{number}")
                last_altitude = line
    return {"counts": counts, "violations": violations, "not_changed_enough": not_enough, "detected": detected,
            "store_failures": store_failures, "summary": summary}


def simulate(args, i, directory):
    """Aircraft i: pairs fly the same track one behind the other (the follower meets the leader's reports ahead)."""
    pair, follower = divmod(i, 2)
    classes = ["medium", "large", "medium", "small", "large"]
    aircraft_class = classes[pair % len(classes)]
    minutes = args.minutes
    pattern = (f"0:{minutes * 0.2:g}m,0.25:{minutes * 0.1:g}m,0:{minutes * 0.15:g}m,0.4:{minutes * 0.1:g}m,"
               f"0.1:{minutes * 0.25:g}m,0.3:{minutes * 0.1:g}m,0:{minutes * 0.1:g}m")
    lat = 46.0 + 0.7 * pair
    lon = 6.0 + (0.0 if follower else 0.4)
    subprocess.run([args.eddy, "simulate", directory, "--class", aircraft_class, "--segments", pattern,
                    "--seed", str(args.seed * 100 + i), "--lat", f"{lat}", "--lon", f"{lon}", "--course", "90",
                    "--rate", str(args.rate)], check=True, stdout=subprocess.DEVNULL)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--eddy", default=".build/debug/eddy")
    parser.add_argument("--server", default=".build/debug/eddy-server")
    parser.add_argument("--aircraft", type=int, default=10)
    parser.add_argument("--minutes", type=float, default=120, help="flight length, minutes")
    parser.add_argument("--speed", type=float, default=10, help="log seconds per wall second")
    parser.add_argument("--rate", type=float, default=50, help="simulated accelerometer rate, Hz")
    parser.add_argument("--disk-full-engines", type=int, default=2, help="engines whose store runs out of space")
    parser.add_argument("--disk-mib", type=int, default=64, help="size of each disk-full engine's tmpfs, MiB")
    parser.add_argument("--rss-interval", type=float, default=2.0, help="seconds between RSS samples")
    parser.add_argument("--mark-minutes", type=float, default=10,
                        help="flight minutes after a process's start at which its RSS is the reference of 'flat'")
    parser.add_argument("--flat-mib", type=float, default=8.0)
    parser.add_argument("--flat-fraction", type=float, default=0.10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args()
    args.eddy, args.server = os.path.abspath(args.eddy), os.path.abspath(args.server)

    # Disk full without root: the whole run in its own user + mount namespace, where a tmpfs can be mounted.
    if args.disk_full_engines > 0 and os.environ.get("EDDY_SOAK_NAMESPACE") != "1":
        if shutil.which("unshare") and subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode == 0:
            os.environ["EDDY_SOAK_NAMESPACE"] = "1"
            os.execvp("unshare", ["unshare", "-rm", sys.executable, os.path.abspath(__file__), *sys.argv[1:]])
        log("soak: unprivileged user namespaces are not available (unshare -rm): the disk-full fault is skipped")
        args.disk_full_engines = 0

    rng = random.Random(args.seed)
    workdir = args.workdir or f"/tmp/eddy-soak-{os.getpid()}"
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    engines, server, mounts = [], None, []
    stop_sampling = threading.Event()
    try:
        started = time.time()
        flights = []
        for i in range(args.aircraft):
            flights.append(os.path.join(workdir, f"flight-{i}"))
        # Two simulations at a time (2 cores).
        pending = list(range(args.aircraft))
        while pending:
            batch, pending = pending[:2], pending[2:]
            threads = [threading.Thread(target=simulate, args=(args, i, flights[i])) for i in batch]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        log(f"soak: {args.aircraft} flights of {args.minutes:g} min simulated in {time.time() - started:.0f} s")

        server = Server(args.server, os.path.join(workdir, "server.sqlite"), workdir)
        server.start()
        disk_dirs = {}
        for i in range(min(args.disk_full_engines, args.aircraft)):
            directory = os.path.join(workdir, f"disk-{i}")
            os.makedirs(directory)
            subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={args.disk_mib}m", "tmpfs", directory], check=True)
            mounts.append(directory)
            disk_dirs[i] = directory

        def db_path(i):
            return os.path.join(disk_dirs.get(i, workdir), f"engine-{i}.sqlite")

        def command(i, speed=True):
            c = [args.eddy, "replay", flights[i], "--engine", "--json", "--server", server.url, "--api-key",
                 server.key, "--airline", AIRLINE, "--user-id", f"soak-{i}", "--db", db_path(i)]
            return c + (["--speed", f"{args.speed:g}"] if speed else [])

        # RSS sampler: (wall seconds since the engines started, label, pid, KiB).
        samples = []

        def sample_loop(t0):
            while not stop_sampling.is_set():
                now = time.time() - t0
                for i, (process, _, _) in enumerate(engines):
                    if process.poll() is None:
                        kib = rss_kib(process.pid)
                        if kib:
                            samples.append((now, f"engine-{i}", process.pid, kib))
                if server.process and server.process.poll() is None:
                    kib = rss_kib(server.process.pid)
                    if kib:
                        samples.append((now, "server", server.process.pid, kib))
                stop_sampling.wait(args.rss_interval)

        t0 = time.time()
        for i in range(args.aircraft):
            out = open(os.path.join(workdir, f"engine-{i}.jsonl"), "w")
            err = open(os.path.join(workdir, f"engine-{i}.err"), "w")
            engines.append((subprocess.Popen(command(i), stdout=out, stderr=err), out, err))
        sampler = threading.Thread(target=sample_loop, args=(t0,), daemon=True)
        sampler.start()

        wall = args.minutes * 60 / args.speed   # the paced run's length, seconds

        def at(fraction):
            time.sleep(max(0.0, t0 + fraction * wall - time.time()))

        events = []

        def event(text):
            events.append(f"{time.time() - t0:7.1f} s (flight {100 * (time.time() - t0) / wall:5.1f} %): {text}")
            log("soak: " + events[-1])

        def restart(sig, extra=()):
            status = server.stop(sig)
            time.sleep(rng.uniform(0.5, 2.0))
            server.start(extra)
            event(f"server {signal.Signals(sig).name} (exit {status}), restarted on the same database"
                  + (f" with {' '.join(extra)}" if extra else ""))

        def inject(kinds, until):
            queued = 0
            while time.time() < t0 + until * wall:
                try:
                    server.post("/v1/_test/faults", {"faults": kinds})
                    queued += len(kinds)
                except (urllib.error.URLError, OSError) as error:
                    event(f"fault injection failed: {error}")
                time.sleep(1.0)
            return queued

        at(0.08)
        restart(signal.SIGTERM, ["--rate-limit", "6", "--rate-burst", "3"])
        at(0.18)
        restart(signal.SIGKILL)
        at(0.25)
        event("500s begin")
        n = inject([{"kind": "status500"}, {"kind": "status500"}, {"kind": "status500"}, {"kind": "malformed"}], 0.35)
        event(f"500s end ({n} faults queued)")
        at(0.40)
        event("slow answers begin")
        n = inject([{"kind": "delay", "seconds": 2.0}, {"kind": "delay", "seconds": 0.5}], 0.50)
        event(f"slow answers end ({n} delay faults queued)")
        at(0.55)
        fillers = []
        for i, directory in disk_dirs.items():
            path, written = fill_disk(directory)
            fillers.append(path)
            event(f"engine-{i}: disk full ({written / MIB:.1f} MiB filler on its {args.disk_mib} MiB tmpfs)")
        at(0.70)
        for path in fillers:
            os.remove(path)
        if fillers:
            event("disks freed")

        statuses = []
        for i, (process, out, err) in enumerate(engines):
            statuses.append(process.wait())
            out.close()
            err.close()
        engines_done = time.time() - t0
        stop_sampling.set()
        sampler.join()
        event(f"all engines finished, statuses {statuses}")

        # The replay's last sync may leave reports pending (docs/reliability.md §1 "known gap"): rerun the finished
        # flights (they resume at their end and sync) until the outboxes are empty.
        reruns = {}
        for i in range(args.aircraft):
            reruns[i] = 0
            while any(s == 0 for s in outbox(db_path(i)).values()) and reruns[i] < 5:
                reruns[i] += 1
                with open(os.path.join(workdir, f"engine-{i}-rerun-{reruns[i]}.jsonl"), "w") as out, \
                        open(os.path.join(workdir, f"engine-{i}-rerun-{reruns[i]}.err"), "w") as err:
                    subprocess.run(command(i, speed=False), stdout=out, stderr=err)

        # Reports: each engine's outbox against the server's API answer.
        session = server.post("/v1/session", {"apiKey": server.key, "airline": AIRLINE, "userId": "soak-auditor",
                                              "clientVersion": "1.0.0"})
        answer = server.post("/v1/fetch", {"dataType": "turbulence", "area": {"type": "global", "polygon": []},
                                           "historyHours": 6, "minLayer": -2, "maxLayer": 99,
                                           "viewerClass": "medium"}, token=session["token"])
        by_reporter, api_ids = {}, []
        for observation in answer["observations"]:
            rid = str(uuid.UUID(observation["report"]["id"]))
            api_ids.append(rid)
            by_reporter.setdefault(observation["reporterId"], set()).add(rid)
        con = sqlite3.connect(f"file:{server.db}?mode=ro", uri=True)
        db_rows = con.execute("SELECT count(*), count(DISTINCT id) FROM observations").fetchone()
        con.close()
        all_ok = True
        problems = []
        sent_total, pending_total, matched_engines = 0, 0, 0
        engine_results = []
        for i in range(args.aircraft):
            box = outbox(db_path(i))
            sent = {k for k, s in box.items() if s == 1}
            pending = [k for k, s in box.items() if s == 0]
            sent_total += len(sent)
            pending_total += len(pending)
            groups = [r for r, ids in by_reporter.items() if ids & set(box)]
            stored = by_reporter[groups[0]] if len(groups) == 1 else set().union(*(by_reporter[r] for r in groups))
            equal = len(groups) == 1 and stored == set(box) and not pending
            matched_engines += equal
            if not equal:
                problems.append(f"engine-{i}: outbox {len(box)} ({len(pending)} pending), server {len(stored)} in "
                                f"{len(groups)} reporter group(s), missing {len(set(box) - stored)}, "
                                f"extra {len(stored - set(box))}")
            timelines = [os.path.join(workdir, f"engine-{i}.jsonl")] + [
                os.path.join(workdir, f"engine-{i}-rerun-{r}.jsonl") for r in range(1, reruns[i] + 1)]
            checks = [check_timeline(p) for p in timelines]
            detected = [d for c in checks for d in c["detected"]]
            not_in_outbox = [d for d in detected if str(uuid.UUID(d)) not in box]
            if not_in_outbox:
                problems.append(f"engine-{i}: {len(not_in_outbox)} announced reports not in the outbox")
            counts = {name: sum(c["counts"][name] for c in checks) for name in CHANGE_ONLY}
            violations = [v for c in checks for v in c["violations"]]
            not_enough = [v for c in checks for v in c["not_changed_enough"]]
            failures = [f for c in checks for f in c["store_failures"]]
            # A report the full disk refused is kept in memory and stored (and announced) once there is room again.
            lost = sorted({rid for _, op, rid in failures if op == "storeOwnReport" and rid not in set(detected)})
            if lost:
                problems.append(f"engine-{i}: {len(lost)} reports refused by the store never stored afterwards: {lost[:3]}")
            problems += violations[:10] + [f"altitude context delivered without changing enough: {v}" for v in not_enough[:10]]
            engine_results.append({"engine": i, "exit": statuses[i], "outbox": len(box), "pending": len(pending),
                                   "server": len(stored), "equal": equal, "reruns": reruns[i],
                                   "announced": len(detected), "store_failures": len(failures),
                                   "store_failure_operations": sorted({op for _, op, _ in failures}),
                                   "refused_reports_lost": len(lost),
                                   "change_only_counts": counts, "violations": len(violations),
                                   "altitude_not_changed_enough": len(not_enough)})
            all_ok = all_ok and equal and not violations and not not_enough and not not_in_outbox and not lost and statuses[i] == 0
        union = set().union(*by_reporter.values()) if by_reporter else set()
        duplicates = len(api_ids) - len(set(api_ids))
        own = set()
        for i in range(args.aircraft):
            own |= set(outbox(db_path(i)))
        extra_on_server = len(union - own)
        all_ok = all_ok and duplicates == 0 and extra_on_server == 0 and db_rows[0] == db_rows[1] == len(union)

        # Memory: per label, the samples of one process (the last server process).
        def series(label):
            rows = [s for s in samples if s[1] == label]
            if label == "server" and rows:
                last_pid = rows[-1][2]
                rows = [s for s in rows if s[2] == last_pid]
            return rows

        mark_wall = args.mark_minutes * 60 / args.speed
        memory = []
        for label in [f"engine-{i}" for i in range(args.aircraft)] + ["server"]:
            rows = series(label)
            if not rows:
                problems.append(f"{label}: no RSS samples")
                all_ok = False
                continue
            first_time = rows[0][0]
            mark = next((s for s in rows if s[0] - first_time >= mark_wall), rows[-1])
            start_kib, mark_kib, end_kib, peak_kib = rows[0][3], mark[3], rows[-1][3], max(s[3] for s in rows)
            bound_kib = max(args.flat_mib * 1024, args.flat_fraction * mark_kib)
            flat = end_kib - mark_kib <= bound_kib
            long_enough = rows[-1][0] - mark[0] >= mark_wall
            memory.append({"process": label, "start_mib": round(start_kib / 1024, 1), "mark_mib": round(mark_kib / 1024, 1),
                           "end_mib": round(end_kib / 1024, 1), "peak_mib": round(peak_kib / 1024, 1),
                           "mark_to_end_seconds": round(rows[-1][0] - mark[0], 1), "flat": flat,
                           "samples": len(rows)})
            if not flat:
                problems.append(f"{label}: RSS {mark_kib / 1024:.1f} MiB at its 10-min mark, {end_kib / 1024:.1f} MiB at the end")
            if not long_enough:
                problems.append(f"{label}: less than {args.mark_minutes:g} flight minutes between its mark and its end")
                all_ok = False
            all_ok = all_ok and flat
        with open(os.path.join(workdir, "rss.tsv"), "w") as f:
            for s in samples:
                f.write("\t".join(str(x) for x in s) + "\n")

        log("soak: events:\n  " + "\n  ".join(events))
        for m in memory:
            log(f"soak_rss_{m['process'].replace('-', '_')}_mib: start {m['start_mib']}, {args.mark_minutes:g}-min mark {m['mark_mib']}, "
                f"end {m['end_mib']}, peak {m['peak_mib']} ({'flat' if m['flat'] else 'NOT FLAT'})")
        for e in engine_results:
            log(f"soak_engine_{e['engine']}: " + json.dumps(e))
        log(f"soak_wall_seconds: {engines_done:.0f} (paced target {wall:.0f})")
        log(f"soak_reports_sent: {sent_total} ({pending_total} pending)")
        log(f"soak_reports_stored_api: {len(union)} ({duplicates} duplicate ids, {extra_on_server} not in any outbox; "
            f"server table {db_rows[0]} rows, {db_rows[1]} distinct)")
        log(f"soak_engines_equal: {matched_engines}/{args.aircraft}")
        log(f"soak_change_only_callbacks_checked: {sum(sum(e['change_only_counts'].values()) for e in engine_results)}"
            f" ({sum(e['violations'] for e in engine_results)} repeated)")
        log(f"soak_store_failures: {sum(e['store_failures'] for e in engine_results)}")
        log(f"soak_server_starts: {server.starts}")
        for p in problems[:30]:
            log("soak: PROBLEM " + p)
        log("soak: " + ("ok" if all_ok else "FAILED") + f" (work directory {workdir})")
        return 0 if all_ok else 1
    finally:
        stop_sampling.set()
        for process, _, _ in engines:
            if process.poll() is None:
                process.kill()
                process.wait()
        if server:
            server.stop(signal.SIGKILL)
        for directory in mounts:
            subprocess.run(["umount", directory], capture_output=True)
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
