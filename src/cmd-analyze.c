/* Placeholder. */
#include "config.h"
#include <glib.h>
#include "cmd.h"
static int run(int argc, char **argv)
{
	return HD_EXIT_USAGE;
}
const struct hd_cmd hd_cmd_analyze = { .name = "analyze", .usage = "", .summary = "analyze", .help = "", .run = run };
void hd_cmd_error(const char *fmt, ...) { }
int hd_cmd_finish_output(FILE *out, const char *name, int status) { return status; }
