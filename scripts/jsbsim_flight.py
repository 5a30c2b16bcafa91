#!/usr/bin/env python3
"""Fly a JSBSim aircraft through MIL-F-8785C turbulence and write an Eddy sensor log.

An independent check of Eddy's EDR estimator: the aircraft response comes from JSBSim's 6-DOF
model (PyPI `jsbsim`), not from Eddy's rigid-plunge model. See docs/replay.md §JSBSim flights.

    .venv/bin/python scripts/jsbsim_flight.py --aircraft 737 --segments 0:60,4:180,5:180,6:180 \
        --out Fixtures/flights/jsbsim-737-mixed

Segments are `POE:seconds`: POE is JSBSim's `atmosphere/turbulence/milspec/severity`, the
probability-of-exceedance curve index of MIL-F-8785C Fig. 7 (0 = off, 3 = 1e-2 "light",
4 = 1e-3 "moderate", 6 = 1e-5 "severe"). The flight is a trimmed cruise held by a gentle attitude
autopilot (pitch toward trim, wings level with heading hold; loops acting well below the detection band).

What is written (docs/sensor-log.md):
- accelerometer.csv: the pilot-station load factor `accelerations/n-pilot-{x,y,z}-norm` turned into
  the iOS reading (gravity minus acceleration, in g: a device face-up at rest reads z = -1), rotated
  into a device mounted at a random (seeded) cradle angle, plus white noise;
- gyroscope.csv: body rates p, q, r rotated into the device frame, plus white noise;
- location.csv (1 Hz): JSBSim position, ground speed and track;
- barometer.csv (1 Hz): cabin pressure (pressurised class) or static pressure;
- meta.json: truth = one interval per segment with its band-equivalent EDR (see below), and a
  `jsbsim` block with every parameter (σ_w, L, both EDR conversions) for the record.

Truth EDR. JSBSim's Milspec model (turb-type 3, the default here) makes the vertical gust a first-order
Gauss–Markov process with time constant L_w/(2V); its Tustin model (turb-type 4) a Dryden spectrum. Both
use L_w = 1,750 ft above 2,000 ft and σ_w from the MIL-F-8785C POE table (ft/s) at the current altitude
(FGWinds.cpp). Neither has an inertial (-5/3) range, so the field's EDR is defined only as the EDR of
the von Kármán field (L = 762 m, σ² = 1.252 (εL)^(2/3)) that puts the same variance into the
estimator's band: EDR_band = sqrt(∫ S_JSBSim W df / ∫ S_vK(EDR=1) W df), with W(f) = |H_plunge(f)|²
inside [band_low, band_high] of the class (Eddy's AircraftResponseParameters). That is the truth.
The asymptotic formula EDR = σ_w / (1.119 L^(1/3)) with L = 1,750 ft is written alongside
(`edr_formula`) for the record; it ignores the spectrum's shape in the band.

Why not Tustin by default: in JSBSim 1.3.3 its recursion, when `severity` changes between two non-zero
values in flight, produces vertical gusts of 20–70 m/s for tens of seconds (a C172 at 5,000 ft was
thrown into a stall and lost 1,200 m); the Milspec recursion has no such transient.
"""
import argparse
import json
import math
import os
import sys

import numpy as np

try:
    import jsbsim
except ImportError:  # pragma: no cover
    sys.exit("jsbsim_flight.py: the Python package 'jsbsim' is missing; run `make venv` (it installs requirements-oracles.txt)")

G0 = 9.80665
FT = 0.3048
PSF_TO_HPA = 0.478802589803
AIRCRAFT = {
    # model: (ICAO type, Eddy class, altitude ft, speed property, value, W/S N/m², C_Lα /rad, band Hz)
    "737": ("B738", "medium", 35_000.0, "ic/mach", 0.78, 5_500.0, 5.9, (0.1, 2.0)),
    "c172p": ("C172", "small", 5_000.0, "ic/vc-kts", 105.0, 666.0, 5.3, (0.2, 4.0)),
    "787-8": ("B788", "large", 35_000.0, "ic/mach", 0.80, 5_600.0, 5.5, (0.1, 2.0)),
    "DHC6": ("DHC6", "small", 8_000.0, "ic/vc-kts", 140.0, 666.0, 5.3, (0.2, 4.0)),
}
DRYDEN_L_FT = 1750.0          # FGWinds.cpp, MIL-F-8785C §3.7.2.1, above 2,000 ft
VON_KARMAN_L_M = 762.0        # Eddy's estimator (2,500 ft)
# Autopilot gains (per rad, per rad/s of elevator / aileron command). The pitch loop is kept gentle:
# stiffer gains (1.0 / 0.3) damp the gust response in the 0.1–0.3 Hz part of the band by ≈ 7 %.
PITCH_GAINS = {"737": (0.3, 0.1), "c172p": (1.0, 0.3), "787-8": (0.3, 0.1), "DHC6": (1.0, 0.3)}
# Roll loop with heading hold (bank target = -HEADING_GAIN × heading error, limited to ±5°), so turbulence
# does not turn the aircraft (Eddy gates minutes while turning faster than 4°/s).
ROLL_GAIN, ROLL_RATE_GAIN, HEADING_GAIN, BANK_LIMIT_RAD = 3.0, 0.5, 1.0, math.radians(5)
CLIMB_FPM = 500.0   # step climbs and descents between flight levels (--levels)
W20_KT = {0: 0, 1: 15, 2: 15, 3: 15, 4: 30, 5: 45, 6: 45, 7: 45}  # only used below 2,000 ft


def poe_sigma_w_fps(index, altitude_ft):
    """σ_w (ft/s) from MIL-F-8785C Fig. 7 as tabulated in JSBSim FGWinds.cpp (linear in altitude)."""
    altitudes = [500, 1750, 3750, 7500, 15000, 25000, 35000, 45000, 55000, 65000, 75000, 80000]
    table = {
        1: [3.2, 2.2, 1.5, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        2: [4.2, 3.6, 3.3, 1.6, 0, 0, 0, 0, 0, 0, 0, 0],
        3: [6.6, 6.9, 7.4, 6.7, 4.6, 2.7, 0.4, 0, 0, 0, 0, 0],
        4: [8.6, 9.6, 10.6, 10.1, 8.0, 6.6, 5.0, 4.2, 2.7, 0, 0, 0],
        5: [11.8, 13.0, 16.0, 15.1, 11.6, 9.7, 8.1, 8.2, 7.9, 4.9, 3.2, 2.1],
        6: [15.6, 17.6, 23.0, 23.6, 22.1, 20.0, 16.0, 15.1, 12.1, 7.9, 6.2, 5.1],
        7: [18.7, 21.5, 28.4, 30.2, 30.7, 31.0, 25.2, 23.1, 17.5, 10.7, 8.4, 7.2],
    }
    if index == 0:
        return 0.0
    return float(np.interp(altitude_ft, altitudes, table[index]))


def gust_psd(f, sigma_w, length_m, speed, turb_type):
    """One-sided vertical-gust PSD, (m/s)²/Hz, of JSBSim's model (FGWinds.cpp, above 2,000 ft).

    turb-type 3 (Milspec, MIL-STD-1797A form as in Yeager 1998 eq. 32): w is a first-order Gauss–Markov
    process, xi_k = (1 - 2T/τ_w) xi_(k-1) + σ_w sqrt(4T/τ_w) ν_k with τ_w = L_w/V, i.e. time constant
    τ_c = L_w/(2V): S(f) = 4 σ² τ_c / (1 + (2π f τ_c)²).
    turb-type 4 (Tustin): the Dryden vertical spectrum Φ_w(Ω) = σ² (L/π)(1 + 3L²Ω²)/(1 + L²Ω²)², Ω = 2πf/V.
    """
    if turb_type == 3:
        tau_c = length_m / (2 * speed)
        return 4 * sigma_w**2 * tau_c / (1 + (2 * np.pi * f * tau_c) ** 2)
    omega = 2 * np.pi * f / speed
    return sigma_w**2 * (length_m / np.pi) * (1 + 3 * (length_m * omega) ** 2) / (1 + (length_m * omega) ** 2) ** 2 * 2 * np.pi / speed


def band_equivalent_edr(sigma_w, length_m, speed, rho, wing_loading, cla, band, turb_type):
    """EDR of the von Kármán field giving the same plunge-weighted variance in the band as JSBSim's field."""
    if sigma_w == 0:
        return 0.0
    f = np.linspace(band[0], band[1], 20_000)
    tau = 2 * wing_loading / (rho * speed * cla * G0)
    w = (2 * np.pi * f) ** 2 / G0**2 / (1 + (tau * 2 * np.pi * f) ** 2)
    jsbsim_psd = gust_psd(f, sigma_w, length_m, speed, turb_type)
    x = 1.339 * VON_KARMAN_L_M * 2 * np.pi * f / speed
    vk_variance = 1.252 * VON_KARMAN_L_M ** (2 / 3)
    von_karman = vk_variance * (VON_KARMAN_L_M / np.pi) * (1 + 8 / 3 * x**2) / (1 + x**2) ** (11 / 6) * 2 * np.pi / speed
    return float(np.sqrt(np.trapezoid(jsbsim_psd * w, f) / np.trapezoid(von_karman * w, f)))


def band_weight(f, band):
    """|B(f)|² of the detection band-pass: 4th-order Butterworth high-pass at band[0] times 4th-order low-pass at band[1]."""
    hp = (f / band[0]) ** 8
    return hp / (1 + hp) / (1 + (f / band[1]) ** 8)


def von_karman_psd(f, speed, edr=1.0):
    """One-sided von Kármán vertical-gust PSD, (m/s)²/Hz, L = 762 m, σ² = 1.252 (εL)^(2/3), at TAS `speed`."""
    x = 1.339 * VON_KARMAN_L_M * 2 * np.pi * f / speed
    variance = 1.252 * edr**2 * VON_KARMAN_L_M ** (2 / 3)
    return variance * (VON_KARMAN_L_M / np.pi) * (1 + 8 / 3 * x**2) / (1 + x**2) ** (11 / 6) * 2 * np.pi / speed


def independent_edr(w, sample_hz, speed, band):
    """Aircraft-independent truth: EDR of the von Kármán field (L = 762 m) whose vertical-gust variance inside
    the band equals that of the vertical gust series `w` (m/s) JSBSim applied.

    Variance in the band: periodogram of the (mean-removed, Hann-tapered) series weighted by |B(f)|² (Parseval).
    The von Kármán side: ∫ |B(f)|² S_vK(f; EDR = 1, V) df; S_vK ∝ EDR², so EDR = sqrt(ratio). Returns
    (edr, band variance m²/s²).
    """
    w = np.asarray(w, dtype=float)
    n = len(w)
    if n < 16:
        return 0.0, 0.0
    taper = np.hanning(n)
    spectrum = np.fft.rfft((w - w.mean()) * taper)
    f = np.fft.rfftfreq(n, 1 / sample_hz)
    # one-sided periodogram (m/s)²/Hz, normalised by the taper's power so that ∑ P Δf = variance
    psd = 2 * np.abs(spectrum) ** 2 / (sample_hz * np.sum(taper**2))
    variance = float(np.sum(psd[1:] * band_weight(f[1:], band)) * (f[1] - f[0]))
    grid = np.logspace(-4, np.log10(sample_hz / 2), 20_000)
    unit = float(np.trapezoid(band_weight(grid, band) * von_karman_psd(grid, speed), grid))
    return (float(np.sqrt(variance / unit)) if variance > 0 else 0.0), variance


def random_mount(rng):
    """A rotation body → device for a device in a cradle: never flat (device z ≥ 30° from body z)."""
    while True:
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        w, x, y, z = q
        r = np.array([
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ])
        # r maps body vectors to device components; device z in body axes is r[2]
        if abs(r[2, 2]) < math.cos(math.radians(30)):
            return r


def fmt(value, decimals):
    text = f"{value:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0")
        if text.endswith("."):
            text += "0"
    return "0.0" if text in ("-0.0", "-0") else text


def rotation(v):
    """Rotation matrix of the rotation vector v (Rodrigues)."""
    angle = float(np.linalg.norm(v))
    if angle < 1e-12:
        return np.eye(3)
    k = np.asarray(v) / angle
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(angle) * kx + (1 - math.cos(angle)) * kx @ kx


def rotation_vector(r):
    """Inverse of `rotation` (angle in [0, π))."""
    angle = math.acos(min(1.0, max(-1.0, (np.trace(r) - 1) / 2)))
    if angle < 1e-12:
        return np.zeros(3)
    axis = np.array([r[2, 1] - r[1, 2], r[0, 2] - r[2, 0], r[1, 0] - r[0, 1]]) / (2 * math.sin(angle))
    return axis * angle


class Handling:
    """A pick-up of the device, the same motion as Eddy's simulator (HandlingProfiles.swift), written from its
    description: turned by 30–90° about a random axis over `rise` s (slow 2–3 s, fast 0.2–0.5 s) with
    s(u) = (1 − cos πu)/2 — or, `gentle` (issue 28), by as much over 3–4 s, whose first second turns it by only
    4–17° — held with a 2–8° wobble at 0.2–0.8 Hz, then put back over `fall` s to the old mount turned
    by 2–15°. The device-frame rotation relative to the airframe is added to the gyro; the hand's lift (≤ 0.03 g
    for a slow pick-up) is left out. Draws come from their own generator, so flights without handling are unchanged."""

    def __init__(self, start, length, kind, rng):
        slow = kind in ("slow", "gentle")
        self.start, self.end = start, start + length
        rise = rng.uniform(2, 3) if slow else rng.uniform(0.2, 0.5)
        self.rise = min(length / 3, 3 + (rise - 2) if kind == "gentle" else rise)
        self.fall = min(length / 3, rng.uniform(1.5, 3) if slow else rng.uniform(0.3, 0.6))
        axis = rng.normal(size=3)
        angle = rng.uniform(30, 90)
        self.up = axis / np.linalg.norm(axis) * math.radians(angle)
        axis = rng.normal(size=3)
        after = rotation(axis / np.linalg.norm(axis) * math.radians(rng.uniform(2, 15)))   # device rotation, device frame
        held = rotation(self.up)
        self.down = rotation_vector(held.T @ after)
        self.after = after
        axis = rng.normal(size=3)
        self.wobble_axis = axis / np.linalg.norm(axis)
        self.wobble = math.radians(rng.uniform(2, 8))
        self.wobble_hz = rng.uniform(0.2, 0.8)

    @staticmethod
    def ease(local, length):
        u = min(1.0, max(0.0, local / length))
        return (1 - math.cos(math.pi * u)) / 2, math.pi / (2 * length) * math.sin(math.pi * u)

    def state(self, t):
        """(D, ω): the device's rotation relative to its original mount (device frame) and its relative rate."""
        if t <= self.start:
            return np.eye(3), np.zeros(3)
        if t >= self.end:
            return self.after, np.zeros(3)
        local, length = t - self.start, self.end - self.start
        if local < self.rise:
            s, ds = self.ease(local, self.rise)
            return rotation(self.up * s), self.up * ds
        if local > length - self.fall:
            s, ds = self.ease(local - (length - self.fall), self.fall)
            return rotation(self.up) @ rotation(self.down * s), self.down * ds
        held_local = local - self.rise
        held_length = length - self.rise - self.fall
        ramp = min(1.0, held_length / 3)
        edge = min(held_local, held_length - held_local)
        envelope = 1.0 if edge >= ramp else math.sin(max(0.0, edge) / ramp * math.pi / 2) ** 2
        omega = 2 * math.pi * self.wobble_hz
        w = self.wobble * envelope * math.sin(omega * held_local)
        w_dot = self.wobble * envelope * omega * math.cos(omega * held_local)   # envelope slope left out (≤ 1 s ramps)
        return rotation(self.up) @ rotation(self.wobble_axis * w), self.wobble_axis * w_dot


def parse_handling(text, rng):
    handlings = []
    for part in (text or "").split(","):
        if not part:
            continue
        fields = part.split(":")
        if len(fields) not in (2, 3) or (len(fields) == 3 and fields[2] not in ("slow", "gentle", "fast")):
            raise SystemExit(f"jsbsim_flight.py: bad handling '{part}': start:seconds[:slow|gentle|fast]")
        start, length = float(fields[0]), float(fields[1])
        if length <= 0:
            raise SystemExit(f"jsbsim_flight.py: bad handling '{part}': seconds > 0")
        handlings.append(Handling(start, length, fields[2] if len(fields) == 3 else "slow", rng))
    return sorted(handlings, key=lambda h: h.start)


def pressure_altitude_ft(p_hpa):
    """ISA pressure altitude, feet, of a static pressure (ICAO Doc 7488: troposphere, isothermal above 11 km)."""
    p11 = 226.32063
    if p_hpa >= p11:
        return 288.15 / 0.0065 * (1 - (p_hpa / 1013.25) ** (287.05287 * 0.0065 / G0)) / FT
    return (11_000 + 287.05287 * 216.65 / G0 * math.log(p11 / p_hpa)) / FT


def parse_levels(text):
    """`FL:until_s,…` → [(FL, until seconds)], in time order."""
    levels = []
    for part in (text or "").split(","):
        if not part:
            continue
        level, until = part.split(":")
        levels.append((int(level), float(until)))
    if any(b[1] <= a[1] for a, b in zip(levels, levels[1:])):
        raise SystemExit("jsbsim_flight.py: --levels times must increase")
    return levels


def level_target(levels, t):
    """(target pressure altitude ft, target vertical speed ft/s): hold each level until its time, then move to the
    next at CLIMB_FPM."""
    for i, (level, until) in enumerate(levels):
        if t <= until or i == len(levels) - 1:
            if i == 0:
                return level * 100.0, 0.0
            previous, start = levels[i - 1][0] * 100.0, levels[i - 1][1]
            change = level * 100.0 - previous
            moved = min(abs(change), (t - start) * CLIMB_FPM / 60)
            rate = 0.0 if moved >= abs(change) else math.copysign(CLIMB_FPM / 60, change)
            return previous + math.copysign(moved, change), rate
    return levels[-1][0] * 100.0, 0.0


def parse_segments(text):
    segments = []
    for part in text.split(","):
        index, seconds = part.split(":")
        index, seconds = int(index), float(seconds)
        if not (0 <= index <= 7) or seconds <= 0:
            raise SystemExit(f"jsbsim_flight.py: bad segment '{part}': POE index 0…7, seconds > 0")
        segments.append((index, seconds))
    return segments


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--aircraft", choices=sorted(AIRCRAFT), required=True)
    parser.add_argument("--segments", required=True, help="POE:seconds,… e.g. 0:60,4:180,6:180")
    parser.add_argument("--out", required=True)
    parser.add_argument("--rate", type=float, default=50.0, help="accelerometer/gyro rate, Hz (divides 200)")
    parser.add_argument("--noise-mg", type=float, default=1.5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--turb-type", type=int, choices=[3, 4], default=3,
                        help="3 = Milspec (first-order w, default), 4 = Tustin (Dryden w; unstable when the severity changes in flight)")
    parser.add_argument("--handling", default="",
                        help="device pick-ups start:seconds[:slow|gentle|fast], comma separated (default slow), e.g. 200:12:slow")
    # Airliner flight-level flights (scripts/flight_level_oracle.py, docs/altitude.md "Airliner oracle").
    parser.add_argument("--levels", default="",
                        help="flight levels FL:until_s,… held by pressure altitude, climbing or descending CLIMB_FPM between them "
                             "(e.g. 350:900,370:1920); the flight starts level at the first; default: the type's altitude, held geometrically")
    parser.add_argument("--isa-deviation", type=float, default=0.0, help="JSBSim atmosphere/delta-T, °C (uniform ISA deviation)")
    parser.add_argument("--latitude", type=float, default=47.0)
    parser.add_argument("--longitude", type=float, default=8.0)
    parser.add_argument("--track", type=float, default=90.0, help="true track (heading in still air), degrees")
    parser.add_argument("--gnss-noise-m", type=float, default=0.0,
                        help="phone GNSS altitude error: Gauss-Markov 1σ (m, τ 90 s) plus 2 m white; 0 = exact (default)")
    parser.add_argument("--physics-hz", type=int, default=200)
    parser.add_argument("--time-origin", default="2026-11-22T10:00:00Z")
    args = parser.parse_args()

    icao, eddy_class, altitude_ft, speed_prop, speed_value, wing_loading, cla, band = AIRCRAFT[args.aircraft]
    segments = parse_segments(args.segments)
    if args.turb_type == 4 and any(a[0] and b[0] and a[0] != b[0] for a, b in zip(segments, segments[1:])):
        print("jsbsim_flight.py: warning: with turb-type 4 (Tustin), JSBSim 1.3.3 produces gusts of tens of m/s for "
              "a while after the severity changes between two non-zero values; use turb-type 3", file=sys.stderr)
    physics_hz = args.physics_hz
    decimate = int(round(physics_hz / args.rate))
    if decimate * args.rate != physics_hz:
        raise SystemExit(f"jsbsim_flight.py: --rate must divide --physics-hz {physics_hz} (e.g. 50, 100, 200, 40, 25)")
    levels = parse_levels(args.levels)
    rng = np.random.default_rng(args.seed)
    mount = random_mount(rng)
    handlings = parse_handling(args.handling, np.random.default_rng(args.seed + 7919))

    fdm = jsbsim.FGFDMExec(None)
    fdm.set_debug_level(0)
    fdm.load_model(args.aircraft)
    fdm.set_dt(1.0 / physics_hz)
    fdm["simulation/randomseed"] = args.seed
    # position first: setting latitude later re-derives the speed and would lose the Mach number
    fdm["ic/lat-geod-deg"] = args.latitude
    fdm["ic/long-gc-deg"] = args.longitude
    fdm["ic/psi-true-deg"] = args.track
    fdm["ic/gamma-deg"] = 0.0
    fdm["atmosphere/delta-T"] = args.isa_deviation * 1.8   # Rankine
    if levels:
        # the geometric height of the first flight level in this atmosphere (a few initial-condition passes)
        altitude_ft = levels[0][0] * 100.0
        for _ in range(4):
            fdm["ic/h-sl-ft"] = altitude_ft
            fdm[speed_prop] = speed_value
            fdm.run_ic()
            altitude_ft += levels[0][0] * 100.0 - pressure_altitude_ft(fdm["atmosphere/P-psf"] * PSF_TO_HPA)
    fdm["ic/h-sl-ft"] = altitude_ft
    fdm[speed_prop] = speed_value
    fdm.run_ic()
    fdm["propulsion/set-running"] = -1
    fdm["simulation/do_simple_trim"] = 1
    theta0 = fdm["attitude/theta-rad"]
    engines = {"737": 2, "787-8": 2, "c172p": 1, "DHC6": 2}[args.aircraft] if levels else 0
    throttle0 = [fdm[f"fcs/throttle-cmd-norm[{i}]"] for i in range(engines)]
    gnss_rng = np.random.default_rng(args.seed + 104729)
    gnss_error = gnss_rng.normal(scale=args.gnss_noise_m) if args.gnss_noise_m > 0 else 0.0
    truth_rows = []
    altitude_integral = 0.0
    elevator0 = fdm["fcs/elevator-cmd-norm"]
    aileron0 = fdm["fcs/aileron-cmd-norm"]
    h0 = fdm["position/h-sl-ft"]
    psi0 = fdm["attitude/psi-rad"]
    pitch_gain, pitch_rate_gain = PITCH_GAINS[args.aircraft]
    fdm["atmosphere/turb-type"] = args.turb_type

    speed = fdm["velocities/vt-fps"] * FT
    rho = fdm["atmosphere/rho-slugs_ft3"] * 515.378818
    os.makedirs(args.out, exist_ok=True)
    files = {name: open(os.path.join(args.out, name), "w", newline="\n") for name in
             ("accelerometer.csv", "gyroscope.csv", "location.csv", "barometer.csv")}
    files["accelerometer.csv"].write("t,ax,ay,az\n")
    files["gyroscope.csv"].write("t,wx,wy,wz\n")
    files["location.csv"].write("t,lat,lon,alt_m,h_acc_m,v_acc_m,speed_mps,course_deg\n")
    files["barometer.csv"].write("t,pressure_hpa\n")
    cabin_hpa = 1013.25 * (1 - 6000 * FT / 44330.8) ** 5.25588  # 6,000 ft cabin

    truth, record = [], []
    step = 0
    t_start = 0.0
    noise_g = args.noise_mg / 1000.0
    max_bank = max_theta_dev = 0.0
    altitude_range = [h0, h0]
    speed_range = [speed, speed]
    for index, seconds in segments:
        sigma_fps = poe_sigma_w_fps(index, fdm["position/h-sl-ft"])
        fdm["atmosphere/turbulence/milspec/severity"] = index
        fdm["atmosphere/turbulence/milspec/windspeed_at_20ft"] = W20_KT[index]
        sigma = sigma_fps * FT
        length = DRYDEN_L_FT * FT
        edr_band = band_equivalent_edr(sigma, length, speed, rho, wing_loading, cla, band, args.turb_type)
        edr_formula = sigma / (1.119 * length ** (1 / 3))
        t_end = t_start + seconds
        truth.append({"start": round(t_start, 4), "end": round(t_end, 4), "edr": round(edr_band, 4)})
        record.append({"start": round(t_start, 4), "end": round(t_end, 4), "poe_index": index,
                       "sigma_w_mps": round(sigma, 4), "length_scale_m": round(length, 2),
                       "edr_band": round(edr_band, 4), "edr_formula": round(edr_formula, 4)})
        steps = int(round(seconds * physics_hz))
        gust_down, airspeed = np.empty(steps), np.empty(steps)
        for k in range(steps):
            # gentle attitude autopilot: pitch toward trim (slow altitude loop), wings level
            theta = fdm["attitude/theta-rad"]
            phi = fdm["attitude/phi-rad"]
            if levels:
                # pressure-altitude hold with a climb/descent schedule: feed-forward flight-path angle, slow altitude loop,
                # and a simple auto-throttle on true airspeed
                t_now = step / physics_hz
                target_ft, rate_fps = level_target(levels, t_now)
                pa = pressure_altitude_ft(fdm["atmosphere/P-psf"] * PSF_TO_HPA)
                vt = fdm["velocities/vt-fps"]
                altitude_integral += (pa - target_ft) / physics_hz
                # commanded flight-path angle from the schedule and the altitude error, its own error damped by pitch
                gamma_cmd = math.asin(max(-0.1, min(0.1, (rate_fps - 0.15 * (pa - target_ft) - 0.002 * altitude_integral) / vt)))
                gamma = math.asin(max(-0.2, min(0.2, fdm["velocities/h-dot-fps"] / vt)))
                target = theta0 + gamma_cmd + 2.0 * (gamma_cmd - gamma)
                for i, t0 in enumerate(throttle0):
                    fdm[f"fcs/throttle-cmd-norm[{i}]"] = min(1, max(0, t0 + 0.3 * (speed - vt * FT) + (0.25 if rate_fps > 0 else -0.15 if rate_fps < 0 else 0)))
            else:
                target = theta0 - 0.0005 * (fdm["position/h-sl-ft"] - h0)
            fdm["fcs/elevator-cmd-norm"] = min(1, max(-1, elevator0 + pitch_gain * (theta - target) + pitch_rate_gain * fdm["velocities/q-rad_sec"]))
            heading_error = (fdm["attitude/psi-rad"] - psi0 + math.pi) % (2 * math.pi) - math.pi
            bank_target = min(BANK_LIMIT_RAD, max(-BANK_LIMIT_RAD, -HEADING_GAIN * heading_error))
            fdm["fcs/aileron-cmd-norm"] = min(1, max(-1, aileron0 - ROLL_GAIN * (phi - bank_target) - ROLL_RATE_GAIN * fdm["velocities/p-rad_sec"]))
            fdm.run()
            step += 1
            gust_down[k] = fdm["atmosphere/total-wind-down-fps"] * FT   # the wind JSBSim applied (steady + turbulence)
            airspeed[k] = fdm["velocities/vt-fps"] * FT
            max_bank = max(max_bank, abs(math.degrees(phi)))
            max_theta_dev = max(max_theta_dev, abs(math.degrees(theta - theta0)))
            if step % physics_hz == 0:
                altitude_range = [min(altitude_range[0], fdm["position/h-sl-ft"]), max(altitude_range[1], fdm["position/h-sl-ft"])]
                vg = fdm["velocities/vg-fps"] * FT   # ground speed: airspeed also carries the gusts' u-component
                speed_range = [min(speed_range[0], vg), max(speed_range[1], vg)]
            if step % decimate:
                continue
            t = step / physics_hz
            n = np.array([fdm["accelerations/n-pilot-x-norm"], fdm["accelerations/n-pilot-y-norm"], fdm["accelerations/n-pilot-z-norm"]])
            device, relative = mount, np.zeros(3)
            for handling in handlings:
                if t > handling.start:
                    # D is the device's rotation (device frame); body vectors read in the turned device: Dᵀ M v.
                    d, relative = handling.state(t)
                    device = d.T @ device
            reading = device @ (-n) + rng.normal(scale=noise_g, size=3)
            rates = device @ np.array([fdm["velocities/p-rad_sec"], fdm["velocities/q-rad_sec"], fdm["velocities/r-rad_sec"]]) + relative
            rates = rates + rng.normal(scale=0.002, size=3)
            ts = fmt(t, 4)
            files["accelerometer.csv"].write(f"{ts},{fmt(reading[0], 4)},{fmt(reading[1], 4)},{fmt(reading[2], 4)}\n")
            files["gyroscope.csv"].write(f"{ts},{fmt(rates[0], 4)},{fmt(rates[1], 4)},{fmt(rates[2], 4)}\n")
            if step % physics_hz == 0:
                course = math.degrees(fdm["flight-path/psi-gt-rad"]) % 360
                gnss_alt = fdm['position/h-sl-meters']
                if args.gnss_noise_m > 0:
                    a = math.exp(-1 / 90.0)
                    gnss_error = a * gnss_error + math.sqrt(1 - a * a) * gnss_rng.normal(scale=args.gnss_noise_m)
                    gnss_alt += gnss_error + gnss_rng.normal(scale=2.0)
                files["location.csv"].write(
                    f"{ts},{fmt(fdm['position/lat-geod-deg'], 7)},{fmt(fdm['position/long-gc-deg'], 7)},"
                    f"{fmt(gnss_alt, 2)},5.0,8.0,{fmt(fdm['velocities/vg-fps'] * FT, 2)},{fmt(course, 2)}\n")
                if levels:
                    truth_rows.append(f"{ts},{fmt(pressure_altitude_ft(fdm['atmosphere/P-psf'] * PSF_TO_HPA), 1)},"
                                      f"{fmt(fdm['position/h-sl-ft'], 1)},{fmt(fdm['atmosphere/T-R'] / 1.8 - 273.15, 2)}")
                pressure = cabin_hpa if eddy_class != "small" else fdm["atmosphere/P-psf"] * PSF_TO_HPA
                files["barometer.csv"].write(f"{ts},{fmt(pressure + rng.normal(scale=0.02), 3)}\n")
        # The truth: from the gusts JSBSim actually applied, not from the table's σ_w (docs/replay.md §JSBSim flights).
        tas = float(airspeed.mean())
        edr_independent, band_variance = independent_edr(gust_down, physics_hz, tas, band) if index else (0.0, 0.0)
        truth[-1]["edr"] = round(edr_independent, 4)
        record[-1].update({"edr_independent": round(edr_independent, 4), "edr_model_weighted": round(edr_band, 4),
                           "applied_sigma_w_mps": round(float(gust_down.std()), 4),
                           "applied_band_variance_m2_s2": round(band_variance, 6), "segment_tas_mps": round(tas, 2)})
        del record[-1]["edr_band"]
        t_start = t_end
    for f in files.values():
        f.close()
    if levels:
        with open(os.path.join(args.out, "truth-pressure-altitude.csv"), "w", newline="\n") as f:
            f.write("t,pressure_alt_ft,msl_ft,static_air_temperature_c\n" + "\n".join(truth_rows) + "\n")
    # A flight that left cruise (upset, stall, spiral) is not a turbulence measurement: refuse it.
    planned_change = (max(l for l, _ in levels) - min(l for l, _ in levels)) * 100 if levels else 0
    if altitude_range[1] - altitude_range[0] > 1000 + planned_change * 1.2 or speed_range[0] < 0.6 * speed or max_bank > 30:
        for name in files:
            os.remove(os.path.join(args.out, name))
        sys.exit(f"jsbsim_flight.py: the aircraft left cruise (altitude {altitude_range[0]:.0f}…{altitude_range[1]:.0f} ft, "
                 f"ground speed {speed_range[0]:.1f}…{speed_range[1]:.1f} m/s, bank up to {max_bank:.1f}°); "
                 "try another seed or lower severities")

    meta = {
        "format": "eddy-sensor-log",
        "version": 1,
        "time_origin": args.time_origin,
        "aircraft": {"type": icao, "class": eddy_class},
        "device": {"model": "JSBSim virtual device", "pressurized_cabin": eddy_class != "small"},
        "truth": {"turbulence": truth, "handling": [{"start": h.start, "end": h.end} for h in handlings]},
        "jsbsim": {
            "model": args.aircraft, "jsbsim_version": jsbsim.__version__, "turb_type": args.turb_type,
            "altitude_ft": altitude_ft, "true_airspeed_mps": round(speed, 2),
            "model_wing_loading_n_m2": round(fdm["inertia/weight-lbs"] * 4.4482216 / (fdm["metrics/Sw-sqft"] * FT * FT), 1), "air_density_kg_m3": round(rho, 4),
            "seed": args.seed, "noise_mg": args.noise_mg, "rate_hz": args.rate,
            **({"levels": [[l, u] for l, u in levels], "isa_deviation_c": args.isa_deviation, "latitude": args.latitude,
                "longitude": args.longitude, "track_deg": args.track, "gnss_noise_m": args.gnss_noise_m,
                "physics_hz": physics_hz} if levels else {}),
            "band_hz": list(band), "max_bank_deg": round(max_bank, 1), "max_pitch_deviation_deg": round(max_theta_dev, 1),
            "altitude_range_ft": [round(a) for a in altitude_range], "ground_speed_range_mps": [round(v, 1) for v in speed_range],
            "truth_rule": ("edr = edr_independent: EDR of the von Karman field (L = 762 m) with the same vertical-gust variance in the "
                           "class band as the gusts JSBSim applied (atmosphere/total-wind-down-fps); edr_model_weighted = the same "
                           "match weighted by the class's rigid-plunge response, from the table sigma_w; edr_formula = sigma_w / (1.119 L^(1/3))"),
            "segments": record,
        },
    }
    with open(os.path.join(args.out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2, sort_keys=True)
        f.write("\n")
    print(f"{args.out}: {len(segments)} segments, {t_start:.0f} s, max bank {max_bank:.1f}°, "
          + ", ".join(f"POE {r['poe_index']}: σ_w {r['sigma_w_mps']} m/s (applied {r['applied_sigma_w_mps']}) EDR {r['edr_independent']} "
                     f"(model-weighted {r['edr_model_weighted']}, formula {r['edr_formula']})" for r in record))


if __name__ == "__main__":
    main()
