/*
 * Files and sizes as Locus reads and writes them everywhere: a whole file
 * read at once, a file written atomically (nothing half-written is ever
 * left), a directory path created, and the size syntax of the formats and
 * the command line (docs/formats.md: "64M" and "1G" are powers of 1024,
 * "80MB" and "1GB" powers of 1000).
 */
#ifndef LOCUS_FILES_H
#define LOCUS_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "locus/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most bytes Locus reads from one input file: 1 GiB. */
#define LOCUS_READ_MAX ((size_t)1 << 30)

/* Reads a whole file into *text, NUL-terminated, allocated (the caller
 * frees it), and its length into *len. LOCUS_ENOENT or LOCUS_EIO name the
 * path and the reason. A file that is not a regular file (a pipe, a
 * device, a terminal) is read to its end once, as a regular one is; an
 * input of more than LOCUS_READ_MAX bytes is refused (LOCUS_ERANGE),
 * a regular file before it is read, a stream once that much is read. */
int locus_read_file(char **text, size_t *len, const char *path, struct locus_error *err);

/* Writes `n` bytes to `path` atomically: a temporary file in the same
 * directory, fsync, rename. On failure nothing is left behind (LOCUS_EIO). */
int locus_write_atomic(const char *path, const void *data, size_t n, struct locus_error *err);

/* Creates every missing directory of `path`, as mkdir -p (LOCUS_EIO). */
int locus_mkdirs(const char *path, struct locus_error *err);

/* Parses a size: digits with an optional suffix K, M, G, T (powers of
 * 1024), KB, MB, GB, TB (powers of 1000) or B. 0, LOCUS_EPARSE or
 * LOCUS_ERANGE. */
int locus_parse_size(const char *s, uint64_t *out);

/* Parses s[0..n) as an unsigned decimal integer: digits only, at least
 * one, no overflow. 0, LOCUS_EPARSE or LOCUS_ERANGE. */
int locus_parse_u64(const char *s, size_t n, uint64_t *out);

#ifdef __cplusplus
}
#endif
#endif
