#!/usr/bin/env python3
"""Figures for docs/fleet-server.md "Database TLS and secrets" and "Configuration": what `verify-full` and a settings
file cost an `eddy-server`. Measurements, not a test: it prints figures and checks only that each run succeeded.

1. Connection set-up, plain vs TLS. A throw-away PostgreSQL cluster with `ssl = on` (scripts/pg_cluster.sh; a CA and
   a server certificate for `localhost` made here with openssl, RSA 2048) and one role whose SCRAM password is asked on
   every connection, with or without TLS (pg_hba `host`), so the only difference between the runs is TLS. Each run is
   a whole `eddy-server migrate --status` process — start, one connection (TCP, TLS handshake and certificate check when
   asked, SCRAM), the schema version read, exit — timed from exec to exit: `sslmode=disable`, `sslmode=require` (TLS,
   certificate not checked) and `sslmode=verify-full` with the CA file. The password comes from PGPASSWORD.
2. Start-up with a settings file: `eddy-server serve` on SQLite timed from exec to its "listening" line, with its
   settings as flags and the same settings from `--config FILE` (and from EDDY_SERVER_* variables).

Runs alternate between the variants (a, b, c, a, b, c, ...) so that load from other processes on the machine falls on
each alike; medians and the spread (min–max) are printed. Python standard library, openssl, PostgreSQL.
Usage: scripts/measure_tls_config.py [--server .build/release/eddy-server] [--runs 20]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROLE, PASSWORD = "eddy_tls_measure", "measure-s3cret"


def run(command, env=None, **kwargs):
    return subprocess.run(command, env=dict(os.environ, **(env or {})), capture_output=True, text=True, **kwargs)


def summary(values):
    return f"median {statistics.median(values) * 1000:.1f} ms (min {min(values) * 1000:.1f}, max {max(values) * 1000:.1f}, n {len(values)})"


def make_cluster(folder):
    """The TLS cluster; returns its port."""
    tls = os.path.join(folder, "tls")
    os.makedirs(tls)
    script = f"""
        set -euo pipefail
        bash '{ROOT}/scripts/make_tls_certs.sh' '{tls}'
        cd '{tls}'
        cat > hba.conf <<'HBA'
local all all trust
host all eddy 127.0.0.1/32 trust
host all eddy ::1/128 trust
host all {ROLE} 127.0.0.1/32 scram-sha-256
host all {ROLE} ::1/128 scram-sha-256
HBA
    """
    subprocess.run(["bash", "-c", script], check=True)
    env = {"EDDY_PG_DIR": folder, "EDDY_PG_HBA": os.path.join(tls, "hba.conf"),
           "EDDY_PG_OPTIONS": f"-c ssl=on -c ssl_cert_file={tls}/server.crt -c ssl_key_file={tls}/server.key "
                              "-c log_connections=on"}
    started = run(["bash", os.path.join(ROOT, "scripts/pg_cluster.sh"), "start"], env=env)
    if started.returncode != 0:
        sys.exit(f"measure_tls_config: pg_cluster.sh start failed: {started.stderr}")
    url = started.stdout.strip()
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    psql = run(["psql", url, "-v", "ON_ERROR_STOP=1", "-c", f"CREATE ROLE {ROLE} LOGIN SUPERUSER PASSWORD '{PASSWORD}'",
                "-c", f"CREATE DATABASE eddy OWNER {ROLE}"])
    if psql.returncode != 0:
        sys.exit(f"measure_tls_config: psql failed: {psql.stderr}")
    return port, os.path.join(tls, "ca.crt")


def tls_connections(cluster):
    """(connections of ROLE with TLS, without) as PostgreSQL logged them (log_connections)."""
    with open(os.path.join(cluster, "server.log"), errors="replace") as file:
        lines = [line for line in file if f"connection authorized: user={ROLE}" in line]
    with_tls = sum("SSL enabled" in line for line in lines)
    return with_tls, len(lines) - with_tls


def connection_figures(server, port, ca, runs, cluster):
    urls = {
        "disable": f"postgres://{ROLE}@localhost:{port}/eddy?sslmode=disable",
        "require": f"postgres://{ROLE}@localhost:{port}/eddy?sslmode=require",
        "verify-full": f"postgres://{ROLE}@localhost:{port}/eddy?sslmode=verify-full&sslrootcert={ca}",
    }
    # The schema once, so that every timed run reads the same state.
    migrated = run([server, "migrate", "--database", urls["disable"]], env={"PGPASSWORD": PASSWORD})
    if migrated.returncode != 0:
        sys.exit(f"measure_tls_config: migrate failed: {migrated.stdout}{migrated.stderr}")
    before = tls_connections(cluster)
    times = {mode: [] for mode in urls}
    for _ in range(runs):
        for mode, url in urls.items():
            began = time.monotonic()
            status = run([server, "migrate", "--status", "--database", url], env={"PGPASSWORD": PASSWORD})
            elapsed = time.monotonic() - began
            if status.returncode != 0:
                sys.exit(f"measure_tls_config: migrate --status ({mode}) exited {status.returncode}: {status.stdout}{status.stderr}")
            times[mode].append(elapsed)
    # TLS really was on for the two TLS modes and off for the other, as PostgreSQL logged each connection.
    after = tls_connections(cluster)
    with_tls, without = after[0] - before[0], after[1] - before[1]
    print(f"PostgreSQL logged {with_tls} connections of {ROLE} with TLS and {without} without during the timed runs "
          f"(expected {2 * runs} and {runs}: one per run)")
    if (with_tls, without) != (2 * runs, runs):
        sys.exit("measure_tls_config: the connections' TLS is not what the modes ask")
    for mode, url in urls.items():
        print(f"connection {mode}: eddy-server migrate --status, exec to exit: {summary(times[mode])}")
    for mode in ("require", "verify-full"):
        extra = statistics.median(times[mode]) - statistics.median(times["disable"])
        print(f"connection {mode} minus disable (medians): {extra * 1000:+.1f} ms")
    return times


def wait_for_listening(process, limit=60):
    began = time.monotonic()
    while time.monotonic() - began < limit:
        line = process.stdout.readline()
        if not line:
            break
        if line.startswith("eddy-server listening on"):
            return time.monotonic()
    return None


def startup_figures(server, runs, folder):
    settings = {"port": "0", "rate-limit": "300", "rate-burst": "30", "retention-days": "14", "max-answer-items": "5000",
                "log-level": "info", "access-log": "true"}
    config = os.path.join(folder, "eddy-server.conf")
    with open(config, "w") as file:
        file.write("# measure_tls_config.py\n" + "".join(f'{name} = "{value}"\n' for name, value in settings.items()))
    flags = [word for name, value in settings.items() for word in ((f"--{name}",) if value == "true" else (f"--{name}", value))]
    variants = {
        "flags": (flags, {}),
        "config file": (["--config", config], {}),
        "environment": ([], {"EDDY_SERVER_" + name.upper().replace("-", "_"): value for name, value in settings.items()}),
    }
    times = {name: [] for name in variants}
    for index in range(runs):
        for name, (arguments, env) in variants.items():
            database = os.path.join(folder, f"startup-{index}-{name.replace(' ', '-')}.sqlite")
            began = time.monotonic()
            process = subprocess.Popen([server, "serve", "--db", database] + arguments, env=dict(os.environ, **env),
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            listening = wait_for_listening(process)
            process.terminate()
            process.wait(timeout=30)
            if listening is None:
                sys.exit(f"measure_tls_config: serve ({name}) printed no listening line")
            times[name].append(listening - began)
    for name in variants:
        print(f"start-up, settings by {name}: exec to 'listening' (new SQLite database): {summary(times[name])}")
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default=os.path.join(ROOT, ".build/release/eddy-server"))
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    server = os.path.abspath(args.server)
    if not os.access(server, os.X_OK):
        sys.exit(f"measure_tls_config: {server} is not built")
    folder = tempfile.mkdtemp(prefix="eddy-measure-tls-", dir=os.path.join(ROOT, ".build"))
    os.chmod(folder, 0o755)   # root runs PostgreSQL as `postgres` (pg_cluster.sh): it must get in
    cluster = os.path.join(folder, "pg")
    try:
        port, ca = make_cluster(cluster)
        connection_figures(server, port, ca, args.runs, cluster)
        startup_figures(server, args.runs, folder)
    finally:
        run(["bash", os.path.join(ROOT, "scripts/pg_cluster.sh"), "destroy"], env={"EDDY_PG_DIR": cluster})
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
