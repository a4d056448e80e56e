/*
 * The input layer: find files below the paths a user gives (hd-discover.h),
 * open them with transparent gzip/zstd decompression (hd-reader.h), and read
 * them as a byte stream or as bounded lines (hd-lines.h).  Nothing here
 * knows about formats; parsers/ sniffs those.  Include this header for all
 * three.
 */
#ifndef HD_INPUT_H
#define HD_INPUT_H

#include "hd-discover.h"
#include "hd-lines.h"
#include "hd-reader.h"

#endif
