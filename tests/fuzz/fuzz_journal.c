/*
 * libFuzzer target for the journal of real runs: the input is parsed as a
 * journal; it either fails cleanly (an error with its code and a line) or
 * gives records that lie inside the complete lines, and matching them
 * against a small catalog never marks a chunk outside it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locus.h"
#include "mpi/journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

static struct locus_catalog *catalog(void)
{
	static struct locus_catalog *cat;
	static const char text[] = "locus-catalog\t1\nhost\tn1\t-\n"
				   "dataset\td\t30\t3\t-\n"
				   "chunk\t0\t0\t10\tn1\t-\nchunk\t1\t10\t10\tn1\t-\n"
				   "chunk\t2\t20\t10\tn1\t-\nend\t1\t3\n";
	struct locus_error err;
	if (!cat && locus_catalog_parse(&cat, text, strlen(text), "fuzz", &err))
		abort();
	return cat;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct locus__journal_rec *recs = (void *)&recs;
	size_t n = 99, complete = 0, n_skip = 0;
	struct locus_error err = {0};
	int rc = locus__journal_parse((const char *)data, size, "fuzz", &recs, &n, &complete, &err);
	check(complete <= size);
	if (rc) {
		check(recs == NULL && n == 0 && err.code == rc && err.line >= 1);
		return 0;
	}
	check(n == 0 || recs != NULL);
	for (size_t i = 0; i < n; i++)
		check(recs[i].dataset && recs[i].dataset[0] && recs[i].line >= 2);
	unsigned char skip[4] = {0};
	skip[3] = 7;
	rc = locus__journal_match(recs, n, "fuzz", catalog(), skip, &n_skip, &err);
	check(skip[3] == 7 && n_skip <= 3);
	check(rc == 0 || (rc == LOCUS_EPARSE && err.line >= 2));
	locus__journal_recs_free(recs, n);
	return 0;
}
