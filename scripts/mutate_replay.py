#!/usr/bin/env python3
"""Black-box mutation of `eddy replay` (issue 15; docs/reliability.md, "Mutation").

Copies a fixture flight, mutates its files (cells replaced by huge or odd numbers, times moved hugely, lines cut,
repeated or swapped, bytes flipped, meta.json fields changed), runs `eddy replay DIR` with a random flag set under a
timeout, and flags every run that dies of a signal, exits with a code other than the CLI's documented ones
(0 success, 1 input/run error, 64 usage error) or times out. Each finding is saved under --crash-dir with the mutated
flight, the command and its output, so that it can be rerun by hand.

    python3 scripts/mutate_replay.py --minutes 20 --seed 1
    python3 scripts/mutate_replay.py --seconds 30          (the `make test` smoke)

Standard library only. Deterministic for a seed (the cases, not the timing: a run stops at the time limit).
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCUMENTED_EXIT_CODES = {0, 1, 64}
ODD_CELLS = ["1e308", "-1e308", "nan", "NaN", "inf", "-inf", "Infinity", "-0", "0", "9223372036854775807",
             "-9223372036854775808", "18446744073709551616", "", " ", "text", "1e-320", "4.9e-324", "0x1p3",
             "1,2", "\"1\"", "１", "1e99999", "-1e11", "1e11", "99999999999", "-99999999999", "1.7976931348623157e308",
             "\x00", "\xff\xfe", "1e", ".", "-", "+1", "1_000"]
TIME_SHIFTS = [1e18, -1e18, 1e11, -1e11, 1e9, -1e9, 86400 * 365, -3600, 1e300, -1e300, 0.5, 4e15]


def read_lines(path):
    with open(path, "rb") as f:
        return f.read().split(b"\n")


def write_lines(path, lines):
    with open(path, "wb") as f:
        f.write(b"\n".join(lines))


def pick_line(rng, lines):
    """A data line's index (not the header), or None."""
    count = len(lines) - 1
    if count < 2:
        return None
    return rng.randrange(1, count)


def mutate_csv(rng, path, log):
    lines = read_lines(path)
    name = os.path.basename(path)
    kind = rng.choice(["cell", "cell", "cell", "time", "time_tail", "cut", "repeat", "swap", "truncate", "flip",
                       "header", "binary", "long_line", "delete_file", "empty_file", "crlf", "extra_field"])
    if kind == "delete_file":
        os.remove(path)
        log.append(f"{name}: deleted")
        return
    if kind == "empty_file":
        open(path, "wb").close()
        log.append(f"{name}: emptied")
        return
    if kind == "binary":
        with open(path, "wb") as f:
            f.write(bytes(rng.randrange(256) for _ in range(rng.choice([16, 300, 5000]))))
        log.append(f"{name}: replaced by random bytes")
        return
    if kind == "flip":
        data = bytearray(open(path, "rb").read())
        for _ in range(rng.choice([1, 5, 50])):
            if data:
                i = rng.randrange(len(data))
                data[i] ^= 1 << rng.randrange(8)
        open(path, "wb").write(bytes(data))
        log.append(f"{name}: bytes flipped")
        return
    if kind == "header":
        header = lines[0].split(b",")
        op = rng.choice(["drop", "dup", "rename", "shuffle"])
        if op == "drop" and len(header) > 1:
            header.pop(rng.randrange(len(header)))
        elif op == "dup":
            header.append(rng.choice(header))
        elif op == "rename":
            header[rng.randrange(len(header))] = rng.choice([b"x", b"T", b"", b"\xff"])
        else:
            rng.shuffle(header)
        lines[0] = b",".join(header)
        log.append(f"{name}: header {op}")
    elif kind == "long_line":
        i = pick_line(rng, lines)
        if i is not None:
            lines[i] = b"1" * rng.choice([100_000, 1_100_000])
            log.append(f"{name}:{i + 1}: long line")
    elif kind == "crlf":
        lines = [line + b"\r" for line in lines]
        log.append(f"{name}: CRLF")
    elif kind == "extra_field":
        i = pick_line(rng, lines)
        if i is not None:
            lines[i] += b",1"
            log.append(f"{name}:{i + 1}: extra field")
    elif kind in ("cell", "time"):
        for _ in range(rng.choice([1, 1, 3, 20])):
            i = pick_line(rng, lines)
            if i is None:
                break
            cells = lines[i].split(b",")
            column = 0 if kind == "time" else rng.randrange(len(cells))
            if kind == "time" and rng.random() < 0.5:
                try:
                    value = float(cells[0]) + rng.choice(TIME_SHIFTS)
                    cells[0] = repr(value).encode()
                except ValueError:
                    cells[0] = b"1e308"
            else:
                cells[column] = rng.choice(ODD_CELLS).encode("utf-8", "surrogateescape")
            lines[i] = b",".join(cells)
            log.append(f"{name}:{i + 1}: column {column} -> {cells[column][:40]!r}")
    elif kind == "time_tail":
        # Every line from one on moved by the same huge shift (forwards or backwards).
        i = pick_line(rng, lines)
        if i is not None:
            shift = rng.choice(TIME_SHIFTS)
            for j in range(i, len(lines)):
                cells = lines[j].split(b",")
                try:
                    cells[0] = repr(float(cells[0]) + shift).encode()
                except ValueError:
                    continue
                lines[j] = b",".join(cells)
            log.append(f"{name}: lines {i + 1}.. shifted by {shift}")
    elif kind == "cut":
        i = pick_line(rng, lines)
        if i is not None:
            lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
            log.append(f"{name}:{i + 1}: cut")
    elif kind == "repeat":
        i = pick_line(rng, lines)
        if i is not None:
            lines[i:i] = [lines[i]] * rng.choice([1, 2, 100])
            log.append(f"{name}:{i + 1}: repeated")
    elif kind == "swap":
        i, j = pick_line(rng, lines), pick_line(rng, lines)
        if i is not None and j is not None:
            lines[i], lines[j] = lines[j], lines[i]
            log.append(f"{name}: lines {i + 1} and {j + 1} swapped")
    elif kind == "truncate":
        keep = rng.randrange(1, max(2, len(lines)))
        lines = lines[:keep]
        log.append(f"{name}: truncated to {keep} lines")
    write_lines(path, lines)


META_VALUES = [None, 0, -1, 1e308, -1e308, "", "x" * 500, [], {}, True, "medium", "small", "large", "2026-11-22T10:00:00Z",
               "9999-12-31T23:59:59Z", "0000-01-01T00:00:00Z", "2026-02-30T10:00:00Z", "2026-11-22T10:00:00+99:99",
               "\u0000\u00ff", 9223372036854775807, 1e11, -1e11]


def mutate_meta(rng, path, log):
    try:
        meta = json.load(open(path))
    except (ValueError, OSError):
        meta = {}
    kind = rng.choice(["field", "field", "field", "truth", "delete", "garbage", "flip"])
    if kind == "delete":
        os.remove(path)
        log.append("meta.json: deleted")
        return
    if kind == "garbage":
        open(path, "wb").write(bytes(rng.randrange(256) for _ in range(200)))
        log.append("meta.json: random bytes")
        return
    if kind == "flip":
        data = bytearray(open(path, "rb").read())
        if data:
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
        open(path, "wb").write(bytes(data))
        log.append("meta.json: byte flipped")
        return
    if not isinstance(meta, dict):
        meta = {}
    if kind == "truth":
        truth = meta.setdefault("truth", {}) if isinstance(meta.get("truth", {}), dict) else {}
        key = rng.choice(["turbulence", "handling", "manoeuvres"])
        start = rng.choice([0, -1e308, 1e308, 1e11, -1e11, 5, 1e18])
        end = rng.choice([1, 1e308, 1e11, 1e18, 10, 2e18])
        truth[key] = [{"start": start, "end": end, "edr": rng.choice([0, 0.3, 1e308, 5])}]
        meta["truth"] = truth
        log.append(f"meta.json: truth.{key} = {truth[key]}")
    else:
        path_choices = [("time_origin",), ("format",), ("version",), ("aircraft", "class"), ("aircraft", "type"),
                        ("device", "mount"), ("device", "pressurized_cabin"), ("aircraft",)]
        keys = rng.choice(path_choices)
        value = rng.choice(META_VALUES)
        target = meta
        for key in keys[:-1]:
            if not isinstance(target.get(key), dict):
                target[key] = {}
            target = target[key]
        if value is None and rng.random() < 0.5:
            target.pop(keys[-1], None)
        else:
            target[keys[-1]] = value
        log.append(f"meta.json: {'.'.join(keys)} = {str(value)[:40]!r}")
    with open(path, "w") as f:
        json.dump(meta, f)


def random_flags(rng, work):
    flags = []
    if rng.random() < 0.6:
        flags.append("--lenient")
    engine = rng.random() < 0.25
    if engine:
        flags.append("--engine")
    if rng.random() < 0.5:
        flags.append("--json")
        if not engine and rng.random() < 0.4:
            flags.append("--track")
    if rng.random() < 0.2:
        flags += ["--class", rng.choice(["small", "medium", "large", "huge"])]
    if rng.random() < 0.2:
        flags += ["--mount", rng.choice(["cradle", "fixed", "dashboard"])]
    if rng.random() < 0.1:
        flags += ["--html", os.path.join(work, "out.html")]
    if rng.random() < 0.1:
        flags += ["--db", os.path.join(work, "store.sqlite")]
    if rng.random() < 0.03:
        flags.append(rng.choice(["--track", "--restart", "--dem=/nonexistent"]))  # invalid combinations: usage errors
    return flags


def shorten(rng, flight_dir, max_seconds):
    """Keeps the first `max_seconds` of every CSV (debug replays of the long fixtures are slow)."""
    for name in os.listdir(flight_dir):
        if not name.endswith(".csv"):
            continue
        path = os.path.join(flight_dir, name)
        lines = read_lines(path)
        kept = [lines[0]]
        for line in lines[1:]:
            cells = line.split(b",", 1)
            try:
                if float(cells[0]) > max_seconds:
                    break
            except ValueError:
                pass
            kept.append(line)
        write_lines(path, kept + [b""])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eddy", default=os.path.join(ROOT, ".build/debug/eddy"))
    parser.add_argument("--flights", nargs="*", default=None, help="flight directories (default: Fixtures/flights/*)")
    parser.add_argument("--minutes", type=float, default=None)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=120, help="seconds per run before it counts as a hang")
    parser.add_argument("--max-flight-seconds", type=float, default=900,
                        help="keep the first N s of each flight (0: whole flights)")
    parser.add_argument("--crash-dir", default=os.path.join(ROOT, "mutate-crashes"))
    args = parser.parse_args()
    limit = args.seconds if args.seconds is not None else 60 * (args.minutes if args.minutes is not None else 60)
    if not os.access(args.eddy, os.X_OK):
        sys.exit(f"mutate_replay: {args.eddy} is not built (swift build --product eddy)")
    flights = args.flights or sorted(
        os.path.join(ROOT, "Fixtures/flights", n) for n in os.listdir(os.path.join(ROOT, "Fixtures/flights")))
    rng = random.Random(args.seed)
    started = time.monotonic()
    outcomes = {}
    findings = []
    runs = 0
    scratch = tempfile.mkdtemp(prefix="eddy-mutate-")
    try:
        # Shortened copies of the fixtures, made once.
        bases = []
        for flight in flights:
            base = os.path.join(scratch, "base-" + os.path.basename(flight))
            shutil.copytree(flight, base)
            if args.max_flight_seconds > 0:
                shorten(rng, base, args.max_flight_seconds)
            bases.append(base)
        while time.monotonic() - started < limit:
            runs += 1
            case_seed = rng.randrange(1 << 30)
            case_rng = random.Random(case_seed)
            base = case_rng.choice(bases)
            work = os.path.join(scratch, "case")
            shutil.rmtree(work, ignore_errors=True)
            flight = os.path.join(work, os.path.basename(base)[5:])
            shutil.copytree(base, flight)
            log = []
            for _ in range(case_rng.choice([1, 1, 2, 3, 5])):
                files = [f for f in os.listdir(flight) if f.endswith(".csv") or f == "meta.json"]
                if not files:
                    break
                name = case_rng.choice(files + ["meta.json"] if "meta.json" in files else files)
                path = os.path.join(flight, name)
                if name == "meta.json":
                    mutate_meta(case_rng, path, log)
                else:
                    mutate_csv(case_rng, path, log)
            flags = random_flags(case_rng, work)
            command = [args.eddy, "replay", flight] + flags
            begin = time.monotonic()
            try:
                result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=args.timeout)
                code, stderr = result.returncode, result.stderr
                outcome = f"exit {code}" if code >= 0 else f"signal {signal.Signals(-code).name}"
            except subprocess.TimeoutExpired as e:
                code, stderr, outcome = None, e.stderr or b"", "timeout"
            elapsed = time.monotonic() - begin
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
            if code is None or code not in DOCUMENTED_EXIT_CODES:
                target = os.path.join(args.crash_dir, f"seed{args.seed}-case{case_seed}")
                shutil.rmtree(target, ignore_errors=True)
                os.makedirs(args.crash_dir, exist_ok=True)
                shutil.copytree(flight, os.path.join(target, os.path.basename(flight)))
                with open(os.path.join(target, "README.txt"), "w") as f:
                    f.write(f"outcome: {outcome} after {elapsed:.1f} s\n")
                    f.write("command: " + " ".join(command).replace(flight, os.path.basename(flight)) + "\n")
                    f.write("mutations:\n" + "".join(f"  {m}\n" for m in log))
                    f.write("stderr (tail):\n" + stderr[-4000:].decode("utf-8", "replace"))
                findings.append((outcome, target, log, flags))
                print(f"FINDING {outcome}: {target}  flags {' '.join(flags)}; {'; '.join(log)[:300]}", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    duration = time.monotonic() - started
    print(f"mutate_replay: seed {args.seed}, {runs} runs in {duration:.0f} s ({runs / max(duration, 1e-9):.2f} runs/s)")
    for outcome, count in sorted(outcomes.items()):
        print(f"  {outcome}: {count}")
    print(f"mutate_replay_runs: {runs}")
    print(f"mutate_replay_findings: {len(findings)}")
    sys.exit(1 if findings else 0)


if __name__ == "__main__":
    main()
