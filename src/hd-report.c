/* Placeholder. */
#include "config.h"
#include "hd-report.h"
bool hd_report_format_parse(const char *s, enum hd_report_format *fmt)
{
	return false;
}
