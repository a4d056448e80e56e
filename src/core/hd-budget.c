/*
 * Budget notes: the first budget an input ran into, per thread, kept in a
 * fixed buffer until the loader takes it (hd-budget.h).
 */
#include "config.h"

#include "hd-budget.h"

#include <stdarg.h>

#include "hd-banned.h"

static _Thread_local char note[512];

void hd_budget_note(const char *fmt, ...)
{
	va_list ap;

	if (note[0])
		return;
	va_start(ap, fmt);
	g_vsnprintf(note, sizeof(note), fmt, ap);
	va_end(ap);
}

char *hd_budget_take_note(void)
{
	char *s;

	if (!note[0])
		return NULL;
	s = g_strdup(note);
	note[0] = '\0';
	return s;
}
