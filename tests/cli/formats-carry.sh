#!/bin/sh
# Every format carries what to do next (issue 23, "Done when"): for the
# example incident, a 1,024-rank incident of logs only, one of
# flight-recorder dumps only and one of both, the schema-1 JSON report is
# checked against what each incident was made to show (its culprit, the
# culprit's host, pid and call site where the data holds them, next
# steps, when the hang began with its clock) and against
# docs/report.schema.json; then text, Markdown, HTML, jsonl and the
# Perfetto verdict's args must each carry the same next steps, hang start
# and culprit details, and the verdict's group: PG 0, one of the groups
# the report lists (with logs only, the c10d PG the watchdog lines name,
# "pg:0:?").  At 1,024 ranks with logs only, every format gives
# the culprit's own record first, then one representative of the others
# and the count of the rest; the rank table has the watchdog's counters,
# and both PG 0 and its NCCL comm are listed as groups.
#
# The dumps are written by scripts/gen-fr-dumps.py (1,024 ranks of 38
# all_reduces; rank 1024/3 = 341 never enqueues the last), the logs are
# tests/data/scale/missing-rank-1024 (scripts/gen-scale-incident.py: the
# same job, rank 341 on node-042 as pid 4341).
set -u
: "${HANGDOC:?HANGDOC must name the hangdoc binary}"
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
cd "$HD_SRCDIR" || exit 99
. "$HD_SRCDIR/tests/cli/lib/python-jsonschema.sh"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
"$py" scripts/gen-fr-dumps.py bench "$tmp/fr-1024" 1024 38 ||
	{ echo "FAIL: gen-fr-dumps.py"; exit 1; }
HD_TMP=$tmp exec "$py" - <<'PY'
import html
import json
import os
import re
import subprocess
import sys

hangdoc = os.environ["HANGDOC"]
tmp = os.environ["HD_TMP"]
logs = "tests/data/scale/missing-rank-1024"
dumps = os.path.join(tmp, "fr-1024")
SITE = "train.py:88 in train_step"
# name, paths, culprit, host, pid, call site, which hang-start moments
cases = [
    ("example", ["testdata/example-incident"], 5, "node-b", 4247, SITE,
     ("last_completed", "first_timeout")),
    ("logs-1024", [logs], 341, "node-042", 4341, None,
     ("first_timeout",)),
    ("dumps-1024", [dumps], 341, None, None, SITE, ("last_completed",)),
    ("both-1024", [dumps, logs], 341, "node-042", 4341, SITE,
     ("last_completed", "first_timeout")),
]
failed = 0
checks = 0


def check(ok, what):
    global failed, checks
    checks += 1
    if not ok:
        failed += 1
        print("FAIL: " + what)
    return ok


def run(fmt, paths):
    p = subprocess.run([hangdoc, "analyze", "--no-pager", "--format", fmt]
                       + paths, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode != 1:
        print("FAIL: analyze --format %s %s: exit %d: %s" % (
            fmt, " ".join(paths), p.returncode, p.stderr.decode()[:300]))
        sys.exit(1)
    return p.stdout.decode("utf-8")


def flat(text):
    """What a reader sees: no wrapping, no code marks."""
    return " ".join(text.replace("`", "").split())


def readable(fmt, out):
    if fmt == "html":
        body = out[out.find("<body"):]
        body = re.sub(r"<style.*?</style>", " ", body, flags=re.S)
        body = re.sub(r"<[^>]+>", " ", body)
        return flat(html.unescape(body))
    if fmt == "markdown":
        return flat(re.sub(r"\\(.)", r"\1", out))
    return flat(out)


def needles(rep):
    """What each format must say, from the JSON report's top verdict."""
    v = rep["verdicts"][0]
    out = [("next step", s["text"]) for s in v["next_steps"]]
    for c in v["culprits"]:
        if c["host"]:
            out.append(("culprit host", c["host"]))
        if c["pid"]:
            out.append(("culprit pid", "pid %d" % c["pid"]))
        if c["call_site"]:
            out.append(("culprit call site", c["call_site"]))
    for m in (rep["hang_start"] or {}).values():
        if m:
            out.append(("hang start", m["time"]))
            out.append(("hang start source", m["source"]))
    return out


try:
    import jsonschema
    schema = json.load(open("docs/report.schema.json"))
    incident = json.load(open("docs/incident.schema.json"))
    validate = jsonschema.Draft202012Validator(schema)
    validate_line = jsonschema.Draft202012Validator(incident)
except ImportError:
    print("FAIL: python3-jsonschema is missing (scripts/install-deps.sh)")
    sys.exit(1)

for name, paths, culprit, host, pid, site, moments in cases:
    rep = json.loads(run("json", paths))
    for e in validate.iter_errors(rep):
        check(False, "%s: report.schema.json: %s at /%s" % (
            name, e.message, "/".join(map(str, e.path))))
    v = rep["verdicts"][0]
    check(v["kind"] == "missing_rank" and v["culprit_ranks"] == [culprit],
          "%s: top verdict %s %s" % (name, v["kind"], v["culprit_ranks"]))
    c = v["culprits"][0] if v["culprits"] else {}
    check(c == {"rank": culprit, "host": host, "pid": pid,
                "call_site": site},
          "%s: culprit details %s" % (name, c))
    check(v["next_steps"] and v["next_steps"][0]["rank"] == culprit,
          "%s: no next step about rank %d" % (name, culprit))
    if pid:
        check(v["next_steps"][0]["command"] == "py-spy dump --pid %d" % pid
              and v["next_steps"][0]["host"] == host,
              "%s: first next step %s" % (name, v["next_steps"][0]))
    hs = rep["hang_start"] or {}
    for m in ("last_completed", "first_timeout"):
        given = hs.get(m)
        if m in moments:
            check(given and given["clock"] and given["time"]
                  and given["source"],
                  "%s: hang_start.%s %s" % (name, m, given))
        else:
            check(given is None, "%s: hang_start.%s %s" % (name, m, given))
    # the verdict names its group, one of the groups listed (with logs
    # only, the c10d PG the watchdog lines name), in every format
    groups = {g["id"]: g for g in rep["groups"]}
    g = groups.get(v["group"])
    check(g is not None and g["name"] == "0", "%s: verdict group %s not "
          "PG 0 of %s" % (name, v["group"], sorted(groups)))
    g = g or {"id": "?", "name": "?", "desc": None}
    short = g["name"] or g["id"]
    long = ("PG %s (%s)" % (g["name"], g["desc"]) if g["desc"]
            else "PG %s" % g["name"])
    # the human-readable formats say the same things
    want = needles(rep)
    for fmt, where in (("text", "group %s seq %d" % (short, v["seq"])),
                       ("markdown", "| group | %s |" % short),
                       ("html", "group %s position seq %d" % (long,
                                                              v["seq"]))):
        seen = readable(fmt, run(fmt, paths))
        for what, text in want + [("verdict group", where)]:
            check(flat(text) in seen, "%s %s: no %s: %s" % (
                name, fmt, what, flat(text)[:100]))
    # the jsonl line and the Perfetto verdict carry them as JSON
    line = json.loads(run("jsonl", paths))
    for e in validate_line.iter_errors(line):
        check(False, "%s: incident.schema.json: %s at /%s" % (
            name, e.message, "/".join(map(str, e.path))))
    for key, theirs in (("culprits", v["culprits"]),
                        ("next_steps", v["next_steps"]),
                        ("hang_start", rep["hang_start"]),
                        ("group", v["group"]), ("seq", v["seq"]),
                        ("op", v["op"])):
        check(line.get(key) == theirs,
              "%s jsonl: %s differs from the report's" % (name, key))
    trace = json.loads(run("perfetto", paths))
    tops = [e for e in trace["traceEvents"] if e.get("cat") == "verdict"
            and e.get("s") == "g"]
    args = tops[0]["args"] if tops else {}
    for key, theirs in (("culprit_details", v["culprits"]),
                        ("next_steps", v["next_steps"]),
                        ("hang_start", rep["hang_start"]),
                        ("group", v["group"]), ("seq", v["seq"]),
                        ("op", v["op"])):
        check(args.get(key) == theirs,
              "%s perfetto: verdict args' %s differs" % (name, key))

# Logs only at 1,024 ranks: the culprit's own record, one representative
# of the 1,023 that timed out, and the count of the rest, in this order.
rep = json.loads(run("json", [logs]))
ev = rep["verdicts"][0]["evidence"]
check(len(ev) == 3 and ev[0]["rank"] == 341 and ev[1]["rank"] not in
      (341, None) and ev[2]["more"] == 1022 and ev[2]["source"] is None,
      "logs-1024 json: evidence %s" % [(e["rank"], e.get("more"))
                                       for e in ev])
rest = "and 1,022 more ranks with the same timeout in seq 38"
check(ev[2]["text"].startswith(rest), "logs-1024: " + ev[2]["text"])
order = [ev[0]["source"], ev[1]["source"], rest]
for fmt in ("text", "markdown", "html"):
    seen = readable(fmt, run(fmt, [logs]))
    # each after the one before (the hang start cites a timeout too)
    at = [seen.find(order[0])]
    for o in order[1:]:
        at.append(seen.find(o, at[-1]) if at[-1] >= 0 else -1)
    check(-1 not in at, "logs-1024 %s: evidence order %s" % (fmt, at))
trace = json.loads(run("perfetto", [logs]))
top = [e for e in trace["traceEvents"] if e.get("cat") == "verdict"
       and e.get("s") == "g"][0]
check([(e["rank"], e.get("more")) for e in top["args"]["evidence"]] ==
      [(341, None), (ev[1]["rank"], None), (None, 1022)],
      "logs-1024 perfetto: evidence %s" % top["args"]["evidence"])
# the rank table from the watchdog's counters
table = {r["rank"]: r for r in rep["ranks"]["table"]}
check(len(table) == 1024 and all(
    (r["last_enqueued"], r["last_completed"], r["counters_pg"]) ==
    ((37, 37, "0") if k == 341 else (38, 37, "0"))
    for k, r in table.items()), "logs-1024 json: counters in the rank table")
text = run("text", [logs])
check(re.search(r"^  341 +node-042 +1 +0 +37 +37 +absent$", text, re.M),
      "logs-1024 text: rank 341's row")
check(re.search(r"^  0-7 +node-000 +1 +0 +38 +37 +timed out$", text, re.M),
      "logs-1024 text: ranks 0-7's row")
md = run("markdown", [logs])
check("| 341 | node-042 | 1 | 0 | `PG 0` (c10d counters) | 37 | 37 | absent |"
      in md, "logs-1024 markdown: rank 341's row")
# every group: PG 0 and the comm
ids = [g["id"] for g in rep["groups"]]
check(sorted(ids) == ["comm:0x5c1e2f03a9d4b871", "pg:0:?"],
      "logs-1024 json: groups %s" % ids)
pg0 = [g for g in rep["groups"] if g["id"] == "pg:0:?"]
check(pg0 and pg0[0]["known_from"] == "c10d_lines" and
      len(pg0[0]["ranks"]) == 1024 and pg0[0]["timed_out"] == 1023,
      "logs-1024 json: PG 0 %s" % (pg0[0] if pg0 else None))
for fmt, pg, comm in (("text", "PG 0: 1,024 ranks", "comm 0x5c1e2f03a9d4b871"),
                      ("markdown", "pg:0:?", "comm:0x5c1e2f03a9d4b871"),
                      ("html", "PG 0 1,024", "comm 0x5c1e2f03a9d4b871")):
    seen = readable(fmt, run(fmt, [logs]))
    check(pg in seen and comm in seen,
          "logs-1024 %s: groups lack PG 0 or the comm" % fmt)
print("%d checks, %d failed" % (checks, failed))
sys.exit(1 if failed else 0)
PY
