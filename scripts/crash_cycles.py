#!/usr/bin/env python3
"""Crash cycles (issue 15, deliverable 3; docs/reliability.md).

Engine cycles: a simulated flight is replayed once, uninterrupted, through `eddy replay --engine --server` against its
own fresh eddy-server (the reference). Then, against one long-lived loopback eddy-server, `eddy replay ... --db FILE`
is started, SIGKILLed at a random moment, and started again with the same FILE, N times; the last start runs to its
end. The server's stored reports must then equal the reference's: every tile exactly once, none missing, none extra;
only the crossing that was open at a kill (it starts at the resume point, the last stored tile's exit) may differ.

Server cycles: the same flight is replayed with a fresh --db each pass while the server is SIGKILLed and restarted
(same database, same port) at random moments, until N server kills have happened; a final rerun with the same --db
(the server up) uploads what the last sync left pending. Each pass must equal the reference exactly.

Tiles are compared in the log time base (Unix time minus the run's time shift, which each run records in its engine
store), by (H3 cell, layer, enter time, exit time, EDR peak, EDR median); the engine derives report ids from the cell,
layer, enter time and the flight's salt, so a tile that is present once with the same key was sent with its id.

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
import time

from eddy_harness import AIRLINE, ServerProcess, log


class Server(ServerProcess):
    """One eddy-server over a database file, with one key; restarts reuse the port."""

    def __init__(self, binary, db, workdir, name):
        super().__init__(binary, ["--db", db], workdir, f"{name}-server")
        self.db = db
        self.key = self.add_key(name)


def replay_command(args, server, db, user):
    return [args.eddy, "replay", args.flight, "--engine", "--json", "--server", server.url, "--api-key", server.key,
            "--airline", AIRLINE, "--user-id", user, "--db", db]


def run_replay(args, server, db, user, stdout_path):
    with open(stdout_path, "w") as out:
        return subprocess.run(replay_command(args, server, db, user), stdout=out, stderr=subprocess.STDOUT).returncode


def pending_reports(db):
    con = connect_existing(db)
    try:
        return con.execute("SELECT count(*) FROM own_report WHERE status = 0").fetchone()[0]
    finally:
        con.close()


def finish_uploads(args, server, db, user, stdout_prefix):
    """Reruns the finished flight (it resumes at its end: start, sync) while its outbox holds pending reports: a
    replay's last sync step can leave some (its sync clock is the flight clock, which stops at the last sample, so a
    retry back-off or rate limit from earlier is never waited out). Returns how many reruns that took."""
    reruns = 0
    while pending_reports(db) > 0 and reruns < 5:
        reruns += 1
        status = run_replay(args, server, db, user, f"{stdout_prefix}-upload-{reruns}.out")
        assert status == 0, f"upload rerun failed ({status}), see {stdout_prefix}-upload-{reruns}.out"
    assert pending_reports(db) == 0, f"{db}: reports still pending after {reruns} reruns"
    return reruns


def connect_existing(db):
    """A connection to an existing database (never creates one: an empty file would not be an Eddy store)."""
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True)


def engine_shift(db):
    con = connect_existing(db)
    try:
        row = con.execute("SELECT value FROM configuration WHERE key = 'replay.record'").fetchone()
    finally:
        con.close()
    return json.loads(row[0])["shiftSeconds"]


def resume_point(db):
    """The log time the next run resumes from (the last stored tile's exit), or None."""
    shift = engine_shift(db)
    con = connect_existing(db)
    try:
        latest = con.execute("SELECT max(exit_time) FROM own_report").fetchone()[0]
    finally:
        con.close()
    return None if latest is None else round(latest - shift, 3)


def server_tiles(server_db, shift):
    """The server's reports (each server database serves one run: the server does not link reports to users), in the
    log time base: {key: count} with key (h3, layer, enter, exit, peak, median)."""
    con = sqlite3.connect(server_db)
    try:
        rows = con.execute("SELECT h3, layer, enter_time, exit_time, edr_peak, edr_median FROM observations").fetchall()
    finally:
        con.close()
    tiles = {}
    for h3, layer, enter, exit_, peak, median in rows:
        key = (h3, layer, round(enter - shift, 3), round(exit_ - shift, 3), round(peak, 6), round(median, 6))
        tiles[key] = tiles.get(key, 0) + 1
    return tiles


def compare(reference, got, kill_points, exact_values):
    """Checks `got` against `reference` by tile crossing identity (H3 cell, layer, enter time: the inputs of the report
    id besides the flight's salt) and exit time. Only crossings entered at a kill's resume point may be missing, extra
    or end differently. With `exact_values` the EDR values must be equal too; otherwise their differences are measured
    (a restarted engine's detection warms up again and is not bit-identical afterwards: docs/reliability.md)."""
    allowed = set(kill_points)

    def by_identity(tiles):
        out = {}
        for (h3, layer, enter, exit_, peak, median), n in tiles.items():
            out.setdefault((h3, layer, enter), []).extend([(exit_, peak, median)] * n)
        return out

    ref, new = by_identity(reference), by_identity(got)
    duplicates = [k for k, v in new.items() if len(v) > 1]
    missing = [k for k in ref if k not in new]
    extra = [k for k in new if k not in ref]
    bad_missing = [k for k in missing if k[2] not in allowed]
    bad_extra = [k for k in extra if k[2] not in allowed]
    matched = [k for k in ref if k in new]
    bad_exit = [k for k in matched if k[2] not in allowed and new[k][0][0] != ref[k][0][0]]
    kill_tiles_differing = {k[2] for k in missing + extra if k[2] in allowed}
    kill_tiles_differing |= {k[2] for k in matched if k[2] in allowed and new[k][0] != ref[k][0]}
    value_diffs = [(abs(new[k][0][1] - ref[k][0][1]), abs(new[k][0][2] - ref[k][0][2])) for k in matched
                   if k[2] not in allowed]
    values_differing = sum(1 for d in value_diffs if d != (0, 0))
    ok = not duplicates and not bad_missing and not bad_extra and not bad_exit
    if exact_values:
        ok = ok and values_differing == 0
    return {
        "reference_tiles": len(ref), "stored_tiles": sum(len(v) for v in new.values()), "duplicates": len(duplicates),
        "missing": len(missing), "extra": len(extra), "unexplained_missing": len(bad_missing),
        "unexplained_extra": len(bad_extra), "exit_differs": len(bad_exit),
        "kill_tiles_differing": len(kill_tiles_differing), "kill_tiles_missing": len([k for k in missing if k[2] in allowed]),
        "tiles_with_other_edr": values_differing,
        "max_abs_diff_edr_peak": round(max((d[0] for d in value_diffs), default=0), 6),
        "max_abs_diff_edr_median": round(max((d[1] for d in value_diffs), default=0), 6),
        "ok": ok, "examples": [str(k) for k in (bad_missing + bad_extra + bad_exit)[:5]],
    }


def flight_times(flight):
    first, last = None, None
    for name in ("accelerometer.csv", "location.csv"):
        with open(os.path.join(flight, name)) as f:
            f.readline()
            line = f.readline()
            t = float(line.split(",")[0])
            first = t if first is None else min(first, t)
        with open(os.path.join(flight, name), "rb") as f:
            f.seek(max(0, os.path.getsize(os.path.join(flight, name)) - 4096))
            t = float(f.read().decode().strip().split("\n")[-1].split(",")[0])
            last = t if last is None else max(last, t)
    return first, last


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--eddy", default=".build/debug/eddy")
    parser.add_argument("--server", default=".build/debug/eddy-server")
    parser.add_argument("--flight", help="flight directory (default: simulate one of --minutes)")
    parser.add_argument("--minutes", type=float, default=120)
    parser.add_argument("--engine-cycles", type=int, default=200)
    parser.add_argument("--server-cycles", type=int, default=200)
    parser.add_argument("--server-kills-per-pass", type=int, default=0,
                        help="server kills per whole-flight pass (default: one per 2 s of the reference run)")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    workdir = args.workdir or f"/tmp/eddy-crash-cycles-{os.getpid()}"
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    servers = []
    running = []   # the replay process under way, killed if the harness is interrupted
    try:
        if not args.flight:
            args.flight = os.path.join(workdir, "flight")
            minutes = args.minutes
            pattern = f"0:{minutes * 0.25:g}m,0.2:{minutes * 0.15:g}m,0:{minutes * 0.2:g}m,0.35:{minutes * 0.1:g}m,0.1:{minutes * 0.3:g}m"
            subprocess.run([args.eddy, "simulate", args.flight, "--class", "medium", "--segments", pattern,
                            "--seed", str(args.seed)], check=True, stdout=subprocess.DEVNULL)
        first, last = flight_times(args.flight)
        log(f"flight: {args.flight}, {(last - first) / 60:.1f} min of samples")

        # Reference: one uninterrupted run against its own server.
        ref_server = Server(args.server, os.path.join(workdir, "reference-server.sqlite"), workdir, "reference")
        servers.append(ref_server)
        ref_server.start()
        ref_db = os.path.join(workdir, "reference-engine.sqlite")
        started = time.time()
        status = run_replay(args, ref_server, ref_db, "reference", os.path.join(workdir, "reference.out"))
        duration = time.time() - started
        assert status == 0, f"reference run failed ({status}), see {workdir}/reference.out"
        reference_reruns = finish_uploads(args, ref_server, ref_db, "reference", os.path.join(workdir, "reference"))
        reference = server_tiles(ref_server.db, engine_shift(ref_db))
        # Start-up cost: a rerun of the finished reference resumes at its end (start, a last sync, the summary).
        started = time.time()
        status = run_replay(args, ref_server, ref_db, "reference", os.path.join(workdir, "reference-rerun.out"))
        startup = time.time() - started
        assert status == 0, f"reference rerun failed ({status}), see {workdir}/reference-rerun.out"
        rerun = server_tiles(ref_server.db, engine_shift(ref_db))
        assert rerun == reference, "a rerun of a finished flight changed the server's reports"
        # Base start-up cost (process, engine, session, a few samples, a last sync): the flight's first 2 s alone.
        short = os.path.join(workdir, "short-flight")
        os.makedirs(short)
        shutil.copy(os.path.join(args.flight, "meta.json"), short)
        for name in os.listdir(args.flight):
            if name.endswith(".csv"):
                with open(os.path.join(args.flight, name)) as src, open(os.path.join(short, name), "w") as dst:
                    for i, line in enumerate(src):
                        if i > 0 and float(line.split(",")[0]) > first + 2:
                            break
                        dst.write(line)
        started = time.time()
        with open(os.path.join(workdir, "short.out"), "w") as out:
            command = replay_command(args, ref_server, os.path.join(workdir, "short-engine.sqlite"), "short")
            command[2] = short
            status = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT).returncode
        base_startup = time.time() - started
        assert status == 0, f"short run failed ({status}), see {workdir}/short.out"
        ref_server.stop()
        log(f"base start-up {base_startup:.2f} s")
        log(f"reference: {len(reference)} tiles, run {duration:.1f} s, {reference_reruns} upload rerun(s), "
            f"rerun of the finished flight {startup:.1f} s")
        log(f"reference_run_seconds: {duration:.1f}")
        all_ok = len(reference) > 0 and max(reference.values()) == 1

        # Engine cycles: one long-lived server, the engine SIGKILLed at random moments and restarted with its --db.
        if args.engine_cycles > 0:
            server = Server(args.server, os.path.join(workdir, "engine-cycles-server.sqlite"), workdir, "engine-cycles")
            servers.append(server)
            server.start()
            db = os.path.join(workdir, "engine-cycles-engine.sqlite")
            kills, finished_early, kill_points, advanced, after_end = 0, 0, [], 0, 0
            # Kill moments: N positions spread at random over the flight (sorted, log time). Cycle i runs until the
            # store's last stored exit has passed position i (polled), then a random further 0–1.5 mean crossings
            # of wall time, and is killed: each kill lands at a random moment of the flight, and the cycles cover it
            # even though a resumed run redoes the crossing under way at the kill (wall-clock delays alone do not:
            # on a loaded machine they mostly killed runs still starting).
            positions = sorted(rng.uniform(first, last) for _ in range(args.engine_cycles))
            crossing_wall = max(0.02, duration - startup) / max(1, len(reference))
            started = time.time()
            point = None
            cycle = 0
            # Until N kills: a run that ends before its kill moment (near the end of the flight) does not count,
            # and the next cycle draws a new position over what is left of the flight.
            while kills < args.engine_cycles and cycle < 3 * args.engine_cycles:
                if cycle >= len(positions):
                    done = point is not None and point >= last - 1
                    # Once every crossing is stored the kill lands in the run's start (position = the start).
                    positions.append(first if done else rng.uniform(point if point is not None else first, last))
                    after_end += done
                cycle += 1
                with open(os.path.join(workdir, f"engine-cycle-{cycle}.out"), "w") as out:
                    process = subprocess.Popen(replay_command(args, server, db, "engine-cycles"), stdout=out,
                                               stderr=subprocess.STDOUT)
                    running[:] = [process]
                    while process.poll() is None:
                        try:
                            reached = resume_point(db)
                        except (sqlite3.Error, TypeError, FileNotFoundError):
                            reached = None   # no record or store yet
                        if reached is not None and reached >= positions[cycle - 1]:
                            break
                        time.sleep(0.01)
                    try:
                        process.wait(timeout=rng.uniform(0, 1.5 * crossing_wall))
                        finished_early += 1
                    except subprocess.TimeoutExpired:
                        os.kill(process.pid, signal.SIGKILL)
                        process.wait()
                        kills += 1
                try:
                    point = resume_point(db)
                except (sqlite3.Error, TypeError, FileNotFoundError):
                    point = None   # killed before the replay record was written
                if point is not None:
                    if kill_points and point != kill_points[-1]:
                        advanced += 1
                    kill_points.append(point)
            status = run_replay(args, server, db, "engine-cycles", os.path.join(workdir, "engine-cycles-final.out"))
            assert status == 0, f"final engine run failed ({status}), see {workdir}/engine-cycles-final.out"
            upload_reruns = finish_uploads(args, server, db, "engine-cycles", os.path.join(workdir, "engine-cycles"))
            got = server_tiles(server.db, engine_shift(db))
            result = compare(reference, got, kill_points, exact_values=False)
            result.update(cycles=cycle, kills=kills, runs_finished_before_kill=finished_early,
                          cycles_after_flight_stored=after_end,
                          distinct_resume_points=len(set(kill_points)), cycles_that_advanced=advanced, upload_reruns=upload_reruns, seconds=round(time.time() - started, 1))
            # Kills that never got past the start prove nothing: the kills must have moved the resume point.
            if kills >= 5 and advanced == 0:
                result["ok"] = False
                result["examples"].append("no kill came after a stored crossing: the kills did not cut the flight")
            with open(os.path.join(workdir, "engine-cycles-resume-points.json"), "w") as f:
                json.dump(kill_points, f)
            log("engine cycles: " + json.dumps(result))
            log(f"engine_cycles_exact: {'yes' if result['ok'] else 'no'} ({kills} kills)")
            all_ok = all_ok and result["ok"]
            server.stop()

        # Server cycles: the engine runs whole flights while the server (one database per pass, so that the pass's
        # reports can be told apart) is SIGKILLed and restarted on the same database and port at random moments.
        if args.server_cycles > 0:
            kills, passes, passes_ok, started = 0, 0, 0, time.time()
            kills_per_pass = args.server_kills_per_pass or max(1, min(args.server_cycles, int(duration / 2)))
            while kills < args.server_cycles:
                passes += 1
                server = Server(args.server, os.path.join(workdir, f"server-cycles-server-{passes}.sqlite"), workdir,
                                f"server-cycles-{passes}")
                servers.append(server)
                server.start()
                db = os.path.join(workdir, f"server-cycles-engine-{passes}.sqlite")
                user = "server-cycles"
                with open(os.path.join(workdir, f"server-cycles-{passes}.out"), "w") as out:
                    process = subprocess.Popen(replay_command(args, server, db, user), stdout=out,
                                               stderr=subprocess.STDOUT)
                    running[:] = [process]
                    n = min(kills_per_pass, args.server_cycles - kills)
                    # From 1 s on: the engine's first start needs the server to validate the key.
                    moments = sorted(rng.uniform(1.0, max(1.5, duration)) for _ in range(n))
                    t0 = time.time()
                    for moment in moments:
                        time.sleep(max(0, t0 + moment - time.time()))
                        server.kill()
                        kills += 1
                        time.sleep(rng.uniform(0, 0.5))
                        server.start()
                    status = process.wait()
                assert status == 0, f"server-cycle pass {passes} failed ({status}), see {workdir}/server-cycles-{passes}.out"
                # The last sync of the pass may have met a dead server: a rerun resumes the finished flight and syncs.
                status = run_replay(args, server, db, user, os.path.join(workdir, f"server-cycles-{passes}-rerun.out"))
                assert status == 0, f"server-cycle rerun {passes} failed ({status})"
                finish_uploads(args, server, db, user, os.path.join(workdir, f"server-cycles-{passes}"))
                got = server_tiles(server.db, engine_shift(db))
                result = compare(reference, got, [], exact_values=True)
                passes_ok += result["ok"]
                log(f"server cycles pass {passes}: {n} kills (total {kills}): " + json.dumps(result))
                server.stop()
            log(f"server cycles: {kills} server kills in {passes} passes, {passes_ok}/{passes} passes exact, "
                f"{time.time() - started:.0f} s")
            log(f"server_cycles_exact: {'yes' if passes_ok == passes else 'no'} ({kills} kills)")
            all_ok = all_ok and passes_ok == passes
        log("crash cycles: " + ("all exact" if all_ok else "FAILED"))
        return 0 if all_ok else 1
    finally:
        for process in running:
            if process.poll() is None:
                process.kill()
                process.wait()
        for server in servers:
            server.kill()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
