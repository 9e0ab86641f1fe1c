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
#include "mpi/journal.h"

void locus__journal_recs_free(struct locus__journal_rec *recs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(recs[i].dataset);
	free(recs);
}

/* Reads the next space-ended number of line[*at .. len). */
static int number(const char *line, size_t len, size_t *at, uint64_t *out)
{
	size_t end = *at;
	while (end < len && line[end] != ' ')
		end++;
	if (end >= len || locus__parse_u64(line + *at, end - *at, out))
		return LOCUS_EPARSE;
	*at = end + 1;
	return 0;
}

int locus__journal_parse(const char *text, size_t len, const char *name,
			 struct locus__journal_rec **recs, size_t *n, size_t *complete,
			 struct locus_error *err)
{
	struct locus__journal_rec *r = NULL;
	size_t cap = 0, count = 0, pos = 0, ll;
	long line_no = 0;
	const char *line;
	int rc = 0;

	*recs = NULL;
	*n = 0;
	/* Only complete lines count: a torn last line is cut off. */
	size_t end = len;
	while (end > 0 && text[end - 1] != '\n')
		end--;
	*complete = end;
	while (!rc && locus__next_line(text, end, &pos, &line, &ll)) {
		line_no++;
		if (line_no == 1) {
			uint64_t v;
			size_t m = sizeof LOCUS_JOURNAL_MAGIC - 1;
			if (ll <= m + 1 || memcmp(line, LOCUS_JOURNAL_MAGIC " ", m + 1) ||
			    locus__parse_u64(line + m + 1, ll - m - 1, &v))
				rc = locus__err(err, LOCUS_EPARSE, name, 1, 1,
						"expected \"" LOCUS_JOURNAL_MAGIC " %d\"",
						LOCUS_JOURNAL_VERSION);
			else if (v != LOCUS_JOURNAL_VERSION)
				rc = locus__err(err, LOCUS_EPARSE, name, 1, (long)m + 2,
						"journal version %" PRIu64
						" is not one this Locus reads (%d)",
						v, LOCUS_JOURNAL_VERSION);
			continue;
		}
		if (ll == 0 || line[0] == '#')
			continue;
		struct locus__journal_rec rec = {.line = line_no};
		size_t at = 5;
		if (ll < 6 || memcmp(line, "done ", 5) || number(line, ll, &at, &rec.index) ||
		    number(line, ll, &at, &rec.offset) || number(line, ll, &at, &rec.length) ||
		    at >= ll) {
			rc = locus__err(err, LOCUS_EPARSE, name, line_no, 1,
					"expected \"done INDEX OFFSET LENGTH DATASET\"");
			break;
		}
		size_t bad = at;
		while (bad < ll && (unsigned char)line[bad] >= 0x20 && line[bad] != 0x7f)
			bad++;
		if (bad < ll) {
			rc = locus__err(err, LOCUS_EPARSE, name, line_no, (long)bad + 1,
					"a dataset name holds no control characters");
			break;
		}
		if (locus__grow(&r, &cap, count + 1, sizeof *r) ||
		    !(rec.dataset = malloc(ll - at + 1))) {
			rc = locus__err(err, LOCUS_ENOMEM, name, 0, 0, "out of memory");
			break;
		}
		memcpy(rec.dataset, line + at, ll - at);
		rec.dataset[ll - at] = 0;
		r[count++] = rec;
	}
	if (rc) {
		locus__journal_recs_free(r, count);
		return rc;
	}
	*recs = r;
	*n = count;
	return 0;
}

/* Takes the journal's write lock (fcntl, so that the holder's pid can be
 * named), waiting for it or not. */
static int lock_journal(int fd, const char *path, int wait, struct locus_error *err)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	for (;;) {
		if (fcntl(fd, wait ? F_SETLKW : F_SETLK, &fl) == 0)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EACCES)
			return locus__err(err, LOCUS_EIO, path, 0, 0, "cannot lock the journal: %s",
					  strerror(errno));
		struct flock who = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
		if (fcntl(fd, F_GETLK, &who) == 0 && who.l_type == F_UNLCK)
			continue; /* released meanwhile */
		return locus__err(err, LOCUS_EEXIST, path, 0, 0,
				  "the journal is in use by another run (pid %ld); wait for it "
				  "to end, or run with --wait",
				  (long)who.l_pid);
	}
}

int locus__journal_open(const char *path, int wait, int *fd, struct locus__journal_rec **recs,
			size_t *n, struct locus_error *err)
{
	struct locus__buf text = {0};
	char buf[65536];
	size_t complete = 0;
	ssize_t got;
	int rc = 0;

	*recs = NULL;
	*n = 0;
	/* O_APPEND: each record goes at the end, whoever else writes. */
	*fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (*fd < 0)
		return locus__err(err, LOCUS_EIO, path, 0, 0, "cannot open the journal: %s",
				  strerror(errno));
	if ((rc = lock_journal(*fd, path, wait, err))) {
		close(*fd);
		*fd = -1;
		return rc;
	}
	while ((got = read(*fd, buf, sizeof buf)) > 0)
		if (locus__buf_append(&text, buf, (size_t)got)) {
			rc = locus__err(err, LOCUS_ENOMEM, path, 0, 0, "out of memory");
			break;
		}
	if (!rc && got < 0)
		rc = locus__err(err, LOCUS_EIO, path, 0, 0, "cannot read the journal: %s",
				strerror(errno));
	if (!rc)
		rc = locus__journal_parse(text.data ? text.data : "", text.len, path, recs, n,
					  &complete, err);
	if (!rc && complete != text.len && ftruncate(*fd, (off_t)complete) != 0)
		rc = locus__err(err, LOCUS_EIO, path, 0, 0, "cannot cut the torn last line: %s",
				strerror(errno));
	if (!rc && lseek(*fd, 0, SEEK_END) < 0)
		rc = locus__err(err, LOCUS_EIO, path, 0, 0, "cannot seek: %s", strerror(errno));
	if (!rc && complete == 0) {
		char head[64];
		int m =
		    snprintf(head, sizeof head, LOCUS_JOURNAL_MAGIC " %d\n", LOCUS_JOURNAL_VERSION);
		rc = locus__journal_write(*fd, path, head, (size_t)m, err);
	}
	locus__buf_fini(&text);
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
	return locus__buf_printf(buf, "done %" PRIu64 " %" PRIu64 " %" PRIu64 " %s\n", index,
				 offset, length, dataset);
}

int locus__journal_write(int fd, const char *path, const char *data, size_t len,
			 struct locus_error *err)
{
	while (len > 0) {
		ssize_t w = write(fd, data, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return locus__err(err, LOCUS_EIO, path, 0, 0,
					  "cannot write the journal: %s", strerror(errno));
		data += w;
		len -= (size_t)w;
	}
	if (fdatasync(fd) != 0)
		return locus__err(err, LOCUS_EIO, path, 0, 0, "cannot sync the journal: %s",
				  strerror(errno));
	return 0;
}
