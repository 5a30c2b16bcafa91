#!/usr/bin/env python3
"""The client side of scripts/pg_pitr_check.sh (Python standard library only):

  pg_pitr_client.py BASE KEY upload NAME COUNT PREFIX   opens a session (token saved to PREFIX.token) and uploads COUNT
                                                         reports in batches of 100; every one must be acknowledged; the
                                                         ids go to PREFIX.sql as a quoted SQL list
  pg_pitr_client.py BASE KEY session-status PREFIX       the status of an authenticated fetch with PREFIX.token
  pg_pitr_client.py BASE KEY tick                        the server's current tick
"""
import random
import sys
import time

from eddy_harness import global_fetch, make_reports, open_session, request, res5_cells


def main():
    base, key, command = sys.argv[1:4]
    if command == "upload":
        name, count, prefix = sys.argv[4], int(sys.argv[5]), sys.argv[6]
        token = open_session(base, key, f"pitr-{name}")
        with open(prefix + ".token", "w") as f:
            f.write(token)
        reports = make_reports(random.Random(name), count, time.time(), res5_cells())
        for start in range(0, count, 100):
            batch = reports[start:start + 100]
            status, answer = request(base, "POST", "/v1/reports", {"reports": batch}, token)
            acknowledged = {i.lower() for i in answer.get("acceptedIds", [])} if status == 200 else set()
            if acknowledged != {r["id"] for r in batch}:
                sys.exit(f"upload {name}: batch at {start} answered {status} {answer}")
        with open(prefix + ".sql", "w") as f:
            f.write(",".join(f"'{r['id']}'" for r in reports))
        print(f"uploaded {count} reports of {name}, all acknowledged")
    elif command == "session-status":
        with open(sys.argv[4] + ".token") as f:
            token = f.read()
        print(request(base, "POST", "/v1/fetch", global_fetch(hours=1), token)[0])
    elif command == "tick":
        print(request(base, "GET", "/v1/tick")[1]["serverTick"])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
