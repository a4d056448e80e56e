/*
 * Crossing GLib's const gap without a cast that drops a qualifier
 * (-Wcast-qual).  GLib's containers take gpointer keys and values, and
 * g_utf8_next_char() returns char *, but hangdoc stores const data in them
 * (interned strings, borrowed records) and never writes through what it
 * gets back.  These two helpers say so once, instead of a (gpointer) cast
 * at every call.
 */
#ifndef HD_CONST_H
#define HD_CONST_H

#include <stdint.h>
#include <glib.h>

/* p, as a gpointer for a GLib container that will not write through it. */
static inline gpointer hd_unconst(const void *p)
{
	return (gpointer)(uintptr_t)p;
}

/* The character after the UTF-8 character at p, keeping p's const. */
static inline const char *hd_utf8_next(const char *p)
{
	return p + g_utf8_skip[*(const guchar *)p];
}

#endif
