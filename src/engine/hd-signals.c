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
 * The order matters: the weak network check reads the network and crash
 * verdicts found before it.
 */
void hd_check_signals(struct hd_index *ix, struct hd_analysis *a)
{
	hd_sig_check_progress(ix, a);
	hd_sig_check_ras(ix, a);
	hd_sig_check_network(ix, a);
	hd_sig_check_crashes(ix, a);
	hd_sig_check_network_weak(ix, a);
	hd_sig_check_init(ix, a);
	hd_sig_check_transports(ix, a);
	hd_sig_check_coll_mismatch(ix, a);
	hd_sig_check_size_mismatch(ix, a);
}
