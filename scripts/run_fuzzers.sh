#!/usr/bin/env bash
# Runs each libFuzzer target of .build-fuzz/release/eddy-fuzz for SECONDS (docs/reliability.md, "Fuzzing") and prints,
# per target, `fuzz_<target>_executions`, `fuzz_<target>_exec_per_second` and `fuzz_<target>_crashes` lines, then a total.
#   bash scripts/run_fuzzers.sh SECONDS [TARGET ...]        (default: every target)
# The working corpus grows in .build-fuzz/corpus/<target> (seeded from Fuzz/corpus/<target>, which stays as committed);
# a crashing input is saved as .build-fuzz/crashes/<target>/crash-… and reproduced with
#   EDDY_FUZZ_TARGET=<target> .build-fuzz/release/eddy-fuzz .build-fuzz/crashes/<target>/crash-…
# Exit status 1 when any target crashed.
set -uo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:?seconds per target}
shift
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(csv meta import request response h3 cli hgt)
BIN=${EDDY_FUZZ_BIN:-.build-fuzz/release/eddy-fuzz}
[ -x "$BIN" ] || { echo "run_fuzzers: $BIN is not built (make fuzz-build)"; exit 2; }
total_crashes=0
total_runs=0
for target in "${TARGETS[@]}"; do
  work=.build-fuzz/corpus/$target
  crashes=.build-fuzz/crashes/$target
  mkdir -p "$work" "$crashes"
  log=.build-fuzz/fuzz-$target.log
  started=$(date +%s)
  # Leak checks off: Swift runtime metadata caches look like leaks to LeakSanitizer at exit.
  EDDY_FUZZ_TARGET=$target ASAN_OPTIONS=detect_leaks=0:${ASAN_OPTIONS:-} "$BIN" -max_total_time="$SECONDS_PER_TARGET" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$crashes/" "$work" "Fuzz/corpus/$target" >"$log" 2>&1
  status=$?
  elapsed=$(( $(date +%s) - started ))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  found=$(find "$crashes" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
  if [ "$status" -ne 0 ] && [ "$found" -eq 0 ]; then found=1; fi
  echo "fuzz_${target}_executions: ${runs:-0}"
  echo "fuzz_${target}_exec_per_second: ${rate:-0}"
  echo "fuzz_${target}_seconds: $elapsed"
  echo "fuzz_${target}_crashes: $found"
  if [ "$found" -ne 0 ]; then grep -m3 -E "ERROR|Fatal error|invariant violated|deadly signal" "$log" | sed 's/^/  /'; fi
  total_crashes=$((total_crashes + found))
  total_runs=$((total_runs + ${runs:-0}))
done
echo "fuzz_total_executions: $total_runs"
echo "fuzz_total_crashes: $total_crashes"
[ "$total_crashes" -eq 0 ]
