/* Placeholder. */
#include "config.h"
#include "hd-report.h"
