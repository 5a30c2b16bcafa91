"""Shared pieces of the Python harnesses that drive `eddy-server` processes (crash_cycles.py, scale_out_check.py,
soak.py, limits.py): logging, a process's resident memory, and one server process that can be started, restarted on
the same port, stopped and killed. Only the Python standard library is used."""

import os
import signal
import subprocess
import time

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
