#!/usr/bin/env python3
"""Terrain oracle: `eddy terrain elevation` against GDAL's bilinear point interpolation on synthetic SRTM tiles.

Writes synthetic .hgt tiles of both sizes (1" 3601x3601 and 3" 1201x1201; smooth terrain from one global function of
the post position, so shared tile edges agree, plus voids) into a temporary directory, draws --points seeded random
positions (inside tiles, exactly on posts, on tile edges and corners, at lat +-90 and lon +-180, next to voids, and
outside every tile), runs `eddy terrain elevation --dem DIR` on them, and compares with GDAL:

  * GDAL opens the very same .hgt files with its own SRTMHGT driver (so GDAL, not this script, decides the byte
    order, the row order, the tile corner and the pixel-is-point georeferencing: its geotransform puts pixel centres
    on the integer-degree posts), and GDALRasterInterpolateAtPoint(..., GRIORA_Bilinear) interpolates at
    pixel = (lon - gt[0]) / gt[1], line = (lat - gt[3]) / gt[5]. GDAL >= 3.10 is needed; it is the libgdal bundled in
    the rasterio wheel (requirements-oracles.txt), called through ctypes.
  * Away from voids (all four surrounding posts valid) Eddy must agree within --tolerance metres (1e-6).
  * Points exactly on a tile edge shared with another tile in the directory are also interpolated by GDAL in the
    neighbour tile: both must agree with Eddy.
  * Points next to voids (some but not all of the four posts void) follow Eddy's rule, which GDAL does not
    implement (GDAL declines to interpolate when any post of its 2 x 2 window is nodata): the script computes the
    rule itself (renormalised weights over the valid posts; `void` when the valid posts carry no weight) and
    compares within the same tolerance. The Swift tests (Tests/EddyTerrainTests) check the rule by hand as well.
  * Points outside every tile must print `no-tile`.

Usage: python scripts/terrain_oracle.py --eddy .build/debug/eddy [--points 100000] [--seed 11]
Exit status 0 when every check passes; prints `terrain_oracle: ...` summary lines.
"""
import argparse
import ctypes
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np

VOID = -32768

# (file name, posts per side): both sizes, neighbours across the east and south edges, lower-case names, the
# antimeridian (W180 and E179) and the poles (N89 top edge = lat 90, S90 bottom edge = lat -90).
TILES = [
    ("N47E008.hgt", 3601),
    ("N47E009.hgt", 3601),
    ("S12W077.hgt", 1201),
    ("s13w077.hgt", 1201),
    ("S12W076.hgt", 1201),
    ("S01W180.hgt", 1201),
    ("S01E179.hgt", 1201),
    ("N89E000.hgt", 1201),
    ("S90W001.hgt", 1201),
]


def corner(name):
    ns, lat, ew, lon = name[0].upper(), int(name[1:3]), name[3].upper(), int(name[4:7])
    return (lat if ns == "N" else -lat), (lon if ew == "E" else -lon)


def terrain(south, west, n):
    """Heights (int16, row 0 = north) from one global function of the post position, plus voids."""
    step = 1.0 / (n - 1)
    lat = south + 1 - np.arange(n) * step
    lon = west + np.arange(n) * step
    la, lo = np.meshgrid(lat, lon, indexing="ij")
    h = (1200 + 900 * np.sin(la * 7.3 + 0.4) * np.cos(lo * 5.1)
         + 350 * np.sin(la * 41.0 + lo * 29.0) + 60 * np.cos(la * 173.0 - lo * 211.0))
    # Deterministic small-scale roughness from the global post index (same on both sides of a shared edge).
    gi = np.rint((la + 90) * (n - 1)).astype(np.int64)
    gj = np.rint((lo + 180) * (n - 1)).astype(np.int64)
    h += ((gi * 73856093) ^ (gj * 19349663)) % 17 - 8
    a = np.rint(h).astype(np.int16)
    a[a == VOID] = VOID + 1
    return a


def add_voids(a, rng):
    """Void discs, single void posts and one 2x2 void block, kept 3 posts away from the tile border."""
    n = a.shape[0]
    rr, cc = np.ogrid[:n, :n]
    for _ in range(6):
        r0, c0 = rng.integers(50, n - 50, size=2)
        radius = rng.integers(2, 40)
        a[(rr - r0) ** 2 + (cc - c0) ** 2 <= radius ** 2] = VOID
    for _ in range(60):
        r0, c0 = rng.integers(3, n - 3, size=2)
        a[r0, c0] = VOID
    r0, c0 = rng.integers(3, n - 4, size=2)
    a[r0:r0 + 2, c0:c0 + 2] = VOID
    a[:3, :] = np.where(a[:3, :] == VOID, 0, a[:3, :])
    return a


class Gdal:
    """The libgdal bundled in the rasterio wheel, through ctypes."""

    def __init__(self):
        import rasterio  # noqa: F401  (only to find its bundled libgdal)
        libdir = os.path.dirname(rasterio.__file__) + ".libs"
        libs = glob.glob(os.path.join(libdir, "libgdal-*.so*")) + glob.glob(
            os.path.join(os.path.dirname(rasterio.__file__), ".dylibs", "libgdal*.dylib"))
        if not libs:
            sys.exit("terrain_oracle: no libgdal found in the rasterio wheel")
        g = ctypes.CDLL(libs[0])
        g.GDALAllRegister()
        g.GDALVersionInfo.restype = ctypes.c_char_p
        g.GDALVersionInfo.argtypes = [ctypes.c_char_p]
        g.GDALOpen.restype = ctypes.c_void_p
        g.GDALOpen.argtypes = [ctypes.c_char_p, ctypes.c_int]
        g.GDALGetRasterBand.restype = ctypes.c_void_p
        g.GDALGetRasterBand.argtypes = [ctypes.c_void_p, ctypes.c_int]
        g.GDALGetGeoTransform.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_double * 6)]
        g.GDALGetDatasetDriver.restype = ctypes.c_void_p
        g.GDALGetDatasetDriver.argtypes = [ctypes.c_void_p]
        g.GDALGetDriverShortName.restype = ctypes.c_char_p
        g.GDALGetDriverShortName.argtypes = [ctypes.c_void_p]
        g.GDALRasterInterpolateAtPoint.argtypes = [
            ctypes.c_void_p, ctypes.c_double, ctypes.c_double, ctypes.c_int,
            ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double)]
        g.GDALClose.argtypes = [ctypes.c_void_p]
        self.g = g
        self.version = g.GDALVersionInfo(b"RELEASE_NAME").decode()
        major, minor = (int(x) for x in self.version.split(".")[:2])
        if (major, minor) < (3, 10):
            sys.exit(f"terrain_oracle: GDAL {self.version} has no GDALRasterInterpolateAtPoint; need >= 3.10")
        self.datasets = {}
        self.real = ctypes.c_double()
        self.imag = ctypes.c_double()

    def open(self, path):
        ds = self.g.GDALOpen(path.encode(), 0)
        if not ds:
            sys.exit(f"terrain_oracle: GDAL cannot open {path}")
        driver = self.g.GDALGetDriverShortName(self.g.GDALGetDatasetDriver(ds)).decode()
        if driver != "SRTMHGT":
            sys.exit(f"terrain_oracle: GDAL opened {path} with driver {driver}, expected SRTMHGT")
        gt = (ctypes.c_double * 6)()
        self.g.GDALGetGeoTransform(ds, ctypes.byref(gt))
        return ds, self.g.GDALGetRasterBand(ds, 1), list(gt)

    def bilinear(self, band, gt, lat, lon):
        pixel = (lon - gt[0]) / gt[1]
        line = (lat - gt[3]) / gt[5]
        err = self.g.GDALRasterInterpolateAtPoint(band, pixel, line, 1, ctypes.byref(self.real),
                                                  ctypes.byref(self.imag))
        return self.real.value if err == 0 else None


def main():
    ap = argparse.ArgumentParser(description="eddy terrain elevation vs GDAL bilinear")
    ap.add_argument("--eddy", default=".build/debug/eddy")
    ap.add_argument("--points", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--tolerance", type=float, default=1e-6)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    gdal = Gdal()

    with tempfile.TemporaryDirectory(prefix="eddy-terrain-oracle-") as tmp:
        tiles = {}
        for name, n in TILES:
            south, west = corner(name)
            a = add_voids(terrain(south, west, n), rng)
            a.astype(">i2").tofile(os.path.join(tmp, name))
            ds, band, gt = gdal.open(os.path.join(tmp, name))
            tiles[(south, west)] = dict(name=name, n=n, a=a, band=band, gt=gt, ds=ds)
        keys = list(tiles)

        # Positions, each with its kind.
        pts = []
        total = args.points

        def add(kind, lat, lon):
            pts.append((kind, float(lat), float(lon)))

        for _ in range(int(total * 0.55)):
            s, w = keys[rng.integers(len(keys))]
            add("inside", s + rng.random(), w + rng.random())
        for _ in range(int(total * 0.10)):
            s, w = keys[rng.integers(len(keys))]
            n = tiles[(s, w)]["n"]
            add("post", s + rng.integers(n) / (n - 1), w + rng.integers(n) / (n - 1))
        for _ in range(int(total * 0.12)):
            s, w = keys[rng.integers(len(keys))]
            side = rng.integers(4)
            t = rng.random()
            lat, lon = [(s, w + t), (s + 1, w + t), (s + t, w), (s + t, w + 1)][side]
            add("edge", lat, lon)
        for _ in range(int(total * 0.03)):
            s, w = keys[rng.integers(len(keys))]
            add("corner", s + rng.integers(2), w + rng.integers(2))
        for _ in range(int(total * 0.02)):
            s, w = keys[rng.integers(len(keys))]
            eps = 10.0 ** -rng.integers(6, 13)
            add("near-edge", s + (1 - eps if rng.random() < 0.5 else eps), w + (1 - eps if rng.random() < 0.5 else eps))
        # Around voids: void posts that have a valid 4-neighbour (the edge of a void), then a random offset of up
        # to 1.5 post spacings, so that most such points have some but not all of their four posts void.
        void_sites = []
        for key, t in tiles.items():
            v = t["a"] == VOID
            edge = v.copy()
            edge[1:-1, 1:-1] &= ~(v[:-2, 1:-1] & v[2:, 1:-1] & v[1:-1, :-2] & v[1:-1, 2:])
            rows, cols = np.nonzero(edge)
            void_sites.append((key, rows, cols))
        for _ in range(int(total * 0.13)):
            (s, w), rows, cols = void_sites[rng.integers(len(void_sites))]
            n = tiles[(s, w)]["n"]
            k = rng.integers(len(rows))
            r = min(max(rows[k] + rng.uniform(-1.5, 1.5), 0), n - 1)
            c = min(max(cols[k] + rng.uniform(-1.5, 1.5), 0), n - 1)
            add("near-void", s + 1 - r / (n - 1), w + c / (n - 1))
        while len(pts) < total:
            # Outside every tile (the synthetic set covers a handful of degrees).
            lat = rng.uniform(-60, 60)
            lon = rng.uniform(-170, 170)
            if (int(np.floor(lat)), int(np.floor(lon))) in tiles:
                continue
            if lat == np.floor(lat) or lon == np.floor(lon):
                continue
            add("outside", lat, lon)

        inp = "".join(f"{lat!r},{lon!r}\n" for _, lat, lon in pts)
        proc = subprocess.run([args.eddy, "terrain", "elevation", "--dem", tmp], input=inp.encode(),
                              capture_output=True)
        if proc.returncode != 0:
            sys.exit(f"terrain_oracle: eddy exited {proc.returncode}: {proc.stderr.decode()[:2000]}")
        ours = proc.stdout.decode().split("\n")[:-1]
        if len(ours) != len(pts):
            sys.exit(f"terrain_oracle: {len(ours)} output lines for {len(pts)} points")

        def tile_for(lat, lon):
            s, w = min(int(np.floor(lat)), 89), min(int(np.floor(lon)), 179)
            return (s, w)

        def bracket(t, lat, lon):
            """The four posts around (lat, lon) in tile t and their bilinear weights, cell counted from the
            south-west as Eddy documents it (docs/terrain-and-geoid.md), plus the 4 x 4 block around the cell."""
            n, (s, w) = t["n"], corner(t["name"])
            y = min(max((lat - s) * (n - 1), 0), n - 1)
            x = min(max((lon - w) * (n - 1), 0), n - 1)
            i = min(int(np.floor(y)), n - 2)
            j = min(int(np.floor(x)), n - 2)
            fy, fx = y - i, x - j
            south, north = n - 1 - i, n - 2 - i
            a = t["a"]
            posts = [a[south, j], a[south, j + 1], a[north, j], a[north, j + 1]]
            weights = [(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy]
            block = a[max(north - 1, 0):south + 2, max(j - 1, 0):j + 3]
            return posts, weights, bool((block == VOID).any())

        stats = dict(compared=0, edge_pairs=0, gdal_declined=0, near_void=0, all_void=0, outside=0)
        max_diff = 0.0
        max_void_diff = 0.0
        failures = []
        kinds = {}
        for (kind, lat, lon), text in zip(pts, ours):
            kinds[kind] = kinds.get(kind, 0) + 1
            key = tile_for(lat, lon)
            candidates = [key]
            # A position on a south/west edge also lies in the neighbour's north/east edge.
            if lat == np.floor(lat) and lat > -90:
                candidates.append((key[0] - 1, key[1]))
            if lon == np.floor(lon) and lon > -180:
                candidates.append((key[0], key[1] - 1))
                if lat == np.floor(lat) and lat > -90:
                    candidates.append((key[0] - 1, key[1] - 1))
            present = [c for c in candidates if c in tiles]
            if not present:
                stats["outside"] += 1
                if text != "no-tile":
                    failures.append(f"{lat!r},{lon!r}: expected no-tile, eddy printed {text}")
                continue
            t = tiles[present[0]]
            posts, weights, void_nearby = bracket(t, lat, lon)
            valid = [p != VOID for p in posts]
            if not all(valid):
                # Eddy's rule, computed here independently: renormalised weights over the valid posts; void when
                # they carry no weight (all four void, or the point sits on void posts).
                total_w = sum(wt for wt, ok in zip(weights, valid) if ok)
                if total_w == 0:
                    stats["all_void"] += 1
                    if text != "void":
                        failures.append(f"{lat!r},{lon!r}: no valid post carries weight, eddy printed {text}")
                    continue
                stats["near_void"] += 1
                expected = sum(wt * float(p) for wt, p, ok in zip(weights, posts, valid) if ok) / total_w
                try:
                    d = abs(float(text) - expected)
                except ValueError:
                    failures.append(f"{lat!r},{lon!r}: next to voids, expected {expected!r}, eddy printed {text}")
                    continue
                max_void_diff = max(max_void_diff, d)
                if d > args.tolerance:
                    failures.append(f"{lat!r},{lon!r}: next to voids, expected {expected!r}, eddy printed {text}")
                continue
            try:
                value = float(text)
            except ValueError:
                failures.append(f"{lat!r},{lon!r} ({kind}): no voids around, eddy printed {text}")
                continue
            for index, c in enumerate(present):
                tc = tiles[c]
                if index > 0 and any(p == VOID for p in bracket(tc, lat, lon)[0]):
                    continue
                ref = gdal.bilinear(tc["band"], tc["gt"], lat, lon)
                if ref is None:
                    # GDAL declines when any post of its own 2 x 2 window is nodata, even one with zero weight;
                    # on a post or a cell edge its window may be the neighbouring cell.
                    if bracket(tc, lat, lon)[2]:
                        stats["gdal_declined"] += 1
                    else:
                        failures.append(f"{lat!r},{lon!r} ({kind}): GDAL gave no value in {tc['name']}")
                    continue
                diff = abs(value - ref)
                max_diff = max(max_diff, diff)
                if index > 0:
                    stats["edge_pairs"] += 1
                else:
                    stats["compared"] += 1
                if diff > args.tolerance:
                    failures.append(f"{lat!r},{lon!r} ({kind}): eddy {value!r}, GDAL {ref!r} in {tc['name']}")
        for t in tiles.values():
            gdal.g.GDALClose(t["ds"])

    print(f"terrain_oracle: GDAL {gdal.version} SRTMHGT + GDALRasterInterpolateAtPoint(bilinear); "
          f"{len(pts)} points ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))})")
    print(f"terrain_oracle: compared {stats['compared']} away from voids (+{stats['edge_pairs']} in the neighbour "
          f"tile on shared edges), max |eddy - GDAL| = {max_diff:.3g} m (tolerance {args.tolerance:g} m)")
    print(f"terrain_oracle: GDAL declined {stats['gdal_declined']} points whose four posts are valid but whose "
          f"neighbourhood has a void (not compared)")
    print(f"terrain_oracle: next to voids {stats['near_void']} agree with the renormalised rule (max diff "
          f"{max_void_diff:.3g} m); no valid post with weight {stats['all_void']} -> void; "
          f"outside every tile {stats['outside']} -> no-tile")
    if failures:
        print(f"terrain_oracle: {len(failures)} FAILURES, first ones:")
        for f in failures[:20]:
            print("  " + f)
        sys.exit(1)
    print("terrain_oracle: OK")


if __name__ == "__main__":
    main()
