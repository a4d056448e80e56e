#!/bin/sh
# Validates every machine-readable golden against its schema in docs/:
# "analyze --format json" against report.schema.json, each line of
# "analyze --format jsonl" and "triage --format jsonl" against
# incident.schema.json, "diff --format json" against diff.schema.json and
# "show --format json" against show.schema.json.  The "[stderr]" and
# "[exit N]" lines golden.tap appends are stripped first.  A golden that
# does not validate fails the test, and so does a schema with no golden to
# check; so does a missing python3-jsonschema (scripts/install-deps.sh
# installs it), because a schema nobody checks drifts.
set -u
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
cd "$HD_SRCDIR" || exit 99
. "$HD_SRCDIR/tests/cli/lib/python-jsonschema.sh"
exec "$py" - <<'PY'
import glob, json, re, sys
try:
    import jsonschema
except ImportError:
    print("schema.sh: python3-jsonschema is missing "
          "(apt-get install python3-jsonschema)")
    sys.exit(1)
def load(name):
    schema = json.load(open("docs/" + name))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)

# (schema, command, format, one document per line)
kinds = [
    ("report.schema.json", "analyze", "json", False),
    ("incident.schema.json", "analyze", "jsonl", True),
    ("incident.schema.json", "triage", "jsonl", True),
    ("diff.schema.json", "diff", "json", False),
    ("show.schema.json", "show", "json", False),
]
validators = {k[0]: load(k[0]) for k in kinds}

def fmt(words):
    for i, w in enumerate(words):
        if w == "--format" and i + 1 < len(words):
            return words[i + 1]
        if w.startswith("--format="):
            return w[len("--format="):]
    return None

def body(out):
    lines = open(out, encoding="utf-8").read().split("\n")
    kept = []
    for line in lines:
        if line == "[stderr]" or line.startswith("[exit "):
            break
        kept.append(line)
    return "\n".join(kept).strip()

checked = failed = 0
per_schema = {k[0]: 0 for k in kinds}
for args in sorted(glob.glob("tests/cli/*.args")):
    words = open(args).read().split()
    if not words:
        continue
    kind = [k for k in kinds if k[1] == words[0] and k[2] == fmt(words)]
    if not kind:
        continue
    name, _, _, per_line = kind[0]
    out = args[:-5] + ".out"
    text = body(out)
    if not text:
        continue
    docs = text.split("\n") if per_line else [text]
    for n, doc_text in enumerate(docs, 1):
        checked += 1
        per_schema[name] += 1
        where = "%s%s" % (out, ":%d" % n if per_line else "")
        try:
            doc = json.loads(doc_text)
        except ValueError as e:
            failed += 1
            print("FAIL: %s: not JSON: %s" % (where, e))
            continue
        errors = sorted(validators[name].iter_errors(doc),
                        key=lambda e: list(e.path))
        if errors:
            failed += 1
            for e in errors[:5]:
                print("FAIL: %s: %s at /%s (%s)" % (
                    where, e.message, "/".join(map(str, e.path)), name))
# Every enum of verdict kinds in every schema (those that hold
# "missing_rank") names exactly the kinds the engine has (the .name of
# each row of verdict_kinds[] in src/engine/hd-verdict.c): a kind added
# to the engine and not to a schema fails here, not in a reader's hands.
src = open("src/engine/hd-verdict.c").read()
table = src[src.index("verdict_kinds[] = {"):]
table = table[:table.index("\n};")]
engine_kinds = set(re.findall(r'\.name = "([a-z_0-9]+)"', table))

def kind_enums(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "enum" and isinstance(v, list) and "missing_rank" in v:
                yield v
            else:
                yield from kind_enums(v)
    elif isinstance(node, list):
        for v in node:
            yield from kind_enums(v)

for path in sorted(glob.glob("docs/*.schema.json")):
    for enum in kind_enums(json.load(open(path))):
        if set(enum) != engine_kinds:
            failed += 1
            print("FAIL: %s: verdict kinds differ from the engine's "
                  "by %s" % (path,
                             ", ".join(sorted(set(enum) ^ engine_kinds))))
for name, n in sorted(per_schema.items()):
    print("%s: %d documents" % (name, n))
    if not n:
        failed += 1
        print("FAIL: no golden checks %s" % name)
print("%d JSON documents checked, %d failed" % (checked, failed))
sys.exit(1 if failed or not checked else 0)
PY
