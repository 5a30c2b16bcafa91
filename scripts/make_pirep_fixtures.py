#!/usr/bin/env python3
"""Writes the pilot-report oracle fixtures of Fixtures/pireps (docs/nowcast.md "Pilot reports").

Inputs, all committed in Fixtures/pireps (their sources: Fixtures/pireps/README.md):
  avwx-engine-tests.txt                      raw PIREP / AIREP lines of avwx-engine's own test data
  awc-aircraftreports-2022-09-01.csv         the AWC aircraft-report CSV as its data server wrote it
  sources/awc-aircraftreports-2022-04-23.json  AWC aircraft-report cache records (decoded fields + raw text)

Outputs:
  awc-aircraftreports-2022-04-23.csv  the JSON records in the AWC CSV's column layout (preamble, header, one row each)
  oracle.json                         per report: avwx-engine's decode of the raw text (PIREPs; avwx-engine 1.9.10 does
                                      not parse AIREPs) and the AWC's decoded fields where the CSV gives them
  stations.csv                        only with --ourairports DIR (a checkout of davidmegginson/ourairports-data):
                                      the navaids / airports the fixtures' /OV locations name

Run from the repository root with the venv that has avwx-engine (requirements-oracles.txt):
  .venv/bin/python scripts/make_pirep_fixtures.py [--ourairports /path/to/ourairports-data]
"""
import argparse
import csv
import datetime as dt
import importlib.metadata
import json
import math
import os
import re
import sys

from avwx.current import pirep as avwx_pirep

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures", "pireps")
PREAMBLE = ["No errors", "No warnings", "0 ms", "data source=aircraftreports"]
HEADER = ("receipt_time,observation_time,mid_point_assumed,no_time_stamp,flt_lvl_range,above_ground_level_indicated,"
          "no_flt_lvl,bad_location,aircraft_ref,latitude,longitude,altitude_ft_msl,sky_cover,cloud_base_ft_msl,"
          "cloud_top_ft_msl,sky_cover,cloud_base_ft_msl,cloud_top_ft_msl,turbulence_type,turbulence_intensity,"
          "turbulence_base_ft_msl,turbulence_top_ft_msl,turbulence_freq,turbulence_type,turbulence_intensity,"
          "turbulence_base_ft_msl,turbulence_top_ft_msl,turbulence_freq,icing_type,icing_intensity,icing_base_ft_msl,"
          "icing_top_ft_msl,icing_type,icing_intensity,icing_base_ft_msl,icing_top_ft_msl,visibility_statute_mi,"
          "wx_string,temp_c,wind_dir_degrees,wind_speed_kt,vert_gust_kt,report_type,raw_text")
# The day avwx-engine's test data was made (its "created" field): dates the text file's /TM times.
AVWX_TESTS_DATE = dt.date(2023, 10, 17)


def write_json_subset_as_csv(source, target):
    """The AWC JSON records as rows of the AWC CSV (same columns, raw text last, a trailing comma as the server writes)."""
    records = json.load(open(source))["aircraft_reports"]
    names = HEADER.split(",")
    lines = PREAMBLE + [f"{len(records)} results", HEADER]
    for record in records:
        row = []
        seen = {}
        for name in names:
            occurrence = seen.get(name, 0)
            seen[name] = occurrence + 1
            value = record.get(name, "") if occurrence == 0 else ""
            row.append(str(value))
        lines.append(",".join(row) + ",")
    with open(target, "w") as out:
        out.write("\n".join(lines) + "\n")


def read_awc_csv(path):
    """(line number, columns by name with repeats as lists, raw text) of each row of an AWC CSV."""
    rows = []
    with open(path) as f:
        lines = f.read().split("\n")
    header_index = next(i for i, line in enumerate(lines) if line.startswith("receipt_time,"))
    names = lines[header_index].split(",")
    raw_index = names.index("raw_text")
    for number, line in enumerate(lines[header_index + 1:], start=header_index + 2):
        if not line.strip():
            continue
        fields = line.split(",")
        columns = {}
        for i, name in enumerate(names[:raw_index]):
            columns.setdefault(name, []).append(fields[i] if i < len(fields) else "")
        raw = ",".join(fields[raw_index:])
        if raw.endswith(","):
            raw = raw[:-1]
        rows.append((number, columns, raw.strip()))
    return rows


def number(value):
    return None if value is None else value.value


def avwx_decode(raw, issued):
    """avwx-engine's decode of a PIREP (None for lines without UA/UUA: avwx-engine does not parse AIREPs)."""
    if not re.search(r"(^|\s)UU?A(\s|/|$)", raw):
        return None
    data, _ = avwx_pirep.parse(raw, issued=issued)
    location = data.location
    altitude = data.altitude
    aircraft = data.aircraft
    turbulence = data.turbulence
    return {
        "type": data.type,
        "station": data.station,
        "location": None if location is None else {
            "repr": location.repr, "station": location.station,
            "direction": number(location.direction), "distance": number(location.distance)},
        "time": None if data.time is None else data.time.dt.strftime("%H%M"),
        "altitude": (altitude.value if hasattr(altitude, "value") else altitude),
        "aircraft": (aircraft.code if hasattr(aircraft, "code") else aircraft),
        "turbulence": None if turbulence is None else {
            "severity": turbulence.severity, "floor": number(turbulence.floor), "ceiling": number(turbulence.ceiling)},
    }


def awc_fields(columns):
    def first(name, index=0):
        values = columns.get(name, [])
        return values[index] if index < len(values) and values[index] != "" else None

    def num(text):
        return None if text is None else float(text)

    return {
        "observation_time": first("observation_time"), "receipt_time": first("receipt_time"),
        "aircraft_ref": first("aircraft_ref"), "report_type": first("report_type"),
        "latitude": num(first("latitude")), "longitude": num(first("longitude")),
        "altitude_ft_msl": num(first("altitude_ft_msl")),
        "turbulence": [
            {"intensity": first("turbulence_intensity", i), "type": first("turbulence_type", i),
             "base_ft_msl": num(first("turbulence_base_ft_msl", i)), "top_ft_msl": num(first("turbulence_top_ft_msl", i))}
            for i in range(2) if first("turbulence_intensity", i) is not None],
    }


def station_ids(raw):
    """The station of a PIREP's /OV (first fix), as avwx-engine reads it."""
    decoded = avwx_decode(raw, None)
    if decoded and decoded["location"] and decoded["location"]["station"]:
        return [decoded["location"]["station"]]
    return []


def write_stations(ourairports, reports, target):
    """The stations the reports name, from OurAirports' navaids (magnetic variation, the one the AWC places radials
    with: with the VOR's slaved variation instead, positions 50 NM out differ from the AWC's by up to 6 NM; else the
    slaved variation) or, for
    an id no navaid has, its airports; among several, the one nearest the AWC position when the report has one."""
    navaids = list(csv.DictReader(open(os.path.join(ourairports, "navaids.csv"))))
    airports_path = os.path.join(ourairports, "airports.csv")
    airports = list(csv.DictReader(open(airports_path))) if os.path.exists(airports_path) else []
    wanted = {}
    for report in reports:
        for station in station_ids(report["raw"]):
            near = report.get("awc")
            wanted.setdefault(station, near if near and near.get("latitude") is not None else None)
    rows = []
    for station, near in sorted(wanted.items()):
        ids = [station] + ([station[1:]] if len(station) == 4 and station[0] in "KPC" else [])
        candidates = []
        for ident in ids:
            for n in navaids:
                if n["ident"] == ident and n["type"] in ("VOR", "VOR-DME", "VORTAC", "TACAN", "DME", "NDB", "NDB-DME"):
                    variation = n["magnetic_variation_deg"] or n["slaved_variation_deg"] or "0"
                    candidates.append((station, float(n["latitude_deg"]), float(n["longitude_deg"]), float(variation),
                                       f"navaid {n['ident']} {n['name']} {n['type']} {n['iso_country']}"))
            if candidates:
                break
        if not candidates:
            for a in airports:
                if station in (a["ident"], a["gps_code"], a["local_code"], a["iata_code"]):
                    candidates.append((station, float(a["latitude_deg"]), float(a["longitude_deg"]), 0.0,
                                       f"airport {a['ident']} {a['name']} (no variation in airports.csv)"))
        if not candidates:
            print(f"station {station}: not in OurAirports", file=sys.stderr)
            continue
        if near:
            def miles(c):
                return 60 * math.hypot(c[1] - near["latitude"], (c[2] - near["longitude"]) * math.cos(math.radians(c[1])))
            candidates.sort(key=miles)
            if miles(candidates[0]) > 250:   # a namesake elsewhere (SER: La Serena, Chile, for a report over Indiana)
                print(f"station {station}: nearest namesake {candidates[0][4]} is {miles(candidates[0]):.0f} NM from the "
                      "report; left out", file=sys.stderr)
                continue
        else:
            candidates.sort(key=lambda c: " US" not in c[4])
        rows.append(candidates[0])
    with open(target, "w") as out:
        out.write("# Stations named by the pilot-report fixtures, from OurAirports (public domain; davidmegginson/ourairports-data).\n")
        out.write("id,latitude_deg,longitude_deg,variation_deg,source\n")
        for station, lat, lon, variation, source in rows:
            out.write(f"{station},{lat:.6f},{lon:.6f},{variation:.3f},{source.replace(',', ' ')}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ourairports", help="checkout of davidmegginson/ourairports-data: also write stations.csv")
    args = parser.parse_args()
    write_json_subset_as_csv(os.path.join(FIXTURES, "sources", "awc-aircraftreports-2022-04-23.json"),
                             os.path.join(FIXTURES, "awc-aircraftreports-2022-04-23.csv"))
    reports = []
    name = "avwx-engine-tests.txt"
    for number, line in enumerate(open(os.path.join(FIXTURES, name)).read().split("\n"), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        reports.append({"file": name, "line": number, "raw": line.strip(), "avwx": avwx_decode(line.strip(), AVWX_TESTS_DATE),
                        "awc": None})
    for name in ("awc-aircraftreports-2022-09-01.csv", "awc-aircraftreports-2022-04-23.csv"):
        for number, columns, raw in read_awc_csv(os.path.join(FIXTURES, name)):
            awc = awc_fields(columns)
            issued = dt.datetime.strptime(awc["observation_time"], "%Y-%m-%dT%H:%M:%SZ").date()
            reports.append({"file": name, "line": number, "raw": raw, "avwx": avwx_decode(raw, issued), "awc": awc})
    oracle = {
        "generator": "scripts/make_pirep_fixtures.py",
        "avwx_engine_version": importlib.metadata.version("avwx-engine"),
        "avwx_tests_reference_time": "2023-10-17T06:00:00Z",
        "reports": reports,
    }
    with open(os.path.join(FIXTURES, "oracle.json"), "w") as out:
        json.dump(oracle, out, indent=1, sort_keys=True)
        out.write("\n")
    if args.ourairports:
        write_stations(args.ourairports, reports, os.path.join(FIXTURES, "stations.csv"))
    print(f"{len(reports)} reports: {sum(r['avwx'] is not None for r in reports)} with avwx-engine's decode, "
          f"{sum(r['awc'] is not None for r in reports)} with the AWC's")


if __name__ == "__main__":
    main()
