#!/usr/bin/env bash
# Oracle check: schemathesis (PyPI) fuzzes a live eddy-server against the /openapi.yaml it serves.
# Pass: no 5xx and no response that breaks the schema (status codes, content types, bodies, headers), and every
# method a path does not take answered 405 with an `Allow` header naming those it does (unsupported_method,
# allow_header_conformance).
# Usage: scripts/schemathesis_check.sh [path/to/eddy-server] [max examples per operation]
# EDDY_SERVER_DATABASE=postgres://… runs the server on that database (--database) instead of a temporary SQLite file.
set -euo pipefail
cd "$(dirname "$0")/.."
SERVER="${1:-.build/debug/eddy-server}"
EXAMPLES="${2:-60}"
SCHEMATHESIS="${SCHEMATHESIS:-.venv/bin/schemathesis}"
[ -x "$SERVER" ] || { echo "schemathesis_check: $SERVER not built (run: swift build)" >&2; exit 2; }
[ -x "$SCHEMATHESIS" ] || { echo "schemathesis_check: $SCHEMATHESIS missing (run: make venv)" >&2; exit 2; }

WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() { [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

DATABASE="${EDDY_SERVER_DATABASE:-sqlite:$WORK/server.sqlite}"
KEY="$("$SERVER" keys add --database "$DATABASE" --airline SCH --label schemathesis | awk '{print $NF}')"
# --min-client-version 0.0.0: every well-formed X-Eddy-Client-Version passes (a malformed one is still 400), so the
# versions schemathesis generates from the header's pattern (mostly below 1.0.0) reach the body checks instead of
# being answered 426 before them (SmallDefectTests covers 426 and the header's 400).
"$SERVER" serve --database "$DATABASE" --port 0 --rate-limit 0 --min-client-version 0.0.0 --log-level error >"$WORK/stdout" 2>"$WORK/stderr" &
SERVER_PID=$!
PORT=""
for _ in $(seq 1 300); do
  PORT="$(sed -n 's/^eddy-server listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$WORK/stdout" | head -1)"
  [ -n "$PORT" ] && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/stderr" >&2; exit 1; }
  sleep 0.1
done
[ -n "$PORT" ] || { echo "schemathesis_check: server did not start" >&2; exit 1; }
BASE="http://127.0.0.1:$PORT"
TOKEN="$(curl -sf -X POST "$BASE/v1/session" -H 'Content-Type: application/json' \
  -d "{\"apiKey\":\"$KEY\",\"airline\":\"SCH\",\"userId\":\"fuzzer\",\"clientVersion\":\"1.0.0\"}" \
  | .venv/bin/python -c 'import json,sys; print(json.load(sys.stdin)["token"])')"

# Run from the scratch directory: schemathesis keeps its run data (.schemathesis/, .hypothesis/) in the cwd.
SCHEMATHESIS_ABS="$(cd "$(dirname "$SCHEMATHESIS")" && pwd)/$(basename "$SCHEMATHESIS")"
cd "$WORK"
"$SCHEMATHESIS_ABS" run "$BASE/openapi.yaml" \
  --header "Authorization: Bearer $TOKEN" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,negative_data_rejection,ignored_auth,unsupported_method,allow_header_conformance \
  --max-examples "$EXAMPLES" --seed 20261122 --workers 1 --request-timeout 10 \
  --suppress-health-check all
echo "schemathesis_check: eddy-server on ${DATABASE%%:*} passed (no 5xx, no schema break)"
