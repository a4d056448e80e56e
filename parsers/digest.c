/*
 * Digests as inputs (docs/format-digest.md): a registry parser like the
 * others, sniffed by its magic, whose records are the stores of the files
 * a digest was made of.  The decoding itself is src/core/hd-digest-file.c,
 * beside the writer; this reads the input whole under its budget and
 * hands it over.  The digest's input becomes the first input it holds,
 * and the others follow it, so evidence cites the original files.
 */
#include "config.h"

#include "formats.h"

#include "hd-budget.h"
#include "hd-digest-file.h"
#include "hd-banned.h"

bool digest_sniff(const uint8_t *head, size_t len)
{
	return hd_digest_file_sniff(head, len);
}

bool digest_parse(struct hd_reader *rd, struct hd_store *store, uint32_t input,
		  GError **error)
{
	g_autoptr(GBytes) all = NULL;
	const uint8_t *p;
	gsize len = 0;

	hd_store_input(store, input)->kind = HD_INPUT_DIGEST;
	all = hd_reader_slurp(rd, HD_BUDGET_DIGEST_BYTES, error);
	if (!all)
		return false;
	p = g_bytes_get_data(all, &len);
	return hd_digest_file_decode(p, len, store, input, error);
}
