#!/bin/sh
# Validates every golden JSON report (the output of a tests/cli/*.args that
# runs "analyze ... --format json") against docs/report.schema.json.  The
# "[stderr]" and "[exit N]" lines golden.tap appends are stripped first.  A
# golden that does not validate fails the test; so does a missing
# python3-jsonschema (scripts/install-deps.sh installs it), because a
# schema nobody checks drifts.
set -u
: "${HD_SRCDIR:?HD_SRCDIR must name the source tree}"
cd "$HD_SRCDIR" || exit 99
# The first Python that has jsonschema: python3 on PATH may be another
# installation than the Debian one that install-deps.sh gives it to.
py=python3
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import jsonschema' 2>/dev/null; then
		py=$p
		break
	fi
done
exec "$py" - <<'PY'
import glob, json, sys
try:
    import jsonschema
except ImportError:
    print("schema.sh: python3-jsonschema is missing "
          "(apt-get install python3-jsonschema)")
    sys.exit(1)
schema = json.load(open("docs/report.schema.json"))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
checked = failed = 0
for args in sorted(glob.glob("tests/cli/*.args")):
    words = open(args).read().split()
    if not words or words[0] != "analyze" or "json" not in words:
        continue
    if "--format" not in words and not any(w == "--format=json" for w in words):
        continue
    out = args[:-5] + ".out"
    lines = open(out, encoding="utf-8").read().split("\n")
    body = []
    for line in lines:
        if line == "[stderr]" or line.startswith("[exit "):
            break
        body.append(line)
    text = "\n".join(body).strip()
    if not text:
        continue
    checked += 1
    try:
        doc = json.loads(text)
    except ValueError as e:
        failed += 1
        print("FAIL: %s: not JSON: %s" % (out, e))
        continue
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    if errors:
        failed += 1
        for e in errors[:5]:
            print("FAIL: %s: %s at /%s" % (out, e.message,
                                           "/".join(map(str, e.path))))
print("%d JSON goldens checked, %d failed" % (checked, failed))
sys.exit(1 if failed or not checked else 0)
PY
