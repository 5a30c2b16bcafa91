#!/usr/bin/env python3
"""Geoid oracle: `eddy geoid undulation` against PROJ's EGM96 (pyproj, +proj=vgridshift on egm96_15.gtx).

Draws --points seeded random positions (uniform on the sphere, plus the poles, lat +-90, lon +-180, the
antimeridian and grid nodes), runs `eddy geoid undulation` on them, and evaluates N with PROJ (pyproj's bundled
libproj, pipeline `+proj=vgridshift +grids=<egm96_15.gtx> +multiplier=1`: PROJ's own reading and bilinear
interpolation of the NGA 15' grid from Debian's proj-data). Eddy's compiled table is that grid rounded to whole
centimetres, so the two should agree to about 5 mm; the acceptance bound from issue 11 is 0.5 m.

Usage: python scripts/geoid_oracle.py --eddy .build/debug/eddy [--points 10000] [--seed 96]
Prints `geoid_oracle: ...` lines (max and RMS |eddy - PROJ|); exit status 1 if any point is off by more than
--tolerance metres or a line is missing.
"""
import argparse
import math
import os
import subprocess
import sys

import numpy as np
from pyproj import Transformer, __version__ as pyproj_version, proj_version_str

GTX = "/usr/share/proj/egm96_15.gtx"


def main():
    ap = argparse.ArgumentParser(description="eddy geoid undulation vs PROJ")
    ap.add_argument("--eddy", default=".build/debug/eddy")
    ap.add_argument("--points", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=96)
    ap.add_argument("--tolerance", type=float, default=0.5)
    ap.add_argument("--gtx", default=GTX)
    args = ap.parse_args()
    if not os.path.exists(args.gtx):
        sys.exit(f"geoid_oracle: {args.gtx} missing; install the Debian package proj-data (make apt)")

    rng = np.random.default_rng(args.seed)
    special = [(90.0, 0.0), (-90.0, 0.0), (90.0, 123.4), (-90.0, -77.7), (0.0, 180.0), (0.0, -180.0),
               (45.0, 180.0), (-45.0, -180.0), (12.3, 179.999999), (12.3, -179.999999), (89.9999, 45.0),
               (-89.9999, -135.0), (0.0, 0.0), (38.6281550, -90.2208450), (-0.4667440, 0.0023000)]
    n_random = args.points - len(special) - 200
    lat = np.degrees(np.arcsin(rng.uniform(-1, 1, n_random)))
    lon = rng.uniform(-180, 180, n_random)
    # Grid nodes (multiples of 0.25 degrees) and points on grid lines.
    node_lat = rng.integers(-360, 361, 100) * 0.25
    node_lon = rng.integers(-720, 721, 100) * 0.25
    line_lat = rng.integers(-360, 361, 100) * 0.25
    line_lon = rng.uniform(-180, 180, 100)
    lats = np.concatenate([[p[0] for p in special], lat, node_lat, line_lat])
    lons = np.concatenate([[p[1] for p in special], lon, node_lon, line_lon])

    inp = "".join(f"{a!r},{b!r}\n" for a, b in zip(lats.tolist(), lons.tolist()))
    proc = subprocess.run([args.eddy, "geoid", "undulation"], input=inp.encode(), capture_output=True)
    if proc.returncode != 0:
        sys.exit(f"geoid_oracle: eddy exited {proc.returncode}: {proc.stderr.decode()[:2000]}")
    ours = np.array([float(x) for x in proc.stdout.decode().split()])
    if len(ours) != len(lats):
        sys.exit(f"geoid_oracle: {len(ours)} values for {len(lats)} points")

    t = Transformer.from_pipeline(f"+proj=vgridshift +grids={args.gtx} +multiplier=1")
    _, _, ref = t.transform(lons, lats, np.zeros_like(lats))
    ref = np.asarray(ref)
    if not np.all(np.isfinite(ref)):
        bad = np.nonzero(~np.isfinite(ref))[0][:5]
        sys.exit(f"geoid_oracle: PROJ gave no value at {[(lats[i], lons[i]) for i in bad]}")
    diff = np.abs(ours - ref)
    worst = int(np.argmax(diff))
    rms = math.sqrt(float(np.mean(diff ** 2)))
    print(f"geoid_oracle: pyproj {pyproj_version} (PROJ {proj_version_str}) vgridshift {os.path.basename(args.gtx)}; "
          f"{len(lats)} points (seed {args.seed})")
    print(f"geoid_oracle: max |eddy - PROJ| = {diff[worst]:.4f} m at ({float(lats[worst])!r}, {float(lons[worst])!r}), "
          f"RMS = {rms:.4f} m, tolerance {args.tolerance} m")
    over = np.nonzero(diff > args.tolerance)[0]
    if len(over):
        for i in over[:10]:
            print(f"  ({float(lats[i])!r}, {float(lons[i])!r}): eddy {float(ours[i])!r}, PROJ {float(ref[i])!r}")
        print(f"geoid_oracle: {len(over)} FAILURES")
        sys.exit(1)
    print("geoid_oracle: OK")


if __name__ == "__main__":
    main()
