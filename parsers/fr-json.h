/*
 * The JSON variant of a flight-recorder dump, decoded into the tree the
 * pickle reader makes (pickle.h), below the flight-recorder parser
 * (flight-rec.c).
 *
 * Ownership: the tree is the caller's (pk_tree_free()); it points into
 * the bytes it was decoded from, which must outlive it.
 */
#ifndef HD_FR_JSON_H
#define HD_FR_JSON_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#include "pickle.h"

/*
 * Decodes the JSON dump [p, p + len), which starts base bytes into its
 * input, into a tree of at most max_nodes nodes.  A dump past the budget,
 * or cut short, keeps the whole values before its last ',' (the
 * containers still open closed and flagged PK_F_PARTIAL, the tree's
 * status, stop_at and message saying why), like a pickle past its budget
 * or cut; one with no ',' to cut at, nested deeper than PK_MAX_DEPTH,
 * not JSON, or whose tree would still pass max_nodes is refused: NULL,
 * with error set.  (transfer full)
 */
struct pk_tree *fr_json_decode(const uint8_t *p, size_t len, size_t base,
			       uint32_t max_nodes, GError **error);

#endif
