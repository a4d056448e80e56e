/*
 * libFuzzer target for incident bundles: the bytes are one input, read as
 * the loader reads a file; when its decoded head is an archive, every
 * member is read to its end (links and nested archives are only named).
 * Nothing may crash, hang or grow memory with the archive's claims (sizes
 * in headers, member counts).  Seeds: tests/fuzz/corpus-archive.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "hd-archive.h"
#include "hd-input.h"
#include "hd-banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	g_autoptr(hd_reader) rd = hd_reader_new_from_memory(data, size, NULL);
	g_autoptr(hd_archive) ar = NULL;
	struct hd_archive_member m = { 0 };
	const uint8_t *head;
	size_t len = 0;
	static uint8_t buf[64 * 1024];

	if (!rd)
		return 0;
	head = hd_reader_head(rd, &len, NULL);
	if (!hd_archive_has_magic(head, len))
		return 0;
	ar = hd_archive_new(rd, NULL);
	while (ar && hd_archive_next(ar, &m, NULL)) {
		while (m.reader &&
		       hd_reader_read(m.reader, buf, sizeof(buf), NULL) > 0)
			;
		hd_archive_member_clear(&m);
	}
	return 0;
}
