#!/usr/bin/env python3
"""Airliner flight-level oracle (issue 28; docs/altitude.md "Airliner oracle"): fly JSBSim 737s at semicircular flight
levels with a step climb, in a pressurised cabin with phone GNSS and no ADS-B, replay each with `eddy replay --json
--track`, and measure per flight the share of tiles in the true pressure-altitude layer and the share whose 90 % bound
covers the truth — without hints, with the flight plan's ISA deviation (error drawn from ±3 °C) and with the cleared
levels. Plus the unpressurised C172 (barometer): 100 % in the true layer.

The atmosphere of each flight is outside truth: the ITU-R P.835-6 reference atmosphere of its latitude and season as
PyPI `itur` gives it (an implementation independent of Eddy's), plus a day-to-day anomaly (°C, listed per flight). JSBSim
flies a uniform ISA deviation (atmosphere/delta-T) chosen so that the first level's geometric height is the one the
P.835 atmosphere + anomaly puts it at (its temperatures integrated hydrostatically here, independently of Eddy): what
matters for GNSS → flight level is that height.

    .venv/bin/python scripts/flight_level_oracle.py --eddy .build/debug/eddy [--full] [--keep DIR]

The default is the small subset `make test-oracles` runs; --full is `make campaign-flight-levels`.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from jsbsim_flight import pressure_altitude_ft   # the same ISA formula the flights' truth is written with

try:
    import itur.models.itu835 as p835
except ImportError:  # pragma: no cover
    sys.exit("flight_level_oracle.py: the Python package 'itur' is missing; run `make venv` (requirements-oracles.txt)")

FT = 0.3048
WINTER, SUMMER = "2026-01-15T06:00:00Z", "2026-07-15T06:00:00Z"
# name: (latitude, longitude, date, track, levels FL:until_s, anomaly °C). Levels follow the semicircular rule for
# the track (eastbound odd, westbound even), with a 2,000-ft step climb (or descent) half way.
FULL = [
    ("low-east", 10.0, 20.0, SUMMER, 90, "350:540,370:1200", 3.5),
    ("low-west", 12.0, -40.0, WINTER, 270, "360:540,380:1200", -1.5),
    ("mid-summer-east", 30.0, -100.0, SUMMER, 90, "330:540,350:1200", 3.0),
    ("mid-winter-west", 35.0, -90.0, WINTER, 270, "340:540,360:1200", -4.0),
    ("mid-winter-east", 33.0, 30.0, WINTER, 90, "310:540,330:1200", 2.0),
    ("mid-summer-west", 40.0, -5.0, SUMMER, 270, "360:540,340:1200", -2.0),
    ("blend45-winter-east", 45.0, 10.0, WINTER, 90, "350:540,370:1200", 2.5),
    ("high-summer-west", 55.0, 20.0, SUMMER, 270, "340:540,360:1200", 4.0),
    ("high-winter-east", 60.0, 30.0, WINTER, 90, "330:540,350:1200", 3.0),
    ("high-winter-west", 58.0, 100.0, WINTER, 270, "320:540,340:1200", 5.0),
]
SUBSET = ["mid-winter-west", "high-summer-west"]


def isa_pressure_hpa(pa_ft):
    lo, hi = 50.0, 1100.0
    for _ in range(80):
        mid = (lo + hi) / 2
        if pressure_altitude_ft(mid) > pa_ft:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def offset_per_celsius_ft(pa_ft):
    """∫₀^PA dh / T_ISA(h): feet of (geometric − pressure altitude) per °C of uniform ISA deviation."""
    h = np.linspace(0, pa_ft * FT, 4000)
    t = np.where(h < 11_000, 288.15 - 0.0065 * h, 216.65)
    return float(np.trapezoid(1 / t, h)) / FT


def p835_geopotential_height_ft(latitude, season, p_hpa):
    """Geopotential height (ft) of a pressure in itur's P.835 atmosphere: its temperatures integrated hydrostatically
    from its surface pressure on a 10 m grid (P.835's own pressure fit is not hydrostatic with its temperatures),
    geometric heights turned into geopotential ones with r = 6,356,766 m."""
    z = np.arange(0, 20_000.0, 10.0)
    t = np.asarray(p835.temperature(latitude, z / 1000, season=season).value, dtype=float)
    r = 6_356_766.0
    gp = r * z / (r + z)
    lnp = math.log(float(p835.pressure(latitude, 0, season=season).value)) - np.concatenate(
        [[0.0], np.cumsum(9.80665 / 287.05287 * np.diff(gp) / (0.5 * (t[1:] + t[:-1])))])
    return float(np.interp(-math.log(p_hpa), -lnp, gp)) / FT


def truth_layer(pa, rate_fpm):
    """The layer the truth is in, by Eddy's definition (docs/altitude.md "Flight-level hold"): a level aircraft
    (|vertical speed| < 150 ft/min) within ±150 ft of a flight level is in that level's layer; otherwise the 1,000-ft
    layer its pressure altitude is in."""
    nearest = round(pa / 1000) * 1000
    if abs(pa - nearest) <= 150 and abs(rate_fpm) < 150:
        return int(nearest // 1000)
    return int(math.floor(pa / 1000))


def measure(eddy, flight, extra):
    result = subprocess.run([eddy, "replay", "--json", "--track", flight] + extra, check=True, capture_output=True, text=True)
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    truth = np.loadtxt(os.path.join(flight, "truth-pressure-altitude.csv"), delimiter=",", skiprows=1, ndmin=2)
    times, pas = truth[:, 0], truth[:, 1]
    rates = np.gradient(pas, times) * 60   # ft/min
    rates = np.convolve(rates, np.ones(11) / 11, mode="same")   # over ±5 s
    track = [l for l in lines if l.get("type") == "track"]
    tiles = [l for l in lines if l.get("type") == "tile"]
    in_layer = covered = 0
    for tile in tiles:
        mask = (times >= tile["t_enter"]) & (times <= tile["t_exit"])
        layers = {truth_layer(pa, rate) for pa, rate in zip(pas[mask], rates[mask])} or {
            truth_layer(float(np.interp(tile["t_enter"], times, pas)), float(np.interp(tile["t_enter"], times, rates)))}
        in_layer += tile["layer"] in layers
        fixes = [f for f in track if tile["t_enter"] <= f["t"] <= tile["t_exit"]]
        inside = [abs(f["pressure_alt_ft"] - float(np.interp(f["t"], times, pas))) <= f["pressure_alt_u90_ft"] for f in fixes]
        covered += bool(inside) and sum(inside) * 2 >= len(inside)
    n = max(1, len(tiles))
    fix_cover = [abs(f["pressure_alt_ft"] - float(np.interp(f["t"], times, pas))) <= f["pressure_alt_u90_ft"] for f in track]
    return {"tiles": len(tiles), "in_layer": in_layer / n, "covered": covered / n,
            "fixes_covered": sum(fix_cover) / max(1, len(fix_cover)),
            "uncertain": sum(1 for t in tiles if t.get("layer_uncertain")) / n}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--eddy", default=".build/debug/eddy")
    parser.add_argument("--full", action="store_true", help="every flight (make campaign-flight-levels)")
    parser.add_argument("--flights", default="", help="comma-separated flight names instead")
    parser.add_argument("--seed", type=int, default=301)
    parser.add_argument("--keep", default="", help="keep the flights in this directory (flights already there are reused)")
    parser.add_argument("--generate-only", action="store_true", help="fly the flights (into --keep) and stop")
    args = parser.parse_args()
    p835.change_version(6)
    here = os.path.dirname(os.path.abspath(__file__))
    names = args.flights.split(",") if args.flights else ([f[0] for f in FULL] if args.full else SUBSET)
    chosen = [f for f in FULL if f[0] in names]
    rng = np.random.default_rng(args.seed)
    failures = []
    began = time.monotonic()
    tmp = tempfile.TemporaryDirectory(prefix="eddy-flight-levels-")
    root = args.keep or tmp.name
    os.makedirs(root, exist_ok=True)
    rows = []
    for index, (name, lat, lon, date, track, levels, anomaly) in enumerate(chosen):
        season = "summer" if (date == SUMMER) == (lat >= 0) else "winter"
        first = int(levels.split(",")[0].split(":")[0]) * 100
        reference_ft = p835_geopotential_height_ft(lat, season, isa_pressure_hpa(first)) - first
        per_degree = offset_per_celsius_ft(first)
        isa = round(reference_ft / per_degree + anomaly, 2)
        out = os.path.join(root, name)
        total = float(levels.split(",")[-1].split(":")[1])
        if not os.path.exists(os.path.join(out, "truth-pressure-altitude.csv")):
            subprocess.run([sys.executable, os.path.join(here, "jsbsim_flight.py"), "--aircraft", "737", "--segments", f"0:{total:g}",
                        "--levels", levels, "--isa-deviation", str(isa), "--latitude", str(lat), "--longitude", str(lon),
                        "--track", str(track), "--gnss-noise-m", "12.5", "--physics-hz", "100", "--rate", "25",
                        "--seed", str(args.seed + index), "--time-origin", date, "--out", out],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if args.generate_only:
            print(f"{name}: flown (ISA{isa:+.1f} °C)", flush=True)
            continue
        hint_error = float(rng.uniform(-3, 3))
        parts = [p.split(":") for p in levels.split(",")]
        cleared = ",".join([f"0:{parts[0][0]}"] + [f"{float(parts[i - 1][1]):g}:{parts[i][0]}" for i in range(1, len(parts))])
        results = {
            "none": measure(args.eddy, out, []),
            "isa": measure(args.eddy, out, [f"--isa-deviation={isa + hint_error:.2f}"]),
            "cleared": measure(args.eddy, out, ["--cleared-levels", cleared]),
        }
        rows.append((name, lat, season, track, levels, anomaly, isa, hint_error, results))
        r = results
        print(f"{name}: lat {lat:g} {season} track {track} levels {levels} anomaly {anomaly:+.1f} °C → ISA{isa:+.1f} °C; "
              f"{r['none']['tiles']} tiles; in true layer: none {r['none']['in_layer']:.0%} "
              f"(90 % bound covers {r['none']['covered']:.0%}, fixes {r['none']['fixes_covered']:.0%}, flagged {r['none']['uncertain']:.0%}), "
              f"ISA hint {hint_error:+.1f} °C off {r['isa']['in_layer']:.0%} (covers {r['isa']['covered']:.0%}), "
              f"cleared {r['cleared']['in_layer']:.0%} (covers {r['cleared']['covered']:.0%})", flush=True)
        if r["none"]["in_layer"] < 0.90 or r["none"]["covered"] < 0.90:
            failures.append(f"{name}: without hints {r['none']['in_layer']:.0%} in layer, {r['none']['covered']:.0%} covered (bounds 90 %, 90 %)")
        for hint in ("isa", "cleared"):
            if r[hint]["in_layer"] < 0.99:
                failures.append(f"{name}: with the {hint} hint {r[hint]['in_layer']:.0%} in layer (bound 99 %)")
    # The unpressurised light aircraft: barometer, no inference — every tile in its true layer.
    c172 = os.path.join(root, "c172")
    if not os.path.exists(os.path.join(c172, "truth-pressure-altitude.csv")):
        subprocess.run([sys.executable, os.path.join(here, "jsbsim_flight.py"), "--aircraft", "c172p", "--segments", "0:600",
                    "--levels", "50:600", "--isa-deviation", "8", "--gnss-noise-m", "12.5", "--seed", str(args.seed),
                    "--out", c172], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if args.generate_only:
        return
    light = measure(args.eddy, c172, [])
    print(f"c172 (unpressurised, barometer, ISA+8): {light['tiles']} tiles, in true layer {light['in_layer']:.0%}, "
          f"90 % bound covers {light['covered']:.0%}")
    if light["in_layer"] < 1.0:
        failures.append(f"c172: {light['in_layer']:.0%} in the true layer (bound 100 %)")
    print(f"flight-level oracle: {len(rows)} airliner flights + 1 light aircraft, {len(failures)} failures, {time.monotonic() - began:.0f} s")
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
