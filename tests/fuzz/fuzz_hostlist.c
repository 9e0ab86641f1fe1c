/*
 * libFuzzer target for Slurm's compressed host lists: expands the input
 * and, when it is accepted, checks that every name is non-empty and made
 * of host name characters only, and that the count stays in bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locality.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char **names = (char **)&names;
	size_t n = 7;
	struct locus_error err;
	int rc = locus_hostlist_expand((const char *)data, size, "fuzz", &names, &n, &err);
	if (rc) {
		if (names || n || err.code != rc)
			abort();
		return 0;
	}
	if (!names || n == 0 || n > LOCUS_HOSTLIST_MAX)
		abort();
	for (size_t i = 0; i < n; i++) {
		if (!names[i][0])
			abort();
		for (const char *p = names[i]; *p; p++)
			if (*p == ',' || *p == '[' || *p == ']' || *p == ' ')
				abort();
	}
	locus_hostlist_free(names, n);
	return 0;
}
