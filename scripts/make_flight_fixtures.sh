#!/usr/bin/env bash
# Regenerates Fixtures/flights/* (simulated and JSBSim flights). Deterministic: same tools, same bytes.
#   bash scripts/make_flight_fixtures.sh            (uses .build/release/eddy and .venv/bin/python)
#   EDDY=path/to/eddy PYTHON=python3 bash scripts/make_flight_fixtures.sh
set -euo pipefail
cd "$(dirname "$0")/.."
EDDY=${EDDY:-.build/release/eddy}
PYTHON=${PYTHON:-.venv/bin/python}
OUT=Fixtures/flights
if [ ! -x "$EDDY" ]; then swift build -c release --product eddy; fi
mkdir -p "$OUT"

# The flight `make run` replays: medium class, 50 Hz, 24 min with smooth, light, moderate and severe
# air and one handling burst (the device is picked up and put back at another angle).
"$EDDY" simulate "$OUT/sim-medium-mixed" --class medium --rate 50 \
  --segments 0:5m,0.12:4m,0.25:4m,0:3m,0.5:4m,0:4m --handling 990:15 --noise-mg 1.5 --seed 11

# Small class (C172-like), light to moderate, with a 25° turn; no barometer.
"$EDDY" simulate "$OUT/sim-small-turn" --class small --rate 50 \
  --segments 0:3m,0.1:3m,0.25:3m --turn 4m:90s:25 --noise-mg 1.5 --seed 12 --no-baro --no-gyro

# A device lying flat on a seat: must measure nothing.
"$EDDY" simulate "$OUT/sim-flat" --class medium --rate 25 --segments 0:1m,0.3:3m --flat --seed 13 --no-baro

# JSBSim (independent 6-DOF response) through MIL-F-8785C turbulence; truth = band-equivalent EDR.
"$PYTHON" scripts/jsbsim_flight.py --aircraft 737 --segments 0:60,4:240,5:240,6:240 --seed 21 --out "$OUT/jsbsim-737-mixed"
"$PYTHON" scripts/jsbsim_flight.py --aircraft c172p --segments 0:60,2:240,3:240,4:240 --seed 22 --out "$OUT/jsbsim-c172-mixed"

du -sh "$OUT"/* | sed 's/^/  /'
