#!/usr/bin/env python3
"""Independent MSL altitudes of pressure altitudes on non-standard days, for Tests/EddySimulationTests.

Writes Fixtures/atmosphere/hypsometric.csv: isa_deviation_c, qnh_hpa, pressure_alt_ft, msl_m.
The Swift simulator integrates (T_ISA + dT) / T_ISA over pressure altitude in closed form. This script does
something else: it integrates the hydrostatic equation in pressure, dz = -(R T(p) / g0) dp / p, from the
surface pressure QNH up to the static pressure of the flight level, numerically (Simpson's rule in ln p), with
T(p) = T_ISA(p) + dT and T_ISA(p) and the static pressures taken from the `ambiance` package (ISA 1976).
z is geopotential metres (g0 constant), as in the simulator.

    .venv/bin/python scripts/make_atmosphere_oracle.py      (needs ambiance and numpy: requirements-oracles.txt)
"""
import csv
import os

import numpy as np
from ambiance import Atmosphere

R = 287.05287       # J/(kg K), dry air
G0 = 9.80665        # m/s^2
FT = 0.3048

def isa_pressure(pressure_alt_ft):
    """Static pressure (Pa) at a pressure altitude (geopotential feet), from ambiance."""
    h_geom = Atmosphere.geop2geom_height(np.asarray(pressure_alt_ft, dtype=float) * FT)
    return Atmosphere(h_geom).pressure

def isa_temperature_at_pressure(p):
    """ISA temperature (K) of the level where the ISA pressure is p, from ambiance."""
    return Atmosphere.from_pressure(np.asarray(p, dtype=float)).temperature

def msl_altitude(dt, qnh_hpa, pressure_alt_ft, steps=4000):
    p0 = qnh_hpa * 100.0
    p1 = float(isa_pressure([pressure_alt_ft])[0])
    # Simpson's rule over x = ln p from ln p0 to ln p1 (even number of intervals).
    x = np.linspace(np.log(p0), np.log(p1), steps + 1)
    t = isa_temperature_at_pressure(np.exp(x)) + dt
    f = -R * t / G0
    h = (x[-1] - x[0]) / steps
    return h / 3 * (f[0] + f[-1] + 4 * f[1:-1:2].sum() + 2 * f[2:-1:2].sum())

def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    out = os.path.join(root, "Fixtures", "atmosphere", "hypsometric.csv")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    rows = []
    for dt in (-15.0, 0.0, 10.0, 20.0, 35.0):
        for qnh in (980.0, 1013.25, 1040.0):
            for hp in (-500.0, 0.0, 1500.0, 5000.0, 10000.0, 18000.0, 28000.0, 35000.0, 36089.0, 41000.0, 45000.0):
                rows.append((dt, qnh, hp, msl_altitude(dt, qnh, hp)))
    with open(out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["isa_deviation_c", "qnh_hpa", "pressure_alt_ft", "msl_m"])
        for dt, qnh, hp, z in rows:
            w.writerow([f"{dt:g}", f"{qnh:g}", f"{hp:g}", f"{z:.4f}"])
    print(f"wrote {len(rows)} rows to {os.path.relpath(out, root)}")

if __name__ == "__main__":
    main()
