/*
 * Hashes for tables keyed by values an input chose (comm pointers, trace
 * correlation ids, PG ids).  GLib's g_int64_hash() keeps only the low 32
 * bits, so 100k keys that differ only above bit 31 (pointers of one
 * arena, ids i << 32) fall into one bucket and every lookup walks them
 * all.  These mix all 64 bits (the splitmix64 finalizer): use them, never
 * g_int64_hash(), for any table whose keys come from input.
 */
#ifndef HD_HASH_H
#define HD_HASH_H

#include <stdint.h>
#include <string.h>
#include <glib.h>

/* All 64 bits of x, mixed into a hash value. */
static inline guint hd_hash_u64(uint64_t x)
{
	x ^= x >> 30;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64_C(0x94d049bb133111eb);
	x ^= x >> 31;
	return (guint)x;
}

/* GHashFunc for keys that point at an int64_t or uint64_t. */
static inline guint hd_int64_hash(gconstpointer p)
{
	uint64_t x;

	memcpy(&x, p, sizeof(x));
	return hd_hash_u64(x);
}

/* GEqualFunc to go with hd_int64_hash(). */
static inline gboolean hd_int64_equal(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, sizeof(uint64_t)) == 0;
}

#endif
