/*
 * Budget notes: the first budget an input ran into, per thread, kept in a
 * fixed buffer until the loader takes it (hd-budget.h); and the budget
 * pool of an incident, whose sums the readers of a load add to from their
 * threads (atomics: no lock on the read path).
 */
#include "config.h"

#include "hd-budget.h"

#include <stdarg.h>
#include <stdatomic.h>

#include "hd-banned.h"

static _Thread_local char note[512];

void hd_budget_note(const char *fmt, ...)
{
	va_list ap;

	if (note[0])
		return;
	va_start(ap, fmt);
	g_vsnprintf(note, sizeof(note), fmt, ap);
	va_end(ap);
}

char *hd_budget_take_note(void)
{
	char *s;

	if (!note[0])
		return NULL;
	s = g_strdup(note);
	note[0] = '\0';
	return s;
}

struct hd_budget_pool {
	atomic_uint_fast64_t stored; /* bytes read from disk */
	atomic_uint_fast64_t decoded; /* bytes decoded from inputs parsed */
	atomic_uint_fast64_t records; /* bytes the parsed records keep */
	uint64_t max_bytes;
	unsigned max_ratio;
	uint64_t max_records;
};

struct hd_budget_pool *
hd_budget_pool_new(uint64_t max_bytes, unsigned max_ratio, uint64_t max_records)
{
	struct hd_budget_pool *p = g_new0(struct hd_budget_pool, 1);

	atomic_init(&p->stored, 0);
	atomic_init(&p->decoded, 0);
	atomic_init(&p->records, 0);
	p->max_bytes = max_bytes;
	p->max_ratio = max_ratio;
	p->max_records = max_records;
	return p;
}

/* Why the records' budget refuses, once spent.  (transfer full) */
static char *records_spent(const struct hd_budget_pool *p)
{
	return g_strdup_printf(
		"the incident's records take more than %" G_GUINT64_FORMAT
		" MiB of memory, the budget for one incident; the rest is not read",
		p->max_records >> 20);
}

void hd_budget_pool_free(struct hd_budget_pool *p)
{
	g_free(p);
}

void hd_budget_pool_add_stored(struct hd_budget_pool *p, uint64_t n)
{
	atomic_fetch_add(&p->stored, n);
}

bool hd_budget_pool_add_decoded(struct hd_budget_pool *p, uint64_t n,
				char **why)
{
	uint64_t total = atomic_fetch_add(&p->decoded, n) + n;
	uint64_t stored = atomic_load(&p->stored);

	if (atomic_load(&p->records) > p->max_records) {
		*why = records_spent(p);
		return false;
	}
	if (total > p->max_bytes) {
		*why = g_strdup_printf(
			"the incident's inputs decode to more than %" G_GUINT64_FORMAT
			" GiB in all, the budget for one incident; the rest is not read",
			p->max_bytes >> 30);
		return false;
	}
	if (p->max_ratio && total > HD_BUDGET_RATIO_GRACE &&
	    total > (uint64_t)p->max_ratio * stored) {
		*why = g_strdup_printf(
			"the incident's inputs decode to more than %u times their %" G_GUINT64_FORMAT
			" bytes on disk (%" G_GUINT64_FORMAT
			" bytes), the budget for one incident; the rest is not read",
			p->max_ratio, stored, total);
		return false;
	}
	return true;
}

bool hd_budget_pool_add_records(struct hd_budget_pool *p, uint64_t n,
				char **why)
{
	uint64_t total = atomic_fetch_add(&p->records, n) + n;

	if (total <= p->max_records)
		return true;
	*why = records_spent(p);
	return false;
}
