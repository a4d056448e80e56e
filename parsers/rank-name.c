/*
 * The rank a file name gives: the trailing digits of its base name once
 * known extensions are removed.  Below every parser that falls back on it
 * (flight-rec.c, kineto.c) and the loader's ordering (hd-load.c).
 */
#include "config.h"

#include "rank-name.h"

#include <stdbool.h>
#include <string.h>
#include <glib.h>

#include "hd-banned.h"

static const char *const known_exts[] = {
	".gz",	".zst", ".zstd", ".pkl", ".pickle", ".json",  ".jsonl",
	".log", ".txt", ".out",	 ".err", ".bin",    ".trace", ".pt",
};

int parsers_rank_from_filename(const char *path)
{
	g_autofree char *base = g_path_get_basename(path);
	size_t n = strlen(base);
	bool again = true;
	long rank = 0, scale = 1;
	size_t digits = 0;

	while (again) {
		again = false;
		for (size_t i = 0; i < G_N_ELEMENTS(known_exts); i++) {
			size_t e = strlen(known_exts[i]);

			if (n > e && g_ascii_strcasecmp(base + n - e,
							known_exts[i]) == 0) {
				n -= e;
				base[n] = '\0';
				again = true;
			}
		}
	}
	while (n > 0 && g_ascii_isdigit(base[n - 1]) && digits < 9) {
		rank += (base[n - 1] - '0') * scale;
		scale *= 10;
		n--;
		digits++;
	}
	if (digits == 0 || (n > 0 && g_ascii_isdigit(base[n - 1])))
		return -1;
	return (int)rank;
}
