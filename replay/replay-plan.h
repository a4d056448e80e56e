/* Placeholder: replay plans. */
#ifndef HD_REPLAY_PLAN_H
#define HD_REPLAY_PLAN_H
#endif
