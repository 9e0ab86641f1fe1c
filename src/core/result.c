/* The result model both engines fill (include/locus/result.h). */
#include <math.h>
#include <stdlib.h>

#include "core/internal.h"
#include "locus/dataset.h"
#include "locus/result.h"

static void free_problems(struct locus_result *r)
{
	for (size_t i = 0; i < r->n_problems; i++) {
		free(r->problems[i].dataset);
		free(r->problems[i].detail);
	}
	free(r->problems);
	r->problems = NULL;
	r->n_problems = 0;
}

int locus_result_set_problems(struct locus_result *r, const struct locus_catalog *cat,
			      const char *dataset)
{
	if (!r)
		return LOCUS_EINVAL;
	free_problems(r);
	if (!cat || !cat->n_problems)
		return 0;
	long only = dataset ? locus_catalog_find_dataset(cat, dataset) : -1;
	r->problems = locus__calloc(cat->n_problems, sizeof *r->problems);
	if (!r->problems)
		return LOCUS_ENOMEM;
	for (size_t i = 0; i < cat->n_problems; i++) {
		const struct locus_problem *p = &cat->problems[i];
		if (dataset && (long)p->dataset != only)
			continue;
		struct locus_result_problem *q = &r->problems[r->n_problems++];
		q->chunk = p->chunk;
		q->flags = p->flags;
		q->dataset = locus__strdup(cat->datasets[p->dataset].name);
		q->detail = locus__strdup(p->detail ? p->detail : "");
		if (!q->dataset || !q->detail) {
			free_problems(r);
			return LOCUS_ENOMEM;
		}
	}
	if (!r->n_problems)
		free_problems(r);
	return 0;
}

void locus_result_destroy(struct locus_result *r)
{
	if (!r)
		return;
	free_problems(r);
	free(r->policy_options);
	free(r->tasks);
	free(r->xfers);
	free(r->stages);
	free(r->workers);
	free(r->scheds);
	free(r->policy_event_times);
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
