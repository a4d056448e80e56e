/* Placeholder: replay runner. */
#ifndef HD_REPLAY_RUN_H
#define HD_REPLAY_RUN_H
#endif
