#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora, Fuzz/corpus/<target>/ (docs/reliability.md, "Fuzzing").

Small, deterministic seeds taken from the committed fixtures (first lines of the flight CSVs, the meta.json files,
the import fixtures cut to 8 KB, H3 vectors) and a few hand-written protocol bodies in the wire layout. The first
byte of a csv / import seed selects the file name (an import seed: or a folder) as the targets read it (Fuzz/Sources/EddyFuzz/FuzzTargets.swift).

    python3 scripts/make_fuzz_corpus.py            (standard library only; rewrites Fuzz/corpus)
"""
import glob
import hashlib
import os
import shutil
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Fuzz", "corpus")
CSV_KINDS = ["accelerometer.csv", "gyroscope.csv", "barometer.csv", "location.csv"]
IMPORT_NAMES = ["export.csv", "Accelerometer.csv", "flight.igc", "export.zip", "sensor.txt", "physics.csv", "andro.csv", "log.csv"]


def put(target, data):
    directory = os.path.join(OUT, target)
    os.makedirs(directory, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def head_lines(path, count):
    with open(path, "rb") as f:
        return b"".join(f.readline() for _ in range(count))


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    # csv: the first 40 lines of each fixture flight's files, strict and lenient.
    for flight in sorted(glob.glob(os.path.join(ROOT, "Fixtures/flights/*")))[:2]:
        for index, kind in enumerate(CSV_KINDS):
            path = os.path.join(flight, kind)
            if os.path.exists(path):
                body = head_lines(path, 40)
                put("csv", bytes([index]) + body)
                put("csv", bytes([index | 4]) + body)
    # meta: every fixture meta.json.
    for path in sorted(glob.glob(os.path.join(ROOT, "Fixtures/flights/*/meta.json")) + glob.glob(os.path.join(ROOT, "Fixtures/import/*/expected/meta.json"))):
        put("meta", open(path, "rb").read())
    # import: each export, cut to 8 KB (zip files whole when small), under the name its importer expects.
    exports = {
        "sensorlog/sensorlog.csv": 0, "sensorlogger/folder/Accelerometer.csv": 1, "igc/flight.igc": 2,
        "sensorlogger/sensorlogger.zip": 3, "physicstoolbox/physicstoolbox.csv": 5, "androsensor/androsensor.csv": 6,
        "phyphox/export/Accelerometer.csv": 1, "bad/igc-truncated.igc": 2, "bad/sensorlogger-cut.zip": 3,
    }
    for relative, name_index in exports.items():
        path = os.path.join(ROOT, "Fixtures/import", relative)
        if not os.path.exists(path):
            continue
        data = open(path, "rb").read()
        if not relative.endswith(".zip"):
            data = data[:8192]
        elif len(data) > 65536:
            continue
        put("import", bytes([name_index]) + data)
    # import, folder mode (byte 0 bit 6): each multi-file export as files separated by NUL bytes, each its relative
    # name, a line feed and its first 30 lines.
    for folder in ["sensorlogger/folder", "sensorlogger/android", "phyphox/export"]:
        root = os.path.join(ROOT, "Fixtures/import", folder)
        if not os.path.isdir(root):
            continue
        parts = []
        for directory, _, files in sorted(os.walk(root)):
            for name in sorted(files):
                path = os.path.join(directory, name)
                parts.append(os.path.relpath(path, root).encode() + b"\n" + head_lines(path, 30))
        put("import", bytes([0x40]) + b"\0".join(parts))
    # request: each route's body.
    report = ('{"id":"6F1B5C7E-2D3A-4B5C-8D9E-0F1A2B3C4D5E","tile":{"h3":599686042433355775,"layer":35},'
              '"enterTime":1763805600,"exitTime":1763805720,"edrPeak":0.21,"edrMedian":0.12,"reporterClass":"medium"')
    for body in [
        '{"reports":[' + report + '}]}',
        '{"reports":[' + report + ',"altitudeSource":"pressure","altitudeU90Feet":120.5,"layerUncertain":false}]}',
        '{"reports":[]}',
        '{"apiKey":"k","airline":"EDY","userId":"u1","clientVersion":"1.2.3"}',
        '{"dataType":"turbulence","area":{"type":"global","polygon":[]},"sinceTick":3,"historyHours":4,"minLayer":0,"maxLayer":60,"viewerClass":"small"}',
        '{"dataType":"turbulence","area":{"type":"polygon","polygon":[{"lat":47,"lng":8},{"lat":47.5,"lng":8},{"lat":47.5,"lng":8.5}]},"historyHours":4,"minLayer":0,"maxLayer":60,"viewerClass":"large"}',
        '{"time":1763805600,"lat":47.1,"lng":8.2,"pressureAltitudeFeet":35000,"trackDegrees":90,"groundSpeedKnots":450,"aircraftClass":"medium"}',
    ]:
        put("request", body.encode())
    # response: each answer the client decodes.
    observation = '{"report":' + report + '},"reporterId":"EDY/u1","tick":12}'
    for body in [
        '{"dataType":"turbulence","serverTick":12,"full":true,"observations":[' + observation + '],"nowcast":[],"liveFlights":[]}',
        '{"dataType":"turbulence","serverTick":12,"full":false,"observations":[],"nowcast":[],"liveFlights":[],"altitudeOffsets":[]}',
        '{"token":"t","expiresAt":1763809200,"serverTick":12,"settings":{"minimalIntervalSeconds":600,"mediumIntervalSeconds":120,"fastIntervalSeconds":30,"tickSeconds":60}}',
        '{"acceptedIds":["6F1B5C7E-2D3A-4B5C-8D9E-0F1A2B3C4D5E"],"newCount":1,"duplicateCount":0,"rejected":[],"serverTick":12}',
        '{"serverTick":12,"serverTime":1763805600.5}',
        '{"error":"rate_limited","message":"slow down","retryAfterSeconds":2.5}',
    ]:
        put("response", body.encode())
    # h3: cell strings from the vectors, and positions as two doubles + a resolution byte.
    with open(os.path.join(ROOT, "Fixtures/h3/cells.txt"), "rb") as f:
        lines = [line for line in f.read().split(b"\n") if line and not line.startswith(b"#")][:20]
    for line in lines:
        put("h3", line.split()[0].split(b",")[-1] if b"," in line else line.split()[0])
    for lat, lng, res in [(47.0, 8.0, 5), (-33.9, 151.2, 9), (89.999, 179.999, 15), (0.0, -180.0, 0)]:
        put("h3", struct.pack("<dd", lat, lng) + bytes([res + 1]))
    # cli: coordinates, cells, routes, tiles, a GeoJSON polygon.
    for text in ["47.1,8.2", " -33.9 , 151.2 ", "85283473fffffff", "47,8 47.5,8 47.5,8.5;47,8",
                 "85283473fffffff@35,851f8d27fffffff@-1",
                 '{"type":"Polygon","coordinates":[[[8,47],[8.5,47],[8.5,47.5],[8,47]]]}',
                 '{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[8,47],[8.5,47],[8.5,47.5]],[]]}}']:
        put("cli", text.encode())
    # hgt: tile names and a position with posts.
    for text in ["N46E008.hgt", "s12w077.HGT", "N00E000.hgt"]:
        put("hgt", text.encode())
    put("hgt", bytes([0x80, 0x00, 0x40, 0x00]) + struct.pack(">hhhh", 500, 510, -32768, 520))
    count = sum(len(files) for _, _, files in os.walk(OUT))
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(OUT) for f in files)
    print(f"make_fuzz_corpus: {count} seeds, {size // 1024} KB in {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
