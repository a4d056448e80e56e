/* Placeholder: replay runner. */
#include "config.h"
#include "replay-run.h"
extern int hd_replay_run_placeholder;
int hd_replay_run_placeholder;
