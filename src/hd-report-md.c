/* Being written. */
#include "config.h"

#include "hd-report.h"

#include "hd-banned.h"

void hd_report_markdown(FILE *out, const struct hd_analysis *a)
{
}
