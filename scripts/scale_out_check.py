#!/usr/bin/env python3
"""Scale-out check (issue 14, deliverable 4; docs/fleet-server.md "Several instances").

Two `eddy-server serve` processes on one PostgreSQL database, clients spread over both:

1. ticks: `GET /v1/tick` answers the same tick from either instance (the tick epoch lives in the database);
2. idempotency across instances: one batch sent to A and then to B is stored once (B counts it as duplicates);
3. a session opened on A is accepted by B (sessions live in the database);
4. kill: clients upload concurrently, half of them through B; B is SIGKILLed mid-upload; its clients resend their
   unacknowledged batch to A (as the engine's outbox does). Afterwards every report sent is stored exactly once,
   and every acknowledged id is there (nothing acknowledged is lost);
5. the same fetch, asked of A and of a restarted B, is answered identically.

With --measure it also times ingest (batches of 100 reports, --clients client processes) through one instance and
through two, and prints `name: value` lines. The cluster comes from $EDDY_TEST_POSTGRES_URL or is started with
scripts/pg_cluster.sh (and stopped again). Exit status 1 on any failed check.
"""

import argparse
import json
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid

from eddy_harness import AIRLINE, ServerProcess, fresh_database, log

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
HEADERS = {"Content-Type": "application/json", "X-Eddy-Client-Version": "1.0.0"}


def instance(binary, database, workdir, name):
    """One eddy-server process over the shared database (no rate limit: the clients measure throughput)."""
    return ServerProcess(binary, ["--database", database], workdir, name, serve_args=["--rate-limit", "0"])


def call(base, method, path, body=None, token=None, timeout=30):
    headers = dict(HEADERS)
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, headers=headers, method=method)
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


def open_session(base, key, user):
    return call(base, "POST", "/v1/session",
                {"apiKey": key, "airline": AIRLINE, "userId": user, "clientVersion": "1.0.0"})["token"]


CELLS = None


def cells():
    """Valid H3 resolution-5 cells (h3-py from the oracle venv) over the Alps."""
    global CELLS
    if CELLS is None:
        import h3
        CELLS = sorted({int(h3.latlng_to_cell(46 + 0.05 * i, 7 + 0.07 * j, 5), 16) for i in range(20) for j in range(20)})
    return CELLS


def make_batch(rng, count, now):
    reports = []
    for _ in range(count):
        peak = round(rng.uniform(0.02, 0.6), 4)
        enter = now - rng.uniform(120, 1800)
        reports.append({"id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                        "tile": {"h3": rng.choice(cells()), "layer": rng.randrange(20, 41)},
                        "enterTime": enter, "exitTime": enter + 60, "edrPeak": peak,
                        "edrMedian": round(peak * 0.6, 4), "reporterClass": "medium"})
    return reports


def client_worker(args):
    """A client process: opens a session on its instance, uploads its batches; on a dead instance it opens a session
    on the other one and resends the unacknowledged batch. Returns (sent ids, acknowledged ids, switches)."""
    index, urls, key, batches, batch_size, seed = args
    rng = random.Random(seed)
    order = [urls[index % len(urls)]] + [u for u in urls if u != urls[index % len(urls)]]
    current, token, switches = 0, None, 0
    sent, acknowledged = [], set()
    for _ in range(batches):
        batch = make_batch(rng, batch_size, time.time())
        sent += [r["id"] for r in batch]
        for attempt in range(20):
            try:
                if token is None:
                    token = open_session(order[current], key, f"client-{index}")
                ack = call(order[current], "POST", "/v1/reports", {"reports": batch}, token)
                acknowledged.update(i.lower() for i in ack["acceptedIds"])  # the server writes UUIDs in upper case
                break
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                # The instance is gone: the other one, with a new session (as a relaunched client would).
                current = (current + 1) % len(order)
                token = None
                switches += 1
                time.sleep(0.05 * (attempt + 1))
        else:
            raise RuntimeError(f"client {index}: no instance accepted a batch")
    return sent, sorted(acknowledged), switches


def fetch_all(base, token):
    """The whole global answer, page by page (docs/protocol.md "Pages"): the observations of every page joined; the
    other fields from the first page."""
    body = {"dataType": "turbulence", "area": {"type": "global", "polygon": []}, "historyHours": 6,
            "minLayer": -2, "maxLayer": 99, "viewerClass": "medium", "pageSize": 10000}
    answer = call(base, "POST", "/v1/fetch", body, token, timeout=120)
    page = answer
    while page.get("nextCursor"):
        page = call(base, "POST", "/v1/fetch", dict(body, cursor=page["nextCursor"]), token, timeout=120)
        answer["observations"].extend(page["observations"])
    answer.pop("nextCursor", None)
    return answer


def stored_ids(base, token):
    answer = fetch_all(base, token)
    return [o["report"]["id"].lower() for o in answer["observations"]], answer


def measure(binary, database, workdir, key, clients, instances, batches):
    servers = [instance(binary, database, workdir, f"measure{instances}-{i}") for i in range(instances)]
    for s in servers:
        s.start()
    try:
        jobs = [(i, [s.url for s in servers], key, batches, 100, 1000 + i) for i in range(clients)]
        began = time.monotonic()
        with multiprocessing.Pool(clients) as pool:
            results = pool.map(client_worker, jobs)
        elapsed = time.monotonic() - began
        return sum(len(r[0]) for r in results) / elapsed
    finally:
        for s in servers:
            s.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default=".build/debug/eddy-server")
    parser.add_argument("--clients", type=int, default=6, help="client processes in the kill test")
    parser.add_argument("--batches", type=int, default=40, help="batches per client in the kill test")
    parser.add_argument("--batch-size", type=int, default=50)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--measure", action="store_true", help="also time ingest through one and two instances")
    parser.add_argument("--measure-clients", type=int, default=4)
    parser.add_argument("--measure-batches", type=int, default=150, help="batches of 100 per client when measuring")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    failures = []

    def check(ok, what):
        log(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    started_cluster = False
    cluster = os.environ.get("EDDY_TEST_POSTGRES_URL")
    if not cluster:
        cluster = subprocess.run(["bash", os.path.join(HERE, "pg_cluster.sh"), "start"], check=True,
                                 capture_output=True, text=True).stdout.strip().splitlines()[-1]
        started_cluster = True
    workdir = tempfile.mkdtemp(prefix="eddy-scale-out-")
    servers = []
    try:
        database = fresh_database(cluster, "eddy_scale_")
        a, b = instance(args.server, database, workdir, "A"), instance(args.server, database, workdir, "B")
        key = a.add_key("scale-out")
        servers = [a, b]
        a.start(); b.start()
        log(f"two instances on {database}: A {a.url}, B {b.url}")

        # 1. Ticks agree.
        ta, tb = call(a.url, "GET", "/v1/tick"), call(b.url, "GET", "/v1/tick")
        check(ta["serverTick"] == tb["serverTick"] or abs(ta["serverTick"] - tb["serverTick"]) <= 1
              and abs(ta["serverTime"] - tb["serverTime"]) < 5,
              f"ticks agree: A {ta['serverTick']}, B {tb['serverTick']}")

        # 2. Sessions live in the database: a token from A works on B.
        token_a = open_session(a.url, key, "cross")
        try:
            call(b.url, "POST", "/v1/fetch", {"dataType": "liveFlights", "area": {"type": "global", "polygon": []},
                                              "historyHours": 1, "minLayer": -2, "maxLayer": 99,
                                              "viewerClass": "medium"}, token_a)
            check(True, "a session opened on A is accepted by B")
        except urllib.error.HTTPError as e:
            check(False, f"a session opened on A is accepted by B (B answered {e.code})")

        # 3. Idempotent across instances.
        batch = make_batch(rng, 20, time.time())
        first = call(a.url, "POST", "/v1/reports", {"reports": batch}, token_a)
        token_b = open_session(b.url, key, "cross-b")
        second = call(b.url, "POST", "/v1/reports", {"reports": batch}, token_b)
        check(first["newCount"] == 20 and second["newCount"] == 0 and second["duplicateCount"] == 20
              and sorted(i.lower() for i in second["acceptedIds"]) == sorted(r["id"] for r in batch),
              f"one batch through A then B: stored once (A new {first['newCount']}, B new {second['newCount']}, "
              f"duplicates {second['duplicateCount']})")
        extra_ids = [r["id"] for r in batch]

        # 4. Concurrent clients over both; B SIGKILLed mid-upload.
        jobs = [(i, [a.url, b.url], key, args.batches, args.batch_size, args.seed * 1000 + i)
                for i in range(args.clients)]
        pool = multiprocessing.Pool(args.clients)
        pending = pool.map_async(client_worker, jobs)
        time.sleep(0.5 + rng.random())
        b.kill()
        log(f"B SIGKILLed at {time.strftime('%H:%M:%S')} while uploading")
        results = pending.get(timeout=900)
        pool.close(); pool.join()
        sent = [i for r in results for i in r[0]] + extra_ids
        acknowledged = {i for r in results for i in r[1]} | set(extra_ids)
        switches = sum(r[2] for r in results)
        ids, _ = stored_ids(a.url, token_a)
        mine = [i for i in ids if i in set(sent)]
        check(switches > 0, f"the kill hit uploads in flight ({switches} client switches to A)")
        check(len(mine) == len(set(mine)), f"no report stored twice ({len(mine)} rows for {len(set(mine))} ids)")
        check(set(mine) == set(sent), f"every report sent is stored ({len(set(mine))} of {len(set(sent))})")
        check(acknowledged <= set(mine), f"nothing acknowledged is lost ({len(acknowledged - set(mine))} missing)")

        # 5. The same fetch answered identically by either instance (B restarted on the same database).
        b.start()
        token_b = open_session(b.url, key, "cross-b")
        _, answer_a = stored_ids(a.url, token_a)
        _, answer_b = stored_ids(b.url, token_b)
        # serverTick may step between the two requests; everything else must be equal.
        for answer in (answer_a, answer_b):
            answer.pop("serverTick", None)
        check(answer_a == answer_b, f"the same fetch gives the same answer from A and B "
                                    f"({len(answer_a.get('observations', []))} observations)")
        for s in servers:
            s.stop()
        servers = []

        if args.measure:
            one = measure(args.server, database, workdir, key, args.measure_clients, 1, args.measure_batches)
            two = measure(args.server, database, workdir, key, args.measure_clients, 2, args.measure_batches)
            print(f"server_ingest_reports_per_s_postgres_1_instance: {one:.0f}")
            print(f"server_ingest_reports_per_s_postgres_2_instances: {two:.0f}")
            print(f"server_ingest_two_over_one: {two / one:.2f}")
    finally:
        for s in servers:
            s.kill()
        if started_cluster:
            subprocess.run(["bash", os.path.join(HERE, "pg_cluster.sh"), "stop"], check=False)
        shutil.rmtree(workdir, ignore_errors=True)
    log(f"scale-out check: {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
