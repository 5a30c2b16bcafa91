#!/usr/bin/env python3
"""Generates Sources/EddyMap/BasemapData.swift: Natural Earth 1:110m land outlines and country borders, compact.

Source: Natural Earth "Admin 0 – Countries" at 1:110m (public domain, naturalearthdata.com), as bundled in the
geopandas 0.14.4 wheel (geopandas/datasets/naturalearth_lowres/*.shp; geopandas < 1.0 ships it). The wheel is fetched
with `pip download --no-deps` (no geopandas install, no GDAL): this script reads the ESRI shapefile itself.

Encoding (docs/maps.md, "Basemap"): coordinates quantised to 0.01° (≈ 1.1 km, finer than the 1:110m data), each
polyline in Google's encoded-polyline format (zig-zag varint deltas, 5-bit chunks as ASCII 63…126), lat then lon,
polylines separated by spaces. `rings` are every country's outer and inner rings (filled as land, stroked as coast);
`borders` are the runs of ring edges shared by two countries (stroked as borders on top).

Re-run:  python3 scripts/make_basemap.py [--wheel PATH] [--out Sources/EddyMap/BasemapData.swift]
"""
import argparse
import os
import struct
import subprocess
import sys
import tempfile
import zipfile

WHEEL = "geopandas==0.14.4"
SHP = "geopandas/datasets/naturalearth_lowres/naturalearth_lowres.shp"
SCALE = 100  # 0.01 degree


def read_polygons(shp: bytes):
    """Yields each polygon record's rings as lists of (lon, lat) tuples."""
    code, = struct.unpack(">i", shp[0:4])
    if code != 9994:
        raise SystemExit("not an ESRI shapefile (file code %d)" % code)
    offset = 100
    while offset + 8 <= len(shp):
        _, length_words = struct.unpack(">ii", shp[offset:offset + 8])
        content = shp[offset + 8: offset + 8 + 2 * length_words]
        offset += 8 + 2 * length_words
        shape_type, = struct.unpack("<i", content[0:4])
        if shape_type == 0:
            continue
        if shape_type != 5:
            raise SystemExit("unexpected shape type %d (polygon = 5)" % shape_type)
        num_parts, num_points = struct.unpack("<ii", content[36:44])
        parts = list(struct.unpack("<%di" % num_parts, content[44:44 + 4 * num_parts]))
        base = 44 + 4 * num_parts
        points = [struct.unpack("<2d", content[base + 16 * i: base + 16 * i + 16]) for i in range(num_points)]
        parts.append(num_points)
        yield [points[parts[i]:parts[i + 1]] for i in range(num_parts)]


def quantise_ring(ring):
    out = []
    for lon, lat in ring:
        q = (round(lat * SCALE), round(lon * SCALE))
        if not out or out[-1] != q:
            out.append(q)
    if len(out) > 1 and out[0] == out[-1]:
        out.pop()
    return out


def encode_value(v: int) -> str:
    v = ~(v << 1) if v < 0 else (v << 1)
    chars = []
    while v >= 0x20:
        chars.append(chr((0x20 | (v & 0x1F)) + 63))
        v >>= 5
    chars.append(chr(v + 63))
    return "".join(chars)


def encode_line(points) -> str:
    out, plat, plon = [], 0, 0
    for lat, lon in points:
        out.append(encode_value(lat - plat))
        out.append(encode_value(lon - plon))
        plat, plon = lat, lon
    return "".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wheel", help="a geopandas 0.14.x wheel already downloaded (default: pip download it)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "Sources", "EddyMap", "BasemapData.swift"))
    args = ap.parse_args()
    wheel = args.wheel
    if wheel is None:
        tmp = tempfile.mkdtemp(prefix="eddy-basemap-")
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--disable-pip-version-check",
                        WHEEL, "-d", tmp], check=True)
        wheel = os.path.join(tmp, [f for f in os.listdir(tmp) if f.endswith(".whl")][0])
    with zipfile.ZipFile(wheel) as z:
        shp = z.read(SHP)

    rings = []
    for polygon in read_polygons(shp):
        for ring in polygon:
            q = quantise_ring(ring)
            if len(q) >= 3:
                rings.append(q)
    # An edge used by two rings (in either direction) is a border between countries; the rest is coast.
    uses = {}
    for ring in rings:
        for i in range(len(ring)):
            a, b = ring[i], ring[(i + 1) % len(ring)]
            key = (a, b) if a < b else (b, a)
            uses[key] = uses.get(key, 0) + 1
    borders, seen = [], set()
    for ring in rings:
        n = len(ring)
        shared = []
        for i in range(n):
            a, b = ring[i], ring[(i + 1) % n]
            key = (a, b) if a < b else (b, a)
            shared.append(uses[key] >= 2 and key not in seen)
            if uses[key] >= 2:
                seen.add(key)
        if not any(shared):
            continue
        # start at an edge that is not shared (or at 0 when all are), then collect runs of shared edges
        start = next((i for i in range(n) if not shared[i]), 0)
        run = []
        for k in range(n + 1):
            i = (start + k) % n
            if k < n and shared[i]:
                if not run:
                    run.append(ring[i])
                run.append(ring[(i + 1) % n])
            elif run:
                borders.append(run)
                run = []
    # Antarctica's ring runs along ±180° and the south pole edge: those are no coast and stay, as drawn by the page.
    ring_text = " ".join(encode_line(r + [r[0]]) for r in rings)
    border_text = " ".join(encode_line(b) for b in borders)
    # Encoded characters are ASCII 63…126 and spaces: no '"' (so the Swift raw string #"…"# holds them) and no '<'
    # or '&' (so they sit in an HTML <script> element as they are).
    points = sum(len(r) for r in rings)
    with open(args.out, "w") as f:
        f.write("// Generated by scripts/make_basemap.py — do not edit. Natural Earth 1:110m Admin 0 countries\n")
        f.write("// (public domain, naturalearthdata.com), via the geopandas 0.14.4 wheel's naturalearth_lowres.\n")
        f.write("// %d rings (%d points), %d border runs; 0.01° encoded polylines (docs/maps.md, \"Basemap\").\n\n"
                % (len(rings), points, len(borders)))
        f.write("extension Basemap {\n")
        f.write("    /// Land rings (outer and holes), encoded polylines separated by spaces.\n")
        f.write('    package static let ringsEncoded = #"%s"#\n\n' % ring_text)
        f.write("    /// Country borders (ring edges shared by two countries), encoded polylines separated by spaces.\n")
        f.write('    package static let bordersEncoded = #"%s"#\n' % border_text)
        f.write("}\n")
    print("rings %d, points %d, borders %d, bytes %d" % (len(rings), points, len(borders), os.path.getsize(args.out)))


if __name__ == "__main__":
    main()
