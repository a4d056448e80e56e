#!/bin/sh
# Benchmarks the NCCL log parser against `grep -c opCount` on a large COLL
# log made by scripts/gen-nccl-logs.py (size in MB, default 2048).  Uses
# `./hangdoc analyze` when it works, else builds a tiny driver that parses
# the file into a store (or with HD_BENCH_DRIVER=1).  Prints MB/s of
# both, the ratio, and peak RSS, best of three runs each; then the same
# for the lines split into one file per process, as a job leaves them,
# read with -j $(nproc).  Both times hangdoc runs, it runs with --format
# text and --format json (which hashes every file, docs/json-schema.md),
# and the json/text ratio is printed.  HANGDOC names another binary to
# measure (a build of another commit), with the same workload.
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

hd=${HANGDOC:-$srcdir/hangdoc}
drv=$tmp/nccl-bench-driver
# HD_BENCH_DRIVER=1 measures the parser alone, without the engine.
if [ "${HD_BENCH_DRIVER:-0}" != 1 ] &&
	"$hd" analyze --help >/dev/null 2>&1; then
	set -- "$hd" analyze -j 1 "$log"
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
	cc -std=gnu11 -O2 -I"$srcdir/config" -I"$srcdir/src/core" -I"$srcdir/parsers" \
		-DPCRE2_CODE_UNIT_WIDTH=8 $(pkg-config --cflags glib-2.0) \
		"$tmp/driver.c" "$srcdir/parsers/libhdparsers.a" \
		"$srcdir/src/core/libhdcore.a" \
		$(pkg-config --libs glib-2.0 libpcre2-8 libzstd zlib libxxhash libcrypto libarchive libcjson jansson) \
		-lm -o "$drv"
	set -- "$drv" "$log"
	what="parser driver"
fi

. "$srcdir/scripts/bench-lib.sh"
cat "$log" >/dev/null # warm the page cache for both
# grep writes its count to a file: with stdout on /dev/null GNU grep
# stops at the first match.
g=$(best sh -c 'grep -c opCount "$1" >"$2"' sh "$log" "$tmp/grep.out")
n=$(cat "$tmp/grep.out")
p=$(best "$@")
# peak RSS of one more run, measured
if [ -x "$drv" ]; then
	/usr/bin/time -v "$drv" "$log" >/dev/null 2>"$tmp/time.txt"
else
	/usr/bin/time -v "$hd" analyze -j 1 "$log" >/dev/null 2>"$tmp/time.txt" || true
fi
rss=$(awk -F: '/Maximum resident/ {gsub(/ /, "", $2); print $2}' "$tmp/time.txt")
j="0 0"
[ "$what" = "hangdoc analyze" ] && j=$(best "$@" --format json)
awk -v b="$bytes" -v g="$g" -v p="$p" -v j="$j" \
	-v n="$n" -v rss="$rss" -v what="$what" 'BEGIN {
	mb = b / 1048576;
	split(g, G, " "); split(p, P, " "); split(j, J, " ");
	printf "one file: %.0f MB, %d COLL lines (best of 3 runs each; wall, and cpu = user + sys)\n", mb, n;
	printf "  grep -c opCount: %.2f s wall, %.2f s cpu, %.0f MB/s\n", G[1], G[2], mb / G[1];
	printf "  %s -j 1: %.2f s wall, %.2f s cpu, %.0f MB/s\n", what, P[1], P[2], mb / P[1];
	printf "  ratio hangdoc/grep: %.2f wall, %.2f cpu (target >= 0.5)\n", G[1] / P[1], G[2] / P[2];
	printf "  peak RSS: %.0f MB, %.3f of the log (target < 0.2)\n", rss / 1024, rss * 1024 / b;
	if (J[1] > 0)
		printf "  --format json: %.2f s wall, %.2f s cpu; json/text %.2f wall, %.2f cpu (target <= 1.1)\n", J[1], J[2], J[1] / P[1], J[2] / P[2];
}'

# The same lines as a job leaves them: one log per process (host-pid).
[ "$what" = "hangdoc analyze" ] || exit 0
set_dir=$tmp/set
if [ ! -d "$set_dir" ]; then
	mkdir -p "$set_dir"
	awk -v d="$set_dir" '{ split($1, a, ":"); print > (d "/" a[1] "-" a[2] ".log") }' "$log"
fi
jobs=$(nproc)
cat "$set_dir"/* >/dev/null
g=$(best sh -c 'grep -c opCount "$1"/* >"$2"' sh "$set_dir" "$tmp/grep.out")
p=$(best "$hd" analyze -j "$jobs" "$set_dir")
j=$(best "$hd" analyze -j "$jobs" --format json "$set_dir")
/usr/bin/time -v "$hd" analyze -j "$jobs" "$set_dir" >/dev/null 2>"$tmp/time.txt" || true
rss=$(awk -F: '/Maximum resident/ {gsub(/ /, "", $2); print $2}' "$tmp/time.txt")
awk -v b="$bytes" -v g="$g" -v p="$p" -v rss="$rss" -v j="$jobs" -v js="$j" \
	-v f="$(ls "$set_dir" | wc -l)" 'BEGIN {
	mb = b / 1048576;
	split(g, G, " "); split(p, P, " "); split(js, J, " ");
	printf "log set: the same lines in %d per-process files, -j %d\n", f, j;
	printf "  grep -c opCount: %.2f s wall, %.2f s cpu, %.0f MB/s\n", G[1], G[2], mb / G[1];
	printf "  hangdoc analyze: %.2f s wall, %.2f s cpu, %.0f MB/s\n", P[1], P[2], mb / P[1];
	printf "  ratio hangdoc/grep: %.2f wall, %.2f cpu\n", G[1] / P[1], G[2] / P[2];
	printf "  peak RSS: %.0f MB\n", rss / 1024;
	printf "  --format json: %.2f s wall, %.2f s cpu; json/text %.2f wall, %.2f cpu (target <= 1.1)\n", J[1], J[2], J[1] / P[1], J[2] / P[2];
}'
