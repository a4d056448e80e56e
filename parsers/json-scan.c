/* Placeholder: JSON event scanner. */
#include "config.h"
#include "json-scan.h"
extern int hd_json_scan_placeholder;
int hd_json_scan_placeholder;
