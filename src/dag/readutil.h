/*
 * What the line-oriented graph readers (read_stg.c, read_text.c) share:
 * fields of any count, '#' comments, how an error quotes a field, and
 * where the end of the text is. Internal (locus__dag_ prefix).
 */
#ifndef LOCUS_DAG_READUTIL_H
#define LOCUS_DAG_READUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

/* How much of a field an error message quotes, and a buffer that holds
 * a quote. */
#define LOCUS__DAG_QUOTE_MAX  40
#define LOCUS__DAG_QUOTE_SIZE (LOCUS__DAG_QUOTE_MAX + 8)

/* A line's fields, in an array that grows with the longest line. */
struct locus__dag_fields {
	struct locus__field *f;
	size_t n, cap;
};

/* Splits line[0..len) into fields, dropping a comment: from a '#'
 * anywhere on the line to its end. 0 or LOCUS_ENOMEM. */
int locus__dag_split(struct locus__dag_fields *fs, const char *line, size_t len);

void locus__dag_fields_fini(struct locus__dag_fields *fs);

/* The field as an error message quotes it: a number as written (unless
 * `always`; decimal only), anything else in double quotes; control bytes become '?',
 * a long field ends in "...". buf holds LOCUS__DAG_QUOTE_SIZE bytes. */
const char *locus__dag_quote(const struct locus__field *f, char *buf, int always);

/* The column just after field f: where a missing next field belongs. */
long locus__dag_after(const struct locus__field *f);

/* The field as an unsigned decimal integer (digits only): 0, or
 * LOCUS_EPARSE / LOCUS_ERANGE. */
int locus__dag_u64(const struct locus__field *f, uint64_t *v);

/* The line and column just after the last byte of text[0..len): where a
 * truncated file's error points. */
void locus__dag_eof(const char *text, size_t len, long *line, long *col);

#endif
