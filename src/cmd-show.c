/* Placeholder. */
#include "config.h"
#include <glib.h>
#include "cmd.h"
static int run(int argc, char **argv)
{
	return HD_EXIT_USAGE;
}
const struct hd_cmd hd_cmd_show = { .name = "show", .usage = "", .summary = "show", .help = "", .run = run };
