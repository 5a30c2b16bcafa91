#!/usr/bin/env python3
"""Live oracle: compare `eddy h3` against h3-py 4.5.0 on freshly drawn random inputs.

Usage: .venv/bin/python scripts/h3_live_oracle.py --eddy .build/release/eddy --points 100000 [--seed S]

Every run draws a new seed (printed, pass --seed to replay). Checks:
  * latlng-to-cell: N uniform random points spread over resolutions 0-15, plus N/10 adversarial points
    (exact cell vertices and points 1e-9..1e-14 degrees off them); ids must be identical.
  * cell-to-latlng and cell-to-boundary on a sample of the resulting cells: within 1e-12 rad (bit-equal counted).
  * grid-disk (k = 1 and 2) on a sample: identical sets.
  * polygon-to-cells on 20 random polygons (GeoJSON on stdin): identical sets.
Exits non-zero on any mismatch, printing a readable diff of the first ones. Last line:
  h3 live oracle: <passed> passed, <failed> failed
"""
import argparse
import math
import os
import random
import subprocess
import sys

import h3
import h3.api.basic_int as h3i

RAD = math.pi / 180.0


def run_eddy(eddy, args, lines):
    proc = subprocess.run([eddy, "h3"] + args, input="\n".join(lines) + "\n", capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write("eddy h3 %s failed (%d): %s\n" % (" ".join(args), proc.returncode, proc.stderr.strip()))
        sys.exit(2)
    out = proc.stdout.split("\n")
    if out and out[-1] == "":
        out.pop()
    if len(out) != len(lines):
        sys.stderr.write("eddy h3 %s: %d output lines for %d input lines\n" % (" ".join(args), len(out), len(lines)))
        sys.exit(2)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--eddy", required=True)
    ap.add_argument("--points", type=int, default=100000)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--sample", type=int, default=5000, help="cells checked for centre/boundary/disk")
    args = ap.parse_args()
    if h3.versions()["c"] != "4.5.0":
        sys.exit("h3-py bundles C %s, expected 4.5.0" % h3.versions()["c"])
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(8), "little")
    print("h3 live oracle: seed %d (replay with --seed %d)" % (seed, seed))
    rng = random.Random(seed)

    passed = 0
    failed = 0
    diffs = []

    def fail(msg):
        nonlocal failed
        failed += 1
        if len(diffs) < 20:
            diffs.append(msg)

    # ---- latlng-to-cell ----
    by_res = {r: [] for r in range(16)}
    for i in range(args.points):
        lat = math.degrees(math.asin(rng.uniform(-1.0, 1.0)))
        lng = rng.uniform(-180.0, 180.0)
        by_res[i % 16].append((lat, lng))
    for i in range(args.points // 10):
        r = rng.randrange(16)
        c = h3i.latlng_to_cell(math.degrees(math.asin(rng.uniform(-1.0, 1.0))), rng.uniform(-180.0, 180.0), r)
        v = rng.choice(h3i.cell_to_boundary(c))
        d = 10.0 ** -rng.randint(9, 14) if i % 2 else 0.0
        by_res[r].append((v[0] + rng.choice((-d, 0.0, d)), v[1] + rng.choice((-d, 0.0, d))))
    sample_cells = []
    for r in range(16):
        pts = by_res[r]
        got = run_eddy(args.eddy, ["latlng-to-cell", "--res", str(r)], ["%r,%r" % p for p in pts])
        for (lat, lng), g in zip(pts, got):
            want = h3.latlng_to_cell(lat, lng, r)
            if g == want:
                passed += 1
            else:
                fail("latlng-to-cell res %d (%r, %r): eddy %s, h3 %s" % (r, lat, lng, g, want))
        sample_cells += [h3.latlng_to_cell(lat, lng, r) for lat, lng in rng.sample(pts, min(len(pts), args.sample // 16))]
    for r in rng.sample(range(16), 4):
        sample_cells += h3.get_pentagons(r)

    # ---- cell-to-latlng / cell-to-boundary ----
    def close(a, b):
        dlat = abs(a[0] - b[0])
        dlng = abs(a[1] - b[1])
        dlng = min(dlng, 360.0 - dlng)
        return dlat * RAD <= 1e-12 and dlng * RAD <= 1e-12

    bit_equal = 0
    values = 0
    got = run_eddy(args.eddy, ["cell-to-latlng"], sample_cells)
    for c, g in zip(sample_cells, got):
        want = h3.cell_to_latlng(c)
        mine = tuple(float(x) for x in g.split(","))
        values += 1
        if mine == tuple(want):
            bit_equal += 1
            passed += 1
        elif close(mine, want):
            passed += 1
        else:
            fail("cell-to-latlng %s: eddy %r, h3 %r" % (c, mine, want))
    got = run_eddy(args.eddy, ["cell-to-boundary"], sample_cells)
    for c, g in zip(sample_cells, got):
        want = h3.cell_to_boundary(c)
        mine = [tuple(float(x) for x in v.split(",")) for v in g.split(";")]
        if len(mine) != len(want):
            fail("cell-to-boundary %s: eddy %d vertices, h3 %d" % (c, len(mine), len(want)))
            continue
        ok = True
        for a, b in zip(mine, want):
            values += 1
            if a == tuple(b):
                bit_equal += 1
            elif not close(a, b):
                ok = False
        if ok:
            passed += 1
        else:
            fail("cell-to-boundary %s: eddy %r, h3 %r" % (c, mine, want))

    # ---- grid-disk ----
    for k in (1, 2):
        cells = sample_cells[k - 1::2]
        got = run_eddy(args.eddy, ["grid-disk", "--k", str(k)], cells)
        for c, g in zip(cells, got):
            want = set(h3.grid_disk(c, k))
            mine = set(g.split())
            if mine == want:
                passed += 1
            else:
                fail("grid-disk %s k=%d: only eddy %s, only h3 %s" % (c, k, sorted(mine - want), sorted(want - mine)))

    # ---- polygon-to-cells: a few random polygons (GeoJSON in, set compared) ----
    import json
    for i in range(20):
        r = rng.randrange(0, 10)
        lat0 = rng.uniform(-75.0, 75.0)
        lng0 = rng.uniform(-180.0, 180.0)
        size = min(15.0, 25.0 / (2.65 ** r) * rng.uniform(2.0, 10.0))
        nv = rng.randint(3, 8)
        angs = sorted(rng.uniform(0, 2 * math.pi) for _ in range(nv))
        ring = [(lat0 + size * rng.uniform(0.4, 1.0) * math.sin(a), lng0 + size * rng.uniform(0.4, 1.0) * math.cos(a))
                for a in angs]
        try:
            want = set(h3.polygon_to_cells(h3.LatLngPoly(ring), r))
        except h3.H3BaseException:
            continue
        geo = {"type": "Polygon", "coordinates": [[[lng, lat] for lat, lng in ring + ring[:1]]]}
        proc = subprocess.run([args.eddy, "h3", "polygon-to-cells", "--res", str(r)], input=json.dumps(geo),
                              capture_output=True, text=True)
        mine = set(proc.stdout.split())
        if proc.returncode == 0 and mine == want:
            passed += 1
        else:
            fail("polygon-to-cells res %d %r: only eddy %s, only h3 %s %s" % (
                r, ring, sorted(mine - want)[:5], sorted(want - mine)[:5], proc.stderr.strip()))

    print("h3 live oracle: centre/vertex values bit-equal %d/%d" % (bit_equal, values))
    for d in diffs:
        print("MISMATCH " + d)
    print("h3 live oracle: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
