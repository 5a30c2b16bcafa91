"""The moving parts of the operator fault campaign (scripts/operator_campaign.py): a throw-away PostgreSQL cluster
that can be stopped and started on its port (optionally on a small tmpfs), the mixed client load that remembers every
answer and every acknowledged report, and a sampler of the server's resident memory. Python standard library only."""
import os
import random
import shutil
import socket
import subprocess
import threading
import time

from eddy_harness import AIRLINE, ROOT, global_fetch, make_reports, request, res5_cells, rss_kib


class Cluster:
    """A throw-away PostgreSQL cluster run by scripts/pg_cluster.sh in `directory` (durable settings), optionally on a
    tmpfs of `tmpfs_mib` MiB mounted there."""

    def __init__(self, directory, options="", tmpfs_mib=None):
        self.directory, self.options, self.tmpfs_mib = os.path.abspath(directory), options, tmpfs_mib
        self.url = None

    def script(self, *arguments):
        env = dict(os.environ, EDDY_PG_DIR=self.directory, EDDY_PG_OPTIONS=self.options)
        env.pop("EDDY_PG_FAST", None)
        return subprocess.run(["bash", os.path.join(ROOT, "scripts", "pg_cluster.sh"), *arguments], env=env, check=True,
                              capture_output=True, text=True).stdout.strip()

    def mounted(self):
        with open("/proc/mounts") as f:
            return any(line.split()[1] == self.directory for line in f)

    def mount(self):
        """Mounts the tmpfs (when the cluster has one and it is not mounted yet); raises CalledProcessError when
        `mount` fails (not root, or no CAP_SYS_ADMIN in a container)."""
        if self.tmpfs_mib and not self.mounted():
            os.makedirs(self.directory, exist_ok=True)
            subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={self.tmpfs_mib}m,mode=0755", "tmpfs", self.directory],
                           check=True, capture_output=True, text=True)

    def start(self):
        self.mount()
        self.url = self.script("start").splitlines()[-1]
        return self.url

    def stop(self, mode="fast"):
        self.script("stop", mode)

    def running(self):
        return subprocess.run(["bash", os.path.join(ROOT, "scripts", "pg_cluster.sh"), "url"], capture_output=True,
                              env=dict(os.environ, EDDY_PG_DIR=self.directory)).returncode == 0

    def log_text(self):
        try:
            with open(os.path.join(self.directory, "server.log"), errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def destroy(self):
        try:
            self.script("stop", "immediate")
        except subprocess.CalledProcessError:
            pass
        if self.mounted():
            subprocess.run(["umount", "-l", self.directory], check=False)
        shutil.rmtree(self.directory, ignore_errors=True)


class Answers:
    """Every request the load made: (kind, start, end, status), status an HTTP code or an error's name."""

    def __init__(self):
        self.lock = threading.Lock()
        self.items = []

    def add(self, kind, start, end, status):
        with self.lock:
            self.items.append((kind, start, end, status))

    def between(self, start, end):
        with self.lock:
            return [a for a in self.items if start <= a[1] < end]


class Load:
    """Uploaders, delta fetchers and a /readyz poller against one server; remembers what was sent and acknowledged."""

    def __init__(self, server, key, name, uploaders=4, fetchers=2, batch=50, seed=30):
        self.server, self.key, self.name = server, key, name
        self.uploaders, self.fetchers, self.batch = uploaders, fetchers, batch
        self.rng = random.Random(seed)
        self.cells = res5_cells()
        self.answers = Answers()
        self.sent, self.acknowledged = set(), set()
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.threads = []

    def timed(self, kind, call):
        started = time.monotonic()
        try:
            status, body = call()
        except socket.timeout:
            status, body = "timeout", None
        except OSError as error:
            status, body = type(error).__name__, None
        self.answers.add(kind, started, time.monotonic(), status)
        return status, body

    def session(self, user):
        """A new session's token, or None (the attempt is recorded with its status)."""
        status, answer = self.timed("session", lambda: request(self.server.url, "POST", "/v1/session", {
            "apiKey": self.key, "airline": AIRLINE, "userId": user, "clientVersion": "1.0.0"}, timeout=60))
        if status == 200:
            return answer["token"]
        time.sleep(0.2)
        return None

    def authenticated(self, kind, user, tokens, path, body):
        """One POST of client `user` with its token in `tokens` (a session is opened first when it has none, and the
        token is dropped on 401); (status, answer), or (None, None) when no session could be opened."""
        if tokens.get(user) is None:
            tokens[user] = self.session(user)
            if tokens[user] is None:
                return None, None
        status, answer = self.timed(kind, lambda: request(self.server.url, "POST", path, body, tokens[user], timeout=60))
        if status == 401:
            tokens[user] = None
        return status, answer

    def uploader(self, index):
        rng, tokens, user = random.Random(self.rng.random()), {}, f"{self.name}-{index}"
        while not self.stopping.is_set():
            batch = make_reports(rng, self.batch, time.time(), self.cells)
            with self.lock:
                self.sent.update(r["id"] for r in batch)
            while not self.stopping.is_set():
                status, answer = self.authenticated("upload", user, tokens, "/v1/reports", {"reports": batch})
                if status == 200:
                    with self.lock:
                        self.acknowledged.update(i.lower() for i in answer["acceptedIds"])
                    break
                if status is not None:
                    time.sleep(0.2)   # the outbox's back-off, short: the campaign wants many requests during a fault

    def fetcher(self, index):
        tokens, user, since = {}, f"{self.name}-fetch-{index}", None
        while not self.stopping.is_set():
            status, answer = self.authenticated("fetch", user, tokens, "/v1/fetch", global_fetch(since, hours=1))
            if status == 200:
                since = answer.get("serverTick", since)
            if status is not None:
                time.sleep(0.2)

    def poller(self):
        while not self.stopping.is_set():
            self.timed("readyz", lambda: request(self.server.url, "GET", "/readyz", timeout=60))
            time.sleep(0.25)

    def start(self):
        targets = [(self.uploader, i) for i in range(self.uploaders)] + [(self.fetcher, i) for i in range(self.fetchers)]
        self.threads = [threading.Thread(target=t, args=(i,), daemon=True) for t, i in targets]
        self.threads.append(threading.Thread(target=self.poller, daemon=True))
        for thread in self.threads:
            thread.start()

    def stop(self):
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=90)
        return not any(t.is_alive() for t in self.threads)

    def wait_until(self, kind, after, status=200, limit=120):
        """The end time of the first `kind` request started at or after `after` answered `status`, waiting up to `limit` s."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            found = [a[2] for a in self.answers.between(after, float("inf")) if a[0] == kind and a[3] == status]
            if found:
                return min(found)
            time.sleep(0.1)
        return None


class RSSSampler:
    """The server's resident memory every 0.5 s, labelled with the campaign's phase."""

    def __init__(self, server):
        self.server, self.phase, self.samples = server, "start", []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stopping.is_set():
            process = self.server.process
            kib = rss_kib(process.pid) if process is not None and process.poll() is None else None
            if kib:
                self.samples.append((self.phase, kib))
            time.sleep(0.5)

    def peak_mib(self, phases=None, exclude=()):
        chosen = [k for p, k in self.samples if (phases is None or p in phases) and p not in exclude]
        return max(chosen) / 1024 if chosen else 0.0
