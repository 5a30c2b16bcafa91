#!/usr/bin/env bash
# After `make test-tsan` / `make test-asan`: every process of the run (the test bundle and each `eddy`, `eddy-server`
# it started) wrote its sanitizer output to DIR/report.PID (log_path). The servers' own output files are temporary and
# a server stopped with SIGTERM/SIGKILL never reports through an exit status, so this is where a report in a child is
# seen. A file with a report (an ERROR, a ThreadSanitizer WARNING or a SUMMARY line) fails the run; a file that only
# lists the suppressions used is printed for the record. Exits 1 on a report, otherwise with the test run's status
# (second argument).
set -u
dir="$1"; status="${2:-0}"
shopt -s nullglob
found=0
for f in "$dir"/report.*; do
  if grep -qE '^(==[0-9]+==ERROR: |WARNING: ThreadSanitizer|SUMMARY: )' "$f"; then
    echo "=== sanitizer report: $f"; cat "$f"; found=$((found + 1))
  else
    echo "=== (no report; suppressions used) $f"; cat "$f"
  fi
done
if [ "$found" -gt 0 ]; then
  echo "sanitizer: $found process(es) reported (files in $dir)" >&2
  exit 1
fi
echo "sanitizer: no report from any process (the test bundle and every eddy / eddy-server it started)"
exit "$status"
