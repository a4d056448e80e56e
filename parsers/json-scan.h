/* Placeholder: JSON event scanner. */
#ifndef HD_JSON_SCAN_H
#define HD_JSON_SCAN_H
#endif
