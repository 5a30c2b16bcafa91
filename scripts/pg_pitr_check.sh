#!/usr/bin/env bash
# Backup, restore and point-in-time recovery of eddy-server's PostgreSQL database, tried once end to end on a
# throw-away cluster (docs/fleet-server.md "Operations: backup, restore, PITR"; `make test-pitr`):
#
#  1. a cluster with WAL archiving (archive_mode=on, archive_command copying each segment to an archive folder);
#  2. a base backup (pg_basebackup) while it is empty of reports;
#  3. a real eddy-server on it: batch A uploaded (session SA), then the time T noted, then batch B (session SB);
#  4. a logical backup (pg_dump -Fc) restored with pg_restore into another database: A and B are there;
#  5. the cluster is lost (stopped -m immediate); a new one is made from the base backup and the WAL archive,
#     recovering up to T (recovery_target_time), and promoted;
#  6. eddy-server started on the recovered database: every report of A is there and none of B, SA's token works and
#     SB's is refused (401), the tick goes on from the last one answered before the loss (1-s ticks), and a new upload
#     is stored.
#
# Usage: scripts/pg_pitr_check.sh [path/to/eddy-server]. Everything lives under .build/pg-pitr (removed at the end);
# loopback only. Exit status 1 when a check fails. Prints the commands it runs (set -x) and how long it took.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SERVER="${1:-$ROOT/.build/debug/eddy-server}"
[ -x "$SERVER" ] || { echo "pg_pitr_check: $SERVER is not built (swift build --product eddy-server)" >&2; exit 2; }
STARTED=$SECONDS
export EDDY_PG_DIR="$ROOT/.build/pg-pitr"
ARCHIVE="$EDDY_PG_DIR/wal-archive"
BASE="$EDDY_PG_DIR/base-backup"
RESTORED="$EDDY_PG_DIR/restored"
DUMP="$EDDY_PG_DIR/eddy.dump"
# shellcheck source=scripts/pg_cluster.sh
. "$ROOT/scripts/pg_cluster.sh"
PY="python3 $ROOT/scripts/pg_pitr_client.py"
SERVER_PID=""
FAILED=0

cleanup() {
    local status=$?
    set +e
    if [ "$status" != 0 ]; then
        for log in "$EDDY_PG_DIR"/*.log "$EDDY_PG_DIR"/server.log; do [ -f "$log" ] && { echo "== $log"; tail -20 "$log"; }; done >&2
    fi
    [ -n "$SERVER_PID" ] && kill -9 "$SERVER_PID" 2>/dev/null
    [ -f "$RESTORED/postmaster.pid" ] && as_owner "$BIN/pg_ctl" -D "$RESTORED" -m immediate -w stop >/dev/null 2>&1
    bash "$ROOT/scripts/pg_cluster.sh" destroy
}
trap cleanup EXIT

run() {   # prints the command, then runs it (the commands quoted in docs/fleet-server.md)
    echo "+ $*" >&2
    "$@"
}

check() {   # check CONDITION-AS-TEXT DESCRIPTION: evaluates the condition, prints ok/FAIL
    if eval "$1"; then echo "ok   $2"; else echo "FAIL $2"; FAILED=1; fi
}

serve() {   # serve DATABASE-URL: starts eddy-server on it, sets SERVER_PID and BASE_URL
    local log="$EDDY_PG_DIR/server-$RANDOM.log"
    "$SERVER" serve --database "$1" --port 0 --tick-seconds 1 --log-level error >"$log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 1 300); do
        if grep -q "listening on" "$log"; then break; fi
        sleep 0.1
    done
    BASE_URL="http://127.0.0.1:$(sed -n 's/.*listening on [0-9.]*:\([0-9]*\).*/\1/p' "$log")"
    grep -q "listening on" "$log" || { cat "$log" >&2; exit 1; }
}

stop_server() { kill -TERM "$SERVER_PID"; wait "$SERVER_PID" || true; SERVER_PID=""; }

psql_at() { as_owner "$BIN/psql" -h 127.0.0.1 -p "$1" -U eddy -d "$2" -qAtX -v ON_ERROR_STOP=1 -c "$3"; }

bash "$ROOT/scripts/pg_cluster.sh" destroy
mkdir -p "$ARCHIVE"
# 1. The cluster, archiving every finished WAL segment (and at least every 60 s: archive_timeout).
run env EDDY_PG_OPTIONS="-c wal_level=replica -c archive_mode=on -c archive_timeout=60 -c archive_command='test ! -f $ARCHIVE/%f && cp %p $ARCHIVE/%f'" \
    bash "$ROOT/scripts/pg_cluster.sh" start
PORT="$(cat "$PORT_FILE")"
run psql_at "$PORT" postgres "CREATE DATABASE eddy"
URL="postgres://eddy@127.0.0.1:$PORT/eddy"
run "$SERVER" keys list --database "$URL"   # creates the schema
KEY="$("$SERVER" keys add --database "$URL" --airline EDY --label pitr | awk '{print $NF}')"

# 2. The base backup: a copy of the data directory plus the WAL needed to make it consistent (-X stream).
run as_owner "$BIN/pg_basebackup" -h 127.0.0.1 -p "$PORT" -U eddy -D "$BASE" -X stream -c fast

# 3. Batch A, the time T, batch B.
serve "$URL"
$PY "$BASE_URL" "$KEY" upload A 300 "$EDDY_PG_DIR/a"
sleep 1
T="$(psql_at "$PORT" postgres "SELECT to_char(clock_timestamp(), 'YYYY-MM-DD HH24:MI:SS.US TZH')")"
sleep 1
$PY "$BASE_URL" "$KEY" upload B 200 "$EDDY_PG_DIR/b"
LAST_TICK="$($PY "$BASE_URL" "$KEY" tick)"   # the last tick the lost cluster's server answered (1-s ticks)

# 4. Logical backup of the database and a restore into another one.
run as_owner "$BIN/pg_dump" -h 127.0.0.1 -p "$PORT" -U eddy -d eddy -Fc -f "$DUMP"
run psql_at "$PORT" postgres "CREATE DATABASE eddy_logical"
run as_owner "$BIN/pg_restore" -h 127.0.0.1 -p "$PORT" -U eddy -d eddy_logical --no-owner --exit-on-error "$DUMP"
LOGICAL_A="$(psql_at "$PORT" eddy_logical "SELECT count(*) FROM observations WHERE id IN ($(cat "$EDDY_PG_DIR/a.sql"))")"
LOGICAL_B="$(psql_at "$PORT" eddy_logical "SELECT count(*) FROM observations WHERE id IN ($(cat "$EDDY_PG_DIR/b.sql"))")"

# 5. Make sure the WAL holding B is archived, then lose the cluster.
run psql_at "$PORT" postgres "SELECT pg_switch_wal()"
for _ in $(seq 1 100); do
    [ "$(psql_at "$PORT" postgres "SELECT count(*) FROM pg_stat_archiver WHERE last_archived_wal >= pg_walfile_name(pg_current_wal_lsn() - 1)")" = 1 ] && break
    sleep 0.2
done
stop_server
run bash "$ROOT/scripts/pg_cluster.sh" stop immediate

# Recovery: the base backup, a restore_command reading the archive, the target time; promoted when it is reached.
# The recovering server needs settings at least as large as the primary's (max_connections: 200 in pg_cluster.sh).
run as_owner cp -a "$BASE" "$RESTORED"
run as_owner bash -c "cat >>'$RESTORED/postgresql.auto.conf' <<EOF
restore_command = 'cp $ARCHIVE/%f %p'
recovery_target_time = '$T'
recovery_target_action = 'promote'
EOF
touch '$RESTORED/recovery.signal'"
PORT2="$(free_port)"
run as_owner "$BIN/pg_ctl" -D "$RESTORED" -l "$EDDY_PG_DIR/restored.log" -w -t 120 start \
    -o "-p $PORT2 -c listen_addresses=127.0.0.1 -k $SOCK -c max_connections=200 -c archive_mode=off"
for _ in $(seq 1 300); do
    [ "$(psql_at "$PORT2" postgres "SELECT pg_is_in_recovery()")" = f ] && break
    sleep 0.2
done

grep -E "starting point-in-time recovery|recovery stopping|redo done|selected new timeline|archive recovery complete" \
    "$EDDY_PG_DIR/restored.log" | sed 's/^/    restored cluster: /'

# 6. eddy-server on the recovered database.
URL2="postgres://eddy@127.0.0.1:$PORT2/eddy"
serve "$URL2"
RESTORED_A="$(psql_at "$PORT2" eddy "SELECT count(*) FROM observations WHERE id IN ($(cat "$EDDY_PG_DIR/a.sql"))")"
RESTORED_B="$(psql_at "$PORT2" eddy "SELECT count(*) FROM observations WHERE id IN ($(cat "$EDDY_PG_DIR/b.sql"))")"
SESSION_A="$($PY "$BASE_URL" "$KEY" session-status "$EDDY_PG_DIR/a")"
SESSION_B="$($PY "$BASE_URL" "$KEY" session-status "$EDDY_PG_DIR/b")"
TICK_AFTER="$($PY "$BASE_URL" "$KEY" tick)"
$PY "$BASE_URL" "$KEY" upload C 50 "$EDDY_PG_DIR/c"
RESTORED_C="$(psql_at "$PORT2" eddy "SELECT count(*) FROM observations WHERE id IN ($(cat "$EDDY_PG_DIR/c.sql"))")"
stop_server

echo "recovered to $T"
check '[ "$LOGICAL_A" = 300 ] && [ "$LOGICAL_B" = 200 ]' "pg_dump/pg_restore: all of A ($LOGICAL_A/300) and B ($LOGICAL_B/200)"
check '[ "$RESTORED_A" = 300 ]' "PITR: every report of A acknowledged before T is there ($RESTORED_A/300)"
check '[ "$RESTORED_B" = 0 ]' "PITR: no report of B, uploaded after T ($RESTORED_B/200 present)"
check '[ "$SESSION_A" = 200 ] && [ "$SESSION_B" = 401 ]' \
    "PITR: the session opened before T works ($SESSION_A), the one opened after is unknown ($SESSION_B; clients open a new one)"
check '[ "$TICK_AFTER" -gt "$LAST_TICK" ]' \
    "ticks go on from the restored epoch, not back (last before the loss $LAST_TICK, after the restore $TICK_AFTER)"
check '[ "$RESTORED_C" = 50 ]' "a new upload after the restore is stored ($RESTORED_C/50)"
echo "pg_pitr_check: $((SECONDS - STARTED)) s"
exit "$FAILED"
