#!/usr/bin/env python3
"""Browser check of Eddy's pictures (docs/maps.md, "How it is tested"): headless Chromium (Debian package) opens

  1. the page of `eddy replay FLIGHT --html` (a fixture flight with truth), and of `eddy query --html` on a store
     holding that flight's reports,
  2. the page of a 12-hour simulated flight (size ≤ 5 MB, rendered ≤ 2 s),
  3. `/map` of a real loopback eddy-server fed by `eddy replay --engine --server --html` and one ingested pilot report
     (401 without a session; the API key exchanged for a session cookie; the page itself, with this hour's nowcast
     cells drawn by provenance: each row's colour and provenance equal to the server's /v1/fetch nowcast, and the
     legend's swatches in three distinct outline styles), and that engine replay's own page,

and checks each page through the DevTools protocol on a pipe (`--remote-debugging-pipe`: no port, one browser,
the viewport fixed at 1200×1500 by Emulation.setDeviceMetricsOverride): the DOM after the page's script ran
(rendered, no error recorded by the page's window.onerror / console.error capture), no console call, uncaught
exception or browser log entry (Runtime/Log events: Content-Security-Policy refusals and failed loads show there),
the number of tiles equal to what eddy itself reported (its JSON Lines / the server's /v1/fetch), each tile row's
colour equal to the documented palette colour of the severity computed here from the EDR; then, zoomed on the worst
tile, a screenshot (Page.captureScreenshot, PNG decoded with zlib from the standard library) whose pixel at the point
the page marked inside that tile has that colour; and the render time the page wrote (performance.now() at the end
of its first render; the first frame after it is printed too).

Chromium missing: the check fails loudly, unless EDDY_SKIP_BROWSER_TESTS=1 (the user opted out), when it says it
skipped. Usage: scripts/map_browser_check.py --eddy .build/debug/eddy --server .build/debug/eddy-server
"""
import argparse
import datetime
import base64
import json
import os
import re
import select
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
passes = []


def check(condition, message):
    print(("  ok   " if condition else "  FAIL ") + message)
    (passes if condition else failures).append(message)
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


class Browser:
    """Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe: commands on fd 3,
    answers and events on fd 4, JSON messages ended by NUL). No network, no port."""

    def __init__(self, chromium, workdir, width, height):
        self.width, self.height = width, height
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()
        def child():
            a, b = os.dup(to_r), os.dup(from_w)
            os.dup2(a, 3)
            os.dup2(b, 4)
        profile = os.path.join(workdir, "profile-%d" % time.time_ns())
        self.proc = subprocess.Popen(
            [chromium, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--hide-scrollbars", "--force-device-scale-factor=1", "--window-size=%d,%d" % (width, height),
             "--user-data-dir=" + profile, "--disable-extensions", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", "--no-pings",
             "--disable-domain-reliability", "--disable-client-side-phishing-detection", "--disable-default-apps",
             "--no-default-browser-check", "--metrics-recording-only",
             # Nothing leaves the machine: names resolve to nothing but loopback, and any other request would go
             # to a dead loopback proxy (loopback itself is never proxied).
             "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1", "--proxy-server=http://127.0.0.1:9",
             "--proxy-bypass-list=127.0.0.1;localhost;[::1]",
             "--enable-logging=stderr", "--v=0", "about:blank"],
            pass_fds=(3, 4), preexec_fn=child, close_fds=True, stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(workdir, "chromium-%d.log" % time.time_ns()), "w"))
        os.close(to_r)
        os.close(from_w)
        self.out, self.inp = to_w, from_r
        self.buffer, self.next_id, self.events = b"", 0, []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for method in ("Page.enable", "Runtime.enable", "Log.enable"):
            self.call(method, session=True)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=True)

    def _read(self, timeout):
        deadline = time.time() + timeout
        while b"\0" not in self.buffer:
            left = deadline - time.time()
            if left <= 0 or not select.select([self.inp], [], [], left)[0]:
                raise TimeoutError("no answer from Chromium")
            chunk = os.read(self.inp, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=False, timeout=60):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self.out, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read(timeout)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_event(self, name, timeout=60):
        deadline = time.time() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e["method"] == name:
                    return self.events.pop(i)
            self.events.append(self._read(max(0.01, deadline - time.time())))

    def navigate(self, url):
        self.events = [e for e in self.events if e["method"] != "Page.loadEventFired"]
        self.call("Page.navigate", {"url": url}, session=True)
        self.wait_event("Page.loadEventFired")

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=True)
        if "exceptionDetails" in result:
            raise RuntimeError("evaluate: %s" % result["exceptionDetails"])
        return result["result"].get("value")

    def screenshot(self):
        return base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"}, session=True)["data"])

    def console(self):
        """Console calls, uncaught exceptions and browser log entries (CSP refusals, failed loads) seen so far."""
        out = []
        for e in self.events:
            m, p = e["method"], e.get("params", {})
            if m == "Runtime.consoleAPICalled":
                out.append("console.%s: %s" % (p.get("type"), " ".join(str(a.get("value", a.get("description"))) for a in p.get("args", []))))
            elif m == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append("exception: %s" % (d.get("exception", {}).get("description") or d.get("text")))
            elif m == "Log.entryAdded":
                entry = p.get("entry", {})
                out.append("log %s %s: %s" % (entry.get("level"), entry.get("source"), entry.get("text")))
        return out

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.out)
        os.close(self.inp)


def read_png(data):
    """Decodes an 8-bit RGB/RGBA non-interlaced PNG (bytes) into (width, height, channels, rows of bytes)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit("the screenshot is not a PNG")
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


PAGE_STATE = """JSON.stringify({
  status: (function () { var s = document.getElementById('eddy-status'), o = {};
    if (!s) return o; for (var i = 0; i < s.attributes.length; i++) o[s.attributes[i].name] = s.attributes[i].value; return o; })(),
  errors: (document.getElementById('eddy-errors') || {}).textContent || '',
  viewport: innerWidth + 'x' + innerHeight,
  rows: Array.prototype.map.call(document.querySelectorAll('#tile-rows tr'), function (r) {
    return { h3: r.getAttribute('data-h3'), layer: +r.getAttribute('data-layer'), color: r.getAttribute('data-color'),
             prov: r.getAttribute('data-provenance'), x: r.getAttribute('data-probe-x'), y: r.getAttribute('data-probe-y') }; }),
  legend: Array.prototype.map.call(document.querySelectorAll('#provenance-legend .sw'), function (e) {
    var cs = getComputedStyle(e);
    return { prov: e.getAttribute('data-provenance'), border: cs.borderTopStyle, hatch: cs.backgroundImage }; })
})"""


def open_page(browser, url):
    """Navigates (from about:blank, so a #fragment change is a real load) and waits for the first frame after render."""
    browser.navigate("about:blank")
    browser.events = []
    browser.navigate(url)
    state = {}
    deadline = time.time() + 30
    while time.time() < deadline:
        state = json.loads(browser.evaluate(PAGE_STATE))
        if "data-frame-ms" in state["status"]:
            break
        time.sleep(0.05)
    return state


def check_page(browser, url, expected, label, render_limit=RENDER_LIMIT_MS, nowcast=None):
    """expected: {(h3, layer): severity name} of the reports; nowcast: {(h3, layer): (severity name, provenance)} of the
    nowcast cells the page must draw by provenance (none when omitted). Returns (render ms, first-frame ms)."""
    nowcast = nowcast or {}
    print("%s: %s" % (label, url if len(url) < 120 else url[:117] + "..."))
    state = open_page(browser, url)
    status = state.get("status", {})
    check(status.get("data-state") == "rendered", "%s: the page rendered (data-state=%s)" % (label, status.get("data-state")))
    check(status.get("data-errors") == "0" and not state.get("errors", "").strip(),
          "%s: no error recorded by the page (%s %s)" % (label, status.get("data-errors"), state.get("errors", "").strip()[:300]))
    console = browser.console()
    check(not console, "%s: no console message, exception or browser log entry %s" % (label, console[:3]))
    all_rows = state.get("rows", [])
    rows = [r for r in all_rows if r.get("prov") == "report"]
    nowcast_rows = [r for r in all_rows if r.get("prov") != "report"]
    check(status.get("data-tiles") == str(len(expected) + len(nowcast)) and len(rows) == len(expected)
          and status.get("data-nowcast-tiles", "0") == str(len(nowcast)),
          "%s: %s tiles drawn (%s nowcast), %d report rows; eddy reported %d reports' tiles and %d nowcast cells"
          % (label, status.get("data-tiles"), status.get("data-nowcast-tiles"), len(rows), len(expected), len(nowcast)))
    if nowcast:
        drawn = {(r["h3"], r["layer"]): (r["color"], r["prov"]) for r in nowcast_rows}
        want = {k: (PALETTE[v[0]], v[1]) for k, v in nowcast.items()}
        check(drawn == want and len(nowcast_rows) == len(nowcast),
              "%s: every nowcast cell drawn with its severity colour and provenance (%d rows, %d expected; %s)"
              % (label, len(nowcast_rows), len(nowcast), sorted(set(drawn.items()) ^ set(want.items()))[:3]))
        legend = {e["prov"]: e for e in state.get("legend", [])}
        styles = [(legend.get(p, {}).get("border"), legend.get(p, {}).get("hatch", "")[:20]) for p in ("fleetMeasured", "pilotReport", "forecast")]
        check(set(legend) == {"report", "fleetMeasured", "pilotReport", "forecast"} and len(set(styles)) == 3
              and [b for b, _ in styles] == ["solid", "dashed", "dotted"],
              "%s: the legend shows reports and each nowcast provenance in its own style %s" % (label, styles))
    wrong = [(r["h3"], r["layer"], r["color"]) for r in rows if PALETTE.get(expected.get((r["h3"], r["layer"]), "?")) != r["color"]]
    check(not wrong, "%s: every tile's colour is its severity's palette colour %s" % (label, wrong[:3]))
    render_ms = float(status.get("data-render-ms", "inf"))
    frame_ms = float(status.get("data-frame-ms", "inf"))
    check(render_ms <= render_limit, "%s: rendered in %.0f ms (limit %d); first frame after it at %.0f ms"
          % (label, render_ms, render_limit, frame_ms))
    return render_ms, frame_ms


def check_screenshot(browser, base_url, expected, label):
    """Opens the page zoomed on the worst tile (#tile=h3@layer), reads the pixel the page marked inside that tile
    (away from the track, under no other tile), takes a screenshot in the same state and checks that pixel."""
    if not expected:
        check(False, "%s: no tile to check in a screenshot" % label)
        return
    (h3, layer), sev = max(expected.items(), key=lambda kv: (ORDER.index(kv[1]), kv[0]))
    state = open_page(browser, base_url + "#tile=%s@%d" % (h3, layer))
    png = read_png(browser.screenshot())
    check(state.get("viewport") == "%dx%d" % (png[0], png[1]),
          "%s: the screenshot (%dx%d) has the page's viewport (%s)" % (label, png[0], png[1], state.get("viewport")))
    row = next((r for r in state.get("rows", []) if r["h3"] == h3 and r["layer"] == layer), None)
    if not check(row is not None and row.get("x") is not None, "%s: the focused tile %s@%d has a probe pixel" % (label, h3, layer)):
        return
    x, y = int(row["x"]), int(row["y"])
    got, want = pixel(png, x, y), hex_rgb(PALETTE[sev])
    close = got is not None and all(abs(g - w) <= 3 for g, w in zip(got, want))
    check(close, "%s: screenshot pixel (%d,%d) of tile %s@%d is %s, palette %s for %s is %s"
          % (label, x, y, h3, layer, got, PALETTE[sev], sev, want))
    console = browser.console()
    check(not console, "%s: no console message while zoomed %s" % (label, console[:3]))
    # A pixel away from the tiles is not a tile colour (the map is drawn, not one flat colour).
    corner = pixel(png, 40, 120)
    check(corner is not None and all(any(abs(a - b) > 6 for a, b in zip(corner, hex_rgb(c))) for c in PALETTE.values()),
          "%s: a pixel away from the tiles (%s) is basemap, not a tile colour" % (label, corner))


def static_checks(text, label):
    check(not re.search(r"""(src|href|action)\s*=\s*["']?\s*(https?:)?//""", text, re.I), "%s: no URL in src/href/action" % label)
    check(not re.search(r"\b(fetch|XMLHttpRequest|WebSocket|EventSource|sendBeacon|importScripts)\b", text),
          "%s: no fetch/XHR/WebSocket in the page" % label)
    check("http://" not in text and "https://" not in text, "%s: no http:// or https:// anywhere in the page" % label)


def replay_with_page(eddy, flight, page):
    """One replay writes the page (--html) and prints its JSON Lines (--json); returns {(h3, layer): severity}."""
    out = subprocess.run([eddy, "replay", flight, "--json", "--html", page], capture_output=True, text=True, check=True).stdout
    tiles = {}
    for line in out.splitlines():
        o = json.loads(line)
        if o.get("type") == "tile":
            tiles[(o["h3"], o["layer"])] = o["severity"]
    return tiles


def replay_page(args, browser, work):
    page = os.path.join(work, "replay.html")
    expected = replay_with_page(args.eddy, args.flight, page)
    text = open(page, encoding="utf-8").read()
    static_checks(text, "replay page")
    check(len(expected) > 0, "replay page: the fixture flight has tiles (%d)" % len(expected))
    url = "file://" + page
    check_page(browser, url, expected, "replay page")
    check_screenshot(browser, url, expected, "replay page")


def query_page(args, browser, work):
    """`eddy query --html` of a store holding the fixture flight's own reports; expected tiles from `--geojson`."""
    db = os.path.join(work, "query.sqlite")
    subprocess.run([args.eddy, "replay", args.flight, "--db", db], check=True, capture_output=True)
    meta = json.load(open(os.path.join(args.flight, "meta.json")))
    origin = datetime.datetime.fromisoformat(meta["time_origin"].replace("Z", "+00:00")).timestamp()
    common = [args.eddy, "query", "--db", db, "--source", "own", "--own-span-minutes", "360", "--now", str(int(origin) + 3600)]
    geojson = json.loads(subprocess.run(common + ["--geojson"], capture_output=True, text=True, check=True).stdout)
    expected = {(f["properties"]["h3"], f["properties"]["layer"]): f["properties"]["severity"] for f in geojson["features"]}
    page = os.path.join(work, "query.html")
    subprocess.run(common + ["--html", page], check=True, capture_output=True)
    static_checks(open(page, encoding="utf-8").read(), "query page")
    check(len(expected) > 0, "query page: the store has tiles (%d)" % len(expected))
    check_page(browser, "file://" + page, expected, "query page")


def long_flight(args, browser, work):
    flight = os.path.join(work, "sim-12h")
    subprocess.run([args.eddy, "simulate", flight, "--hours", "12", "--rate", "10",
                    "--segments", "0:20m,0.15:10m,0:20m,0.3:5m,0:10m,0.5:3m"], check=True, capture_output=True)
    page = os.path.join(work, "long.html")
    started = time.time()
    expected = replay_with_page(args.eddy, flight, page)
    print("  (12-hour replay with --html took %.1f s)" % (time.time() - started))
    size = os.path.getsize(page)
    print("html_page_mb: %.3f" % (size / 1e6))
    check(size <= SIZE_LIMIT_BYTES, "12-hour page: %d bytes (limit %d)" % (size, SIZE_LIMIT_BYTES))
    render_ms, frame_ms = check_page(browser, "file://" + page, expected, "12-hour page")
    print("html_render_s: %.3f" % (render_ms / 1000))
    print("html_first_frame_s: %.3f" % (frame_ms / 1000))


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


def server_page(args, browser, work):
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
        # A pilot report (MOD at FL350, 10 min ago), ingested before anything fetches, so this hour's nowcast holds
        # pilot-report cells that /map must draw in their own style.
        now = datetime.datetime.now(datetime.timezone.utc)
        observed = now - datetime.timedelta(minutes=10)
        pirep = os.path.join(work, "pirep.txt")
        with open(pirep, "w") as f:
            f.write("DEN UA /OV 4000N10000W /TM %02d%02d /FL350 /TP B738 /TB MOD\n" % (observed.hour, observed.minute))
        ingest = subprocess.run([args.server, "ingest-pilot-reports", "--db", db, "--reference-time",
                                 now.strftime("%Y-%m-%dT%H:%M:%SZ"), pirep], capture_output=True, text=True)
        check(ingest.returncode == 0 and "1 stored" in ingest.stdout, "server: a pilot report ingested (%s)" % ingest.stdout.strip())
        engine_page = os.path.join(work, "engine.html")
        subprocess.run([args.eddy, "replay", args.flight, "--engine", "--server", base, "--api-key", key, "--airline", "EDY",
                        "--html", engine_page], check=True, capture_output=True)
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
        # This hour's nowcast, by the same API: what /map draws (hour 0, light or worse for the medium viewer).
        fetch = json.dumps({"dataType": "nowcast", "area": {"type": "global", "polygon": []}, "historyHours": 6,
                            "minLayer": -2, "maxLayer": 99, "viewerClass": "medium"}).encode()
        request = urllib.request.Request(base + "/v1/fetch", data=fetch, headers={
            "Content-Type": "application/json", "Authorization": "Bearer " + token})
        nowcast = {}
        for c in json.load(urllib.request.urlopen(request, timeout=30)).get("nowcast") or []:
            tile = c.get("tile") or {}
            h3 = tile.get("h3")
            h3 = format(h3, "x") if isinstance(h3, int) else str(h3).lower()
            if c.get("forecastHour") == 0 and severity(c["edr"]) != "none":
                nowcast[(h3, int(tile.get("layer")))] = (severity(c["edr"]), c.get("provenance", "fleetMeasured"))
        check(any(p == "pilotReport" for _, p in nowcast.values()),
              "server: this hour's nowcast has %d cells, pilot-report ones among them" % len(nowcast))
        # The engine replay's own page (--engine --html) shows the tiles it uploaded.
        static_checks(open(engine_page, encoding="utf-8").read(), "engine page")
        check_page(browser, "file://" + engine_page, expected, "engine page")

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
        check_page(browser, url, expected, "server page", nowcast=nowcast)
        check_screenshot(browser, url, expected, "server page")
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
        browser = Browser(chromium, work, *WINDOW)
        try:
            replay_page(args, browser, work)
            query_page(args, browser, work)
            if not args.skip_long:
                long_flight(args, browser, work)
            server_page(args, browser, work)
        finally:
            browser.close()
    for message in failures:
        print("failed: " + message, file=sys.stderr)
    print("map_browser_check: %d passed, %d failed" % (len(passes), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
