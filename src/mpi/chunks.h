/*
 * A run of chunks (locus_mpi_run): the store's chunks as a graph without
 * edges, run by the workflow runtime (runtime.h) with each chunk read
 * where a node holds it. Its files:
 *   setup.c   agreeing on the run: nodes, the store's catalog, the journal
 *   chunks.c  locus_mpi_run: the graph, the function, rank 0's outcomes
 *             and journal, the report
 */
#ifndef LOCUS_MPI_CHUNKS_H
#define LOCUS_MPI_CHUNKS_H

#include <mpi.h>
#include <stdint.h>

#include "core/internal.h"
#include "locus/dataset.h"
#include "locus/mpi.h"

/* Broadcasts of a buffer go in pieces of at most this many bytes. */
#define BCAST_PIECE ((size_t)64 << 20)

struct chunks {
	MPI_Comm comm;
	int rank, size;
	const struct locus_mpi_options *opt;
	locus_mpi_chunk_fn fn;
	void *user;
	struct locus_error *err;

	/* Agreed by setup.c, the same on every rank. */
	struct locus_catalog *cat;
	uint32_t *rank_node; /* by rank: its node */
	char **names;	     /* by node: its name (a host, or a store directory) */
	char **node_dir;     /* by node: its directory in the store, or NULL */
	size_t n_nodes;
	unsigned char *skip; /* by chunk (datasets in order): the journal says done */
	size_t *first;	     /* by dataset: its first chunk's index in skip */
	int journal_fd;	     /* rank 0: the journal, or -1 */

	/* The run. */
	struct locus_graph *g; /* a task per chunk left, reading it */
	size_t total, skipped; /* chunks of the run, and those done before */
	size_t schedulers;

	/* This rank's worker: by chunk object, whether its node's store
	 * holds it (the runtime reads it there, in place), set by the
	 * runtime at setup; its figures, and the output of its last call. */
	const unsigned char *here;
	struct locus_mpi_rank self;
	char *out;
	size_t out_len;

	/* Rank 0. */
	struct locus_mpi_failure *failures;
	size_t n_failures, failures_cap, n_done, next_progress;
	double t0;
	struct locus__buf journal_buf; /* lines not yet written */
	int journal_failed;
};

/* The same outcome on every rank: the first failing rank's error, or 0.
 * Collective. */
int locus__chunks_agree(struct chunks *c, int rc);
/* Which node each rank is on, the store's catalog, and what the journal
 * says is done. Collective. */
int locus__chunks_setup(struct chunks *c);
/* The node this rank runs on, in buf (MPI_MAX_PROCESSOR_NAME + 1 bytes):
 * in a Slurm job step the node's Slurm name (SLURMD_NODENAME, which tells
 * apart nodes that share a host, as several slurmd on one machine do),
 * else the MPI processor name. */
void locus__mpi_node_name(char *buf);

#endif
