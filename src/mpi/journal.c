/*
 * The journal of finished chunks (journal.h says the format and why).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "core/journal.h"
#include "mpi/journal.h"

void locus__journal_recs_free(struct locus__journal_rec *recs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(recs[i].dataset);
	free(recs);
}

/* A record of a run of chunks: "chunk INDEX OFFSET LENGTH DATASET". */
struct parse {
	struct locus__journal_rec *r;
	size_t cap, count;
	const char *name;
};

static int take(void *user, const struct locus__journal_line *l, struct locus_error *err)
{
	struct parse *p = user;
	struct locus__journal_rec rec = {.line = l->line};
	if (strcmp(l->fld[0], "chunk") || l->nf != 5 ||
	    locus__parse_u64(l->fld[1], strlen(l->fld[1]), &rec.index) ||
	    locus__parse_u64(l->fld[2], strlen(l->fld[2]), &rec.offset) ||
	    locus__parse_u64(l->fld[3], strlen(l->fld[3]), &rec.length) || !l->fld[4][0])
		return locus__err(err, LOCUS_EPARSE, p->name, l->line, 1,
				  "expected \"chunk INDEX OFFSET LENGTH DATASET\" (tab-separated; "
				  "version 1: \"done INDEX OFFSET LENGTH DATASET\")");
	for (const char *c = l->fld[4]; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return locus__err(err, LOCUS_EPARSE, p->name, l->line,
					  l->col[4] + (long)(c - l->fld[4]),
					  "a dataset name holds no control characters");
	if (locus__grow(&p->r, &p->cap, p->count + 1, sizeof *p->r) ||
	    !(rec.dataset = locus__strdup(l->fld[4])))
		return locus__err(err, LOCUS_ENOMEM, p->name, 0, 0, "out of memory");
	p->r[p->count++] = rec;
	return 0;
}

int locus__journal_parse(const char *text, size_t len, const char *name,
			 struct locus__journal_rec **recs, size_t *n, size_t *complete,
			 struct locus_error *err)
{
	struct parse p = {.name = name};
	struct locus__journal_head h;
	*recs = NULL;
	*n = 0;
	/* Only complete lines count: a torn last line is cut off. */
	*complete = locus__journal_whole(text, len);
	if (!*complete)
		return 0;
	int rc = locus__journal_read(text, *complete, name, &h, take, &p, err);
	if (!rc && h.kind != LOCUS__JOURNAL_CHUNKS)
		rc = locus__err(err, LOCUS_EPARSE, name, 1, 1,
				"this is the journal of a workflow (locus flow run), not of a "
				"run of chunks");
	if (rc) {
		locus__journal_recs_free(p.r, p.count);
		return rc;
	}
	*recs = p.r;
	*n = p.count;
	return 0;
}

int locus__journal_open(const char *path, int wait, int *fd, struct locus__journal_rec **recs,
			size_t *n, struct locus_error *err)
{
	size_t complete = 0;
	int rc = 0;

	*recs = NULL;
	*n = 0;
	/* O_APPEND: each record goes at the end, whoever else writes. */
	*fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (*fd < 0)
		return locus__err(err, LOCUS_EIO, path, 0, 0, "cannot open the journal: %s",
				  strerror(errno));
	if ((rc = locus__journal_lock(*fd, path, "journal", wait, NULL, err)) > 0)
		rc = 0; /* no locks on this file system */
	if (rc) {
		close(*fd);
		*fd = -1;
		return rc;
	}
	char *text = NULL;
	size_t len = 0;
	rc = locus__journal_slurp(*fd, path, &text, &len, err);
	if (!rc)
		rc = locus__journal_parse(text, len, path, recs, n, &complete, err);
	if (!rc && complete != len && ftruncate(*fd, (off_t)complete) != 0)
		rc = locus__err(err, LOCUS_EIO, path, 0, 0, "cannot cut the torn last line: %s",
				strerror(errno));
	if (!rc && complete == 0) {
		struct locus__buf head = {0};
		rc = locus__journal_head_line(&head, LOCUS__JOURNAL_CHUNKS, 0, 0)
			 ? locus__err(err, LOCUS_ENOMEM, path, 0, 0, "out of memory")
			 : locus__journal_append(*fd, path, head.data, head.len, err);
		locus__buf_fini(&head);
	}
	free(text);
	if (rc) {
		locus__journal_recs_free(*recs, *n);
		*recs = NULL;
		*n = 0;
		close(*fd);
		*fd = -1;
	}
	return rc;
}

int locus__journal_match(const struct locus__journal_rec *recs, size_t n, const char *name,
			 const struct locus_catalog *cat, unsigned char *skip, size_t *n_skip,
			 struct locus_error *err)
{
	size_t *first = locus__calloc(cat->n_datasets + 1, sizeof *first);
	if (!first)
		return locus__err(err, LOCUS_ENOMEM, name, 0, 0, "out of memory");
	for (size_t d = 0; d < cat->n_datasets; d++)
		first[d + 1] = first[d] + cat->datasets[d].n_chunks;
	*n_skip = 0;
	for (size_t i = 0; i < n; i++) {
		const struct locus__journal_rec *r = &recs[i];
		long d = locus_catalog_find_dataset(cat, r->dataset);
		if (d < 0)
			continue; /* another run's dataset */
		const struct locus_dataset *ds = &cat->datasets[d];
		/* A chunk no node holds now has no extent to compare: the
		 * journal says it is done, which is all a run needs. */
		const struct locus_chunk *ch =
		    r->index < ds->n_chunks ? &ds->chunks[r->index] : NULL;
		if (!ch || (!(ch->flags & LOCUS_CHUNK_MISSING) &&
			    (ch->offset != r->offset || ch->length != r->length))) {
			free(first);
			return locus__err(err, LOCUS_EPARSE, name, r->line, 1,
					  "chunk %" PRIu64 " of \"%s\" (%" PRIu64
					  " bytes at offset %" PRIu64
					  ") is not in the store any more: the data changed since "
					  "this journal was written; use a new journal",
					  r->index, r->dataset, r->length, r->offset);
		}
		unsigned char *s = &skip[first[d] + r->index];
		*n_skip += !*s;
		*s = 1;
	}
	free(first);
	return 0;
}

int locus__journal_format(struct locus__buf *buf, const char *dataset, uint64_t index,
			  uint64_t offset, uint64_t length)
{
	if (locus__buf_printf(buf, "chunk\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t", index, offset,
			      length) ||
	    locus__journal_escape(buf, dataset) || locus__buf_append(buf, "\n", 1))
		return LOCUS_ENOMEM;
	return 0;
}
