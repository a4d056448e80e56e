/*
 * Colour and pager decisions (hd-term.h), and the pager itself: popen() of
 * the command with SIGPIPE ignored while it runs, so that quitting the
 * pager early ends the write, not hangdoc.
 */
#include "config.h"

#include "hd-term.h"

#include <signal.h>
#include <string.h>
#include <glib.h>

#include "hd-banned.h"

bool hd_term_color_parse(const char *s, enum hd_color_mode *mode)
{
	if (!s || strcmp(s, "auto") == 0)
		*mode = HD_COLOR_AUTO;
	else if (strcmp(s, "always") == 0)
		*mode = HD_COLOR_ALWAYS;
	else if (strcmp(s, "never") == 0)
		*mode = HD_COLOR_NEVER;
	else
		return false;
	return true;
}

bool hd_term_use_color(enum hd_color_mode mode, bool tty, const char *no_color,
		       const char *term)
{
	if (mode != HD_COLOR_AUTO)
		return mode == HD_COLOR_ALWAYS;
	if (!tty)
		return false;
	if (no_color && *no_color)
		return false;
	return !(term && strcmp(term, "dumb") == 0);
}

const char *hd_term_pager(bool tty, bool no_pager, const char *pager)
{
	if (!tty || no_pager)
		return NULL;
	if (!pager)
		return "less -FRX";
	if (!*pager || strcmp(pager, "cat") == 0)
		return NULL;
	return pager;
}

static void (*saved_sigpipe)(int);

bool hd_pager_open(struct hd_pager *p, const char *cmd)
{
	fflush(stdout);
	saved_sigpipe = signal(SIGPIPE, SIG_IGN);
	p->f = popen(cmd, "w");
	if (!p->f) {
		signal(SIGPIPE, saved_sigpipe);
		return false;
	}
	return true;
}

void hd_pager_close(struct hd_pager *p)
{
	if (!p->f)
		return;
	pclose(p->f);
	p->f = NULL;
	signal(SIGPIPE, saved_sigpipe);
}
