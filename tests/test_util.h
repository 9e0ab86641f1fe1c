/* Helpers shared by the tests. */
#ifndef LOCUS_TEST_UTIL_H
#define LOCUS_TEST_UTIL_H

#include <stddef.h>

/* Creates a fresh empty directory under $TMPDIR (or /tmp) and returns its
 * path in a static buffer per call slot (up to 8 live at once). */
const char *test_tmpdir(void);

/* Path of a file under tests/fixtures in a static buffer. */
const char *test_fixture(const char *name);

/* Reads a whole file (NUL-terminated, caller frees), or NULL. */
char *test_slurp(const char *path, size_t *len);

/* Writes a string to a file; returns 0 on success. */
int test_write(const char *path, const char *text);

#endif
