/*
 * Sequence-length statistics over a FASTA dataset, in the style of
 * DL-MPI's examples: each rank is given the chunks its node holds (as the
 * policy decides), counts the sequences and bases of each chunk it is
 * given, and the ranks' counts are reduced once locus_mpi_run returns.
 *
 * The dataset must be split at record boundaries (locus place --split
 * fasta), so every record lies whole in one chunk.
 *
 *   locus place --generate 64M --chunk-size 1M --split fasta --nodes 8 \
 *               --store /tmp/store --dataset reads.fa
 *   mpirun -np 9 mpi_seqstats /tmp/store reads.fa 8 [POLICY]
 *
 * The third argument emulates that many nodes on one machine (0: ranks
 * map to nodes by host name). Build: cc mpi_seqstats.c $(pkg-config
 * --cflags --libs locus) -llocus_mpi -lmpi, or with mpicc.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locus.h"
#include "locus/mpi.h"

#define BINS 32 /* lengths by powers of two */

struct stats {
	uint64_t sequences, bases, gc, min, max;
	uint64_t bins[BINS];
};

static void add_sequence(struct stats *s, uint64_t len)
{
	int b = 0;
	s->sequences++;
	s->bases += len;
	if (len < s->min)
		s->min = len;
	if (len > s->max)
		s->max = len;
	while (b + 1 < BINS && (UINT64_C(2) << b) <= len)
		b++;
	s->bins[b]++;
}

/* Called on a thread of the rank's own, one chunk at a time: no lock. */
static int on_chunk(void *user, const struct locus_mpi_chunk *c, char *why, size_t why_size)
{
	struct stats *s = user;
	const char *p = c->data, *end = p + c->length;
	uint64_t len = 0;
	int in_seq = 0;
	if (c->length && *p != '>') {
		snprintf(why, why_size, "chunk %zu does not start with a FASTA header", c->index);
		return 1;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		if (*p == '>') {
			if (in_seq)
				add_sequence(s, len);
			in_seq = 1;
			len = 0;
		} else {
			for (const char *q = p; q < eol; q++) {
				if (*q == '\r')
					continue;
				len++;
				s->gc += *q == 'G' || *q == 'C' || *q == 'g' || *q == 'c';
			}
		}
		p = nl ? nl + 1 : end;
	}
	if (in_seq)
		add_sequence(s, len);
	return 0;
}

int main(int argc, char **argv)
{
	int level, rank;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &level);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc < 4) {
		if (rank == 0)
			fprintf(stderr,
				"usage: mpi_seqstats STORE DATASET EMULATED_NODES [POLICY]\n");
		MPI_Finalize();
		return 2;
	}
	struct stats mine = {.min = UINT64_MAX}, all = {0};
	struct locus_mpi_options opt;
	locus_mpi_options_init(&opt);
	opt.store = argv[1];
	opt.dataset = argv[2];
	opt.emulate_nodes = (size_t)strtoul(argv[3], NULL, 10);
	opt.policy = argc > 4 ? argv[4] : "dlmpi";
	opt.want_bytes = 1;
	opt.seed = 1;
	struct locus_mpi_report rep;
	struct locus_error err;
	int rc = locus_mpi_run(MPI_COMM_WORLD, &opt, on_chunk, &mine, &rep, &err);
	if (rc) {
		char buf[1024];
		if (rank == 0)
			fprintf(stderr, "mpi_seqstats: %s\n",
				locus_error_format(&err, buf, sizeof buf));
		MPI_Finalize();
		return 1;
	}
	/* The collective part, after the run. */
	MPI_Reduce(&mine.sequences, &all.sequences, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Reduce(&mine.bases, &all.bases, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Reduce(&mine.gc, &all.gc, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
	/* MIN and MAX as signed 64-bit values: MPICH 4.0.2 (Debian 12)
	 * compares unsigned integers as signed in reductions (pmodels/mpich
	 * issue 6083; Open MPI 4.1.2 had the like), so a rank without
	 * sequences (min UINT64_MAX) would win MIN. Lengths fit in 63 bits. */
	int64_t lo = mine.min > INT64_MAX ? INT64_MAX : (int64_t)mine.min, lo_all = 0;
	int64_t hi = (int64_t)mine.max, hi_all = 0;
	MPI_Reduce(&lo, &lo_all, 1, MPI_INT64_T, MPI_MIN, 0, MPI_COMM_WORLD);
	MPI_Reduce(&hi, &hi_all, 1, MPI_INT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
	all.min = (uint64_t)lo_all;
	all.max = (uint64_t)hi_all;
	MPI_Reduce(mine.bins, all.bins, BINS, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		const struct locus_result *r = rep.result;
		printf("sequences %" PRIu64 "\nbases %" PRIu64 "\nmin %" PRIu64 "\nmax %" PRIu64
		       "\nmean %.2f\ngc %.4f\n",
		       all.sequences, all.bases, all.sequences ? all.min : 0, all.max,
		       all.sequences ? (double)all.bases / (double)all.sequences : 0,
		       all.bases ? (double)all.gc / (double)all.bases : 0);
		for (int b = 0; b < BINS; b++)
			if (all.bins[b])
				printf("length %" PRIu64 "-%" PRIu64 ": %" PRIu64 "\n",
				       b ? UINT64_C(1) << b : 0, (UINT64_C(2) << b) - 1,
				       all.bins[b]);
		fprintf(stderr,
			"%s: %zu chunks on %zu workers, %.1f%% local, %" PRIu64
			" bytes fetched, %.3f s\n",
			r->policy, r->n_tasks, r->n_workers,
			r->n_tasks ? 100.0 * (double)r->local_tasks / (double)r->n_tasks : 0,
			r->bytes_remote, r->makespan);
	}
	locus_mpi_report_fini(&rep);
	MPI_Finalize();
	return 0;
}
