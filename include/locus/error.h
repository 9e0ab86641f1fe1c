/*
 * Locus error codes and error details.
 *
 * Every fallible library function returns 0 on success or a negative
 * LOCUS_E* code. Functions that read user input also take an optional
 * `struct locus_error *` that receives the file, line, column and a message
 * saying what was expected. The caller owns the struct (no allocation).
 */
#ifndef LOCUS_ERROR_H
#define LOCUS_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
	LOCUS_OK = 0,
	LOCUS_EINVAL = -1,     /* invalid argument */
	LOCUS_ENOMEM = -2,     /* out of memory */
	LOCUS_EIO = -3,	       /* a system call on a file failed */
	LOCUS_EPARSE = -4,     /* malformed input */
	LOCUS_ENOENT = -5,     /* no such dataset, host, file or name */
	LOCUS_EEXIST = -6,     /* refusing to overwrite */
	LOCUS_ERANGE = -7,     /* value out of range */
	LOCUS_ENOTSUP = -8,    /* not supported */
	LOCUS_EINCOMPLETE = -9 /* input is valid but describes lost data */
};

/* Details of the last error. `file` is empty and `line`/`column` are 0
 * when they do not apply. */
struct locus_error {
	int code;
	char file[256];
	long line;
	long column;
	char message[512];
};

/* A static, human-readable string for a LOCUS_E* code. Never NULL. */
const char *locus_strerror(int code);

/* Clears `err` (code 0, empty strings). `err` may be NULL. */
void locus_error_clear(struct locus_error *err);

/* Formats `err` as "file:line:column: message" (omitting the parts that are
 * absent) into `buf` of size `size`. Returns `buf`. */
char *locus_error_format(const struct locus_error *err, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
