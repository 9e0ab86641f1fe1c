/*
 * Names shared inside the library (locus__ prefix), not installed.
 */
#ifndef LOCUS_INTERNAL_H
#define LOCUS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "locus/error.h"
#include "locus/log.h"

/* Fills `err` (may be NULL) and returns `code`, so readers can write
 * `return locus__err(err, LOCUS_EPARSE, file, line, col, "expected ...")`.
 * `file` may be NULL, `line`/`col` 0 when they do not apply. */
/* A caller's struct `what` of version `version` (0: zeroed by hand, read
 * as version 1), of which this library knows versions up to `known`: 0,
 * or LOCUS_EINVAL saying so. */
int locus__check_version(int version, int known, const char *what, struct locus_error *err);

int locus__err(struct locus_error *err, int code, const char *file, long line, long col,
	       const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Allocation helpers that return NULL on overflow as on failure. */
void *locus__calloc(size_t n, size_t size);
void *locus__reallocarray(void *p, size_t n, size_t size);
/* Whether process pid is alive on this host: a zombie (dead, not yet
 * reaped: its parent killed, an init that reaps late) is not. */
int locus__pid_alive(long pid);

/* Maps the pages of p[0..n) now (MADV_POPULATE_WRITE where the kernel
 * has it, and a write to each page, its byte unchanged), so that a loop
 * that later writes them one by one takes no page fault on each. */
void locus__prefault(void *p, size_t n);
char *locus__strdup(const char *s);
char *locus__strndup(const char *s, size_t n);

/* Grows *array (of *cap elements of `size` bytes) so it holds at least
 * `need` elements. Returns 0 or LOCUS_ENOMEM. */
int locus__grow(void *array, size_t *cap, size_t need, size_t size);

/* Open-addressing map from strings (copied) to size_t values. */
struct locus__strmap {
	char **keys;
	size_t *vals;
	size_t cap; /* power of two or 0 */
	size_t count;
};
void locus__strmap_init(struct locus__strmap *m);
void locus__strmap_fini(struct locus__strmap *m);
/* Inserts or replaces. Returns 0 or LOCUS_ENOMEM. */
int locus__strmap_put(struct locus__strmap *m, const char *key, size_t val);
/* Returns 1 and sets *val when found, else 0. */
int locus__strmap_get(const struct locus__strmap *m, const char *key, size_t *val);

/* Growable byte buffer (always NUL-terminated when data != NULL). */
struct locus__buf {
	char *data;
	size_t len;
	size_t cap;
};
int locus__buf_append(struct locus__buf *b, const char *s, size_t n);
int locus__buf_printf(struct locus__buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void locus__buf_fini(struct locus__buf *b);

/* Line iteration over a text buffer: sets *line and *len to the next line
 * without its "\n" or "\r\n" and advances *pos. Returns 0 at the end. */
int locus__next_line(const char *text, size_t size, size_t *pos, const char **line, size_t *len);

/* A whitespace-separated field of a line: its text, length and 1-based
 * column. */
struct locus__field {
	const char *s;
	size_t n;
	long col;
};

/* Splits line[0..n) at spaces and tabs into at most `max` fields; returns
 * how many there are (more than `max` when the line has more: only the
 * first `max` are filled). A line that is empty or starts with '#' after
 * blanks has none. */
size_t locus__split_fields(const char *line, size_t n, struct locus__field *f, size_t max);

/* Reads field f as a finite number (strtod syntax, the whole field):
 * returns 0 or LOCUS_EPARSE. */
int locus__field_number(const struct locus__field *f, double *out);

/* The same, decimal only (locus__parse_decimal): the graph readers,
 * whose formats are decimal (an STG cost "0x10" is no number). */
int locus__field_decimal(const struct locus__field *f, double *out);

/* The length of the decimal number s[0..n) starts with: an optional sign,
 * digits with an optional fraction (or a fraction alone), an optional
 * exponent ("12", "-1.5", ".5", "2e3"); 0 when it starts with none.
 * Hexadecimal ("0x10" is "0" and more), "inf" and "nan" are not. */
size_t locus__decimal_len(const char *s, size_t n);

/* Reads s[0..n), all of it a decimal number (locus__decimal_len), as a
 * finite double: 0 or LOCUS_EPARSE. */
int locus__parse_decimal(const char *s, size_t n, double *out);

/* Parses an unsigned decimal integer at s[0..n): all characters must be
 * digits, at least one, no overflow. Returns 0 or LOCUS_ERANGE/EPARSE. */
int locus__parse_u64(const char *s, size_t n, uint64_t *out);

/* Writes v in decimal at out, zero-padded to at least `width` digits (at
 * most 20), without a terminating NUL; returns the digits written (out
 * has room for max(20, width)). For paths built per task, where
 * snprintf's cost showed (docs/mpi.md). */
size_t locus__put_u64(char *out, uint64_t v, int width);

/* The n strings of `parts` one after another into buf[0 .. size), cut to
 * fit and NUL-terminated (as snprintf with "%s%s..." would write them);
 * returns the length they have together. */
size_t locus__join(char *buf, size_t size, const char *const *parts, size_t n);

/* Parses a size with an optional suffix: K, M, G, T (powers of 1024),
 * KB/MB/GB/TB (powers of 1000), B. Returns 0 or LOCUS_EPARSE/ERANGE. */
int locus__parse_size(const char *s, uint64_t *out);

/* Writes `n` bytes to `path` atomically: a temporary file in the same
 * directory, fsync, rename. On failure nothing is left behind. */
int locus__write_atomic(const char *path, const void *data, size_t n, struct locus_error *err);

/* Reads a whole file into a NUL-terminated buffer the caller frees
 * (LOCUS_ENOENT, LOCUS_EIO with the path and reason), at most
 * LOCUS_READ_MAX bytes (LOCUS_ERANGE): locus_read_file. */
int locus__read_file(char **text, size_t *len, const char *path, struct locus_error *err);

/* The same with a limit of `max` bytes: a regular file larger is refused
 * unread, any other input (a pipe, a device) once `max` bytes are read
 * and more follow. */
int locus__read_file_max(char **text, size_t *len, const char *path, size_t max,
			 struct locus_error *err);

/* The length of the UTF-8 byte-order mark s[0..n) starts with: 3 or 0.
 * Every text reader skips it (an editor may write one; it is no text). */
size_t locus__bom_len(const char *s, size_t n);

/* The index of the first character of s[0..n) that is not blank, a
 * byte-order mark or in a '#' comment (n when none); its line and column
 * in *line, *col. How the readers tell a file's format. */
size_t locus__first_significant(const char *s, size_t n, long *line, long *col);

/* Reads a task graph from text[0..len) read from `path`: format 0 tells
 * STG, the text form and WfCommons by the first significant character
 * (locus_dag_load), 1 is STG, 2 the text form, 3 WfCommons. */
struct locus_graph;
int locus__dag_load_text(struct locus_graph **out, const char *text, size_t len, const char *path,
			 int format, struct locus_error *err);

/* locus_dag_read_wfcommons, a task's coreCount and memoryInBytes each
 * defaulting to task_default's (NULL: LOCUS_DEMAND_DEFAULT; cores 0 is
 * 1), and its disk always (WfFormat states none). */
struct locus_demand;
int locus__read_wfcommons(struct locus_graph **out, const char *text, size_t len, const char *name,
			  const struct locus_demand *task_default, struct locus_error *err);

/* Removes a directory tree (best effort); returns 0 or LOCUS_EIO. */
int locus__rmtree(const char *path);

/* Creates every missing directory of `path` (like mkdir -p). */
int locus__mkdirs(const char *path, struct locus_error *err);

/* Writes at most n bytes of s (up to a NUL) into buf, with control
 * characters and bytes above 0x7e as \xHH, so that a message quoting
 * input never carries an escape sequence to a terminal. Returns buf. */
const char *locus__visible(const char *s, size_t n, char *buf, size_t size);

/* Host names (every reader, locus_catalog_add_host): non-empty, not
 * starting with '.', without control characters or ',' (the catalog's
 * replica lists are comma-separated). */
int locus__valid_host_name(const char *name);

/* After locus_catalog_add_host() refused `name` with LOCUS_EEXIST: writes
 * into buf the known hosts (and their other spellings) that `name` would
 * tie together, for the reader's message. */
struct locus_catalog;
void locus__catalog_host_clash(const struct locus_catalog *cat, const char *name, char *buf,
			       size_t size);

/* What every reader says about host names that the host-name rule
 * (locus_host_match) cannot tell apart. */
#define LOCUS__HOST_RULE                                                                           \
	"host names match ignoring case, and up to the first '.' when only one of the two "        \
	"has a domain"

/* The k-th node of wl's platform without cores (where a workflow
 * policy's schedulers run: a dispatcher node), or UINT32_MAX when the
 * platform has fewer. The workload keeps an index (workload.c), so that
 * placing D schedulers costs D look-ups, not D scans of the nodes. */
struct locus_workload;
uint32_t locus__node_without_cores(const struct locus_workload *wl, size_t k);
/* The graph of a chunk workload (workload.c): one object per chunk of
 * `cat` (of dataset `only`, when not NULL) that skip (may be NULL) does not
 * name, one task reading it, none depending on another; finished. */
struct locus_work_spec;
int locus__chunk_graph(struct locus_graph **out, const struct locus_catalog *cat, const char *only,
		       const struct locus_work_spec *work, uint64_t seed,
		       int (*skip)(void *user, size_t dataset, size_t chunk), void *skip_user,
		       struct locus_error *err);

#define LOCUS__ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
