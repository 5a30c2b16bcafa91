#!/usr/bin/env python3
"""Writes small synthetic exports of every format EddyImport reads into Fixtures/import/<format>/, each with the
Eddy flight it must import to (Fixtures/import/<format>/expected/: meta.json + CSVs at full precision), and bad
files into Fixtures/import/bad/. Python 3 standard library only; deterministic (no randomness, no clock).

Column names, units, signs and time bases follow the formats' published descriptions (docs/import.md cites them).
No real recording is copied: the signals are made up here (a 4-s flight: 50 Hz accelerometer and gyroscope, a
barometer, 1 Hz location; sensors start at different moments).

Usage: python3 scripts/make-import-fixtures.py [output-dir]   (default: Fixtures/import next to this script)
"""
import io
import json
import math
import os
import shutil
import sys
import zipfile

G = 9.80665                      # standard gravity, m/s^2
ORIGIN_EPOCH = 1795600000.25     # 2026-11-25T09:46:40.25Z: the wall clock of the flight's first sample
DURATION = 4.0


def iso(epoch):
    """ISO 8601 UTC with microseconds, as EddyImport writes time_origin."""
    micros = round(epoch * 1e6)
    days, rest = divmod(micros, 86_400_000_000)
    y, m, d = civil_from_days(days)
    s, frac = divmod(rest, 1_000_000)
    base = f"{y:04d}-{m:02d}-{d:02d}T{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}"
    return base + ("Z" if frac == 0 else f".{frac:06d}Z")


def civil_from_days(z):
    z += 719468
    era = (z if z >= 0 else z - 146096) // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (1 if m <= 2 else 0), m, d


# ---- the synthetic flight, in Eddy units (g with iOS sign, rad/s, hPa, degrees, metres) -------------------------

def accel_g(t):
    return (0.012 * math.sin(2 * math.pi * 1.3 * t), -0.02 + 0.015 * math.cos(2 * math.pi * 0.7 * t),
            -1.0 + 0.08 * math.sin(2 * math.pi * 2.1 * t))


def gyro_rad(t):
    return (0.01 * math.sin(2 * math.pi * 0.5 * t), -0.02 * math.cos(2 * math.pi * 0.9 * t), 0.005 + 0.003 * t)


def pressure_hpa(t):
    return 1003.2 - 0.35 * t


def fix(t):
    """lat, lon, altitude MSL m, speed m/s, course deg, horizontal accuracy m, vertical accuracy m."""
    return (47.3769 + 0.0004 * t, 8.5417 + 0.0007 * t, 812.4 + 3.1 * t, 52.5 + 0.2 * t, 51.5, 4.0 + 0.5 * t, 6.0)


ACC_TIMES = [round(k * 0.02, 6) for k in range(int(DURATION * 50))]          # accelerometer starts first (t = 0)
GYRO_TIMES = [round(0.013 + k * 0.02, 6) for k in range(int(DURATION * 50) - 1)]
BARO_TIMES = [round(0.1 + k * 0.2, 6) for k in range(int(DURATION * 5) - 1)]
FIX_TIMES = [0.5 + k for k in range(int(DURATION))]


def f6(x):
    return f"{x:.6f}"


def num(text):
    return float(text.replace(",", "."))


class Expected:
    """The Eddy flight an import must produce: rows per file, written at full precision."""

    def __init__(self, origin_epoch):
        self.origin = origin_epoch
        self.rows = {"accelerometer": [], "gyroscope": [], "barometer": [], "location": []}

    def write(self, directory, aircraft_class="small"):
        os.makedirs(directory, exist_ok=True)
        meta = {"aircraft": {"class": aircraft_class}, "format": "eddy-sensor-log", "time_origin": iso(self.origin), "version": 1}
        with open(os.path.join(directory, "meta.json"), "w") as f:
            json.dump(meta, f, indent=2, sort_keys=True)
            f.write("\n")
        headers = {"accelerometer": "t,ax,ay,az", "gyroscope": "t,wx,wy,wz", "barometer": "t,pressure_hpa",
                   "location": "t,lat,lon,alt_m,h_acc_m,v_acc_m,speed_mps,course_deg,pressure_alt_ft,source"}
        for kind, rows in self.rows.items():
            if kind != "accelerometer" and not rows:
                continue
            with open(os.path.join(directory, kind + ".csv"), "w") as f:
                f.write(headers[kind] + "\n")
                for row in rows:
                    f.write(",".join("" if v is None else (v if isinstance(v, str) else repr(float(v))) for v in row) + "\n")


def loc_row(t, lat, lon, alt, hacc, vacc, speed, course, palt=None, source="device"):
    return (t, lat, lon, alt, hacc, vacc, speed, course, palt, source)


# ---- SensorLog (iOS): one wide CSV, boot-relative sensor stamps, g, kPa ----------------------------------------

def sensorlog(out):
    boot = ORIGIN_EPOCH - 1000.0   # the accelerometer's first stamp is 1000.000 s after boot
    exp = Expected(ORIGIN_EPOCH)
    header = ["loggingTime(txt)", "loggingSample(N)", "locationTimestamp_since1970(s)", "locationLatitude(WGS84)",
              "locationLongitude(WGS84)", "locationAltitude(m)", "locationSpeed(m/s)", "locationCourse(°)",
              "locationVerticalAccuracy(m)", "locationHorizontalAccuracy(m)", "locationFloor(Z)",
              "accelerometerTimestamp_sinceReboot(s)", "accelerometerAccelerationX(G)", "accelerometerAccelerationY(G)",
              "accelerometerAccelerationZ(G)", "gyroTimestamp_sinceReboot(s)", "gyroRotationX(rad/s)", "gyroRotationY(rad/s)",
              "gyroRotationZ(rad/s)", "altimeterTimestamp_sinceReboot(s)", "altimeterReset(bool)",
              "altimeterRelativeAltitude(m)", "altimeterPressure(kPa)", "batteryState(N)", "batteryLevel(R)"]
    lines = [",".join(header)]
    gyro_i = baro_i = fix_i = -1
    for k, t in enumerate(ACC_TIMES):
        # the latest reading of each sensor at this row (rows tick with the accelerometer)
        while gyro_i + 1 < len(GYRO_TIMES) and GYRO_TIMES[gyro_i + 1] <= t + 0.015:
            gyro_i += 1
        while baro_i + 1 < len(BARO_TIMES) and BARO_TIMES[baro_i + 1] <= t:
            baro_i += 1
        while fix_i + 1 < len(FIX_TIMES) and FIX_TIMES[fix_i + 1] <= t:
            fix_i += 1
        wall = boot + 1000.0 + t
        ms = round(wall * 1000)
        days, rest = divmod(ms + 3600_000, 86_400_000)   # written in local time, +01:00
        y, m, d = civil_from_days(days)
        s, milli = divmod(rest, 1000)
        logging = f"{y:04d}-{m:02d}-{d:02d} {s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}.{milli:03d} +0100"
        a = [f6(v) for v in accel_g(t)]
        row = [logging, str(k)]
        if fix_i >= 0:
            ft = FIX_TIMES[fix_i]
            lat, lon, alt, speed, course, hacc, vacc = fix(ft)
            cells = [f"{ORIGIN_EPOCH + ft:.3f}", f"{lat:.7f}", f"{lon:.7f}", f"{alt:.2f}", f"{speed:.2f}",
                     "-1.0" if fix_i == 0 else f"{course:.1f}", f"{vacc:.1f}", f"{hacc:.1f}", "0"]
            row += cells
        else:
            row += [""] * 9
        row += [f"{1000.0 + t:.6f}"] + a
        if gyro_i >= 0:
            gt = GYRO_TIMES[gyro_i]
            row += [f"{1000.0 + gt:.6f}"] + [f6(v) for v in gyro_rad(gt)]
        else:
            row += [""] * 4
        if baro_i >= 0:
            bt = BARO_TIMES[baro_i]
            row += [f"{1000.0 + bt:.6f}", "0", "0.0", f"{pressure_hpa(bt) / 10:.6f}"]
        else:
            row += [""] * 4
        row += ["2", "0.8"]
        lines.append(",".join(row))
    for t in ACC_TIMES:
        exp.rows["accelerometer"].append((t,) + tuple(num(f6(v)) for v in accel_g(t)))
    seen = set()
    gyro_i = -1
    for t in ACC_TIMES:
        while gyro_i + 1 < len(GYRO_TIMES) and GYRO_TIMES[gyro_i + 1] <= t + 0.015:
            gyro_i += 1
        if gyro_i >= 0 and gyro_i not in seen:
            seen.add(gyro_i)
            gt = GYRO_TIMES[gyro_i]
            exp.rows["gyroscope"].append(((1000.0 + gt) - 1000.0,) + tuple(num(f6(v)) for v in gyro_rad(gt)))
    for bt in BARO_TIMES:
        if bt <= ACC_TIMES[-1]:
            exp.rows["barometer"].append(((1000.0 + bt) - 1000.0, num(f"{pressure_hpa(bt) / 10:.6f}") * 10))
    for i, ft in enumerate(FIX_TIMES):
        if ft <= ACC_TIMES[-1]:
            lat, lon, alt, speed, course, hacc, vacc = fix(ft)
            exp.rows["location"].append(loc_row(ft, num(f"{lat:.7f}"), num(f"{lon:.7f}"), num(f"{alt:.2f}"), num(f"{hacc:.1f}"),
                                                num(f"{vacc:.1f}"), num(f"{speed:.2f}"), None if i == 0 else num(f"{course:.1f}")))
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "sensorlog.csv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    exp.write(os.path.join(out, "expected"))


# ---- Sensor Logger: one CSV per sensor, epoch nanoseconds, m/s^2 ------------------------------------------------

def sensorlogger_files(android):
    start_ns = 1795600000_250_000_000   # ORIGIN_EPOCH in ns
    recording_start = start_ns + 120_000_000  # "Start" tapped 0.12 s after the first sample: some seconds_elapsed < 0
    files = {}
    exp = Expected(ORIGIN_EPOCH)

    def stamp(t):
        ns = start_ns + round(t * 1e9)
        return str(ns), f"{(ns - recording_start) / 1e9:.9f}"

    sign = -1.0 if android else 1.0
    grav_times = ACC_TIMES[2:]         # gravity starts two samples late: the first accel samples use its first value
    gravity_ms2 = {t: (0.0, 0.0, -G * sign * 0.999) for t in grav_times}
    for t in grav_times:
        gx = 0.002 * math.sin(t)
        gravity_ms2[t] = (sign * gx * G, sign * -0.02 * G, sign * -0.9996 * G)
    acc_lines = ["time,seconds_elapsed,z,y,x"]
    total_lines = ["time,seconds_elapsed,z,y,x"]
    grav_lines = ["time,seconds_elapsed,z,y,x"]
    gi = 0
    for t in ACC_TIMES:
        ax, ay, az = accel_g(t)
        while gi + 1 < len(grav_times) and grav_times[gi + 1] <= t:
            gi += 1
        g = gravity_ms2[grav_times[gi]]
        ts, el = stamp(t)
        if android:
            total = [f"{sign * v * G:.6f}" for v in (ax, ay, az)]
            total_lines.append(",".join([ts, el, total[2], total[1], total[0]]))
            exp.rows["accelerometer"].append((t,) + tuple(num(v) * (-1.0 / G) for v in total))
        else:
            user = [f"{sign * v * G - gv:.6f}" for v, gv in zip((ax, ay, az), g)]
            acc_lines.append(",".join([ts, el, user[2], user[1], user[0]]))
            gtext = [f"{v:.6f}" for v in g]
            exp.rows["accelerometer"].append((t,) + tuple((num(u) + num(gt)) * (1.0 / G) for u, gt in zip(user, gtext)))
    for t in grav_times:
        ts, el = stamp(t)
        g = [f"{v:.6f}" for v in gravity_ms2[t]]
        grav_lines.append(",".join([ts, el, g[2], g[1], g[0]]))
    gyro_lines = ["time,seconds_elapsed,z,y,x"]
    for t in GYRO_TIMES:
        ts, el = stamp(t)
        w = [f6(v) for v in gyro_rad(t)]
        gyro_lines.append(",".join([ts, el, w[2], w[1], w[0]]))
        exp.rows["gyroscope"].append((round(t * 1e9) / 1e9,) + tuple(num(v) for v in w))
    baro_lines = ["time,seconds_elapsed,relativeAltitude,pressure"]
    for t in BARO_TIMES:
        ts, el = stamp(t)
        p = f"{pressure_hpa(t):.4f}"
        baro_lines.append(",".join([ts, el, f"{-0.35 * t * 8.3:.3f}", p]))
        exp.rows["barometer"].append((round(t * 1e9) / 1e9, num(p)))
    if android:
        loc_header = "time,seconds_elapsed,bearingAccuracy,speedAccuracy,verticalAccuracy,horizontalAccuracy,speed,bearing,altitude,longitude,latitude"
    else:
        loc_header = "time,seconds_elapsed,bearingAccuracy,speedAccuracy,verticalAccuracy,horizontalAccuracy,speed,bearing,altitude,longitude,latitude,altitudeAboveMeanSeaLevel"
    loc_lines = [loc_header]
    for t in FIX_TIMES:
        ts, el = stamp(t)
        lat, lon, alt, speed, course, hacc, vacc = fix(t)
        cells = [ts, el, "5.0", "0.5", f"{vacc:.1f}", f"{hacc:.1f}", f"{speed:.2f}", f"{course:.1f}", f"{alt + 48.3:.2f}", f"{lon:.7f}", f"{lat:.7f}"]
        if not android:
            cells.append(f"{alt:.2f}")
        loc_lines.append(",".join(cells))
        exp.rows["location"].append(loc_row(t, num(f"{lat:.7f}"), num(f"{lon:.7f}"), None if android else num(f"{alt:.2f}"),
                                            num(f"{hacc:.1f}"), num(f"{vacc:.1f}"), num(f"{speed:.2f}"), num(f"{course:.1f}")))
    files["Gyroscope.csv"] = gyro_lines
    files["Barometer.csv"] = baro_lines
    files["Location.csv"] = loc_lines
    if android:
        files["TotalAcceleration.csv"] = total_lines
    else:
        files["Accelerometer.csv"] = acc_lines
        files["Gravity.csv"] = grav_lines
    files["metadata.csv"] = ["version,device name,recording time,platform,appVersion",
                             f"3,Test Phone,2026-11-24_09-46-40,{'android' if android else 'ios'},1.40.0"]
    return {k: "\n".join(v) + "\n" for k, v in files.items()}, exp


def sensorlogger(out):
    files, exp = sensorlogger_files(android=False)
    folder = os.path.join(out, "folder")
    os.makedirs(folder, exist_ok=True)
    for name, text in files.items():
        with open(os.path.join(folder, name), "w") as f:
            f.write(text)
    with zipfile.ZipFile(os.path.join(out, "sensorlogger.zip"), "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name in sorted(files):
            info = zipfile.ZipInfo("2026-11-24_09-46-40/" + name, date_time=(2026, 11, 24, 9, 46, 40))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, files[name])
        info = zipfile.ZipInfo("2026-11-24_09-46-40/Annotation.csv", date_time=(2026, 11, 24, 9, 46, 40))
        info.compress_type = zipfile.ZIP_STORED
        z.writestr(info, "time,seconds_elapsed,text,millisecond_press_duration\n")
    exp.write(os.path.join(out, "expected"))
    files, exp = sensorlogger_files(android=True)
    folder = os.path.join(out, "android")
    os.makedirs(folder, exist_ok=True)
    for name, text in files.items():
        with open(os.path.join(folder, name), "w") as f:
            f.write(text)
    exp.write(os.path.join(out, "expected-android"))


# ---- phyphox: one CSV per sensor, seconds since the experiment started, Android sign ----------------------------

def phyphox(out):
    start = 3.217    # experiment time of the first accelerometer sample
    exp = Expected(ORIGIN_EPOCH)
    folder = os.path.join(out, "export")
    os.makedirs(os.path.join(folder, "meta"), exist_ok=True)

    def q(cells):
        return ",".join(f'"{c}"' for c in cells)

    acc = [q(["Time (s)", "Acceleration x (m/s^2)", "Acceleration y (m/s^2)", "Acceleration z (m/s^2)"])]
    for t in ACC_TIMES:
        v = [f"{-x * G:.9E}" for x in accel_g(t)]   # phyphox writes scientific notation
        acc.append(",".join([f"{start + t:.9E}"] + v))
        exp.rows["accelerometer"].append((num(f"{start + t:.9E}") - start,) + tuple(num(x) * (-1 / G) for x in v))
    gyr = [q(["Time (s)", "Gyroscope x (rad/s)", "Gyroscope y (rad/s)", "Gyroscope z (rad/s)"])]
    for t in GYRO_TIMES:
        v = [f"{x:.9E}" for x in gyro_rad(t)]
        gyr.append(",".join([f"{start + t:.9E}"] + v))
        exp.rows["gyroscope"].append((num(f"{start + t:.9E}") - start,) + tuple(num(x) for x in v))
    pre = [q(["Time (s)", "Pressure (hPa)"])]
    for t in BARO_TIMES:
        p = f"{pressure_hpa(t):.9E}"
        pre.append(",".join([f"{start + t:.9E}", p]))
        exp.rows["barometer"].append((num(f"{start + t:.9E}") - start, num(p)))
    loc = [q(["Time (s)", "Latitude (°)", "Longitude (°)", "Height (m)", "Velocity (m/s)", "Direction (°)",
              "Horizontal Accuracy (m)", "Vertical Accuracy (m)"])]
    for t in FIX_TIMES:
        lat, lon, alt, speed, course, hacc, vacc = fix(t)
        cells = [f"{start + t:.9E}", f"{lat:.9E}", f"{lon:.9E}", f"{alt:.9E}", f"{speed:.9E}", f"{course:.9E}", f"{hacc:.9E}", f"{vacc:.9E}"]
        loc.append(",".join(cells))
        exp.rows["location"].append(loc_row(num(cells[0]) - start, *(num(c) for c in (cells[1], cells[2], cells[3], cells[6], cells[7], cells[4], cells[5]))))
    system_start = ORIGIN_EPOCH - start
    meta = [q(["event", "experiment time", "system time", "system time text"]),
            f'"START",0.000000000E0,{system_start:.3f},"2026-11-24 10:46:37.033 UTC+01:00"',
            f'"PAUSE",{start + DURATION:.9E},{system_start + start + DURATION:.3f},"later"']
    for name, lines in [("Accelerometer.csv", acc), ("Gyroscope.csv", gyr), ("Pressure.csv", pre), ("Location.csv", loc),
                        ("meta/time.csv", meta)]:
        with open(os.path.join(folder, name), "w") as f:
            f.write("\n".join(lines) + "\n")
    exp.origin = system_start + start
    exp.write(os.path.join(out, "expected"))


# ---- AndroSensor: one wide ;-separated CSV, sep=; line, m/s^2 (Android sign), ms since start --------------------

ANDRO_HEADER = ["ACCELEROMETER X (m/s²)", "ACCELEROMETER Y (m/s²)", "ACCELEROMETER Z (m/s²)", "GRAVITY X (m/s²)",
                "GRAVITY Y (m/s²)", "GRAVITY Z (m/s²)", "GYROSCOPE X (rad/s)", "GYROSCOPE Y (rad/s)", "GYROSCOPE Z (rad/s)",
                "ATMOSPHERIC PRESSURE (hPa)", "LOCATION Latitude : ", "LOCATION Longitude : ", "LOCATION Altitude ( m)",
                "LOCATION Speed ( Kmh)", "LOCATION Accuracy ( m)", "LOCATION ORIENTATION (°)", "Satellites in range",
                "Time since start in ms ", "YYYY-MO-DD HH-MI-SS_SSS"]


def androsensor_lines():
    exp = Expected(ORIGIN_EPOCH)
    lines = ["sep=;", ";".join(ANDRO_HEADER)]
    first_ms = 1234
    for t in ACC_TIMES:
        ms = first_ms + round(t * 1000)
        a = [f"{-v * G:.4f}" for v in accel_g(t)]
        w = [f"{v:.4f}" for v in gyro_rad(t)]
        p = f"{pressure_hpa(t):.2f}"
        fi = max([i for i, ft in enumerate(FIX_TIMES) if ft <= t], default=-1)
        if fi >= 0:
            lat, lon, alt, speed, course, hacc, vacc = fix(FIX_TIMES[fi])
            loc = [f"{lat:.6f}", f"{lon:.6f}", f"{alt + 48.3:.1f}", f"{speed * 3.6:.2f}", f"{hacc:.1f}", f"{course:.1f}", "9"]
        else:
            loc = ["0", "0", "0", "0", "0", "0", "0"]
        wall = ORIGIN_EPOCH + t
        wms = round(wall * 1000)
        days, rest = divmod(wms, 86_400_000)
        y, m, d = civil_from_days(days)
        s, milli = divmod(rest, 1000)
        date = f"{y:04d}-{m:02d}-{d:02d} {s // 3600:02d}-{s // 60 % 60:02d}-{s % 60:02d}_{milli:03d}"
        lines.append(";".join(a + ["0.1", "-0.2", "9.8"] + w + [p] + loc + [str(ms), date]))
        exp.rows["accelerometer"].append((t,) + tuple(num(v) * (-1 / G) for v in a))
        exp.rows["gyroscope"].append((t,) + tuple(num(v) for v in w))
        exp.rows["barometer"].append((t, num(p)))
        if fi >= 0 and (not exp.rows["location"] or exp.rows["location"][-1][1] != num(loc[0])):
            exp.rows["location"].append(loc_row(t, num(loc[0]), num(loc[1]), None, num(loc[4]), None, num(loc[3]) / 3.6, num(loc[5])))
    return lines, exp


def androsensor(out):
    lines, exp = androsensor_lines()
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "androsensor.csv"), "w", encoding="utf-8") as f:
        f.write("\r\n".join(lines) + "\r\n")
    exp.write(os.path.join(out, "expected"))


# ---- Physics Toolbox Sensor Suite: one wide CSV, clock time HH:MM:SS:SSS, g-force (+1 up) ------------------------

def physicstoolbox(out):
    exp = Expected(0)
    lines = ["time,gFx,gFy,gFz,wx,wy,wz,p,Latitude,Longitude,Speed (m/s)"]
    clock0 = 23 * 3600 + 59 * 60 + 58.5     # crosses midnight: the clock rolls over
    for t in ACC_TIMES:
        c = clock0 + t
        if c >= 86400:
            c -= 86400
        ms = round(c * 1000)
        s, milli = divmod(ms, 1000)
        clock = f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}:{milli:03d}"
        gf = [f"{-v:.4f}" for v in accel_g(t)]
        w = [f"{v:.4f}" for v in gyro_rad(t)]
        p = f"{pressure_hpa(t):.3f}"
        fi = max([i for i, ft in enumerate(FIX_TIMES) if ft <= t], default=-1)
        if fi >= 0:
            lat, lon, alt, speed, course, hacc, vacc = fix(FIX_TIMES[fi])
            loc = [f"{lat:.6f}", f"{lon:.6f}", f"{speed:.2f}"]
        else:
            loc = ["0", "0", "0"]
        lines.append(",".join([clock] + gf + w + [p] + loc))
        exp.rows["accelerometer"].append((t,) + tuple(-num(v) for v in gf))
        exp.rows["gyroscope"].append((t,) + tuple(num(v) for v in w))
        exp.rows["barometer"].append((t, num(p)))
        if fi >= 0 and (not exp.rows["location"] or exp.rows["location"][-1][1] != num(loc[0])):
            exp.rows["location"].append(loc_row(t, num(loc[0]), num(loc[1]), None, None, None, num(loc[2]), None))
    # the date is unknown: EddyImport writes 2000-01-01 plus the first clock time
    exp.origin = 946684800 + clock0
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "physicstoolbox.csv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    exp.write(os.path.join(out, "expected"))


# ---- IGC: B records (UTC time, DDMMmmm, pressure and GNSS altitude in metres), HFDTE, I record ------------------

def igc(out):
    exp = Expected(0)
    first = 23 * 3600 + 59 * 60 + 58       # 23:59:58 UTC on 25 Nov 2026: the date rolls over
    lines = ["AXXXABC Synthetic logger for Eddy fixtures", "HFDTEDATE:251126,01", "HFFXA035", "HFPLTPILOTINCHARGE:Test",
             "HFGTYGLIDERTYPE:ASK21", "I033638FXA3940SIU4143ENL"]
    for k in range(6):
        s = first + k
        sd = s % 86400
        lat, lon, alt, speed, course, hacc, vacc = fix(float(k))
        lat_min = round((lat - int(lat)) * 60000)
        lon_min = round((lon - int(lon)) * 60000)
        palt = 1450 + 3 * k
        galt = 1502 + 3 * k
        validity = "V" if k == 4 else "A"
        lines.append(f"B{sd // 3600:02d}{sd // 60 % 60:02d}{sd % 60:02d}{int(lat):02d}{lat_min:05d}N{int(lon):03d}{lon_min:05d}E"
                     f"{validity}{palt:05d}{galt:05d}{12 + k:03d}{9:02d}{15:03d}")
        if validity == "A":
            exp.rows["location"].append(loc_row(float(k), int(lat) + lat_min / 60000, int(lon) + lon_min / 60000, None,
                                                float(12 + k), None, None, None, palt / 0.3048, "external"))
    lines += ["LXXXsome comment", "GREJNGJERJKNJKRE31895478537H43982FJN9248F942389T433T"]
    exp.origin = 1795564800 + first   # 2026-11-25T00:00:00Z + 23:59:58
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "flight.igc"), "w") as f:
        f.write("\r\n".join(lines) + "\r\n")
    exp.write(os.path.join(out, "expected"))


# ---- bad files: one per error class -----------------------------------------------------------------------------

def bad(out):
    os.makedirs(out, exist_ok=True)

    def w(name, data):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode("utf-8"))

    lines, _ = androsensor_lines()
    text = "\n".join(lines[:30]) + "\n"
    w("androsensor-truncated.csv", text + lines[30][: len(lines[30]) // 2])
    w("androsensor-mixed-units.csv", text.replace("ACCELEROMETER Y (m/s²)", "ACCELEROMETER Y (g)"))
    w("androsensor-not-a-number.csv", "\n".join(lines[:12] + [lines[12].replace(lines[12].split(";")[1], "1.2.3", 1)] + lines[13:20]) + "\n")
    w("androsensor-wrong-delimiter.csv", "\n".join(l.replace(";", "|") for l in lines[1:20]) + "\n")
    w("empty.csv", "")
    w("header-only.csv", ";".join(ANDRO_HEADER) + "\n")
    w("binary.csv", bytes(range(256)) * 4)
    w("unknown.csv", "when,value_a,value_b\n1,2,3\n2,3,4\n")
    w("sensorlog-missing-columns.csv", "loggingTime(txt),loggingSample(N),batteryLevel(R)\n2026-11-24 10:46:40.250 +0100,0,0.8\n")
    os.makedirs(os.path.join(out, "sensorlogger-backwards"), exist_ok=True)
    w("sensorlogger-backwards/TotalAcceleration.csv", "time,seconds_elapsed,z,y,x\n1795600000250000000,0,9.8,0,0\n"
      "1795600000270000000,0.02,9.8,0,0\n1795600000260000000,0.01,9.8,0,0\n")
    files, _ = sensorlogger_files(android=False)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=(2026, 11, 24, 9, 46, 40))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, files[name])
    data = buf.getvalue()
    w("sensorlogger-cut.zip", data[: len(data) // 2])
    corrupt = bytearray(data)
    # flip bytes inside the first entry's deflate data (after its 30-byte local header and name)
    for i in range(60, 90):
        corrupt[i] ^= 0x5A
    w("sensorlogger-corrupt.zip", bytes(corrupt))
    w("igc-truncated.igc", "AXXXABC test\nHFDTEDATE:251126,01\nB2359584722614N00832502EA0145001502\nB23595947226\n")
    w("igc-no-date.igc", "AXXXABC test\nB2359584722614N00832502EA0145001502\n")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures", "import")
    root = os.path.abspath(root)
    if os.path.isdir(root):
        shutil.rmtree(root)
    sensorlog(os.path.join(root, "sensorlog"))
    sensorlogger(os.path.join(root, "sensorlogger"))
    phyphox(os.path.join(root, "phyphox"))
    androsensor(os.path.join(root, "androsensor"))
    physicstoolbox(os.path.join(root, "physicstoolbox"))
    igc(os.path.join(root, "igc"))
    bad(os.path.join(root, "bad"))
    print(f"wrote {root}")


if __name__ == "__main__":
    main()
