/*
 * Changing a plan: scaling its counts (replay_plan_scale()) and aligning
 * its ranks so that they run the same calls up to the divergence
 * (replay_plan_fix(), --fix).
 */
#include "config.h"

#include "replay-plan.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>

#include "hd-autocleanups.h"
#include "hd-error.h"
#include "hd-json.h"
#include "hd-const.h"
#include "hd-sort.h"
#include "hd-banned.h"

bool replay_plan_scale(struct replay_plan *p, double factor, GError **error)
{
	g_autoptr(GArray) counts = NULL;
	g_autoptr(GArray) mapped = NULL;

	if (!(factor > 0.0 && factor <= 1.0)) {
		g_set_error(error, HD_ERROR, HD_ERROR_USAGE,
			    "scale must be greater than 0 and at most 1");
		return false;
	}
	counts = g_array_new(FALSE, FALSE, sizeof(int64_t));
	for (guint r = 0; r < p->ranks->len; r++) {
		GArray *ops = replay_plan_rank(p, r)->ops;

		for (guint i = 0; i < ops->len; i++) {
			int64_t c =
				g_array_index(ops, struct replay_op, i).count;

			if (c > 0)
				g_array_append_val(counts, c);
		}
	}
	g_array_sort(counts, hd_compare_i64);
	mapped = g_array_new(FALSE, FALSE, sizeof(int64_t));
	for (guint i = 0, out = 0; i < counts->len; i++) {
		int64_t c = g_array_index(counts, int64_t, i);
		double x = (double)c * factor;
		int64_t m;

		if (out > 0 && g_array_index(counts, int64_t, out - 1) == c)
			continue;
		/* Far above any limit; only order matters up there. */
		if (x > 4e18)
			x = 4e18;
		m = (int64_t)llround(x);
		if (m < 1)
			m = 1;
		if (out > 0 && m <= g_array_index(mapped, int64_t, out - 1))
			m = g_array_index(mapped, int64_t, out - 1) + 1;
		g_array_index(counts, int64_t, out) = c;
		g_array_append_val(mapped, m);
		out++;
	}
	g_array_set_size(counts, mapped->len);
	for (guint r = 0; r < p->ranks->len; r++) {
		GArray *ops = replay_plan_rank(p, r)->ops;

		for (guint i = 0; i < ops->len; i++) {
			struct replay_op *o =
				&g_array_index(ops, struct replay_op, i);
			guint a = 0, b = counts->len;

			if (o->count <= 0)
				continue;
			while (a < b) {
				guint mid = a + (b - a) / 2;

				if (g_array_index(counts, int64_t, mid) <
				    o->count)
					a = mid + 1;
				else
					b = mid;
			}
			o->count = g_array_index(mapped, int64_t, a);
		}
	}
	p->scale *= factor;
	return true;
}

static bool same_signature(const struct replay_op *a, const struct replay_op *b)
{
	return a->kind == b->kind && a->count == b->count &&
	       a->dtype == b->dtype && a->redop == b->redop &&
	       a->peer == b->peer;
}

/* Divergent collective ops of rank r (indices into its ops). */
static GArray *divergent_collectives(const struct replay_rank *r)
{
	GArray *idx = g_array_new(FALSE, FALSE, sizeof(guint));

	for (guint i = 0; i < r->ops->len; i++) {
		const struct replay_op *o =
			&g_array_index(r->ops, struct replay_op, i);

		if (o->divergent && !hd_op_kind_is_p2p(o->kind))
			g_array_append_val(idx, i);
	}
	return idx;
}

static bool same_divergence(const struct replay_rank *a, const GArray *ia,
			    const struct replay_rank *b, const GArray *ib)
{
	if (ia->len != ib->len)
		return false;
	for (guint i = 0; i < ia->len; i++)
		if (!same_signature(
			    &g_array_index(a->ops, struct replay_op,
					   g_array_index(ia, guint, i)),
			    &g_array_index(b->ops, struct replay_op,
					   g_array_index(ib, guint, i))))
			return false;
	return true;
}

static void remove_marked(GArray *ops, const bool *drop)
{
	guint out = 0;

	for (guint i = 0; i < ops->len; i++)
		if (!drop[i])
			g_array_index(ops, struct replay_op, out++) =
				g_array_index(ops, struct replay_op, i);
	g_array_set_size(ops, out);
}

/* Aligns divergent collectives: drop where some lack them, else majority. */
static void fix_collectives(struct replay_plan *p)
{
	guint n = p->ranks->len;
	g_autoptr(GPtrArray) div =
		g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
	bool some_lack = false;
	guint best = 0, best_votes = 0;

	for (guint r = 0; r < n; r++) {
		GArray *idx = divergent_collectives(replay_plan_rank(p, r));

		some_lack |= idx->len == 0;
		g_ptr_array_add(div, idx);
	}
	for (guint r = 0; r < n; r++) {
		guint votes = 0;

		for (guint q = 0; q < n; q++)
			votes += same_divergence(replay_plan_rank(p, r),
						 g_ptr_array_index(div, r),
						 replay_plan_rank(p, q),
						 g_ptr_array_index(div, q));
		if (votes > best_votes) {
			best = r;
			best_votes = votes;
		}
	}
	for (guint r = 0; r < n; r++) {
		struct replay_rank *rr = replay_plan_rank(p, r);
		GArray *idx = g_ptr_array_index(div, r);
		const struct replay_rank *maj = replay_plan_rank(p, best);
		const GArray *midx = g_ptr_array_index(div, best);
		g_autofree bool *drop = g_new0(bool, rr->ops->len + 1);

		for (guint i = 0; i < idx->len; i++) {
			guint at = g_array_index(idx, guint, i);
			struct replay_op *o =
				&g_array_index(rr->ops, struct replay_op, at);

			if (some_lack || i >= midx->len) {
				drop[at] = true;
				continue;
			}
			/* Take the majority's call, keep this rank's place. */
			const struct replay_op *m =
				&g_array_index(maj->ops, struct replay_op,
					       g_array_index(midx, guint, i));
			o->kind = m->kind;
			o->count = m->count;
			o->dtype = m->dtype;
			o->redop = m->redop;
			o->peer = m->peer;
		}
		if (!some_lack)
			for (guint i = idx->len; i < midx->len; i++) {
				struct replay_op o = g_array_index(
					maj->ops, struct replay_op,
					g_array_index(midx, guint, i));

				g_array_append_val(rr->ops, o);
			}
		remove_marked(rr->ops, drop);
	}
}

/* Pairs sends with recvs per (src, dst) in order; drops the rest. */
static void fix_p2p(struct replay_plan *p)
{
	guint n = p->ranks->len;

	for (guint a = 0; a < n; a++) {
		struct replay_rank *ra = replay_plan_rank(p, a);
		g_autofree bool *drop_a = g_new0(bool, ra->ops->len + 1);

		for (guint i = 0; i < ra->ops->len; i++) {
			struct replay_op *o =
				&g_array_index(ra->ops, struct replay_op, i);

			if (hd_op_kind_is_p2p(o->kind) &&
			    (o->peer < 0 || (guint)o->peer >= n ||
			     (guint)o->peer == a))
				drop_a[i] = true;
		}
		remove_marked(ra->ops, drop_a);
	}
	for (guint a = 0; a < n; a++)
		for (guint b = 0; b < n; b++) {
			struct replay_rank *ra = replay_plan_rank(p, a);
			struct replay_rank *rb = replay_plan_rank(p, b);
			g_autofree bool *drop_a = NULL;
			g_autofree bool *drop_b = NULL;
			guint i = 0, j = 0;

			if (a == b)
				continue;
			drop_a = g_new0(bool, ra->ops->len + 1);
			drop_b = g_new0(bool, rb->ops->len + 1);
			for (;;) {
				struct replay_op *s = NULL, *r = NULL;

				for (; i < ra->ops->len; i++) {
					s = &g_array_index(ra->ops,
							   struct replay_op, i);
					if (s->kind == HD_OP_SEND &&
					    s->peer == (int)b)
						break;
				}
				for (; j < rb->ops->len; j++) {
					r = &g_array_index(rb->ops,
							   struct replay_op, j);
					if (r->kind == HD_OP_RECV &&
					    r->peer == (int)a)
						break;
				}
				if (i >= ra->ops->len || j >= rb->ops->len)
					break;
				r->count = s->count;
				r->dtype = s->dtype;
				i++;
				j++;
			}
			for (; i < ra->ops->len; i++) {
				struct replay_op *s = &g_array_index(
					ra->ops, struct replay_op, i);

				drop_a[i] = s->kind == HD_OP_SEND &&
					    s->peer == (int)b;
			}
			for (; j < rb->ops->len; j++) {
				struct replay_op *r = &g_array_index(
					rb->ops, struct replay_op, j);

				drop_b[j] = r->kind == HD_OP_RECV &&
					    r->peer == (int)a;
			}
			remove_marked(ra->ops, drop_a);
			remove_marked(rb->ops, drop_b);
		}
}

void replay_plan_fix(struct replay_plan *p)
{
	fix_collectives(p);
	fix_p2p(p);
	p->fixed = true;
}
