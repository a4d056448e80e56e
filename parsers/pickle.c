/* Placeholder: pickle reader. */
#include "config.h"
#include "pickle.h"
extern int hd_pickle_placeholder;
int hd_pickle_placeholder;
