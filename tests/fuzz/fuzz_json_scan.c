/*
 * libFuzzer harness for the Chrome-trace event scanner and the Kineto
 * parser on top of it.  The input is fed to the scanner in chunks whose
 * sizes come from the first byte (so buffer-boundary states get covered)
 * and at a small item cap (so the oversize path runs), and then parsed
 * whole by kineto_parse().  Neither may crash, hang or leak.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "json-scan.h"
#include "parsers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_event(void *ud, const char *p, size_t len, uint64_t off,
		     uint64_t idx)
{
	size_t pos = 0, kl, vl;
	const char *k, *v;
	int64_t x;

	/* Walk the members the way the parser's pre-filter does. */
	while (json_obj_next(p, p + len, &pos, &k, &kl, &v, &vl))
		(void)json_raw_int(v, vl, &x);
	*(uint64_t *)ud += len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct json_scan_cb cb = { .event = on_event };
	uint64_t total = 0;
	size_t step = size ? (size_t)data[0] % 64 + 1 : 1;
	struct json_scan *sc = json_scan_new(256, &cb, &total);
	struct hd_store *s;
	struct hd_reader *rd;
	uint32_t in;

	for (size_t i = 0; i < size; i += step)
		json_scan_feed(sc, data + i, size - i < step ? size - i : step);
	json_scan_finish(sc, NULL);
	json_scan_free(sc);

	s = hd_store_new();
	in = hd_store_add_input(s, "fuzz.json");
	rd = hd_reader_new_from_memory(data, size, NULL);
	if (rd) {
		kineto_parse(rd, s, in, NULL);
		hd_reader_free(rd);
	}
	hd_store_free(s);
	return 0;
}
