/*
 * analyze --mpi (docs/format-digest.md, "Across nodes"): under mpirun or
 * srun, every process digests its share of the inputs in memory, the
 * digests are gathered to rank 0 (MPI_Gatherv of their bytes), and rank
 * 0 analyzes them as it would the files.  No networking of hangdoc's own:
 * MPI moves the bytes.  Built only with MPI (configure --with-mpi);
 * without it, --mpi is a usage error that says so.
 */
#ifndef HD_MPI_H
#define HD_MPI_H

#include <stdbool.h>
#include <glib.h>

/*
 * Runs this process's part: paths are what analyze was given (NULL-ended);
 * "%h" in a path is this host's name (then the first process on each host
 * reads the paths whole, the others nothing), else the files found below
 * them are split among the processes in order.  On rank 0 it returns
 * HD_CMD_CONTINUE with the gathered digests written to files in a new
 * private directory *dir, their paths appended to digests in rank order
 * (char *); the caller analyzes those and calls hd_mpi_done().  On every
 * other process it returns the exit status to end with (0 once its
 * digest is sent).  jobs is the parser threads of each process.
 */
int hd_mpi_gather(char **paths, int jobs, GPtrArray *digests, char **dir);

/* Removes what hd_mpi_gather() wrote on rank 0. */
void hd_mpi_done(GPtrArray *digests, const char *dir);

#endif
