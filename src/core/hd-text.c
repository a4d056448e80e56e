/* Text from the inputs, made safe to show (hd-text.h). */
#include "config.h"

#include "hd-text.h"

#include <string.h>
#include <glib.h>

#include "hd-const.h"
#include "hd-json.h"
#include "hd-banned.h"

char *hd_text_safe(const char *s)
{
	g_autofree char *valid = NULL;
	GString *out;

	if (!s)
		return g_strdup("");
	valid = hd_utf8_make_valid(s);
	out = g_string_sized_new(strlen(valid));
	for (const char *p = valid; *p; p = hd_utf8_next(p)) {
		gunichar c = g_utf8_get_char(p);

		if (hd_text_is_control(c))
			g_string_append_c(out, '?');
		else
			g_string_append_len(out, p, hd_utf8_next(p) - p);
	}
	return g_string_free(out, FALSE);
}
