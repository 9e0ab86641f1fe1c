/* The result model both engines fill (include/locus/result.h). */
#include <math.h>
#include <stdlib.h>

#include "locus/result.h"

void locus_result_destroy(struct locus_result *r)
{
	if (!r)
		return;
	free(r->policy_options);
	free(r->tasks);
	free(r->xfers);
	free(r->stages);
	free(r->workers);
	free(r->scheds);
	free(r);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

void locus_result_set_waits(struct locus_result *r, double *waits, size_t n)
{
	if (!n)
		return;
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += waits[i];
	qsort(waits, n, sizeof *waits, cmp_double);
	r->wait_mean = sum / (double)n;
	r->wait_p50 = waits[(n - 1) / 2];
	r->wait_p99 = waits[(size_t)ceil(0.99 * (double)n) - 1];
	r->wait_max = waits[n - 1];
}
