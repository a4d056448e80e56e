/*
 * Verdicts from error and progress signals, one check a file (their
 * helpers in hd-sig-util.c): the c10d watchdog's timeouts and per-PG
 * counters (hd-sig-progress.c), NCCL RAS status reports (hd-sig-ras.c),
 * network faults (hd-sig-network.c), crashed ranks (hd-sig-crash.c),
 * communicator setup failures (hd-sig-init.c), hosts on different
 * networks (hd-sig-transport.c), and what NCCL saw of ranks that
 * disagree (hd-sig-mismatch.c).
 *
 * Consequences are not causes: IB WR_FLUSH errors, error-unwind lines, the
 * SIGABRT a watchdog sends its own process, and torchrun's "Root Cause"
 * (just the earliest exit) never pick a culprit.
 */
#include "config.h"

#include "hd-sig-util.h"
#include "hd-banned.h"

/*
 * The signal checks in the order they run, and what each reads that the
 * engine gave or an earlier check made (enum hd_sig_data).  The weak
 * network check speaks only where no network error that is a cause and
 * no crash explains the trouble, so it reads the network and crash
 * verdicts and must run after both; the counters read which logs end
 * early.  The others read signals alone.  hd_check_steps_ordered()
 * refuses an order where a check reads what no earlier one made.
 */
static const struct hd_check_step signal_steps[] = {
	{ "progress", hd_sig_check_progress, HD_SIG_DATA_LOGS_END_EARLY,
	  HD_SIG_DATA_COUNTER_VERDICTS },
	{ "ras", hd_sig_check_ras, 0, HD_SIG_DATA_RAS_VERDICTS },
	{ "network", hd_sig_check_network, 0, HD_SIG_DATA_NETWORK_VERDICTS },
	{ "crashes", hd_sig_check_crashes, 0, HD_SIG_DATA_CRASH_VERDICTS },
	{ "network_weak", hd_sig_check_network_weak,
	  HD_SIG_DATA_NETWORK_VERDICTS | HD_SIG_DATA_CRASH_VERDICTS,
	  HD_SIG_DATA_NETWORK_VERDICTS },
	{ "init", hd_sig_check_init, 0, HD_SIG_DATA_INIT_VERDICTS },
	{ "transports", hd_sig_check_transports, 0, HD_SIG_DATA_INIT_VERDICTS },
	{ "coll_mismatch", hd_sig_check_coll_mismatch, 0,
	  HD_SIG_DATA_MISMATCH_VERDICTS },
	{ "size_mismatch", hd_sig_check_size_mismatch, 0,
	  HD_SIG_DATA_MISMATCH_VERDICTS },
};

const struct hd_check_step *hd_sig_steps(size_t *n)
{
	*n = G_N_ELEMENTS(signal_steps);
	return signal_steps;
}

void hd_check_signals(struct hd_index *ix, struct hd_analysis *a)
{
	const char *bad;

	if (!hd_check_steps_ordered(signal_steps, G_N_ELEMENTS(signal_steps),
				    HD_SIG_GIVEN, &bad))
		g_error("signal check '%s' reads what no earlier check made",
			bad);
	for (size_t i = 0; i < G_N_ELEMENTS(signal_steps); i++)
		signal_steps[i].run(ix, a);
}
