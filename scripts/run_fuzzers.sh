#!/usr/bin/env bash
# Runs each libFuzzer target of .build-fuzz/release/eddy-fuzz (docs/reliability.md, "Fuzzing") for SECONDS and/or to
# an execution count, and prints, per target as it ends, `fuzz_<target>_executions`, `_exec_per_second`, `_seconds`
# (wall) and `_crashes` lines, then a table of every target and the totals.
#   bash scripts/run_fuzzers.sh SECONDS [TARGET ...]        (default: every target)
# SECONDS 0 means no time limit. Environment:
#   FUZZ_RUNS=N   stop each target after N executions (libFuzzer -runs=N); with SECONDS > 0 too, whichever comes first
#   FUZZ_JOBS=J   run J targets at a time (default 1; 2 on this 2-core machine: one process per core)
# The working corpus grows in .build-fuzz/corpus/<target> (seeded from Fuzz/corpus/<target>, which stays as committed);
# a crashing input is saved as .build-fuzz/crashes/<target>/crash-… and reproduced with
#   SWIFT_BACKTRACE=enable=no EDDY_FUZZ_TARGET=<target> ASAN_OPTIONS=detect_leaks=0 .build-fuzz/release/eddy-fuzz .build-fuzz/crashes/<target>/crash-…
# Exit status 1 when any target crashed.
set -uo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:?seconds per target (0: no limit, then set FUZZ_RUNS)}
shift
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(csv meta import request response h3 cli hgt)
RUNS=${FUZZ_RUNS:-}
JOBS=${FUZZ_JOBS:-1}
BIN=${EDDY_FUZZ_BIN:-.build-fuzz/release/eddy-fuzz}
[ -x "$BIN" ] || { echo "run_fuzzers: $BIN is not built (make fuzz-build)"; exit 2; }
[[ "$SECONDS_PER_TARGET" =~ ^[0-9]+$ ]] || { echo "run_fuzzers: SECONDS must be a whole number, got '$SECONDS_PER_TARGET'"; exit 2; }
[[ -z "$RUNS" || "$RUNS" =~ ^[0-9]+$ ]] || { echo "run_fuzzers: FUZZ_RUNS must be a whole number, got '$RUNS'"; exit 2; }
[[ "$JOBS" =~ ^[1-9][0-9]*$ ]] || { echo "run_fuzzers: FUZZ_JOBS must be 1 or more, got '$JOBS'"; exit 2; }
if [ "$SECONDS_PER_TARGET" -eq 0 ] && [ -z "$RUNS" ]; then echo "run_fuzzers: SECONDS 0 needs FUZZ_RUNS"; exit 2; fi
LIMITS=(-max_total_time="$SECONDS_PER_TARGET")
[ -n "$RUNS" ] && LIMITS+=(-runs="$RUNS")
RESULTS=.build-fuzz/results
rm -rf "$RESULTS"
mkdir -p "$RESULTS"

# One target: runs libFuzzer, prints its lines, leaves "target executions rate seconds crashes" in $RESULTS/<target>.
run_target() {
  local target=$1
  local work=.build-fuzz/corpus/$target crashes=.build-fuzz/crashes/$target log=.build-fuzz/fuzz-$target.log
  mkdir -p "$work" "$crashes"
  local started status elapsed runs rate found
  started=$(date +%s)
  # Leak checks off: Swift runtime metadata caches look like leaks to LeakSanitizer at exit.
  # The Swift runtime's own backtracer off: libFuzzer prints the stack, and under ASan the backtracer trips over it.
  SWIFT_BACKTRACE=enable=no EDDY_FUZZ_TARGET=$target ASAN_OPTIONS=detect_leaks=0:${ASAN_OPTIONS:-} "$BIN" "${LIMITS[@]}" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$crashes/" "$work" "Fuzz/corpus/$target" >"$log" 2>&1
  status=$?
  elapsed=$(( $(date +%s) - started ))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  found=$(find "$crashes" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
  if [ "$status" -ne 0 ] && [ "$found" -eq 0 ]; then found=1; fi
  local report
  report="fuzz_${target}_executions: ${runs:-0}
fuzz_${target}_exec_per_second: ${rate:-0}
fuzz_${target}_seconds: $elapsed
fuzz_${target}_crashes: $found"
  if [ "$found" -ne 0 ]; then
    report+=$'\n'$(grep -m3 -E "ERROR|Fatal error|invariant violated|deadly signal" "$log" | sed 's/^/  /')
  fi
  printf '%s\n' "$report"  # one write, so parallel targets do not interleave their lines
  echo "$target ${runs:-0} ${rate:-0} $elapsed $found" >"$RESULTS/$target"
}

started_all=$(date +%s)
running=0
for target in "${TARGETS[@]}"; do
  if [ "$running" -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
  run_target "$target" &
  running=$((running + 1))
done
wait

total_crashes=0
total_runs=0
echo
printf '%-10s %14s %10s %8s %8s\n' target executions exec/s wall_s crashes
for target in "${TARGETS[@]}"; do
  read -r name runs rate elapsed found <"$RESULTS/$target" || { name=$target runs=0 rate=0 elapsed=0 found=1; }
  printf '%-10s %14s %10s %8s %8s\n' "$name" "$runs" "$rate" "$elapsed" "$found"
  total_crashes=$((total_crashes + found))
  total_runs=$((total_runs + runs))
done
echo "fuzz_total_executions: $total_runs"
echo "fuzz_total_crashes: $total_crashes"
echo "fuzz_total_wall_seconds: $(( $(date +%s) - started_all ))"
[ "$total_crashes" -eq 0 ]
