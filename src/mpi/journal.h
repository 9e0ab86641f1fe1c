/*
 * The journal of a run of chunks (core/journal.h has the format shared
 * with workflow runs; docs/formats.md, "Journal"): a record a finished
 * chunk, appended and synced as chunks finish, so that a run started
 * again with the same journal skips them.
 *
 *   locus-journal 2<TAB>chunks
 *   chunk<TAB>INDEX<TAB>OFFSET<TAB>LENGTH<TAB>DATASET
 *
 * A chunk is named by its dataset, index, offset and length, so a record
 * never matches a chunk whose data moved. A last line without its newline
 * (the run was killed while writing it) is not a record: opening the
 * journal cuts it off. A version 1 journal ("locus-journal 1", "done
 * INDEX OFFSET LENGTH DATASET") is read and continued. It needs no MPI;
 * the runtime's rank 0 keeps it (src/mpi/chunks.c).
 */
#ifndef LOCUS_MPI_JOURNAL_H
#define LOCUS_MPI_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "locus/dataset.h"
#include "locus/error.h"

struct locus__journal_rec {
	char *dataset;
	uint64_t index, offset, length;
	long line;
};

/* Parses a journal text. *complete is the length of its complete lines
 * (a torn last line is left out, not an error). Errors carry the line and
 * column and say what was expected. Free with locus__journal_recs_free. */
int locus__journal_parse(const char *text, size_t len, const char *name,
			 struct locus__journal_rec **recs, size_t *n, size_t *complete,
			 struct locus_error *err);
void locus__journal_recs_free(struct locus__journal_rec *recs, size_t n);

/* Opens (or creates) the journal at `path` for appending (O_APPEND),
 * locks it (an fcntl write lock, held until *fd is closed: one run at a
 * time; another holder is LOCUS_EEXIST naming its pid, or is waited for
 * when `wait`), reads its records and cuts off a torn last line. *fd is
 * open for writing. */
int locus__journal_open(const char *path, int wait, int *fd, struct locus__journal_rec **recs,
			size_t *n, struct locus_error *err);

/* Marks in skip[] (one byte per chunk of the catalog, datasets in order)
 * the chunks the records say are done. A record of a dataset the catalog
 * lacks is ignored; one whose chunk has another offset or length is an
 * error (the data changed since the journal was written). Returns 0 or
 * LOCUS_EPARSE; *n_skip counts the marked chunks. */
int locus__journal_match(const struct locus__journal_rec *recs, size_t n, const char *name,
			 const struct locus_catalog *cat, unsigned char *skip, size_t *n_skip,
			 struct locus_error *err);

/* Appends the record of a finished chunk to `buf` (a locus__buf). */
struct locus__buf;
int locus__journal_format(struct locus__buf *buf, const char *dataset, uint64_t index,
			  uint64_t offset, uint64_t length);

#endif
