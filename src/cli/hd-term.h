/*
 * Terminal habits of the text report, decided here and nowhere else:
 * whether to colour (--color auto|always|never, NO_COLOR, TERM=dumb) and
 * whether and through what to page (PAGER, else "less -FRX"; --no-pager).
 * The decisions are pure functions of what the caller measured (is
 * standard output a terminal, the environment), so tests give them a
 * terminal without having one; only hd_term_pager_open() acts.
 */
#ifndef HD_TERM_H
#define HD_TERM_H

#include <stdbool.h>
#include <stdio.h>

enum hd_color_mode {
	HD_COLOR_AUTO = 0, /* when standard output is a terminal */
	HD_COLOR_ALWAYS,
	HD_COLOR_NEVER,
};

/* "auto", "always" or "never" into *mode; false when none of them. */
bool hd_term_color_parse(const char *s, enum hd_color_mode *mode);

/*
 * Whether to colour: always and never are obeyed; auto colours only a
 * terminal (tty), and not when NO_COLOR is set and not empty (no_color,
 * NULL when unset) or TERM is "dumb" (term, NULL when unset).
 */
bool hd_term_use_color(enum hd_color_mode mode, bool tty, const char *no_color,
		       const char *term);

/*
 * The command to page a long text report through, or NULL for none: none
 * unless standard output is a terminal (tty), none with --no-pager, none
 * when PAGER (pager, NULL when unset) is empty or "cat"; else PAGER, else
 * "less -FRX" (quits when the report fits one screen, passes colour, and
 * leaves the report on the screen).  (transfer none)
 */
const char *hd_term_pager(bool tty, bool no_pager, const char *pager);

/* A running pager: write the report to f, then close it. */
struct hd_pager {
	FILE *f;
};

/*
 * Starts cmd (through /bin/sh) with its standard input a pipe.  Returns
 * false when it could not be started; the report then goes to standard
 * output as it is.
 */
bool hd_pager_open(struct hd_pager *p, const char *cmd);

/*
 * Waits for the pager to exit.  A pager quit before the report was all
 * read is no error: whatever it did not read, nobody asked to see.
 */
void hd_pager_close(struct hd_pager *p);

#endif
