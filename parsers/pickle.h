/* Placeholder: pickle reader. */
#ifndef HD_PICKLE_H
#define HD_PICKLE_H
#endif
