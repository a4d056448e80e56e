/*
 * Hosts that chose different networks (one fell back to sockets, another
 * uses IB): the communicator cannot connect them, a configuration error.
 */
#include "config.h"

#include <string.h>

#include "hd-const.h"
#include "hd-sig-util.h"
#include "hd-banned.h"

/*
 * Hosts that chose different networks: one fell back to sockets (no
 * libibverbs) while another uses IB.  The comm cannot connect them.
 */
void hd_sig_check_transports(struct hd_index *ix, struct hd_analysis *a)
{
	const struct hd_store *s = ix->store;
	g_autoptr(GHashTable) by_net =
		g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
				      (GDestroyNotify)g_ptr_array_unref);
	g_autoptr(GPtrArray) nets = g_ptr_array_new();
	g_autoptr(GString) sides = g_string_new(NULL);
	struct hd_verdict *v;

	for (guint i = 0; i < s->signals->len; i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);
		const char *t =
			sig->text ? strstr(sig->text, "Using network ") : NULL;
		g_autofree char *net = NULL;
		GPtrArray *hosts;

		if (sig->type != HD_SIGT_TRANSPORT || !t || !sig->host)
			continue;
		net = g_strndup(t + 14, strcspn(t + 14, " \t\r\n"));
		hosts = g_hash_table_lookup(by_net, net);
		if (!hosts) {
			hosts = g_ptr_array_new();
			g_ptr_array_add(nets, hd_unconst(hd_intern(net)));
			g_hash_table_insert(by_net, hd_unconst(hd_intern(net)),
					    hosts);
		}
		if (!g_ptr_array_find(hosts, sig->host, NULL))
			g_ptr_array_add(hosts, hd_unconst(sig->host));
	}
	if (nets->len < 2)
		return;
	for (guint i = 0; i < nets->len; i++) {
		GPtrArray *hosts = g_hash_table_lookup(by_net, nets->pdata[i]);

		g_string_append_printf(sides, "%s%s on", i ? "; " : "",
				       (const char *)nets->pdata[i]);
		for (guint k = 0; k < hosts->len && k < 4; k++)
			g_string_append_printf(sides, " %s",
					       (const char *)hosts->pdata[k]);
		if (hosts->len > 4)
			g_string_append_printf(sides, " and %u more",
					       hosts->len - 4);
	}
	v = hd_verdict_new(
		HD_V_INIT_FAILURE, HD_CONF_MEDIUM,
		"hosts chose different networks (%s): configuration error, the communicator cannot connect them",
		sides->str);
	v->score = s->ops->len ? HD_SCORE_INIT - 20 : HD_SCORE_INIT;
	for (guint i = 0;
	     i < s->signals->len && v->evidence->len < HD_SIG_MAX_EVIDENCE;
	     i++) {
		const struct hd_signal *sig = hd_sig_at(s, i);

		if (sig->type == HD_SIGT_TRANSPORT)
			hd_sig_cite(s, v, sig);
	}
	hd_verdict_add_ruled_out(
		v,
		"nothing: a host without libibverbs falls back to sockets; install rdma-core there or set NCCL_IB_DISABLE=1 everywhere");
	g_ptr_array_add(a->verdicts, v);
}
