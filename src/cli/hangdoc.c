/*
 * hangdoc: main() and the command table.  Each subcommand is a
 * src/cli/cmd-<name>.c; everything they call lives in the layer libraries.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <glib.h>

#include "cmd.h"
#include "hd-banned.h"

static const struct hd_cmd *const commands[] = {
	&hd_cmd_analyze, &hd_cmd_show, &hd_cmd_replay, &hd_cmd_export,
	&hd_cmd_triage,	 &hd_cmd_diff, &hd_cmd_digest,
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hangdoc <command> [options] PATH...\n"
		"       hangdoc --help | --version | help <command>\n\n"
		"Find the rank that hung an NCCL job, from the logs, flight-recorder\n"
		"dumps and profiler traces it left behind.\n\ncommands:\n");
	for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
		fprintf(out, "  %-9s %s\n", commands[i]->name,
			commands[i]->summary);
	fprintf(out,
		"\nexit status: 0 no fault found, 1 fault found, 2 usage error,\n"
		"3 no usable input, 4 the report could not be written,\n"
		"5 a hang or an error was seen but its cause is undecided,\n"
		"6 inputs of several incidents (nothing blamed)\n");
}

static const struct hd_cmd *find_command(const char *name)
{
	for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

/* Suggests the closest command name, for "did you mean". */
static const char *closest_command(const char *name)
{
	const char *best = NULL;
	size_t best_score = 3;

	for (size_t i = 0; i < G_N_ELEMENTS(commands); i++) {
		const char *c = commands[i]->name;
		size_t common = 0;

		while (c[common] && name[common] && c[common] == name[common])
			common++;
		if (common >= best_score) {
			best_score = common;
			best = c;
		}
	}
	return best;
}

static int unknown_command(const char *name)
{
	const char *guess = closest_command(name);

	hd_cmd_error("'%s' is not a hangdoc command", name);
	if (guess)
		fprintf(stderr, "did you mean '%s'?\n", guess);
	fprintf(stderr, "see 'hangdoc --help'\n");
	return HD_EXIT_USAGE;
}

static int help_command(int argc, char **argv)
{
	const struct hd_cmd *cmd;

	if (argc < 3) {
		usage(stdout);
		return hd_cmd_finish_output(stdout, "standard output",
					    HD_EXIT_OK);
	}
	cmd = find_command(argv[2]);
	if (!cmd)
		return unknown_command(argv[2]);
	return hd_cmd_print_help(cmd);
}

int main(int argc, char **argv)
{
	const struct hd_cmd *cmd;

	hd_cmd_output_setup();
	if (argc < 2) {
		usage(stderr);
		return HD_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return hd_cmd_finish_output(stdout, "standard output",
					    HD_EXIT_OK);
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("hangdoc %s\n", PACKAGE_VERSION);
		return hd_cmd_finish_output(stdout, "standard output",
					    HD_EXIT_OK);
	}
	if (strcmp(argv[1], "help") == 0)
		return help_command(argc, argv);
	cmd = find_command(argv[1]);
	if (!cmd)
		return unknown_command(argv[1]);
	return cmd->run(argc - 1, argv + 1);
}
