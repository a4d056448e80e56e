/*
 * libFuzzer target: the safe pickle reader and the flight-recorder parser on
 * arbitrary bytes, the parser twice: with the default budget, then with a
 * node budget of one node per 16 bytes, which real dumps exceed (about one
 * per 5), so they are cut and salvaged, pickle and JSON alike.  Nothing may
 * crash, hang or leak, whatever the input.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "parsers.h"
#include "pickle.h"
#include "hd-banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pk_tree *t = pk_decode(data, size);
	struct hd_store *s = hd_store_new();
	uint32_t in = hd_store_add_input(s, "nccl_trace_rank_3");
	struct hd_reader *rd = hd_reader_new_from_memory(data, size, NULL);

	/* walk the tree the way a consumer would: bounded by PK_MAX_DEPTH */
	for (uint32_t i = 0; i < pk_len(t, t->root); i++)
		(void)pk_len(t, pk_child(t, t->root, i));
	pk_tree_free(t);
	if (rd) {
		flight_rec_parse(rd, s, in, NULL);
		hd_reader_free(rd);
	}
	hd_store_free(s);
	/* again under a node budget most dumps exceed: the cut paths run */
	flight_rec_set_node_budget((uint32_t)(size / 16) + 1);
	s = hd_store_new();
	in = hd_store_add_input(s, "nccl_trace_rank_3");
	rd = hd_reader_new_from_memory(data, size, NULL);
	if (rd) {
		flight_rec_parse(rd, s, in, NULL);
		hd_reader_free(rd);
	}
	hd_store_free(s);
	flight_rec_set_node_budget(0);
	flight_rec_release_buffers();
	return 0;
}
