/*
 * hangdoc-cpu: "hangdoc replay" with the replay runner built against the
 * CPU test double (replay-double.c) instead of CUDA and NCCL, so that
 * make check runs real replays without a GPU (replay-cpu.sh).  It links
 * replay/replay-run.c, compiled for this program with HAVE_CUDA_NCCL and
 * the double's headers, and takes the CLI's replay subcommand and the
 * layer libraries for the rest.
 * Never installed.
 *
 * usage: hangdoc-cpu replay [hangdoc replay options] PATH... | --plan FILE
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "hd-banned.h"

int main(int argc, char **argv)
{
	hd_cmd_output_setup();
	if (argc < 2 || strcmp(argv[1], "replay") != 0) {
		fprintf(stderr,
			"usage: hangdoc-cpu replay [options] PATH...\n"
			"       hangdoc-cpu replay [options] --plan FILE\n");
		return HD_EXIT_USAGE;
	}
	return hd_cmd_replay.run(argc - 1, argv + 1);
}
