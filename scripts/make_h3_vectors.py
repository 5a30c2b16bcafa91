#!/usr/bin/env python3
"""Generate the committed H3 oracle vectors in Fixtures/h3 from h3-py 4.5.0 (the reference C library 4.5.0).

Usage: .venv/bin/python scripts/make_h3_vectors.py --out Fixtures/h3 [--seed 20261122]

Every floating-point value is written as the 16-hex-digit IEEE-754 bit pattern of the double, so the Swift
tests see exactly the inputs/outputs of the reference. Files (one record per line, space separated):

  latlng_to_cell.txt   category lat_bits lng_bits res cell          (degrees in, hex cell out)
  cells.txt            cell center_lat_bits center_lng_bits n v1lat v1lng ... vnlat vnlng   (degrees)
  grid_disk.txt        origin k sorted cells...
  grid_ring.txt        origin k sorted cells...           ("E" instead of cells when the reference errs)
  grid_distance.txt    a b distance                        (distance "E" when the reference errs)
  hierarchy.txt        cell parent_res parent center_child_res center_child children_res children_count
  children.txt         cell child_res sorted children...
  valid.txt            index_hex valid(0/1) is_pentagon(0/1)
  areas.txt            cell area_km2_bits area_rads2_bits
  res_tables.txt       res avg_area_km2_bits avg_edge_km_bits
  polygon_to_cells.txt res n_outer lat lng ... | n_holes [n lat lng ...]... | sorted cells...   (degrees)
"""
import argparse
import math
import os
import random
import struct

import h3
import h3.api.basic_int as h3i

assert h3.versions()["c"] == "4.5.0", h3.versions()


def bits(x: float) -> str:
    return "%016x" % struct.unpack("<Q", struct.pack("<d", float(x)))[0]


def rand_point(rng):
    # uniform on the sphere
    z = rng.uniform(-1.0, 1.0)
    lat = math.degrees(math.asin(z))
    lng = rng.uniform(-180.0, 180.0)
    return lat, lng


def to_vec(lat, lng):
    la, ln = math.radians(lat), math.radians(lng)
    return (math.cos(la) * math.cos(ln), math.cos(la) * math.sin(ln), math.sin(la))


def to_latlng(v):
    x, y, z = v
    n = math.sqrt(x * x + y * y + z * z)
    return math.degrees(math.asin(z / n)), math.degrees(math.atan2(y, x))


def slerp(a, b, t):
    va, vb = to_vec(*a), to_vec(*b)
    return to_latlng(tuple(va[i] * (1 - t) + vb[i] * t for i in range(3)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="Fixtures/h3")
    ap.add_argument("--seed", type=int, default=20261122)
    ap.add_argument("--per-category", type=int, default=2400)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    n = args.per_category
    os.makedirs(args.out, exist_ok=True)

    # ---- latlng_to_cell ----
    pts = []  # (category, lat, lng, res)
    for i in range(n * 2):
        lat, lng = rand_point(rng)
        pts.append(("random", lat, lng, i % 16))
    # cell vertices and edge midpoints (exact reference vertices), queried at res r-1, r, r+1
    for i in range(n):
        r = rng.randrange(0, 16)
        lat, lng = rand_point(rng)
        c = h3.latlng_to_cell(lat, lng, r)
        b = h3.cell_to_boundary(c)
        j = rng.randrange(len(b))
        q = min(15, max(0, r + rng.choice((-1, 0, 0, 0, 1))))
        pts.append(("vertex", b[j][0], b[j][1], q))
        a, bb = b[j], b[(j + 1) % len(b)]
        m = slerp(a, bb, 0.5)
        pts.append(("edge", m[0], m[1], r))
    # points 1e-9 ... 1e-14 degrees off vertices
    for i in range(n):
        r = rng.randrange(0, 16)
        lat, lng = rand_point(rng)
        b = h3.cell_to_boundary(h3.latlng_to_cell(lat, lng, r))
        v = b[rng.randrange(len(b))]
        d = 10.0 ** -rng.randint(9, 14)
        pts.append(("jitter", v[0] + rng.choice((-d, 0.0, d)), v[1] + rng.choice((-d, 0.0, d)), r))
    # poles
    for i in range(n // 4):
        r = i % 16
        lat = rng.choice((90.0, -90.0, 90.0 - 10.0 ** -rng.randint(1, 14), -90.0 + 10.0 ** -rng.randint(1, 14)))
        pts.append(("pole", lat, rng.uniform(-180.0, 180.0), r))
    # +-180 longitude (and beyond: the reference accepts any finite input)
    for i in range(n // 2):
        r = i % 16
        lat, _ = rand_point(rng)
        lng = rng.choice((180.0, -180.0, 180.0 - 10.0 ** -rng.randint(1, 14), -180.0 + 10.0 ** -rng.randint(1, 14),
                          rng.uniform(-720.0, 720.0)))
        if i % 50 == 0:
            lat = rng.uniform(-200.0, 200.0)
        pts.append(("antimeridian", lat, lng, r))
    # the 12 pentagons and their neighbourhoods
    pents = h3.get_pentagons(0)
    for i in range(n):
        r = i % 16
        p = h3.cell_to_latlng(h3.get_pentagons(r)[rng.randrange(12)])
        spread = 60.0 / (2.65 ** r)  # a few cells around the pentagon
        pts.append(("pentagon", p[0] + rng.uniform(-spread, spread), p[1] + rng.uniform(-spread, spread), r))
    # icosahedron face edges: great circles between adjacent icosahedron vertices (pentagon centres)
    centres = [h3.cell_to_latlng(p) for p in pents]
    edges = []
    for a in range(12):
        for b in range(a + 1, 12):
            va, vb = to_vec(*centres[a]), to_vec(*centres[b])
            ang = math.degrees(math.acos(max(-1.0, min(1.0, sum(va[i] * vb[i] for i in range(3))))))
            if abs(ang - 63.43) < 1.0:
                edges.append((centres[a], centres[b]))
    assert len(edges) == 30, len(edges)
    for i in range(n):
        a, b = edges[rng.randrange(30)]
        m = slerp(a, b, rng.random())
        pts.append(("faceedge", m[0], m[1], i % 16))
    with open(os.path.join(args.out, "latlng_to_cell.txt"), "w") as f:
        for cat, lat, lng, r in pts:
            f.write("%s %s %s %d %s\n" % (cat, bits(lat), bits(lng), r, h3.latlng_to_cell(lat, lng, r)))

    # ---- cells: centres and boundaries ----
    cells = set()
    for i in range(n):
        lat, lng = rand_point(rng)
        cells.add(h3.latlng_to_cell(lat, lng, i % 16))
    for r in range(16):
        cells.update(h3.get_pentagons(r))
        for p in h3.get_pentagons(r):
            cells.update(h3.grid_disk(p, 1))
    cells.update(h3.get_res0_cells())
    for i in range(n // 2):  # Class III cells on face edges get distortion vertices
        a, b = edges[rng.randrange(30)]
        m = slerp(a, b, rng.random())
        cells.add(h3.latlng_to_cell(m[0], m[1], rng.randrange(0, 16)))
    cells = sorted(cells)
    with open(os.path.join(args.out, "cells.txt"), "w") as f:
        for c in cells:
            lat, lng = h3.cell_to_latlng(c)
            b = h3.cell_to_boundary(c)
            f.write("%s %s %s %d %s\n" % (c, bits(lat), bits(lng), len(b),
                                          " ".join("%s %s" % (bits(v[0]), bits(v[1])) for v in b)))
    with open(os.path.join(args.out, "areas.txt"), "w") as f:
        for c in cells:
            f.write("%s %s %s\n" % (c, bits(h3.cell_area(c, "km^2")), bits(h3.cell_area(c, "rads^2"))))
    with open(os.path.join(args.out, "res_tables.txt"), "w") as f:
        for r in range(16):
            f.write("%d %s %s\n" % (r, bits(h3.average_hexagon_area(r, "km^2")),
                                    bits(h3.average_hexagon_edge_length(r, "km"))))

    # ---- grid disk / ring / distance ----
    origins = []
    for i in range(n // 4):
        lat, lng = rand_point(rng)
        origins.append(h3.latlng_to_cell(lat, lng, i % 16))
    for r in range(16):
        for p in h3.get_pentagons(r):
            origins.append(p)
            origins.append(rng.choice(h3.grid_ring(p, 1)))
            if r > 1:
                origins.append(rng.choice(h3.grid_disk(p, 3)))
    with open(os.path.join(args.out, "grid_disk.txt"), "w") as f, \
            open(os.path.join(args.out, "grid_ring.txt"), "w") as g, \
            open(os.path.join(args.out, "grid_distance.txt"), "w") as d:
        for o in origins:
            k = rng.choice((0, 1, 1, 1, 2, 3, 5))
            f.write("%s %d %s\n" % (o, k, " ".join(sorted(h3.grid_disk(o, k)))))
            try:
                ring = " ".join(sorted(h3.grid_ring(o, k)))
            except h3.H3BaseException:
                ring = "E"
            g.write("%s %d %s\n" % (o, k, ring))
            others = h3.grid_disk(o, rng.choice((1, 2, 4, 7)))
            b = rng.choice(others)
            try:
                dist = str(h3.grid_distance(o, b))
            except h3.H3BaseException:
                dist = "E"
            d.write("%s %s %s\n" % (o, b, dist))
        # far apart pairs (may fail in the reference: the error must match)
        for i in range(200):
            r = rng.randrange(0, 8)
            a = h3.latlng_to_cell(*rand_point(rng), r)
            lat, lng = h3.cell_to_latlng(a)
            b = h3.latlng_to_cell(lat + rng.uniform(-20, 20), lng + rng.uniform(-20, 20), r)
            try:
                dist = str(h3.grid_distance(a, b))
            except h3.H3BaseException:
                dist = "E"
            d.write("%s %s %s\n" % (a, b, dist))

    # ---- hierarchy ----
    with open(os.path.join(args.out, "hierarchy.txt"), "w") as f, \
            open(os.path.join(args.out, "children.txt"), "w") as g:
        hcells = list(cells[:: max(1, len(cells) // 1500)])
        for c in hcells:
            r = h3.get_resolution(c)
            pr = rng.randint(0, r)
            cr = rng.randint(r, 15)
            f.write("%s %d %s %d %s %d %d\n" % (c, pr, h3.cell_to_parent(c, pr), cr, h3.cell_to_center_child(c, cr),
                                                cr, h3.cell_to_children_size(c, cr)))
            kr = min(15, r + rng.choice((0, 1, 2)))
            g.write("%s %d %s\n" % (c, kr, " ".join(sorted(h3.cell_to_children(c, kr)))))

    # ---- validity ----
    with open(os.path.join(args.out, "valid.txt"), "w") as f:
        samples = []
        for c in cells[:: max(1, len(cells) // 600)]:
            v = h3.str_to_int(c)
            samples.append(v)
            for _ in range(3):
                samples.append(v ^ (1 << rng.randrange(64)))
            r = h3.get_resolution(c)
            if r < 15:
                samples.append(v & ~(7 << (3 * (14 - r))))  # digit after res not 7
            if r > 0:
                samples.append(v | (7 << (3 * (15 - r))))  # last digit 7
        for r in range(16):
            for p in h3.get_pentagons(r):
                v = h3.str_to_int(p)
                samples.append(v)
                if r > 0:
                    samples.append((v & ~(7 << (3 * (15 - r)))) | (1 << (3 * (15 - r))))  # deleted subsequence
        for _ in range(500):
            samples.append(rng.getrandbits(64))
        samples += [0, 1, (1 << 64) - 1]
        for v in samples:
            ok = h3i.is_valid_cell(v)
            f.write("%x %d %d\n" % (v, int(ok), int(ok and h3i.is_pentagon(v))))

    # ---- polygon_to_cells ----
    with open(os.path.join(args.out, "polygon_to_cells.txt"), "w") as f:
        def write_poly(outer, holes, r):
            poly = h3.LatLngPoly(outer, *holes)
            try:
                out = sorted(h3.polygon_to_cells(poly, r))
            except h3.H3BaseException:
                return  # not a case the reference handles; skipped
            if len(out) > 4000:
                return  # keep the fixture small
            parts = ["%d" % r, "%d" % len(outer)] + ["%s %s" % (bits(a), bits(b)) for a, b in outer]
            parts.append("| %d" % len(holes))
            for h in holes:
                parts.append("%d" % len(h))
                parts += ["%s %s" % (bits(a), bits(b)) for a, b in h]
            parts.append("|")
            parts += out
            f.write(" ".join(parts) + "\n")

        for i in range(60):
            lat, lng = rand_point(rng)
            lat = max(-80.0, min(80.0, lat))
            r = rng.randrange(0, 10)
            size = min(20.0, 30.0 / (2.65 ** r) * rng.uniform(1.0, 8.0))
            nv = rng.randint(3, 9)
            angs = sorted(rng.uniform(0, 2 * math.pi) for _ in range(nv))
            outer = [(lat + size * rng.uniform(0.5, 1.0) * math.sin(a), lng + size * rng.uniform(0.5, 1.0) * math.cos(a))
                     for a in angs]
            holes = []
            if i % 3 == 0:
                hs = size * 0.3
                holes = [[(lat + hs * math.sin(a), lng + hs * math.cos(a)) for a in (0.0, 2.1, 4.2)]]
            write_poly(outer, holes, r)
        # transmeridian and near-pentagon polygons
        write_poly([(10.0, 179.0), (10.0, -179.0), (12.0, -179.0), (12.0, 179.0)], [], 5)
        write_poly([(-40.0, 178.5), (-40.0, -178.0), (-38.0, -178.5), (-37.5, 179.5)], [], 4)
        for p in pents[:6]:
            lat, lng = h3.cell_to_latlng(p)
            write_poly([(lat - 2, lng - 2), (lat - 2, lng + 2), (lat + 2, lng + 2), (lat + 2, lng - 2)], [], 3)
        write_poly([(32.0, 34.5), (32.3, 34.5), (32.3, 35.0), (32.0, 35.0)], [], 7)


if __name__ == "__main__":
    main()
