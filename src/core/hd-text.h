/*
 * Text from the inputs, made safe to show: input is untrusted, and a
 * terminal obeys what it is sent.  Part of src/core.
 */
#ifndef HD_TEXT_H
#define HD_TEXT_H

#include <stdint.h>

/*
 * A copy of s that is valid UTF-8 (bad bytes become U+FFFD) and holds no
 * control character a terminal or an editor would act on: C0 controls
 * (newline and tab included: the result is one line), DEL, C1 controls
 * (U+0080-U+009F, which some terminals take as CSI and OSC), and the
 * bidirectional overrides, embeddings, isolates and marks (U+061C,
 * U+200E-U+200F, U+202A-U+202E, U+2066-U+2069) that reorder what is
 * shown.  Each becomes '?'.  NULL gives "".  (transfer full)
 */
char *hd_text_safe(const char *s);

/*
 * A quoted log line without the prefix its source already states: the
 * c10d "[rank3]:" and glog "[E1121 03:22:44.123456789 file.cc:12] " and
 * NCCL's "host:pid:tid [dev] ".  Returns a pointer into line (line itself
 * when there is no such prefix).  (transfer none)
 */
const char *hd_text_strip_log_prefix(const char *line);

/*
 * A count as every sentence hangdoc writes spells it: "15,000", with a
 * comma between each group of three digits.  (transfer full)
 */
char *hd_text_count(uint64_t n);

/* Whether c is one of the code points hd_text_safe() replaces. */
static inline int hd_text_is_control(unsigned int c)
{
	return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) ||
	       c == 0x61c || c == 0x200e || c == 0x200f ||
	       (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

#endif
