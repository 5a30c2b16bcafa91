#!/usr/bin/env bash
# After `make test-tsan` / `make test-asan`: every process of the run (the test bundle and each `eddy`, `eddy-server`
# it started) wrote its sanitizer reports to DIR/report.PID (log_path). The servers' own output files are temporary and
# a server stopped with SIGTERM/SIGKILL never reports through an exit status, so this is where a report in a child is
# seen. Prints every report and exits 1 when there is one; otherwise exits with the test run's status (second argument).
set -u
dir="$1"; status="${2:-0}"
shopt -s nullglob
reports=("$dir"/report.*)
if [ "${#reports[@]}" -gt 0 ]; then
  for f in "${reports[@]}"; do echo "=== $f"; cat "$f"; done
  echo "sanitizer: ${#reports[@]} process(es) reported (files in $dir)" >&2
  exit 1
fi
echo "sanitizer: no report from any process (test bundle and every eddy / eddy-server it started)"
exit "$status"
