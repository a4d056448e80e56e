/*
 * Placeholder until the straggler analysis lands.
 */
#include "config.h"

#include "hd-straggler.h"

#include "hd-banned.h"

void hd_straggler_run(const struct hd_store *s, struct hd_analysis *a)
{
}
