#!/usr/bin/env python3
"""Checks the monitoring files in deploy/ against a real eddy-server (docs/fleet-server.md "Operations: monitoring").

1. `promtool check config deploy/prometheus/prometheus.yml` (which checks the rules file it loads) and
   `promtool test rules deploy/prometheus/eddy-rules.test.yml` (the alerts' unit tests).
2. The Grafana dashboard (deploy/grafana/eddy-server.json) is a dashboard as Grafana exports it for sharing: a
   `__inputs` Prometheus data source that every panel and variable uses, unique panel ids, grid positions inside the
   24-column grid, a query in every target; and it loads into Grafana's own typed dashboard models (PyPI
   grafana-foundation-sdk, generated from Grafana's schema) with every panel's options decoded by its panel plugin and
   no key dropped on the way through (each of these first refuses a copy broken on purpose).
3. Every PromQL expression of the dashboard is valid: they are written into a temporary rules file (Grafana's
   variables replaced by values) and parsed by `promtool check rules`, i.e. by Prometheus' own parser.
4. Every metric name those expressions and the rules' expressions use is one the server exposes: a real
   `eddy-server` (SQLite, loopback) is started and exercised (a session, uploads with a rejected report and a
   duplicate, a 401, a 429, /readyz), its `/metrics` scraped, and the names compared; names made by the rules
   (`record:`) and by Prometheus itself (`up`) count too. Every family the server exposes must be on the dashboard.

The name extractor checks itself first on expressions whose answer is known (a check that could not fail would prove
nothing). Python standard library, grafana-foundation-sdk (requirements-ops.txt: run it with the venv's Python, as
`make test` does) and promtool (Debian `prometheus`). Exit status 1 on any failure.
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

from eddy_harness import ROOT, ServerProcess, global_fetch, log, make_reports, open_session, request, res5_cells

PROMQL_KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless",
                   "offset", "inf", "nan", "atan2", "start", "end"}
AGGREGATIONS = {"sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values", "bottomk", "topk",
                "quantile", "limitk", "limit_ratio"}
PROMETHEUS_MADE = {"up", "scrape_duration_seconds", "scrape_samples_scraped", "scrape_samples_post_metric_relabeling",
                   "scrape_series_added", "ALERTS", "ALERTS_FOR_STATE"}
# Grafana's variables, replaced for parsing: a range and regular expressions matching anything.
GRAFANA_VARIABLES = {"$__rate_interval": "1m", "$__interval": "1m", "$__range": "1h", "$job": ".*", "$instance": ".*",
                     "${job}": ".*", "${instance}": ".*"}
TOKEN = re.compile(r"""
    (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)
  | (?P<braces>\{[^{}]*\})
  | (?P<brackets>\[[^\[\]]*\])
  | (?P<number>(?:0x[0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)(?:ms|[smhdwy])?)
  | (?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)
  | (?P<other>\S)
""", re.VERBOSE)

failures = []


def check(ok, what):
    log(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def metric_names(expr):
    """The metric names a PromQL expression selects: identifiers that are not functions (followed by "("), keywords,
    label names inside {…} or after by/without/on/ignoring/group_left/group_right, strings, durations or numbers."""
    tokens = [(m.lastgroup, m.group()) for m in TOKEN.finditer(expr)]
    names = set()
    i = 0
    while i < len(tokens):
        kind, text = tokens[i]
        following = tokens[i + 1][1] if i + 1 < len(tokens) else ""
        if kind == "name" and text in ("by", "without", "on", "ignoring", "group_left", "group_right") and following == "(":
            # A label list: skip to its closing parenthesis.
            while i < len(tokens) and tokens[i][1] != ")":
                i += 1
        elif kind == "name" and text in AGGREGATIONS and following in ("by", "without"):
            pass   # `sum by (…) (…)`: an aggregation, not a metric
        elif kind == "name" and text not in PROMQL_KEYWORDS and following != "(":
            names.add(text)
        i += 1
    return names


def self_test():
    """The extractor on expressions whose names are known; fails the run when it is wrong."""
    cases = {
        'sum by (route, le) (rate(eddy_http_request_duration_seconds_bucket{route=~"/v1/.*", le!="x"}[5m]))':
            {"eddy_http_request_duration_seconds_bucket"},
        'histogram_quantile(0.99, sum(rate(a_b[$__rate_interval])) by (le)) > 1e3 and on(instance) up == 0':
            {"a_b", "up"},
        'rate(eddy_nope_total[5m] offset 1h) / ignoring(status) group_left sum without (x) (other:recorded)':
            {"eddy_nope_total", "other:recorded"},
        'absent(up{job="by (x)"}) or vector(0) unless bool_metric':
            {"up", "bool_metric"},
    }
    for expr, expected in cases.items():
        got = metric_names(expr)
        check(got == expected, f"self-test: names of {expr!r} are {sorted(got)} (expected {sorted(expected)})")


def substitute(expr):
    for variable, value in sorted(GRAFANA_VARIABLES.items(), key=lambda kv: -len(kv[0])):
        expr = expr.replace(variable, value)
    return expr


def dashboard_queries(dashboard):
    """(where, PromQL expression) of every panel target, and (where, metric selector) of every variable query."""
    queries = []

    def panels(items):
        for panel in items:
            yield panel
            yield from panels(panel.get("panels", []))

    for panel in panels(dashboard.get("panels", [])):
        for target in panel.get("targets", []):
            queries.append((f"panel {panel.get('id')} {panel.get('title')!r} target {target.get('refId')}", target.get("expr", "")))
    for variable in dashboard.get("templating", {}).get("list", []):
        query = variable.get("query")
        text = query.get("query", "") if isinstance(query, dict) else query or ""
        match = re.fullmatch(r"\s*label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)\s*", text)
        if variable.get("type") == "query":
            check(match is not None, f"variable {variable.get('name')}: label_values(selector, label) query ({text!r})")
            if match:
                queries.append((f"variable {variable.get('name')}", match.group(1)))
    return queries


# Keys Grafana's typed models (PyPI grafana-foundation-sdk) do not hold, by their last path component: the sharing
# export's envelope (__inputs, __elements, __requires), the database id, a query variable's display text (definition),
# and options newer than the models' schema.
GRAFANA_KEYS_OUTSIDE_THE_MODELS = {"__inputs", "__elements", "__requires", "builtIn", "id", "definition",
                                   "showPercentChange", "wideLayout", "axisBorderShow"}


def dashboard_load_problems(dashboard):
    """What goes wrong when the dashboard is loaded into Grafana's own typed models (grafana-foundation-sdk, generated
    from Grafana's dashboard schema): the load fails, a panel's options are not its panel plugin's (an unknown panel
    type), a target is not a Prometheus query, or a key is dropped on the way through the models and back (a misspelt
    or misplaced key). An empty list when nothing does."""
    from grafana_foundation_sdk.cog import plugins
    from grafana_foundation_sdk.cog.encoder import JSONEncoder
    from grafana_foundation_sdk.models import dashboard as models, prometheus

    plugins.register_default_plugins()
    try:
        loaded = models.Dashboard.from_json(json.loads(json.dumps(dashboard)))
        back = json.loads(JSONEncoder(sort_keys=True).encode(loaded))
    except (TypeError, ValueError, KeyError, AttributeError) as error:
        return [f"Grafana's models refuse it: {type(error).__name__}: {error}"]
    problems = []
    for panel in loaded.panels or []:
        if isinstance(panel, models.RowPanel):
            continue
        where = f"panel {panel.id_val} {panel.title!r}"
        if isinstance(panel.options, dict):
            problems.append(f"{where}: type {panel.type_val!r} is no panel plugin Grafana's models know (options not decoded)")
        for target in panel.targets or []:
            if not isinstance(target, prometheus.Dataquery) or not target.expr:
                problems.append(f"{where}: a target that is not a Prometheus query")

    def dropped(original, copy, path):
        if isinstance(original, dict):
            for key, value in original.items():
                if not isinstance(copy, dict) or key not in copy:
                    if key not in GRAFANA_KEYS_OUTSIDE_THE_MODELS:
                        problems.append(f"{path}/{key}: not in Grafana's dashboard models (misspelt or misplaced?)")
                else:
                    dropped(value, copy[key], f"{path}/{key}")
        elif isinstance(original, list) and isinstance(copy, list):
            for index, (item, copied) in enumerate(zip(original, copy)):
                dropped(item, copied, f"{path}[{index}]")

    dropped(dashboard, back, "")
    return problems


def check_dashboard_loads(dashboard):
    """Grafana's models load the dashboard; and refuse three copies broken on purpose (a check that could not fail
    would prove nothing)."""
    panel = next(i for i, p in enumerate(dashboard["panels"]) if p.get("type") == "timeseries")
    for what, reason, breaking in (
            ("a misspelt panel type", "'timeserie' is no panel plugin", lambda d: d["panels"][panel].update(type="timeserie")),
            ("a misspelt key", "fieldConfg: not in", lambda d: d["panels"][panel].update(
                fieldConfg=d["panels"][panel].pop("fieldConfig"))),
            ("a misplaced key", "options/unit: not in", lambda d: d["panels"][panel]["options"].update(unit="s"))):
        broken = json.loads(json.dumps(dashboard))
        breaking(broken)
        refused = dashboard_load_problems(broken)
        check(any(reason in p for p in refused), f"Grafana's models refuse {what} ({reason}): {refused[:2]}")
    problems = dashboard_load_problems(dashboard)
    check(not problems, "the dashboard loads into Grafana's dashboard models (grafana-foundation-sdk), nothing dropped"
          + ("".join("\n     " + p for p in problems)))


def check_dashboard_structure(dashboard):
    inputs = [i for i in dashboard.get("__inputs", []) if i.get("type") == "datasource" and i.get("pluginId") == "prometheus"]
    check(len(inputs) == 1, "dashboard: one Prometheus data source in __inputs")
    uid = "${%s}" % inputs[0]["name"] if inputs else None
    check(isinstance(dashboard.get("schemaVersion"), int) and dashboard["schemaVersion"] >= 36,
          f"dashboard: schemaVersion {dashboard.get('schemaVersion')} (Grafana 9+)")
    check(bool(dashboard.get("uid")) and bool(dashboard.get("title")), "dashboard: uid and title")
    ids, problems = set(), []
    for panel in dashboard.get("panels", []):
        where = f"panel {panel.get('id')} {panel.get('title')!r}"
        if panel.get("id") in ids:
            problems.append(f"{where}: id used twice")
        ids.add(panel.get("id"))
        grid = panel.get("gridPos", {})
        if not all(isinstance(grid.get(k), int) for k in "hwxy") or grid["x"] + grid["w"] > 24:
            problems.append(f"{where}: gridPos {grid}")
        if panel.get("type") == "row":
            continue
        if panel.get("type") not in ("timeseries", "stat", "gauge", "bargauge", "table", "text"):
            problems.append(f"{where}: type {panel.get('type')}")
        if panel.get("datasource", {}).get("uid") != uid:
            problems.append(f"{where}: data source {panel.get('datasource')}")
        if not panel.get("targets"):
            problems.append(f"{where}: no target")
        for target in panel.get("targets", []):
            if not target.get("expr") or target.get("datasource", {}).get("uid") != uid:
                problems.append(f"{where}: target {target.get('refId')} without expression or data source")
    for variable in dashboard.get("templating", {}).get("list", []):
        if variable.get("type") == "query" and variable.get("datasource", {}).get("uid") != uid:
            problems.append(f"variable {variable.get('name')}: data source {variable.get('datasource')}")
    check(not problems, "dashboard structure" + (": " + "; ".join(problems) if problems else f" ({len(ids)} panels)"))


def promtool_parses(queries, promtool, workdir):
    """Writes every expression as a recording rule and lets `promtool check rules` parse them."""
    lines = ["groups:", "  - name: dashboard-expressions", "    rules:"]
    for n, (_, expr) in enumerate(queries):
        lines.append(f"      - record: dashboard_expression_{n}")
        lines.append("        expr: " + json.dumps(substitute(expr)))
    path = os.path.join(workdir, "dashboard-expressions.yml")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    result = subprocess.run([promtool, "check", "rules", path], capture_output=True, text=True)
    check(result.returncode == 0, f"promtool parses the dashboard's {len(queries)} expressions"
          + ("" if result.returncode == 0 else ":\n" + result.stdout + result.stderr))


def rules_expressions(path):
    """(record or alert name, expression) of every rule: a small reader for the rules file's layout (`record:` or
    `alert:`, then `expr:` on one line or as a `|` block), so that no YAML package is needed."""
    rules, current, block, indent = [], None, None, None
    with open(path) as f:
        for raw in f:
            line = raw.rstrip("\n")
            stripped = line.strip()
            if block is not None:
                if stripped and (len(line) - len(line.lstrip())) > indent:
                    block.append(stripped)
                    continue
                rules.append((current, " ".join(block)))
                block = None
            match = re.match(r"\s*-\s*(record|alert):\s*(\S+)", line)
            if match:
                current = (match.group(1), match.group(2))
                continue
            match = re.match(r"(\s*)expr:\s*(.*)$", line)
            if match:
                value = match.group(2).strip()
                if value in ("|", ">", "|-", ">-"):
                    block, indent = [], len(match.group(1))
                else:
                    rules.append((current, value.strip("'\"") if value[:1] == value[-1:] and value[:1] in "'\"" else value))
    if block is not None:
        rules.append((current, " ".join(block)))
    return rules


def exercised_scrape(server_binary, workdir):
    """Starts eddy-server on SQLite, makes it count something in every family, returns its /metrics text."""
    database = os.path.join(workdir, "monitoring.sqlite")
    server = ServerProcess(server_binary, ["--db", database], workdir, "monitoring",
                           serve_args=["--rate-limit", "1", "--rate-burst", "3"])
    key = server.add_key("monitoring")
    server.start()
    try:
        token = open_session(server.url, key, "monitoring")
        rng = random.Random(30)
        reports = make_reports(rng, 2, time.time(), res5_cells())
        reports[1]["tile"]["layer"] = 120   # rejected: eddy_rejections_total{reason="report_layer"}
        for _ in range(2):                  # the second time as duplicates
            request(server.url, "POST", "/v1/reports", {"reports": reports}, token)
        request(server.url, "POST", "/v1/fetch", {})   # 401
        statuses = [request(server.url, "POST", "/v1/fetch", global_fetch(), token)[0] for _ in range(3)]
        check(429 in statuses, f"the exercise met the rate limit (statuses {statuses})")
        request(server.url, "GET", "/readyz")
        time.sleep(2)   # an upkeep round and a database probe
        status, text = request(server.url, "GET", "/metrics")
        check(status == 200, f"GET /metrics answered {status}")
        return text
    finally:
        server.stop()


def scraped_names(text):
    """Sample names and family names of a Prometheus text exposition."""
    names = set()
    for line in text.split("\n"):
        if line.startswith("# TYPE "):
            names.add(line.split()[2])
        elif line and not line.startswith("#"):
            names.add(re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", line).group())
    return names


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default=os.path.join(ROOT, ".build/debug/eddy-server"))
    parser.add_argument("--deploy", default=os.path.join(ROOT, "deploy"))
    parser.add_argument("--promtool", default=shutil.which("promtool"))
    args = parser.parse_args()
    if not args.promtool:
        sys.exit("check_monitoring: promtool not found; install Debian's prometheus package (make test does)")
    prometheus_dir = os.path.join(args.deploy, "prometheus")
    rules_path = os.path.join(prometheus_dir, "eddy-rules.yml")

    self_test()
    for command in (["check", "config", "prometheus.yml"], ["test", "rules", "eddy-rules.test.yml"]):
        result = subprocess.run([args.promtool, *command], cwd=prometheus_dir, capture_output=True, text=True)
        check(result.returncode == 0, "promtool " + " ".join(command)
              + ("" if result.returncode == 0 else ":\n" + result.stdout + result.stderr))

    with open(os.path.join(args.deploy, "grafana", "eddy-server.json")) as f:
        dashboard = json.load(f)
    check_dashboard_structure(dashboard)
    check_dashboard_loads(dashboard)
    queries = dashboard_queries(dashboard)
    rules = rules_expressions(rules_path)
    check(len(rules) >= 10 and all(expr for _, expr in rules), f"read {len(rules)} rules with expressions from {rules_path}")

    workdir = tempfile.mkdtemp(prefix="eddy-monitoring-")
    try:
        promtool_parses(queries, args.promtool, workdir)
        exposed = scraped_names(exercised_scrape(args.server, workdir))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    recorded = {name for (kind, name), _ in rules if kind == "record"}
    known = exposed | recorded | PROMETHEUS_MADE
    for source, items in (("dashboard", queries), ("rules", [(f"{kind} {name}", expr) for (kind, name), expr in rules])):
        unknown = sorted({f"{name} ({where})" for where, expr in items for name in metric_names(substitute(expr)) - known})
        check(not unknown, f"the {source} uses only metrics the server exposes" + (": unknown " + ", ".join(unknown) if unknown else ""))
    on_dashboard = {name for _, expr in queries for name in metric_names(substitute(expr))}
    families = {n for n in exposed if n.startswith(("eddy_", "process_"))}
    # A histogram is on the dashboard when any of its series (_bucket, _sum, _count) is.
    shown = {re.sub(r"_(bucket|sum|count)$", "", n) for n in on_dashboard} | on_dashboard
    missing = sorted(n for n in families if n not in shown and re.sub(r"_(bucket|sum|count)$", "", n) not in shown)
    check(not missing, "every family the server exposes is on the dashboard" + (": missing " + ", ".join(missing) if missing else ""))
    log(f"monitoring check: {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
