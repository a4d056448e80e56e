/*
 * What the report renderers share (hd-report-util.h): rank ranges, counts,
 * durations, safe strings, signal type names, the rank-table cells and the
 * engine's per-group figures.  Nothing here looks at verdicts beyond
 * printing them, and nothing here knows which renderer runs.
 */
#include "config.h"

#include "hd-report-util.h"

#include <string.h>

#include "hd-json.h"
#include "hd-banned.h"

static gint compare_int(gconstpointer a, gconstpointer b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

char *hd_report_rank_list(const GArray *ranks)
{
	GString *s = g_string_new(NULL);
	g_autoptr(GArray) sorted = g_array_sized_new(FALSE, FALSE, sizeof(int),
						     ranks ? ranks->len : 0);
	guint i = 0;

	if (ranks)
		g_array_append_vals(sorted, ranks->data, ranks->len);
	g_array_sort(sorted, compare_int);
	while (i < sorted->len) {
		int first = g_array_index(sorted, int, i);
		int last = first;

		/* Extend over consecutive values, skipping duplicates. */
		while (i + 1 < sorted->len &&
		       (g_array_index(sorted, int, i + 1) == last ||
			g_array_index(sorted, int, i + 1) == last + 1)) {
			i++;
			last = g_array_index(sorted, int, i);
		}
		if (s->len)
			g_string_append_c(s, ',');
		if (first == last)
			g_string_append_printf(s, "%d", first);
		else
			g_string_append_printf(s, "%d-%d", first, last);
		i++;
	}
	return g_string_free(s, FALSE);
}

char *hd_report_clean(const char *s)
{
	char *v;

	if (!s)
		return g_strdup("");
	v = hd_utf8_make_valid(s);
	for (char *p = v; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return v;
}

char *hd_report_count(uint64_t n)
{
	char digits[32];
	GString *s = g_string_new(NULL);
	size_t len;

	g_snprintf(digits, sizeof(digits), "%" G_GUINT64_FORMAT, n);
	len = strlen(digits);
	for (size_t i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			g_string_append_c(s, ',');
		g_string_append_c(s, digits[i]);
	}
	return g_string_free(s, FALSE);
}

char *hd_report_duration(int64_t ns)
{
	double v = (double)ns;
	double av = v < 0 ? -v : v;

	if (av < 1e3)
		return g_strdup_printf("%" G_GINT64_FORMAT " ns", ns);
	if (av < 1e6)
		return g_strdup_printf("%.1f us", v / 1e3);
	if (av < 1e9)
		return g_strdup_printf("%.2f ms", v / 1e6);
	if (av < 120e9)
		return g_strdup_printf("%.2f s", v / 1e9);
	return g_strdup_printf("%.1f min", v / 60e9);
}

const char *hd_report_signal_type_name(enum hd_signal_type t)
{
	static const char *const names[] = {
		[HD_SIGT_OTHER] = "other",
		[HD_SIGT_WATCHDOG_TIMEOUT] = "watchdog_timeout",
		[HD_SIGT_PG_STATUS] = "pg_status",
		[HD_SIGT_IB_COMPLETION] = "ib_completion",
		[HD_SIGT_IB_ASYNC] = "ib_async",
		[HD_SIGT_SOCKET] = "socket",
		[HD_SIGT_PEER_CLOSED] = "peer_closed",
		[HD_SIGT_CUDA_ERROR] = "cuda_error",
		[HD_SIGT_OOM] = "oom",
		[HD_SIGT_NCCL_ERROR] = "nccl_error",
		[HD_SIGT_COMM_ABORTED] = "comm_aborted",
		[HD_SIGT_DUPLICATE_GPU] = "duplicate_gpu",
		[HD_SIGT_SHM] = "shm",
		[HD_SIGT_BOOTSTRAP] = "bootstrap",
		[HD_SIGT_PROCESS_EXIT] = "process_exit",
		[HD_SIGT_TRACEBACK] = "traceback",
		[HD_SIGT_HEARTBEAT] = "heartbeat",
		[HD_SIGT_DUMP] = "dump",
		[HD_SIGT_DESYNC_REPORT] = "desync_report",
		[HD_SIGT_UNWIND] = "unwind",
		[HD_SIGT_RAS] = "ras",
		[HD_SIGT_SIZE_MISMATCH] = "size_mismatch",
		[HD_SIGT_COLL_MISMATCH] = "coll_mismatch",
		[HD_SIGT_STORE_LOST] = "store_lost",
		[HD_SIGT_RANKS_NAMED] = "ranks_named",
		[HD_SIGT_NCCL_COLL_MISMATCH] = "nccl_coll_mismatch",
		[HD_SIGT_TRANSPORT] = "transport",
		[HD_SIGT_PROXY_DIED] = "proxy_died",
		[HD_SIGT_RAS_MISMATCH] = "ras_mismatch",
		[HD_SIGT_TEST_FAILURE] = "test_failure",
		[HD_SIGT_ANON_PROC] = "anonymous_process",
	};

	if ((unsigned)t >= G_N_ELEMENTS(names) || !names[t])
		return "other";
	return names[t];
}

void hd_report_progress_cells(const struct hd_rank_progress *p,
			      const char *empty, char enq[24], char done[24],
			      char state[48])
{
	const char *st = p->state ? p->state : empty;

	g_snprintf(enq, 24, "%s", empty);
	g_snprintf(done, 24, "%s", empty);
	if (p->last_enqueued >= 0)
		g_snprintf(enq, 24, "%" G_GINT64_FORMAT, p->last_enqueued);
	if (p->last_completed >= 0)
		g_snprintf(done, 24, "%" G_GINT64_FORMAT, p->last_completed);
	if (p->blocked_seq >= 0)
		g_snprintf(state, 48, "%s at %" G_GINT64_FORMAT, st,
			   p->blocked_seq);
	else
		g_snprintf(state, 48, "%s", st);
}

const struct hd_group_stats *hd_report_group_stats(const struct hd_analysis *a,
						   uint32_t group)
{
	if (!a->group_stats)
		return NULL;
	if (group < a->group_stats->len) {
		const struct hd_group_stats *st = &g_array_index(
			a->group_stats, struct hd_group_stats, group);

		if (st->group == group)
			return st;
	}
	for (guint i = 0; i < a->group_stats->len; i++) {
		const struct hd_group_stats *st = &g_array_index(
			a->group_stats, struct hd_group_stats, i);

		if (st->group == group)
			return st;
	}
	return NULL;
}
