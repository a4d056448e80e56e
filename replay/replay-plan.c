/* Placeholder: replay plans. */
#include "config.h"
#include "replay-plan.h"
extern int hd_replay_plan_placeholder;
int hd_replay_plan_placeholder;
