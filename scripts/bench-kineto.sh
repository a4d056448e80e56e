#!/bin/sh
# Benchmark the Kineto ingest against two DOM loads and grep, on one large
# uncompressed synthetic trace where comm events are a few percent of all
# events.  Usage: scripts/bench-kineto.sh [filler-per-collective] [colls]
# (defaults give ~1 GB).  Needs a built tree (./hangdoc, or HANGDOC names
# another binary); builds a tiny jansson loader and a parse-only driver in
# a temporary directory.  Last, analyze --format text against --format
# json (which hashes the file, docs/json-schema.md), best of three each,
# wall and cpu (user + sys), and their ratio.
set -eu
cd "$(dirname "$0")/.."
filler=${1:-60}
colls=${2:-40000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 scripts/gen-kineto.py --out "$tmp" --ranks 2 --only-rank 0 \
	--colls "$colls" --filler "$filler" --era C
f=$tmp/rank0.pt.trace.json
bytes=$(stat -c %s "$f")
cat >"$tmp/dom.c" <<'C'
#include <jansson.h>
#include <stdio.h>
int main(int c, char **v)
{
	json_error_t e;
	json_t *j = json_load_file(v[1], 0, &e);
	if (!j) { fprintf(stderr, "%s\n", e.text); return 1; }
	printf("%zu events\n", json_array_size(json_object_get(j, "traceEvents")));
	json_decref(j);
	return 0;
}
C
cc -O2 -o "$tmp/dom" "$tmp/dom.c" $(pkg-config --cflags --libs jansson)
cat >"$tmp/ingest.c" <<'C'
#include "config.h"
#include <stdio.h>
#include "hd-input.h"
#include "parsers.h"
int main(int c, char **v)
{
	struct hd_store *s = hd_store_new();
	uint32_t in = hd_store_add_input(s, v[1]);
	struct hd_reader *rd = hd_reader_open(v[1], NULL);
	bool ok = rd && kineto_parse(rd, s, in, NULL);
	printf("%s: %u ops, %lu events\n", ok ? "ok" : "FAILED", s->ops->len,
	       (unsigned long)hd_store_input(s, in)->records);
	return !ok;
}
C
cc -O2 -std=gnu11 -Iconfig -Isrc/core -Iparsers -o "$tmp/ingest" "$tmp/ingest.c" \
	parsers/libhdparsers.a src/core/libhdcore.a $(pkg-config --cflags --libs glib-2.0 libpcre2-8 libzstd zlib libxxhash libcrypto libarchive libcjson jansson) -lm
now() { date +%s.%N; }
run() { # label command...
	label=$1; shift
	t0=$(now); "$@" >"$tmp/out" 2>&1 || true; t1=$(now)
	secs=$(echo "$t1 - $t0" | bc -l)
	mbs=$(echo "$bytes / $secs / 1000000" | bc -l)
	printf '%-34s %8.3f s %9.1f MB/s   %s\n' "$label" "$secs" "$mbs" "$(head -c 60 "$tmp/out" | tr '\n' ' ')"
	eval "t_$2=$secs" 2>/dev/null || true
}
echo "trace: $bytes bytes, $(grep -c '"ph"' "$f") events, $(grep -c record_param_comms "$f") comm records"
cat "$f" >/dev/null
run "grep -c ncclDevKernel" grep -c ncclDevKernel "$f"
run "hangdoc ingest (kineto_parse)" "$tmp/ingest" "$f"
hd=${HANGDOC:-./hangdoc}
if "$hd" analyze --help >/dev/null 2>&1; then
	run "hangdoc analyze (CLI, whole run)" "$hd" analyze "$f"
fi
run "jansson DOM load (C)" "$tmp/dom" "$f"
run "python3 json.load (2nd anchor)" python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['traceEvents']))" "$f"
. scripts/bench-lib.sh
if "$hd" analyze --help >/dev/null 2>&1; then
	t=$(best "$hd" analyze -j 1 "$f")
	j=$(best "$hd" analyze -j 1 --format json "$f")
	awk -v t="$t" -v j="$j" 'BEGIN {
		split(t, T, " "); split(j, J, " ");
		printf "analyze -j 1 --format text: %.2f s wall, %.2f s cpu\n", T[1], T[2];
		printf "analyze -j 1 --format json: %.2f s wall, %.2f s cpu\n", J[1], J[2];
		printf "ratio json/text: %.2f wall, %.2f cpu (target <= 1.1)\n", J[1] / T[1], J[2] / T[2];
	}'
fi
