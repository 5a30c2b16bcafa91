#!/usr/bin/env python3
"""Outside-oracle check of device handling on JSBSim flights (issue 12 deliverable 7; docs/detection.md §2).

JSBSim (PyPI `jsbsim`) flies the aircraft through MIL-F-8785C turbulence; `jsbsim_flight.py --handling` turns the
device in its cradle: a slow pick-up (30–90° over 2–3 s, held, put back), a gentle one (30–90° over 3–4 s: 4–17° in its first
second; issue 28) or a fast one (≤ 0.5 s). The 6-DOF loads
and body rates are JSBSim's, not our simulator's. `eddy replay --json` must take the device out of position
≤ 2 s after the pick-up starts, back in position ≤ 15 s after it ends, with no minute or tile overlapping the
handling, and never out of position before it (turbulence alone is not handling).

    .venv/bin/python scripts/jsbsim_handling_oracle.py --eddy .build/debug/eddy --seeds 201,202,203
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

# (JSBSim model, segments POE:seconds): moderate turbulence around the pick-up.
FLIGHTS = [("737", "4:150"), ("c172p", "3:150")]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--eddy", default=".build/debug/eddy")
    parser.add_argument("--seeds", default="201,202,203")
    parser.add_argument("--kinds", default="slow,gentle,fast")
    parser.add_argument("--gyro", default="yes,no", help="with gyroscope.csv, without it, or both")
    args = parser.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    failures, lines, began = [], [], time.monotonic()
    off_all, on_all = [], []
    with tempfile.TemporaryDirectory(prefix="eddy-jsbsim-handling-") as tmp:
        for seed in [int(s) for s in args.seeds.split(",")]:
            for aircraft, segments in FLIGHTS:
                for kind in args.kinds.split(","):
                    draw = random.Random(seed * 31 + len(kind))
                    start = round(draw.uniform(70, 100), 2)
                    length = round(draw.uniform(8, 15) if kind != "fast" else draw.uniform(3, 10), 2)
                    out = os.path.join(tmp, f"{aircraft}-{seed}-{kind}")
                    subprocess.run([sys.executable, os.path.join(here, "jsbsim_flight.py"), "--aircraft", aircraft,
                                    "--segments", segments, "--seed", str(seed), "--out", out,
                                    "--handling", f"{start}:{length}:{kind}"],
                                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    for gyro in args.gyro.split(","):
                        if gyro == "no":
                            os.replace(os.path.join(out, "gyroscope.csv"), os.path.join(out, "gyroscope.off"))
                        result = subprocess.run([args.eddy, "replay", "--json", out], check=True, capture_output=True, text=True)
                        if gyro == "no":
                            os.replace(os.path.join(out, "gyroscope.off"), os.path.join(out, "gyroscope.csv"))
                        events = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
                        positions = [e for e in events if e.get("type") == "position"]
                        end = start + length
                        calibrated = next((p["t"] for p in positions if p["in_position"]), None)
                        early = [p for p in positions if calibrated is not None and calibrated < p["t"] < start and not p["in_position"]]
                        off = next((p["t"] - start for p in positions if p["t"] >= start and not p["in_position"]), None)
                        last_off = max((i for i, p in enumerate(positions) if not p["in_position"] or p["in_noise"]), default=None)
                        on = None
                        if positions and positions[-1]["in_position"] and last_off is not None and last_off + 1 < len(positions):
                            on = max(0.0, positions[last_off + 1]["t"] - end)
                        overlap = 0.0
                        for e in events:
                            if e.get("type") == "minute":
                                overlap += max(0.0, min(e["t"], end) - max(e["t"] - 60, start))
                            if e.get("type") == "tile":
                                overlap += max(0.0, min(e["t_exit"], end) - max(e["t_enter"], start))
                        label = f"{aircraft} seed {seed} {kind} gyro {gyro} handled {start:.1f}–{end:.1f} s"
                        ok = off is not None and off <= 2 and on is not None and on <= 15 and overlap == 0 and not early
                        text = (f"{label}: off {'-' if off is None else f'{off:.2f}'} s, on {'-' if on is None else f'{on:.2f}'} s, "
                                f"measured while handled {overlap:.0f} s, early offs {len(early)} {'ok' if ok else 'FAIL'}")
                        print(text)
                        if off is not None:
                            off_all.append(off)
                        if on is not None:
                            on_all.append(on)
                        if not ok:
                            failures.append(text)
    if off_all:
        print(f"jsbsim handling: off max {max(off_all):.2f} s, on max {max(on_all) if on_all else float('nan'):.2f} s")
    print(f"jsbsim handling oracle: {len(off_all)} flights, {len(failures)} failed, {time.monotonic() - began:.0f} s")
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
