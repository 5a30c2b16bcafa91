#!/usr/bin/env python3
"""Writes Fixtures/atmosphere/p835-itur.csv: the ITU-R P.835-6 reference atmospheres as PyPI `itur` (an outside
implementation of the Recommendation) gives them, for ReferenceAtmosphereTests (docs/altitude.md "Climatology").

Columns: latitude_deg, season, height_km, temperature_k, pressure_hpa (P.835's fit), hypsometric_pressure_hpa (itur's
temperatures integrated hydrostatically from its surface pressure here, on a 1 m grid with g ∝ (r/(r + z))²,
r = 6,356,766 m — an integration independent of Eddy's). Latitudes 10 (low), 30 (mid) and 60 (high), both seasons,
heights 0…20 km every 0.25 km.

    .venv/bin/python scripts/make_p835_fixture.py        (make venv installs itur from requirements-oracles.txt)
"""
import math
import os
import sys

import numpy as np

try:
    import itur.models.itu835 as p835
except ImportError:  # pragma: no cover
    sys.exit("make_p835_fixture.py: the Python package 'itur' is missing; run `make venv` (requirements-oracles.txt)")


def main():
    p835.change_version(6)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = os.path.join(root, "Fixtures", "atmosphere", "p835-itur.csv")
    rows = ["latitude_deg,season,height_km,temperature_k,pressure_hpa,hypsometric_pressure_hpa"]
    for latitude in (10, 30, 60):
        for season in ("summer", "winter"):
            z = np.arange(0, 20_001.0, 1.0)
            temperature = np.asarray(p835.temperature(latitude, z / 1000, season=season).value, dtype=float)
            gravity = (6_356_766.0 / (6_356_766.0 + z)) ** 2
            f = gravity / temperature
            integral = np.concatenate([[0.0], np.cumsum((f[1:] + f[:-1]) / 2)])
            surface = float(p835.pressure(latitude, 0, season=season).value)
            for i in range(81):
                h = i * 0.25
                t = float(p835.temperature(latitude, h, season=season).value)
                p = float(p835.pressure(latitude, h, season=season).value)
                hyps = surface * math.exp(-9.80665 / 287.05287 * integral[i * 250])
                rows.append(f"{latitude},{season},{h:.2f},{t:.6f},{p:.8g},{hyps:.8g}")
    with open(out, "w", newline="\n") as f:
        f.write("\n".join(rows) + "\n")
    print(f"{out}: {len(rows) - 1} rows (itur {p835.get_version() if hasattr(p835, 'get_version') else ''})")


if __name__ == "__main__":
    main()
