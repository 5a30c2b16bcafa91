#!/usr/bin/env bash
# Prints the SHA-256 of `eddy replay --json` and of offline `eddy replay --engine --json` for every fixture
# flight: a refactoring that must not change behaviour keeps these lines identical (compare before and after).
#   bash scripts/output_checksums.sh [path/to/eddy]        (default .build/release/eddy)
set -euo pipefail
cd "$(dirname "$0")/.."
EDDY=${1:-.build/release/eddy}
if [ ! -x "$EDDY" ]; then echo "no eddy executable at $EDDY: build it first (swift build -c release)" >&2; exit 2; fi
for flight in Fixtures/flights/*/; do
  flight=${flight%/}
  replay=$("$EDDY" replay --json "$flight" | sha256sum | cut -c1-64)
  engine=$("$EDDY" replay --engine --json "$flight" | sha256sum | cut -c1-64)
  echo "$(basename "$flight") replay-json $replay"
  echo "$(basename "$flight") engine-json $engine"
done
