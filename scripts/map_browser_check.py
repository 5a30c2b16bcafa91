#!/usr/bin/env python3
"""Browser check of Eddy's pictures (docs/maps.md, "How it is tested"): headless Chromium (Debian package) opens

  1. the page of `eddy replay FLIGHT --html` (a fixture flight with truth),
  2. the page of a 12-hour simulated flight (size ≤ 5 MB, rendered ≤ 2 s),
  3. `/map` of a real loopback eddy-server fed by `eddy replay --engine --server` (401 without a session; the API
     key exchanged for a session cookie; the page itself),

and checks, for each: the DOM after the page's script ran (`--dump-dom`): rendered, no error recorded by the page
(window.onerror / console.error) and no console message in Chromium's own log (`--enable-logging=stderr`, which also
shows Content-Security-Policy refusals), the number of tiles equal to what eddy itself reported (JSON Lines /
the server's /v1/fetch), each tile row's colour equal to the documented palette colour of the severity computed here
from the EDR; then a screenshot whose pixel inside a known tile has that colour (PNG decoded with zlib from the
standard library), and the render time the page wrote (performance.now() at the end of the first render).

Chromium missing: the check fails loudly, unless EDDY_SKIP_BROWSER_TESTS=1 (the user opted out), when it says it
skipped. Usage: scripts/map_browser_check.py --eddy .build/debug/eddy --server .build/debug/eddy-server
"""
import argparse
import html.parser
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zlib

# docs/maps.md "Palette" (none, light, lightModerate, moderate, moderateSevere, severe).
PALETTE = {"none": "#9ad0a5", "light": "#ffe066", "lightModerate": "#ffa94d", "moderate": "#f76707",
           "moderateSevere": "#e03131", "severe": "#862e9c"}
ORDER = ["none", "light", "lightModerate", "moderate", "moderateSevere", "severe"]
# docs/severity.md: medium-class lower EDR bounds of light … severe; other classes scale them.
THRESHOLDS = [0.10, 0.15, 0.20, 0.30, 0.45]
FACTOR = {"small": 0.6, "medium": 1.0, "large": 1.3}
WINDOW = (1200, 1500)
RENDER_LIMIT_MS = 2000
SIZE_LIMIT_BYTES = 5_000_000

failures = []


def check(condition, message):
    print(("  ok   " if condition else "  FAIL ") + message)
    if not condition:
        failures.append(message)
    return condition


def severity(edr, viewer="medium"):
    result = "none"
    for name, bound in zip(ORDER[1:], THRESHOLDS):
        if edr >= bound * FACTOR[viewer]:
            result = name
    return result


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class DomReader(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.status, self.rows, self.errors_text, self._in_errors = None, [], "", False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id") == "eddy-status":
            self.status = a
        if tag == "tr" and "data-h3" in a:
            self.rows.append(a)
        if a.get("id") == "eddy-errors":
            self._in_errors = True

    def handle_endtag(self, tag):
        if tag == "pre":
            self._in_errors = False

    def handle_data(self, data):
        if self._in_errors:
            self.errors_text += data


def chromium_run(chromium, url, extra, workdir):
    profile = tempfile.mkdtemp(prefix="profile-", dir=workdir)
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
           "--force-device-scale-factor=1", "--window-size=%d,%d" % WINDOW, "--user-data-dir=" + profile,
           "--enable-logging=stderr", "--v=0", "--disable-extensions", "--disable-background-networking",
           "--disable-component-update", "--disable-sync"] + extra + [url]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    console = [line for line in run.stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line
               or "Content Security Policy" in line or "Refused to" in line]
    return run, console


def dump_dom(chromium, url, workdir):
    run, console = chromium_run(chromium, url, ["--dump-dom"], workdir)
    reader = DomReader()
    reader.feed(run.stdout)
    return reader, console, run


def screenshot(chromium, url, workdir):
    path = os.path.join(workdir, "shot-%d.png" % len(os.listdir(workdir)))
    run, console = chromium_run(chromium, url, ["--screenshot=" + path], workdir)
    if not os.path.exists(path):
        raise SystemExit("chromium wrote no screenshot:\n" + run.stderr[-2000:])
    return read_png(path), console, path


def read_png(path):
    """Decodes an 8-bit RGB/RGBA non-interlaced PNG into (width, height, channels, rows of bytes)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(path + " is not a PNG")
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or color not in (2, 6) or interlace:
                raise SystemExit("unsupported PNG (depth %d, colour type %d, interlace %d)" % (depth, color, interlace))
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        filt, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if filt == 1:
                line[x] = (line[x] + a) & 255
            elif filt == 2:
                line[x] = (line[x] + b) & 255
            elif filt == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif filt == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, channels, rows


def pixel(png, x, y):
    width, height, channels, rows = png
    if not (0 <= x < width and 0 <= y < height):
        return None
    return tuple(rows[y][x * channels:x * channels + 3])


def hex_rgb(text):
    return tuple(int(text[i:i + 2], 16) for i in (1, 3, 5))


def check_page(chromium, url, expected, label, workdir, render_limit=RENDER_LIMIT_MS):
    """expected: {(h3, layer): severity name}. Returns the render time, ms."""
    print("%s: %s" % (label, url if len(url) < 120 else url[:117] + "..."))
    dom, console, run = dump_dom(chromium, url, workdir)
    status = dom.status or {}
    check(status.get("data-state") == "rendered", "%s: the page rendered (data-state=%s)" % (label, status.get("data-state")))
    check(status.get("data-errors") == "0" and not dom.errors_text.strip(),
          "%s: no error recorded by the page (%s %s)" % (label, status.get("data-errors"), dom.errors_text.strip()[:300]))
    check(not console, "%s: no console message in Chromium's log %s" % (label, console[:3]))
    check(status.get("data-tiles") == str(len(expected)) and len(dom.rows) == len(expected),
          "%s: %s tiles drawn, %d rows; eddy reported %d" % (label, status.get("data-tiles"), len(dom.rows), len(expected)))
    wrong = [(r["data-h3"], r["data-layer"], r.get("data-color")) for r in dom.rows
             if PALETTE.get(expected.get((r["data-h3"], int(r["data-layer"])), "?")) != r.get("data-color")]
    check(not wrong, "%s: every tile's colour is its severity's palette colour %s" % (label, wrong[:3]))
    render_ms = float(status.get("data-render-ms", "inf"))
    check(render_ms <= render_limit, "%s: rendered in %.0f ms (limit %d)" % (label, render_ms, render_limit))
    return render_ms, dom


def check_screenshot(chromium, base_url, expected, label, workdir):
    """Focuses the worst tile (#tile=h3@layer), reads its probe pixel from the DOM, checks it in a screenshot."""
    if not expected:
        check(False, "%s: no tile to check in a screenshot" % label)
        return
    (h3, layer), sev = max(expected.items(), key=lambda kv: (ORDER.index(kv[1]), kv[0]))
    url = base_url + "#tile=%s@%d" % (h3, layer)
    dom, _, _ = dump_dom(chromium, url, workdir)
    row = next((r for r in dom.rows if r["data-h3"] == h3 and int(r["data-layer"]) == layer), None)
    if not check(row is not None and "data-probe-x" in row, "%s: the focused tile %s@%d has a probe pixel" % (label, h3, layer)):
        return
    x, y = int(row["data-probe-x"]), int(row["data-probe-y"])
    png, console, path = screenshot(chromium, url, workdir)
    got, want = pixel(png, x, y), hex_rgb(PALETTE[sev])
    close = got is not None and all(abs(g - w) <= 3 for g, w in zip(got, want))
    check(close, "%s: screenshot pixel (%d,%d) of tile %s@%d is %s, palette %s for %s is %s"
          % (label, x, y, h3, layer, got, PALETTE[sev], sev, want))
    check(not console, "%s: no console message while taking the screenshot %s" % (label, console[:3]))
    # And a pixel far from any tile is not a tile colour (the map is drawn, not one flat colour).
    corner = pixel(png, 40, 120)
    check(corner is not None and all(any(abs(a - b) > 6 for a, b in zip(corner, hex_rgb(c))) for c in PALETTE.values()),
          "%s: a pixel away from the tiles (%s) is basemap, not a tile colour" % (label, corner))


def static_checks(text, label):
    check(not re.search(r"""(src|href|action)\s*=\s*["']?\s*(https?:)?//""", text, re.I), "%s: no URL in src/href/action" % label)
    check(not re.search(r"\b(fetch|XMLHttpRequest|WebSocket|EventSource|sendBeacon|importScripts)\b", text),
          "%s: no fetch/XHR/WebSocket in the page" % label)
    check("http://" not in text and "https://" not in text, "%s: no http:// or https:// anywhere in the page" % label)


def replay_tiles(eddy, flight):
    out = subprocess.run([eddy, "replay", flight, "--json"], capture_output=True, text=True, check=True).stdout
    tiles = {}
    for line in out.splitlines():
        o = json.loads(line)
        if o.get("type") == "tile":
            tiles[(o["h3"], o["layer"])] = o["severity"]
    return tiles


def replay_page(args, chromium, work):
    page = os.path.join(work, "replay.html")
    subprocess.run([args.eddy, "replay", args.flight, "--html", page], check=True, capture_output=True)
    expected = replay_tiles(args.eddy, args.flight)
    text = open(page, encoding="utf-8").read()
    static_checks(text, "replay page")
    check(len(expected) > 0, "replay page: the fixture flight has tiles (%d)" % len(expected))
    url = "file://" + page
    check_page(chromium, url, expected, "replay page", work)
    check_screenshot(chromium, url, expected, "replay page", work)


def long_flight(args, chromium, work):
    flight = os.path.join(work, "sim-12h")
    subprocess.run([args.eddy, "simulate", flight, "--hours", "12", "--rate", "10",
                    "--segments", "0:20m,0.15:10m,0:20m,0.3:5m,0:10m,0.5:3m"], check=True, capture_output=True)
    page = os.path.join(work, "long.html")
    started = time.time()
    subprocess.run([args.eddy, "replay", flight, "--html", page], check=True, capture_output=True)
    print("  (12-hour replay with --html took %.1f s)" % (time.time() - started))
    size = os.path.getsize(page)
    print("html_page_mb: %.3f" % (size / 1e6))
    check(size <= SIZE_LIMIT_BYTES, "12-hour page: %d bytes (limit %d)" % (size, SIZE_LIMIT_BYTES))
    expected = replay_tiles(args.eddy, flight)
    render_ms, _ = check_page(chromium, "file://" + page, expected, "12-hour page", work)
    print("html_render_s: %.3f" % (render_ms / 1000))


def http(url, headers=None):
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *a, **k):
            return None
    opener = urllib.request.build_opener(NoRedirect)
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with opener.open(request, timeout=30) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def server_page(args, chromium, work):
    db = os.path.join(work, "server.sqlite")
    key = subprocess.run([args.server, "keys", "add", "--db", db, "--airline", "EDY", "--label", "map-check"],
                         capture_output=True, text=True, check=True).stdout.split()[-1]
    log = open(os.path.join(work, "server.log"), "w")
    proc = subprocess.Popen([args.server, "serve", "--db", db, "--port", "0", "--rate-limit", "0", "--log-level", "error"],
                            stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        port = None
        deadline = time.time() + 60
        while time.time() < deadline and port is None:
            line = proc.stdout.readline()
            m = re.match(r"eddy-server listening on 127\.0\.0\.1:(\d+)", line or "")
            if m:
                port = int(m.group(1))
            elif not line and proc.poll() is not None:
                break
        if not check(port is not None, "server: eddy-server started"):
            return
        base = "http://127.0.0.1:%d" % port
        subprocess.run([args.eddy, "replay", args.flight, "--engine", "--server", base, "--api-key", key, "--airline", "EDY"],
                       check=True, capture_output=True)
        # What the server holds, by its own API: a global delta fetch of turbulence.
        body = json.dumps({"apiKey": key, "airline": "EDY", "userId": "map-check", "clientVersion": "1.0.0"}).encode()
        request = urllib.request.Request(base + "/v1/session", data=body, headers={"Content-Type": "application/json"})
        token = json.load(urllib.request.urlopen(request, timeout=30))["token"]
        fetch = json.dumps({"dataType": "turbulence", "area": {"type": "global", "polygon": []}, "historyHours": 6,
                            "minLayer": -2, "maxLayer": 99, "viewerClass": "medium"}).encode()
        request = urllib.request.Request(base + "/v1/fetch", data=fetch, headers={
            "Content-Type": "application/json", "Authorization": "Bearer " + token})
        observations = json.load(urllib.request.urlopen(request, timeout=30)).get("observations") or []
        worst = {}
        for o in observations:
            r = o["report"] if "report" in o else o
            tile = r.get("tile") or {}
            h3 = tile.get("h3") if isinstance(tile, dict) else None
            h3 = format(h3, "x") if isinstance(h3, int) else (h3 or r.get("h3"))
            layer = tile.get("layer") if isinstance(tile, dict) else r.get("layer")
            peak = r.get("edrPeak")
            k = (str(h3).lower(), int(layer))
            worst[k] = max(worst.get(k, -1), peak)
        expected = {k: severity(v) for k, v in worst.items()}
        check(len(expected) > 0, "server: holds %d tiles from %d observations" % (len(expected), len(observations)))

        status, headers, _ = http(base + "/map")
        check(status == 401, "server: /map without a session is %d (401 expected)" % status)
        status, _, _ = http(base + "/map?key=not-a-key")
        check(status == 401, "server: /map with an unknown key is %d (401 expected)" % status)
        status, _, _ = http(base + "/map", {"Cookie": "eddy_map=forged"})
        check(status == 401, "server: /map with a forged cookie is %d (401 expected)" % status)
        status, headers, _ = http(base + "/map?key=" + key + "&hours=6")
        cookie = headers.get("Set-Cookie", "")
        check(status == 303 and headers.get("Location") == "/map?hours=6" and cookie.startswith("eddy_map=")
              and "HttpOnly" in cookie and "SameSite=Strict" in cookie,
              "server: the key is exchanged for a session cookie (%d, %s, %s)" % (status, headers.get("Location"), cookie[:40]))
        status, headers, page = http(base + "/map?hours=6", {"Cookie": cookie.split(";")[0]})
        check(status == 200 and headers.get("Content-Type", "").startswith("text/html"), "server: /map with the cookie is %d" % status)
        check("default-src 'none'" in headers.get("Content-Security-Policy", ""), "server: /map sends a no-network CSP")
        static_checks(page.decode("utf-8"), "server page")
        url = base + "/map?key=" + key
        check_page(chromium, url, expected, "server page", work)
        check_screenshot(chromium, url, expected, "server page", work)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--eddy", default=".build/debug/eddy")
    ap.add_argument("--server", default=".build/debug/eddy-server")
    ap.add_argument("--flight", default="Fixtures/flights/sim-medium-mixed")
    ap.add_argument("--skip-long", action="store_true", help="skip the 12-hour flight")
    args = ap.parse_args()
    chromium = find_chromium()
    if chromium is None:
        if os.environ.get("EDDY_SKIP_BROWSER_TESTS") == "1":
            print("map_browser_check: SKIPPED: EDDY_SKIP_BROWSER_TESTS=1 (the user opted out); no browser test ran")
            return 0
        print("map_browser_check: FAILED: no Chromium found (chromium, chromium-browser). `make deps` installs the Debian "
              "package `chromium`; install it (apt-get install chromium) or opt out with EDDY_SKIP_BROWSER_TESTS=1.",
              file=sys.stderr)
        return 1
    print("map_browser_check: " + subprocess.run([chromium, "--version"], capture_output=True, text=True).stdout.strip())
    with tempfile.TemporaryDirectory(prefix="eddy-map-check-") as work:
        replay_page(args, chromium, work)
        if not args.skip_long:
            long_flight(args, chromium, work)
        server_page(args, chromium, work)
    if failures:
        print("map_browser_check: %d check(s) failed" % len(failures), file=sys.stderr)
        return 1
    print("map_browser_check: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
