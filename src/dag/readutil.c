/*
 * Helpers of the line-oriented graph readers (readutil.h).
 */
#include <stdlib.h>
#include <string.h>

#include "dag/readutil.h"

int locus__dag_split(struct locus__dag_fields *fs, const char *line, size_t len)
{
	const char *hash = memchr(line, '#', len);
	if (hash)
		len = (size_t)(hash - line);
	size_t k = locus__split_fields(line, len, fs->f, fs->cap);
	if (k > fs->cap) {
		if (locus__grow(&fs->f, &fs->cap, k, sizeof *fs->f))
			return LOCUS_ENOMEM;
		k = locus__split_fields(line, len, fs->f, fs->cap);
	}
	fs->n = k;
	return 0;
}

void locus__dag_fields_fini(struct locus__dag_fields *fs)
{
	free(fs->f);
	fs->f = NULL;
	fs->n = fs->cap = 0;
}

const char *locus__dag_quote(const struct locus__field *f, char *buf, int always)
{
	double v;
	int q = always || locus__field_decimal(f, &v) != 0;
	size_t k = 0, m = f->n < LOCUS__DAG_QUOTE_MAX ? f->n : LOCUS__DAG_QUOTE_MAX;
	if (q)
		buf[k++] = '"';
	for (size_t i = 0; i < m; i++) {
		unsigned char ch = (unsigned char)f->s[i];
		buf[k++] = ch < 0x20 || ch >= 0x7f ? '?' : (char)ch;
	}
	if (m < f->n) {
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	if (q)
		buf[k++] = '"';
	buf[k] = 0;
	return buf;
}

long locus__dag_after(const struct locus__field *f)
{
	return f->col + (long)f->n;
}

int locus__dag_u64(const struct locus__field *f, uint64_t *v)
{
	return locus__parse_u64(f->s, f->n, v);
}

void locus__dag_eof(const char *text, size_t len, long *line, long *col)
{
	long ln = 1;
	size_t start = 0;
	for (size_t i = 0; i < len; i++)
		if (text[i] == '\n') {
			ln++;
			start = i + 1;
		}
	*line = ln;
	*col = (long)(len - start) + 1;
	/* A last line ending in "\r" (no "\n") reads without it. */
	if (len > start && text[len - 1] == '\r')
		(*col)--;
}
