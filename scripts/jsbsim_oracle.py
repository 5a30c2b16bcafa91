#!/usr/bin/env python3
"""Outside-oracle check (make test-oracles): fly fresh JSBSim flights (seeds other than the committed
fixtures), replay them with `eddy replay --json`, and check the issue's JSBSim acceptance:
severity order of the turbulence segments preserved, each segment's median EDR within ±30 % of its
band-equivalent truth (docs/replay.md §JSBSim flights).

A segment in which the detector measured no minute at all (gated: turning / handling) cannot be
judged; it is listed as NOT MEASURED and does not fail the check, but is counted in the last line.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

FLIGHTS = [
    ("737", "0:60,4:240,5:240,6:240"),
    ("c172p", "0:60,2:240,3:240,4:240"),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--eddy", default=".build/debug/eddy")
    parser.add_argument("--seeds", default="101,102", help="comma-separated JSBSim/noise/mount seeds")
    parser.add_argument("--tolerance", type=float, default=0.30)
    args = parser.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    failures, unmeasured, checked = [], 0, 0
    with tempfile.TemporaryDirectory(prefix="eddy-jsbsim-oracle-") as tmp:
        for seed in [int(s) for s in args.seeds.split(",")]:
            for aircraft, segments in FLIGHTS:
                out = os.path.join(tmp, f"{aircraft}-{seed}")
                subprocess.run([sys.executable, os.path.join(here, "jsbsim_flight.py"), "--aircraft", aircraft,
                                "--segments", segments, "--seed", str(seed), "--out", out],
                               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                result = subprocess.run([args.eddy, "replay", "--json", out], check=True, capture_output=True, text=True)
                summary = json.loads(result.stdout.strip().splitlines()[-1])
                turbulent = [s for s in summary["segments"] if s["truth_edr"] > 0]
                measured = [s for s in turbulent if s["edr_median"] is not None]
                for s in turbulent:
                    if s["edr_median"] is None:
                        unmeasured += 1
                        print(f"{aircraft} seed {seed}: truth {s['truth_edr']:.3f}: NOT MEASURED (no minute passed the gates)")
                        continue
                    checked += 1
                    error = s["edr_median"] / s["truth_edr"] - 1
                    ok = abs(error) <= args.tolerance
                    print(f"{aircraft} seed {seed}: truth {s['truth_edr']:.3f} measured {s['edr_median']:.3f} "
                          f"({error * 100:+.0f} %, {s['minutes']} min) {'ok' if ok else 'FAIL'}")
                    if not ok:
                        failures.append(f"{aircraft} seed {seed} truth {s['truth_edr']}: {error * 100:+.0f} %")
                medians = [s["edr_median"] for s in sorted(measured, key=lambda s: s["truth_edr"])]
                if medians != sorted(medians):
                    failures.append(f"{aircraft} seed {seed}: severity order not preserved {medians}")
                    print(f"{aircraft} seed {seed}: order FAIL {medians}")
    print(f"jsbsim oracle: {checked} segments checked, {len(failures)} failed, {unmeasured} not measured")
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
