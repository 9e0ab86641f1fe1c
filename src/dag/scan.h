/*
 * Line and token scanning shared by the text readers of task graphs (STG
 * and the text form): tokens separated by blanks, '#' to the end of a
 * line a comment, line endings "\n" or "\r\n", a missing last newline
 * accepted, and the position of every token for error messages.
 */
#ifndef LOCUS_DAG_SCAN_H
#define LOCUS_DAG_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

struct dag_scan {
	const char *text;
	size_t len, pos;
	const char *name; /* labels errors */
	struct locus_error *err;
	/* The current line. */
	const char *s;
	size_t n, i;
	long line;
};

void locus__dag_scan_init(struct dag_scan *sc, const char *text, size_t len, const char *name,
			  struct locus_error *err);

/* Moves to the next line that has a token; 0 at the end of the text. */
int locus__dag_scan_line(struct dag_scan *sc);

/* The next token of the current line into *f; 0 at its end. */
int locus__dag_scan_tok(struct dag_scan *sc, struct locus__field *f);

/* The column just after the current line's last character (where a
 * missing field would be). */
long locus__dag_scan_eol(const struct dag_scan *sc);

/* Reads field f as an unsigned integer below `limit` / a finite number
 * >= 0; on failure sets the error "expected WHAT, got "F"" at f and
 * returns LOCUS_EPARSE. */
int locus__dag_scan_uint(struct dag_scan *sc, const struct locus__field *f, uint64_t limit,
			 const char *what, uint64_t *out);
int locus__dag_scan_cost(struct dag_scan *sc, const struct locus__field *f, const char *what,
			 double *out);

/* Field f quoted for a message (at most 40 bytes; buf of 64). */
const char *locus__dag_quote(const struct locus__field *f, char *buf, size_t size);

#endif
