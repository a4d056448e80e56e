#!/bin/sh
# Benchmarks the NCCL log parser against `grep -c opCount` on a large COLL
# log made by scripts/gen-nccl-logs.py (size in MB, default 2048).  Uses
# `./hangdoc analyze` when it works, else builds a tiny driver that parses
# the file into a store (or with HD_BENCH_DRIVER=1).  Prints MB/s of
# both, the ratio, and peak RSS.
#
#   scripts/bench-nccl-log.sh [MB] [tmpdir]
set -eu
mb=${1:-2048}
srcdir=$(cd "$(dirname "$0")/.." && pwd)
tmp=${2:-$(mktemp -d)}
log=$tmp/coll.log
mkdir -p "$tmp"
if [ ! -s "$log" ] || [ "$(($(stat -c %s "$log") >> 20))" -lt "$mb" ]; then
	echo "generating ${mb} MB COLL log in $log"
	python3 "$srcdir/scripts/gen-nccl-logs.py" --bench "$log" "$mb"
fi
bytes=$(stat -c %s "$log")

drv=$tmp/nccl-bench-driver
# HD_BENCH_DRIVER=1 measures the parser alone, without the engine.
if [ "${HD_BENCH_DRIVER:-0}" != 1 ] &&
	"$srcdir/hangdoc" analyze --help >/dev/null 2>&1; then
	run() { "$srcdir/hangdoc" analyze "$log" >/dev/null || [ $? -le 1 ]; }
	what="hangdoc analyze"
else
	cat >"$tmp/driver.c" <<'EOC'
#include "config.h"
#include <stdio.h>
#include "parsers.h"
int main(int argc, char **argv)
{
	GError *err = NULL;
	struct hd_store *s = hd_store_new();
	uint32_t in = hd_store_add_input(s, argv[1]);
	struct hd_reader *rd = hd_reader_open(argv[1], &err);
	bool ok = rd && nccl_log_parse(rd, s, in, &err);

	printf("ops %u records %lu skipped %lu\n", s->ops->len,
	       (unsigned long)hd_store_input(s, in)->records,
	       (unsigned long)hd_store_input(s, in)->skipped);
	hd_reader_free(rd);
	hd_store_free(s);
	return ok ? 0 : 1;
}
EOC
	# shellcheck disable=SC2046
	cc -std=gnu11 -O2 -I"$srcdir" -I"$srcdir/src" -I"$srcdir/parsers" \
		-DPCRE2_CODE_UNIT_WIDTH=8 $(pkg-config --cflags glib-2.0) \
		"$tmp/driver.c" "$srcdir/libhangdoc.a" \
		$(pkg-config --libs glib-2.0 libpcre2-8 libzstd zlib libcjson jansson) \
		-lm -o "$drv"
	run() { "$drv" "$log"; }
	what="parser driver"
fi

now() { date +%s.%N; }
cat "$log" >/dev/null # warm the page cache for both
t0=$(now)
n=$(grep -c opCount "$log")
t1=$(now)
t2=$(now)
run
t3=$(now)
# peak RSS of one more run, measured
if [ -x "$drv" ]; then
	/usr/bin/time -v "$drv" "$log" >/dev/null 2>"$tmp/time.txt"
else
	/usr/bin/time -v "$srcdir/hangdoc" analyze "$log" >/dev/null 2>"$tmp/time.txt" || true
fi
rss=$(awk -F: '/Maximum resident/ {gsub(/ /, "", $2); print $2}' "$tmp/time.txt")
awk -v b="$bytes" -v g="$(echo "$t1 - $t0" | bc)" -v p="$(echo "$t3 - $t2" | bc)" \
	-v n="$n" -v rss="$rss" -v what="$what" 'BEGIN {
	mb = b / 1048576;
	printf "input: %.0f MB, %d COLL lines\n", mb, n;
	printf "grep -c opCount: %.2f s, %.0f MB/s\n", g, mb / g;
	printf "%s: %.2f s, %.0f MB/s\n", what, p, mb / p;
	printf "ratio parser/grep: %.2f (target >= 0.25)\n", (mb / p) / (mb / g);
	printf "peak RSS: %.0f MB\n", rss / 1024;
}'
