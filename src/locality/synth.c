/* Synthetic datasets: deterministic content for demos, tests and benches. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "locus/place.h"
#include "locus/rng.h"

int locus_synth_kind_parse(const char *name, enum locus_synth_kind *out)
{
	if (strcmp(name, "fasta") == 0)
		*out = LOCUS_SYNTH_FASTA;
	else if (strcmp(name, "random") == 0)
		*out = LOCUS_SYNTH_RANDOM;
	else if (strcmp(name, "zero") == 0)
		*out = LOCUS_SYNTH_ZERO;
	else
		return LOCUS_EINVAL;
	return 0;
}

/* FASTA text: records of 200..2000 bases, 60 per line. `state` carries the
 * record in progress across buffers. */
struct fasta {
	uint64_t record;
	uint64_t left; /* bases left in the current record, 0 = new header */
	unsigned col;  /* bases on the current line */
};

static size_t fasta_fill(struct fasta *f, struct locus_rng *rng, char *buf, size_t n)
{
	static const char bases[4] = {'A', 'C', 'G', 'T'};
	size_t i = 0;
	while (i < n) {
		if (f->left == 0) {
			char head[64];
			if (f->col) {
				buf[i++] = '\n';
				f->col = 0;
				continue;
			}
			f->left = 200 + locus_rng_below(rng, 1801);
			int k =
			    snprintf(head, sizeof head, ">seq%llu length=%llu\n",
				     (unsigned long long)f->record++, (unsigned long long)f->left);
			size_t m = (size_t)k < n - i ? (size_t)k : n - i;
			memcpy(buf + i, head, m);
			i += m;
			continue;
		}
		if (f->col == 60) {
			buf[i++] = '\n';
			f->col = 0;
			continue;
		}
		buf[i++] = bases[locus_rng_next(rng) >> 62];
		f->col++;
		f->left--;
	}
	return i;
}

int locus_synth_write(const char *path, uint64_t size, enum locus_synth_kind kind, uint64_t seed,
		      struct locus_error *err)
{
	size_t plen = strlen(path) + 32;
	char *tmp = malloc(plen);
	char *buf = malloc(1 << 16);
	struct locus_rng rng;
	struct fasta fa = {0};
	int rc = 0;
	if (!tmp || !buf) {
		free(tmp);
		free(buf);
		return locus__err(err, LOCUS_ENOMEM, path, 0, 0, "out of memory");
	}
	snprintf(tmp, plen, "%s.tmp.%ld", path, (long)getpid());
	locus_rng_init(&rng, seed);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = locus__err(err, LOCUS_EIO, path, 0, 0, "cannot create: %s", strerror(errno));
		goto out;
	}
	for (uint64_t done = 0; done < size && !rc;) {
		size_t n = size - done < (1 << 16) ? (size_t)(size - done) : (1 << 16);
		if (kind == LOCUS_SYNTH_FASTA)
			fasta_fill(&fa, &rng, buf, n);
		else if (kind == LOCUS_SYNTH_RANDOM)
			for (size_t i = 0; i < n; i++)
				buf[i] = (char)(locus_rng_next(&rng) >> 56);
		else
			memset(buf, 0, n);
		for (size_t w = 0; w < n;) {
			ssize_t k = write(fd, buf + w, n - w);
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0) {
				rc = locus__err(err, LOCUS_EIO, path, 0, 0, "cannot write: %s",
						strerror(errno));
				break;
			}
			w += (size_t)k;
		}
		done += n;
	}
	if (!rc && fsync(fd) != 0)
		rc = locus__err(err, LOCUS_EIO, path, 0, 0, "cannot sync: %s", strerror(errno));
	if (close(fd) != 0 && !rc)
		rc = locus__err(err, LOCUS_EIO, path, 0, 0, "cannot close: %s", strerror(errno));
	if (!rc && rename(tmp, path) != 0)
		rc = locus__err(err, LOCUS_EIO, path, 0, 0, "cannot rename into place: %s",
				strerror(errno));
	if (rc)
		unlink(tmp);
out:
	free(tmp);
	free(buf);
	return rc;
}
