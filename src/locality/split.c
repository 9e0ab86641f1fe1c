/*
 * Splitting a file into chunks of about chunk_size bytes.
 *
 * The file is streamed through a fixed buffer: memory grows only with the
 * lengths array (8 bytes per chunk), not with the file, and a pipe or a
 * file that grows while it is read gives the lengths of the bytes actually
 * read. Every mode covers the file exactly: the lengths sum to the bytes
 * read, and no chunk is empty.
 *
 * Where a chunk ends, with S = chunk_size:
 *   bytes - after exactly S bytes;
 *   lines - after the first '\n' that is byte S or later of the chunk, so a
 *           chunk holds whole lines and at least S bytes;
 *   fasta - before the first '>' that starts a line and is byte S + 1 or
 *           later of the chunk, so a chunk holds whole records and at least
 *           S bytes.
 * The last chunk ends at the end of the file in every mode.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "locus/place.h"

#define SPLIT_BUF_SIZE (64 * 1024)

int locus_split_mode_parse(const char *name, enum locus_split_mode *out)
{
	static const struct {
		const char *name;
		enum locus_split_mode mode;
	} modes[] = {
	    {"bytes", LOCUS_SPLIT_BYTES},
	    {"lines", LOCUS_SPLIT_LINES},
	    {"fasta", LOCUS_SPLIT_FASTA},
	};

	if (!name || !out)
		return LOCUS_EINVAL;
	for (size_t i = 0; i < LOCUS__ARRAY_LEN(modes); i++) {
		if (strcmp(name, modes[i].name) == 0) {
			*out = modes[i].mode;
			return 0;
		}
	}
	return LOCUS_EINVAL;
}

struct splitter {
	uint64_t chunk_size;
	enum locus_split_mode mode;
	uint64_t cur;	 /* bytes in the chunk being read */
	bool line_start; /* the next byte starts a line */
	uint64_t *lengths;
	size_t n, cap;
};

/* Closes the current chunk. */
static int split_emit(struct splitter *s)
{
	if (locus__grow(&s->lengths, &s->cap, s->n + 1, sizeof *s->lengths))
		return LOCUS_ENOMEM;
	s->lengths[s->n++] = s->cur;
	s->cur = 0;
	return 0;
}

/* The smaller of a byte count still wanted and the bytes at hand. */
static size_t split_min(uint64_t want, size_t have)
{
	return want < have ? (size_t)want : have;
}

/* Feeds the next `len` bytes of the file. */
static int split_feed(struct splitter *s, const unsigned char *p, size_t len)
{
	while (len > 0) {
		const unsigned char *nl;
		size_t take;

		switch (s->mode) {
		case LOCUS_SPLIT_BYTES:
			take = split_min(s->chunk_size - s->cur, len);
			s->cur += take;
			if (s->cur == s->chunk_size && split_emit(s))
				return LOCUS_ENOMEM;
			break;

		case LOCUS_SPLIT_LINES:
			/* A newline among the first S - 1 bytes does not end
			 * the chunk: skip them without looking. */
			if (s->cur < s->chunk_size - 1) {
				take = split_min(s->chunk_size - 1 - s->cur, len);
				s->cur += take;
				break;
			}
			nl = memchr(p, '\n', len);
			take = nl ? (size_t)(nl - p) + 1 : len;
			s->cur += take;
			if (nl && split_emit(s))
				return LOCUS_ENOMEM;
			break;

		case LOCUS_SPLIT_FASTA:
			/* No cut within the first S bytes; remember whether
			 * they end a line. */
			if (s->cur < s->chunk_size) {
				take = split_min(s->chunk_size - s->cur, len);
				s->cur += take;
				s->line_start = p[take - 1] == '\n';
				break;
			}
			if (s->line_start && p[0] == '>') {
				if (split_emit(s))
					return LOCUS_ENOMEM;
				continue; /* the '>' opens the next chunk */
			}
			/* Skip to the start of the next line. */
			nl = memchr(p, '\n', len);
			take = nl ? (size_t)(nl - p) + 1 : len;
			s->cur += take;
			s->line_start = nl != NULL;
			break;

		default:
			return LOCUS_EINVAL;
		}
		p += take;
		len -= take;
	}
	return 0;
}

int locus_split_file(uint64_t **lengths, size_t *n, const char *path, uint64_t chunk_size,
		     enum locus_split_mode mode, struct locus_error *err)
{
	struct splitter s = {
	    .chunk_size = chunk_size,
	    .mode = mode,
	    .line_start = true,
	};
	unsigned char *buf = NULL;
	int fd = -1, rc = 0;

	if (lengths)
		*lengths = NULL;
	if (n)
		*n = 0;
	if (!path || !lengths || !n)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "splitting needs a path and places for the result");
	if (chunk_size == 0)
		return locus__err(err, LOCUS_EINVAL, path, 0, 0,
				  "chunk size must be at least 1 byte");
	if (mode != LOCUS_SPLIT_BYTES && mode != LOCUS_SPLIT_LINES && mode != LOCUS_SPLIT_FASTA)
		return locus__err(err, LOCUS_EINVAL, path, 0, 0, "unknown split mode %d",
				  (int)mode);

	buf = malloc(SPLIT_BUF_SIZE);
	if (!buf)
		return locus__err(err, LOCUS_ENOMEM, path, 0, 0, "out of memory");
	do {
		fd = open(path, O_RDONLY | O_CLOEXEC);
	} while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		rc = locus__err(err, LOCUS_EIO, path, 0, 0, "cannot open: %s", strerror(errno));
		goto out;
	}
	for (;;) {
		ssize_t got = read(fd, buf, SPLIT_BUF_SIZE);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = locus__err(err, LOCUS_EIO, path, 0, 0, "cannot read: %s",
					strerror(errno));
			goto out;
		}
		if (got == 0)
			break;
		rc = split_feed(&s, buf, (size_t)got);
		if (rc)
			goto nomem;
	}
	if (s.cur > 0 && split_emit(&s)) {
		rc = LOCUS_ENOMEM;
		goto nomem;
	}
	*lengths = s.lengths;
	*n = s.n;
	s.lengths = NULL;
	goto out;
nomem:
	rc = locus__err(err, rc, path, 0, 0, "out of memory after %zu chunks", s.n);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	free(s.lengths);
	return rc;
}
