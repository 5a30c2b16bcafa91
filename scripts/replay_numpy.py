#!/usr/bin/env python3
"""The same detection stages as Eddy's pipeline, written as a numpy/scipy batch program: the speed anchor that
`eddy-bench replay` runs on the very flight it replays (docs/replay.md "Benchmarks").

Stages (docs/detection.md §1-§4), each over the whole flight at once:
  1. read accelerometer.csv (t, ax, ay, az) and location.csv (its ground speed) with numpy.loadtxt;
  2. 40 ms tick means of the specific force (25 Hz; an empty tick repeats the previous mean);
  3. gravity: first-order low-pass of the tick means, tau = 5 s (scipy.signal.lfilter); u = g/|g|;
  4. projection: n = f.u (in g), the filter input n - 1;
  5. band-pass: 4th-order Butterworth high-pass then low-pass at the class's band (scipy.signal.butter, sosfilt);
  6. windowed variance: the last 10 s of band-passed ticks at every whole second (cumulative sums);
  7. EDR = c * sqrt(max(var - noise, 0) / I), I the band-passed variance of EDR 1 through the rigid-plunge response
     over the von Karman spectrum (4,001 log-spaced points, 1e-4 Hz to Nyquist), noise and c as in docs/detection.md.

It leaves out what the Swift pipeline does besides (gyro, handling, turn, manoeuvre and ground gates, navigation,
minutes, tiles, notices), so it does less work per sample than Eddy. It is not bit-compatible with Eddy; as a check
that it is a real pipeline it prints the median EDR it finds in each turbulent truth segment of meta.json.

Usage: replay_numpy.py FLIGHT_DIR   prints `name: value` lines (numpy_*), times in seconds of wall clock and of
this process's CPU, counted from after the imports.
"""
import json
import math
import os
import sys
import time

import numpy as np
from scipy import signal

TICK_HZ = 25.0
GRAVITY_TAU_S = 5.0
WINDOW_S = 10
NOISE_RMS_G = 0.0015
G = 9.80665
L_M = 762.0

# Per class (docs/detection.md "Per-class parameters", the representative types' W/S, C_L-alpha and gain):
# wing loading N/m^2, lift-curve slope /rad, gain, nominal speed m/s, nominal altitude m, band Hz.
CLASSES = {
    "small": (632.0, 4.71, 0.93, 55.0, 1524.0, (0.2, 4.0)),
    "medium": (5286.0, 6.25, 0.67, 230.0, 10668.0, (0.1, 2.0)),
    "large": (5600.0, 5.5, 0.7, 250.0, 11278.0, (0.1, 2.0)),
}


# numpy 2 renamed trapz to trapezoid.
trapezoid = getattr(np, "trapezoid", None) or np.trapz


def isa_density(altitude_m):
    """ISA density, kg/m^3 (troposphere lapse, isothermal above 11 km)."""
    t0, p0, lapse, r = 288.15, 101325.0, 0.0065, 287.05287
    if altitude_m <= 11000.0:
        t = t0 - lapse * altitude_m
        p = p0 * (t / t0) ** (G / (lapse * r))
    else:
        t = t0 - lapse * 11000.0
        p11 = p0 * (t / t0) ** (G / (lapse * r))
        p = p11 * math.exp(-G * (altitude_m - 11000.0) / (r * t))
    return p / (r * t)


def band_sos(band):
    """The band-pass as second-order sections: 4th-order Butterworth high-pass, then low-pass (bilinear, pre-warped)."""
    high = signal.butter(4, band[0], btype="highpass", fs=TICK_HZ, output="sos")
    low = signal.butter(4, band[1], btype="lowpass", fs=TICK_HZ, output="sos")
    return np.vstack([high, low])


def edr_model(sos, aircraft_class, speed_mps):
    """(I, noise variance per unit 1/k, median-bias factor c) of the class at a speed."""
    wing_loading, lift_slope, gain, _, altitude_m, _ = CLASSES[aircraft_class]
    rho = isa_density(altitude_m)
    tau = 2.0 * wing_loading / (rho * speed_mps * lift_slope * G)
    f = np.logspace(-4.0, math.log10(TICK_HZ / 2.0), 4001)
    _, response = signal.sosfreqz(sos, worN=f, fs=TICK_HZ)
    band = np.abs(response) ** 2 * np.sinc(f / TICK_HZ) ** 2
    omega = 2.0 * math.pi * f
    plunge = (omega / G) ** 2 / (1.0 + (tau * omega) ** 2)
    big_omega = omega / speed_mps
    sigma2 = 1.252 * L_M ** (2.0 / 3.0)
    x = (1.339 * L_M * big_omega) ** 2
    phi = sigma2 * (L_M / math.pi) * (1.0 + (8.0 / 3.0) * x) / (1.0 + x) ** (11.0 / 6.0)
    spectrum = phi * 2.0 * math.pi / speed_mps
    power = gain ** 2 * band * plunge * spectrum
    integral = trapezoid(power, f)
    enbw = trapezoid(band, f)
    nu = 2.0 * WINDOW_S * integral ** 2 / trapezoid(power ** 2, f)
    c = (1.0 - 2.0 / (9.0 * nu)) ** -1.5
    return integral, enbw / (TICK_HZ / 2.0), c


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: replay_numpy.py FLIGHT_DIR")
    directory = sys.argv[1]
    wall0, cpu0 = time.perf_counter(), time.process_time()
    with open(os.path.join(directory, "meta.json")) as f:
        meta = json.load(f)
    aircraft_class = meta.get("aircraft", {}).get("class", "medium")
    accel = np.loadtxt(os.path.join(directory, "accelerometer.csv"), delimiter=",", skiprows=1, dtype=np.float64)
    location_path = os.path.join(directory, "location.csv")
    speeds = np.empty(0)
    if os.path.exists(location_path):
        speeds = np.loadtxt(location_path, delimiter=",", skiprows=1, usecols=(6,), dtype=np.float64, ndmin=1)
    wall_read, cpu_read = time.perf_counter(), time.process_time()

    t, force = accel[:, 0], accel[:, 1:4]
    # 2. tick means (forward-filled over empty ticks)
    tick = np.floor((t - t[0]) * TICK_HZ).astype(np.int64)
    count = np.bincount(tick)
    sums = np.stack([np.bincount(tick, weights=force[:, axis]) for axis in range(3)], axis=1)
    filled = count > 0
    last = np.maximum.accumulate(np.where(filled, np.arange(len(count)), 0))
    means = (sums[last].T / count[last]).T
    samples_per_tick = len(t) / len(count)
    # 3. gravity low-pass and the apparent vertical
    alpha = (1.0 / TICK_HZ) / (GRAVITY_TAU_S + 1.0 / TICK_HZ)
    b, a = [alpha], [1.0, alpha - 1.0]
    gravity = np.stack([signal.lfilter(b, a, means[:, axis], zi=[means[0, axis] * (1.0 - alpha)])[0]
                        for axis in range(3)], axis=1)
    up = gravity / np.linalg.norm(gravity, axis=1)[:, None]
    # 4. projection
    n = np.einsum("ij,ij->i", means, up)
    # 5. band-pass
    sos = band_sos(CLASSES[aircraft_class][5])
    y = signal.sosfilt(sos, n - 1.0)
    # 6. 10-s variance at every whole second
    ticks_per_second = int(TICK_HZ)
    window = WINDOW_S * ticks_per_second
    c1 = np.concatenate([[0.0], np.cumsum(y)])
    c2 = np.concatenate([[0.0], np.cumsum(y * y)])
    ends = np.arange(window, len(y) + 1, ticks_per_second)
    mean = (c1[ends] - c1[ends - window]) / window
    variance = (c2[ends] - c2[ends - window]) / window - mean * mean
    # 7. EDR at the flight's median ground speed (the class's nominal speed without fixes)
    speed = float(np.median(speeds)) if speeds.size else CLASSES[aircraft_class][3]
    integral, noise_per_k, c = edr_model(sos, aircraft_class, speed)
    noise = NOISE_RMS_G ** 2 / samples_per_tick * noise_per_k
    edr = c * np.sqrt(np.maximum(variance - noise, 0.0) / integral)
    wall_end, cpu_end = time.perf_counter(), time.process_time()

    samples = len(t) + len(speeds)
    print(f"numpy_samples: {samples} (accelerometer {len(t)}, location {len(speeds)})")
    print(f"numpy_read_seconds: {wall_read - wall0:.3f}")
    print(f"numpy_compute_seconds: {wall_end - wall_read:.3f}")
    print(f"numpy_seconds: {wall_end - wall0:.3f}")
    print(f"numpy_cpu_seconds: {cpu_end - cpu0:.3f}")
    print(f"numpy_samples_per_s: {samples / (wall_end - wall0):.0f}")
    print(f"numpy_samples_per_cpu_s: {samples / (cpu_end - cpu0):.0f}")
    print(f"numpy_compute_samples_per_s: {samples / (wall_end - wall_read):.0f}")
    # The check: median EDR within each turbulent truth segment (skipping the first window).
    second_times = t[0] + ends / TICK_HZ
    found = []
    for segment in meta.get("truth", {}).get("turbulence", []):
        if segment["edr"] <= 0:
            continue
        inside = (second_times >= segment["start"] + WINDOW_S) & (second_times <= segment["end"])
        if inside.any():
            found.append((segment["edr"], float(np.median(edr[inside]))))
    for truth in sorted({edr_truth for edr_truth, _ in found}):
        medians = [m for edr_truth, m in found if edr_truth == truth]
        print(f"numpy_median_edr_at_truth_{truth}: {np.median(medians):.3f} ({len(medians)} segments)")


if __name__ == "__main__":
    main()
