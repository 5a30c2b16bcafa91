#!/usr/bin/env python3
"""Outside-oracle check (make test-oracles): fly fresh JSBSim flights (seeds other than the committed
fixtures), replay them with `eddy replay --json`, and check the issue's JSBSim acceptance with the per-type
response: severity order of the turbulence segments preserved, and every segment's median EDR within ±15 % of
the aircraft-independent truth (docs/replay.md §JSBSim flights).

Two truths are printed per segment:
- independent (the one checked): the EDR of the von Kármán field (L = 762 m) whose vertical-gust variance in
  the class's band equals that of the gusts JSBSim actually applied (atmosphere/total-wind-down-fps);
- model-weighted (the old truth, for the record): the same match weighted by the class's rigid-plunge response,
  from the table σ_w. An error in our response model moves that truth with it, so it is not checked.

A segment in which the detector measured no minute at all (gated: turning / handling) cannot be
judged; it is listed as NOT MEASURED and does not fail the check, but is counted in the last line.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

# (JSBSim model, segments): the 737 and 787-8 (jets at FL350), the C172 and the DHC-6 Twin Otter (8,000 ft).
FLIGHTS = [
    ("737", "0:60,4:240,5:240,6:240"),
    ("c172p", "0:60,2:240,3:240,4:240"),
    ("787-8", "0:60,4:240,5:240,6:240"),
    ("DHC6", "0:60,2:240,3:240,4:240"),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--eddy", default=".build/debug/eddy")
    parser.add_argument("--seeds", default="101,102", help="comma-separated JSBSim/noise/mount seeds")
    parser.add_argument("--tolerance", type=float, default=0.15, help="bound on each segment's median error")
    parser.add_argument("--aircraft", default=",".join(a for a, _ in FLIGHTS), help="comma-separated JSBSim models")
    args = parser.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    chosen = args.aircraft.split(",")
    failures, unmeasured, checked = [], 0, 0
    errors = {aircraft: [] for aircraft in chosen}
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="eddy-jsbsim-oracle-") as tmp:
        for seed in [int(s) for s in args.seeds.split(",")]:
            for aircraft, segments in FLIGHTS:
                if aircraft not in chosen:
                    continue
                out = os.path.join(tmp, f"{aircraft}-{seed}")
                subprocess.run([sys.executable, os.path.join(here, "jsbsim_flight.py"), "--aircraft", aircraft,
                                "--segments", segments, "--seed", str(seed), "--out", out],
                               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                with open(os.path.join(out, "meta.json")) as f:
                    meta = json.load(f)
                record = {(round(r["start"], 3), round(r["end"], 3)): r for r in meta["jsbsim"]["segments"]}
                result = subprocess.run([args.eddy, "replay", "--json", out], check=True, capture_output=True, text=True)
                summary = json.loads(result.stdout.strip().splitlines()[-1])
                turbulent = [s for s in summary["segments"] if s["truth_edr"] > 0]
                measured = [s for s in turbulent if s["edr_median"] is not None]
                for s in turbulent:
                    r = record.get((round(s["start"], 3), round(s["end"], 3)), {})
                    old = r.get("edr_model_weighted")
                    label = (f"{aircraft} ({meta['aircraft']['type']}) seed {seed} POE {r.get('poe_index', '?')}: "
                             f"truth independent {s['truth_edr']:.3f} model-weighted {old:.3f}")
                    if s["edr_median"] is None:
                        unmeasured += 1
                        print(f"{label}: NOT MEASURED (no minute passed the gates)")
                        continue
                    checked += 1
                    error = s["edr_median"] / s["truth_edr"] - 1
                    errors[aircraft].append(error)
                    ok = abs(error) <= args.tolerance
                    print(f"{label} measured {s['edr_median']:.3f} "
                          f"({error * 100:+.1f} % vs independent, {(s['edr_median'] / old - 1) * 100:+.1f} % vs model-weighted, "
                          f"{s['minutes']} min) {'ok' if ok else 'FAIL'}")
                    if not ok:
                        failures.append(f"{label}: {error * 100:+.1f} % (bound ±{args.tolerance * 100:.0f} %)")
                medians = [s["edr_median"] for s in sorted(measured, key=lambda s: s["truth_edr"])]
                if medians != sorted(medians):
                    failures.append(f"{aircraft} seed {seed}: severity order not preserved {medians}")
                    print(f"{aircraft} seed {seed}: order FAIL {medians}")
    for aircraft in chosen:
        if not errors[aircraft]:
            continue
        median = statistics.median(errors[aircraft])
        print(f"{aircraft}: median error {median * 100:+.1f} % over {len(errors[aircraft])} segments "
              f"(range {min(errors[aircraft]) * 100:+.1f} … {max(errors[aircraft]) * 100:+.1f} %)")
    print(f"jsbsim oracle: {checked} segments checked, {len(failures)} failed, {unmeasured} not measured, "
          f"{time.monotonic() - began:.0f} s")
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
