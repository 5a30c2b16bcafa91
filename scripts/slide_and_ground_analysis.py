#!/usr/bin/env python3
"""The numbers behind docs/detection.md §2 "Tilt trend" and §5 "Ground rolls without location".

1. Tilt trend (slides without gyro). The quick vertical (25 Hz tick means, τ = 0.25 s) of a 10° slide over 3 s
   (s(u) = (1 − cos πu)/2, the simulator's profile), and the tilt-trend statistic the pipeline uses: the largest T
   for which "angle ≥ T, angle − angle 1.52 s ago ≥ T, never falling back by more than 0.5° in between" holds.
   The same statistic on the JSBSim fixture flights' turbulence (an outside 6-DOF model) and on JSBSim C172
   sideslips, power changes and pitch changes (needs the `jsbsim` package: `make venv`).
2. Ground vibration. The share of the EDR band's load-factor power below 1 Hz (10-s windows) on the JSBSim fixtures
   and, with --eddy, on simulated take-off and landing rolls and taxi (ISO 8608 class B and C) and airborne turbulence.

Usage: .venv/bin/python scripts/slide_and_ground_analysis.py [--eddy .build/debug/eddy] [--no-jsbsim]
"""
import argparse
import math
import os
import subprocess
import tempfile

import numpy as np

TICK = 0.04
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures", "flights")


def ticks(path):
    d = np.loadtxt(os.path.join(path, "accelerometer.csv"), delimiter=",", skiprows=1)
    t, a = d[:, 0], d[:, 1:4]
    idx = np.floor(t / TICK).astype(int)
    idx -= idx[0]
    s = np.zeros((idx[-1] + 1, 3))
    c = np.zeros(idx[-1] + 1)
    np.add.at(s, idx, a)
    np.add.at(c, idx, 1)
    m = s / np.maximum(c, 1)[:, None]
    return (np.arange(len(m)) + 1 + math.floor(t[0] / TICK)) * TICK, m


def lowpass(x, tau):
    alpha = TICK / (tau + TICK)
    y = np.empty_like(x)
    y[0] = x[0]
    for i in range(1, len(x)):
        y[i] = y[i - 1] + (x[i] - y[i - 1]) * alpha
    return y


def unit(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def trend_statistic(angle, window_ticks=38, drawdown=0.5):
    """Per tick: the largest T with angle ≥ T and a rise ≥ T over the window without a fall-back > drawdown."""
    out = np.zeros_like(angle)
    for i in range(window_ticks, len(angle)):
        seg = angle[i - window_ticks:i + 1]
        if np.max(np.maximum.accumulate(seg) - seg) > drawdown:
            continue
        out[i] = min(angle[i], angle[i] - seg[0])
    return out


def slide_curve():
    t = np.arange(0, 4.0001, TICK)
    true = 10 * np.where(t < 3, (1 - np.cos(np.pi * t / 3)) / 2, 1)
    quick = lowpass(true, 0.25)
    stat = trend_statistic(quick)
    print("10° slide over 3 s (quick = τ 0.25 s; trend = tilt-trend statistic):")
    for at in (1.0, 1.5, 1.8, 1.9, 2.0, 2.5, 3.0):
        i = int(round(at / TICK))
        print(f"  t {at:.1f} s: vertical {true[i]:5.2f}°  quick {quick[i]:5.2f}°  trend {stat[i]:5.2f}°")
    first = next((t[i] for i in range(len(t)) if stat[i] >= 5.5), None)
    print(f"  trend ≥ 5.5° first at {first:.2f} s")


def fixture_turbulence():
    import json
    for name in ("jsbsim-c172-mixed", "jsbsim-737-mixed"):
        path = os.path.join(FIXTURES, name)
        t, m = ticks(path)
        quick = unit(lowpass(m, 0.25))
        steady = unit(lowpass(m, 2.0))
        ref = steady[int(12 / TICK)]   # calibrated in the smooth first minute
        angle = np.degrees(np.arccos(np.clip((quick * ref).sum(1), -1, 1)))
        stat = trend_statistic(angle)
        meta = json.load(open(os.path.join(path, "meta.json")))
        for seg in meta["jsbsim"]["segments"][1:]:
            sel = (t >= seg["start"] + 15) & (t < seg["end"])
            print(f"  {name} EDR {seg['edr_independent']:.2f}: largest tilt {angle[sel].max():4.1f}°, largest trend {stat[sel].max():4.1f}°")


def jsbsim_confounders():
    import jsbsim

    def run(knots, action, seconds=8.0):
        fdm = jsbsim.FGFDMExec(None)
        fdm.set_debug_level(0)
        fdm.load_model("c172p")
        fdm.set_dt(1 / 200)
        fdm["ic/lat-geod-deg"], fdm["ic/long-gc-deg"], fdm["ic/psi-true-deg"], fdm["ic/gamma-deg"] = 47, 8, 90, 0
        fdm["ic/h-sl-ft"], fdm["ic/vc-kts"] = 3000, knots
        fdm.run_ic()
        fdm["propulsion/set-running"] = -1
        fdm["simulation/do_simple_trim"] = 1
        trim = (fdm["fcs/aileron-cmd-norm"], fdm["fcs/elevator-cmd-norm"], fdm["fcs/throttle-cmd-norm[0]"], fdm["attitude/theta-rad"])

        def force():
            v = np.array([fdm["accelerations/Nx"], fdm["accelerations/Ny"], fdm["accelerations/Nz"]])
            return v / np.linalg.norm(v)
        ref = force()
        angles = []
        for k in range(int(seconds * 200)):
            action(fdm, k / 200, trim)
            phi = fdm["attitude/phi-rad"]   # wings held level by aileron (crossed controls in a slip)
            fdm["fcs/aileron-cmd-norm"] = max(-1, min(1, trim[0] - 3 * phi - 0.5 * fdm["velocities/p-rad_sec"]))
            fdm.run()
            if k % 8 == 7:
                angles.append(math.degrees(math.acos(max(-1, min(1, force() @ ref)))))
        quick = lowpass(np.array(angles), 0.25)
        stat = trend_statistic(quick)
        first = next((round((i + 1) * TICK, 2) for i in range(len(stat)) if stat[i] >= 5.5), None)
        return quick.max(), stat.max(), first

    def ramp(t):
        return min(1.0, t / 1.0)

    def slip(amount):
        return lambda fdm, t, trim: fdm.__setitem__("fcs/rudder-cmd-norm", amount * ramp(t))

    def power(to):
        return lambda fdm, t, trim: fdm.__setitem__("fcs/throttle-cmd-norm[0]", trim[2] + (to - trim[2]) * ramp(t))

    def pitch(degrees, rate):
        def act(fdm, t, trim):
            target = trim[3] + math.radians(math.copysign(min(abs(degrees), rate * t), degrees))
            fdm["fcs/elevator-cmd-norm"] = max(-1, min(1, trim[1] + (fdm["attitude/theta-rad"] - target) + 0.3 * fdm["velocities/q-rad_sec"]))
        return act

    for knots in (65, 105):
        for label, action in ((f"sideslip, half rudder in 1 s", slip(0.5)), ("sideslip, full rudder in 1 s", slip(1.0)),
                              ("full power in 1 s", power(1.0)), ("idle in 1 s", power(0.0)),
                              ("pitch +8° at 4°/s", pitch(8, 4)), ("pitch −6° at 3°/s", pitch(-6, 3))):
            quick, stat, first = run(knots, action)
            print(f"  C172 {knots} kt {label:30s}: quick tilt max {quick:4.1f}°, trend max {stat:4.1f}°, trend ≥ 5.5° at {first} s")


def band_share(path, band, t0, t1, window=250):
    t, m = ticks(path)
    n = (m * unit(lowpass(m, 5.0))).sum(1)
    shares = []
    for s in range(0, len(n) - window, window // 2):
        if t[s] < t0 or t[s + window] > t1:
            continue
        x = n[s:s + window] - n[s:s + window].mean()
        p = np.abs(np.fft.rfft(x * np.hanning(window))) ** 2
        f = np.fft.rfftfreq(window, TICK)
        total = p[(f >= band[0]) & (f <= band[1])].sum()
        shares.append(p[(f >= band[0]) & (f < 1)].sum() / total)
    return np.array(shares)


def ground_shares(eddy):
    light, jet = (0.2, 4.0), (0.1, 2.0)
    print("Share of the band's power below 1 Hz, 10-s windows (min / median / max):")
    rows = [("JSBSim C172 EDR 0.29", os.path.join(FIXTURES, "jsbsim-c172-mixed"), light, 555, 780),
            ("JSBSim C172 EDR 0.09", os.path.join(FIXTURES, "jsbsim-c172-mixed"), light, 75, 300),
            ("JSBSim 737 EDR 0.66", os.path.join(FIXTURES, "jsbsim-737-mixed"), jet, 555, 780)]
    tmp = tempfile.mkdtemp(prefix="eddy-ground-")
    if eddy:
        for cls in ("small", "medium", "large"):
            band = light if cls == "small" else jet
            for gd in (64, 256):
                out = os.path.join(tmp, f"land-{cls}-{gd}")
                subprocess.run([eddy, "simulate", out, "--class", cls, "--segments", "0:420", "--manoeuvre",
                                f"landing-roll@120:{gd}", "--seed", "11"], check=True, stdout=subprocess.DEVNULL)
                rows.append((f"{cls} landing roll + taxi Gd {gd}", out, band, 121, 420))
            out = os.path.join(tmp, f"air-{cls}")
            subprocess.run([eddy, "simulate", out, "--class", cls, "--segments", "0:60,0.6:300,0.2:300", "--seed", "5"],
                           check=True, stdout=subprocess.DEVNULL)
            rows.append((f"{cls} simulated EDR 0.6 / 0.2", out, band, 75, 660))
    for label, path, band, t0, t1 in rows:
        s = band_share(path, band, t0, t1)
        print(f"  {label:34s} {s.min():.3f} / {np.median(s):.3f} / {s.max():.3f}  ({len(s)} windows)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--eddy", help="eddy binary (simulates the ground rolls and airborne flights)")
    parser.add_argument("--no-jsbsim", action="store_true", help="skip the JSBSim C172 manoeuvres")
    args = parser.parse_args()
    slide_curve()
    print("Turbulence in the JSBSim fixture flights:")
    fixture_turbulence()
    if not args.no_jsbsim:
        print("JSBSim C172 manoeuvres (specific-force direction in the body frame, from trim):")
        jsbsim_confounders()
    ground_shares(args.eddy)


if __name__ == "__main__":
    main()
