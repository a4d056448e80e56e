/*
 * The rank in a file name, for inputs whose content does not say it.
 * Depends on nothing but GLib: every parser may use it.
 */
#ifndef HD_RANK_NAME_H
#define HD_RANK_NAME_H

/*
 * The rank in a file name: the trailing digits of the base name once known
 * extensions (.pkl .json .gz .zst .log .txt .pickle ...) are removed
 * ("nccl_trace_rank_node-a_5" -> 5, "rank3.json.gz" -> 3).  -1 if none.
 */
int parsers_rank_from_filename(const char *path);

#endif
