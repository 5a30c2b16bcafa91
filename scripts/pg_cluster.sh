#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for tests and benchmarks (docs/fleet-server.md, "Test cluster").
#
#   scripts/pg_cluster.sh start   create (first time) and start a cluster under .build/pg-test/ on a free loopback
#                                 port; prints its URL (postgres://eddy@127.0.0.1:PORT/postgres)
#   scripts/pg_cluster.sh url     prints the URL of the running cluster (exit 1 when none runs)
#   scripts/pg_cluster.sh stop [fast|immediate]
#                                 stops it (no-op when not running): `fast` (default) ends every session and shuts down
#                                 cleanly, `immediate` is a crash (recovery from the WAL at the next start)
#   scripts/pg_cluster.sh destroy stops it and removes its folder
#
# A cluster started again keeps its port when that port is still free (clients reconnect to the same URL).
# Sourced (`. scripts/pg_cluster.sh`), it only defines its variables and functions (BIN, DIR, DATA, as_owner, ...) for
# scripts that drive PostgreSQL themselves (scripts/pg_pitr_check.sh).
#
# No system service: initdb/pg_ctl from Debian's postgresql package (found with pg_config --bindir, else
# /usr/lib/postgresql/*/bin). initdb refuses to run as root, so as root the cluster belongs to the `postgres` user
# that the package creates (or `nobody` when it is missing) and the commands run through runuser.
# EDDY_PG_DIR overrides the folder; EDDY_PG_FAST=1 turns fsync and synchronous_commit off (unit tests only:
# benchmark figures are measured with PostgreSQL's durable defaults). EDDY_PG_OPTIONS adds server options after the
# script's own (`-c name=value ...`; later ones win; e.g. "-c ssl=on -c ssl_cert_file=/abs/server.crt
# -c ssl_key_file=/abs/server.key"); EDDY_PG_HBA names a pg_hba.conf installed before the first start (e.g. password or
# TLS-only rules for a role); files the options name inside the cluster's folder are handed to its owner with it. Both
# are for tests (docs/fleet-server.md "Database TLS and secrets").
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIR="${EDDY_PG_DIR:-$ROOT/.build/pg-test}"
# Absolute: postgres resolves the socket directory (-k) from its data directory, so a relative one fails.
case "$DIR" in /*) ;; *) DIR="$PWD/$DIR" ;; esac
DATA="$DIR/data"
SOCK="$DIR/sock"
PORT_FILE="$DIR/port"

find_bindir() {
    local dir
    if command -v pg_config >/dev/null 2>&1; then
        dir="$(pg_config --bindir 2>/dev/null || true)"
        if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return; fi
    fi
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return; fi
    done
    echo "pg_cluster.sh: initdb/pg_ctl not found; install PostgreSQL: apt-get install -y postgresql" >&2
    exit 2
}

BIN="$(find_bindir)"

# Runs a command as the cluster's owner (root cannot run initdb or postgres).
as_owner() {
    if [ "$(id -u)" = 0 ]; then
        local owner=postgres
        getent passwd postgres >/dev/null 2>&1 || owner=nobody
        runuser -u "$owner" -- "$@"
    else
        "$@"
    fi
}

owner_chown() {
    if [ "$(id -u)" = 0 ]; then
        local owner=postgres
        getent passwd postgres >/dev/null 2>&1 || owner=nobody
        chown -R "$owner" "$DIR"
    fi
}

# As root, when the owner cannot reach DIR (a clone under /root, mode 700), the cluster lives under /tmp instead,
# named after the clone so that two clones do not share one.
if [ "$(id -u)" = 0 ] && [ -z "${EDDY_PG_DIR:-}" ]; then
    probe_owner=postgres; getent passwd postgres >/dev/null 2>&1 || probe_owner=nobody
    if ! runuser -u "$probe_owner" -- test -x "$ROOT/.build" 2>/dev/null && ! runuser -u "$probe_owner" -- test -x "$ROOT" 2>/dev/null; then
        DIR="/tmp/eddy-pg-test-$(echo "$ROOT" | cksum | cut -d' ' -f1)"
        DATA="$DIR/data"; SOCK="$DIR/sock"; PORT_FILE="$DIR/port"
    fi
fi

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Whether PostgreSQL could listen on port $1 again: bound with SO_REUSEADDR as PostgreSQL binds, so that the TIME_WAIT
# sockets its own shutdown left on the port do not count.
port_free() {
    python3 -c 'import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); s.close()' "$1" 2>/dev/null
}

running() { [ -f "$DATA/postmaster.pid" ] && as_owner "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; }

url() { echo "postgres://eddy@127.0.0.1:$(cat "$PORT_FILE")/postgres"; }

start() {
    mkdir -p "$DIR" "$SOCK"
    # As root the cluster belongs to postgres/nobody: every folder above DIR must be searchable by that user.
    owner_chown
    if running; then url; return; fi
    if [ ! -f "$DATA/PG_VERSION" ]; then
        rm -rf "$DATA"
        as_owner "$BIN/initdb" -D "$DATA" -U eddy --auth=trust -E UTF8 --no-locale >"$DIR/initdb.log" 2>&1 || {
            cat "$DIR/initdb.log" >&2; echo "pg_cluster.sh: initdb failed (log above)" >&2; exit 2; }
        if [ -n "${EDDY_PG_HBA:-}" ]; then
            cp "$EDDY_PG_HBA" "$DATA/pg_hba.conf" || { echo "pg_cluster.sh: cannot install EDDY_PG_HBA=$EDDY_PG_HBA" >&2; exit 2; }
            owner_chown
        fi
    fi
    local port fast=""
    if [ -f "$PORT_FILE" ] && port_free "$(cat "$PORT_FILE")"; then port="$(cat "$PORT_FILE")"; else port="$(free_port)"; fi
    echo "$port" >"$PORT_FILE"
    if [ "${EDDY_PG_FAST:-0}" = 1 ]; then fast="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"; fi
    as_owner "$BIN/pg_ctl" -D "$DATA" -l "$DIR/server.log" -w -t 60 start \
        -o "-p $port -c listen_addresses=127.0.0.1 -k $SOCK -c max_connections=200 -c shared_buffers=512MB -c max_wal_size=4GB $fast ${EDDY_PG_OPTIONS:-}" \
        >/dev/null || { tail -20 "$DIR/server.log" >&2; echo "pg_cluster.sh: PostgreSQL did not start (log above)" >&2; exit 2; }
    # The cluster's own `postgres` database is used (no createdb: CREATE DATABASE waits for a checkpoint, minutes on
    # a busy disk with durable settings); tests create their own databases from it.
    url
}

stop() {
    local mode="${1:-fast}"
    case "$mode" in fast|immediate) ;; *) echo "pg_cluster.sh: stop mode must be fast or immediate, not $mode" >&2; exit 2 ;; esac
    if running; then as_owner "$BIN/pg_ctl" -D "$DATA" -m "$mode" -w stop >/dev/null; fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    case "${1:-}" in
        start) start ;;
        url) running || { echo "pg_cluster.sh: no cluster running in $DIR (run: scripts/pg_cluster.sh start)" >&2; exit 1; }; url ;;
        stop) stop "${2:-fast}" ;;
        destroy) stop; rm -rf "$DIR" ;;
        *) echo "usage: scripts/pg_cluster.sh start|url|stop [fast|immediate]|destroy" >&2; exit 2 ;;
    esac
fi
