"""Shared pieces of the Python harnesses that drive `eddy-server` processes (crash_cycles.py, scale_out_check.py,
soak.py, limits.py, check_monitoring.py, operator_campaign.py, pg_pitr_client.py): logging, a process's resident
memory, one server process that can be started, restarted on the same port, stopped and killed, HTTP requests and
sessions, valid reports, psql and fresh PostgreSQL databases, and filling a file system. Only the Python standard
library is used."""

import errno
import json
import os
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

AIRLINE = "EDY"
MIB = 1024 * 1024


def log(message):
    print(message, flush=True)


def rss_kib(pid):
    """VmRSS of process `pid` in KiB, or None when it has gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class ServerProcess:
    """One eddy-server on 127.0.0.1 over `storage` (["--db", PATH] or ["--database", URL]); restarts reuse the port.

    `name` prefixes the files its output goes to (`<workdir>/<name>-<start>.out`); `serve_args` are added to every
    start, `extra` to one start."""

    def __init__(self, binary, storage, workdir, name, serve_args=()):
        self.binary, self.storage, self.workdir, self.name = binary, list(storage), workdir, name
        self.serve_args = list(serve_args)
        self.port, self.process, self.starts = 0, None, 0
        self.lifetimes = []   # (start wall time, pid, extra args)

    def add_key(self, label, airline=AIRLINE):
        """Adds an API key with `eddy-server keys add`; returns it."""
        out = subprocess.run([self.binary, "keys", "add", *self.storage, "--airline", airline, "--label", label],
                             check=True, capture_output=True, text=True).stdout
        key = out.split()[-1]
        assert key.startswith("eddy_"), out
        return key

    def start(self, extra=()):
        """Starts the process and waits (≤ 60 s) until it says where it listens."""
        self.starts += 1
        path = os.path.join(self.workdir, f"{self.name}-{self.starts}.out")
        with open(path, "w") as out:
            self.process = subprocess.Popen(
                [self.binary, "serve", *self.storage, "--host", "127.0.0.1", "--port", str(self.port), "--log-level",
                 "error", *self.serve_args, *extra], stdout=out, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while time.time() < deadline:
            with open(path) as f:
                for line in f.read().split("\n")[:-1]:
                    if line.startswith("eddy-server listening on "):
                        self.port = int(line.rsplit(":", 1)[1])
                        self.lifetimes.append((time.time(), self.process.pid, list(extra)))
                        return
            if self.process.poll() is not None:
                break
            time.sleep(0.02)
        with open(path) as f:
            raise RuntimeError(f"{self.name}: eddy-server did not start (see {path}):\n" + f.read()[-2000:])

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def kill(self):
        """SIGKILL, then reaps the process."""
        if self.alive():
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def stop(self, sig=signal.SIGTERM, timeout=20):
        """Stops the process with `sig` (killed when it has not exited after `timeout` s); returns its exit status, or
        None when it was not running."""
        if not self.alive():
            return None
        os.kill(self.process.pid, sig)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.kill(self.process.pid, signal.SIGKILL)
            return self.process.wait()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JSON_HEADERS = {"Content-Type": "application/json", "X-Eddy-Client-Version": "1.0.0"}


def request(base, method, path, body=None, token=None, timeout=30):
    """One HTTP request to eddy-server; returns (status, body) with the body parsed as JSON when it is JSON. HTTP error
    statuses are returned, not raised; a connection that fails raises OSError (urllib.error.URLError is one)."""
    headers = dict(JSON_HEADERS)
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    req = urllib.request.Request(base + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as answer:
            status, raw, kind = answer.status, answer.read(), answer.headers.get("Content-Type", "")
    except urllib.error.HTTPError as error:
        status, raw, kind = error.code, error.read(), error.headers.get("Content-Type", "") if error.headers else ""
    if "json" in kind:
        try:
            return status, json.loads(raw)
        except ValueError:
            pass
    return status, raw.decode(errors="replace")


def global_fetch(since_tick=None, hours=6):
    """The body of a turbulence fetch of the whole world (every layer, `hours` back; a delta when `since_tick` is given)."""
    body = {"dataType": "turbulence", "area": {"type": "global", "polygon": []}, "historyHours": hours,
            "minLayer": -2, "maxLayer": 99, "viewerClass": "medium"}
    if since_tick is not None:
        body["sinceTick"] = since_tick
    return body


def open_session(base, key, user, airline=AIRLINE):
    """Starts a session; returns its token (raises when the server refuses)."""
    status, answer = request(base, "POST", "/v1/session",
                             {"apiKey": key, "airline": airline, "userId": user, "clientVersion": "1.0.0"})
    if status != 200:
        raise RuntimeError(f"session refused: {status} {answer}")
    return answer["token"]


def res5_cells():
    """Valid H3 resolution-5 cells (as integers), from the committed H3 vectors (no h3 package needed)."""
    cells = []
    with open(os.path.join(ROOT, "Fixtures", "h3", "latlng_to_cell.txt")) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 5 and parts[3] == "5":
                cells.append(int(parts[4], 16))
    return sorted(set(cells))


def make_reports(rng, count, now, cells):
    """`count` valid tile reports with random ids (lower-case UUIDs), exit times in the last half hour."""
    reports = []
    for _ in range(count):
        peak = round(rng.uniform(0.02, 0.6), 4)
        enter = now - rng.uniform(120, 1800)
        reports.append({"id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                        "tile": {"h3": rng.choice(cells), "layer": rng.randrange(20, 41)},
                        "enterTime": enter, "exitTime": enter + 60, "edrPeak": peak,
                        "edrMedian": round(peak * 0.6, 4), "reporterClass": "medium"})
    return reports


def postgres_binary(name):
    """A PostgreSQL client or server program (psql, pg_dump, pg_basebackup, ...) of Debian's postgresql package."""
    candidates = []
    if shutil.which("pg_config"):
        bindir = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True).stdout.strip()
        candidates.append(os.path.join(bindir, name))
    base = "/usr/lib/postgresql"
    versions = sorted(os.listdir(base), key=lambda v: [int(p) for p in v.split(".") if p.isdigit()], reverse=True) \
        if os.path.isdir(base) else []
    candidates += [os.path.join(base, v, "bin", name) for v in versions]
    candidates.append(shutil.which(name) or "")
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise SystemExit(f"{name} not found; install PostgreSQL (apt-get install -y postgresql)")


def psql(url, sql, database=None):
    """Runs `sql` with psql against the server of `url` (its database, or `database`); returns the rows' text lines."""
    parts = urllib.parse.urlsplit(url)
    name = database or parts.path.lstrip("/") or "postgres"
    out = subprocess.run([postgres_binary("psql"), "-h", parts.hostname, "-p", str(parts.port), "-U", parts.username or "eddy",
                          "-d", name, "-qAtX", "-v", "ON_ERROR_STOP=1", "-c", sql], check=True, capture_output=True,
                         text=True).stdout
    return [line for line in out.split("\n") if line]


def fresh_database(cluster_url, prefix="eddy_"):
    """Creates a new database on the cluster of `cluster_url`; returns its URL."""
    parts = urllib.parse.urlsplit(cluster_url)
    name = prefix + uuid.uuid4().hex[:12]
    psql(cluster_url, f"CREATE DATABASE {name}", database="postgres")
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, "/" + name, "", ""))


def fill_disk(directory):
    """Fills the file system of `directory` with a file until ENOSPC; returns (path, bytes written)."""
    path = os.path.join(directory, "filler")
    written = 0
    with open(path, "wb", buffering=0) as f:
        for chunk in (MIB, 4096, 512):
            block = b"\0" * chunk
            while True:
                try:
                    written += f.write(block)
                except OSError as error:
                    if error.errno != errno.ENOSPC:
                        raise
                    break
    return path, written
