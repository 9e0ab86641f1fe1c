/*
 * libFuzzer target for workers files (locus-workers): the input either
 * fails cleanly with a message, or gives workers the planner accepts; a
 * small prefix of them is then planned under each method and executed in
 * the simulator, which must send all of W and never beat the bound.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct locus_divisible_worker *w = NULL;
	size_t n = 0;
	double b0 = 100;
	struct locus_error err = {0};
	int rc = locus_divisible_workers_parse(&w, &n, &b0, (const char *)data, size, "fuzz", &err);
	if (rc) {
		check(rc == LOCUS_EPARSE || rc == LOCUS_EINVAL || rc == LOCUS_ENOMEM);
		check(err.code == rc && err.message[0]);
		check(!w);
		return 0;
	}
	check(n >= 1 && w);
	/* Without overheads every extra round helps, up to the cap of 4096
	 * rounds: keep such plans small enough to simulate quickly. */
	if (n > 16)
		n = 16;
	static const char *const methods[] = {"umr", "ptumr", "ptumr-nogt"};
	for (size_t m = 0; m < 3; m++) {
		struct locus_divisible_options o;
		locus_divisible_options_init(&o);
		locus_divisible_method_parse(methods[m], &o);
		struct locus_divisible_plan *p;
		rc = locus_divisible_plan_create(&p, 1000, b0, w, n, &o, &err);
		/* Values the parser accepts but the planner cannot use (huge
		 * or tiny numbers) are refused, never planned wrong. */
		if (rc) {
			check(rc == LOCUS_EINVAL || rc == LOCUS_ERANGE);
			continue;
		}
		check(p->t_real >= p->t_bound * (1 - 1e-9));
		struct locus_divisible_run *r;
		check(locus_divisible_simulate(&r, p, NULL) == 0);
		double sum = 0;
		for (size_t e = 0; e < r->n_events; e++)
			sum += r->events[e].units;
		check(fabs(sum - 1000) <= 1e-6 * 1000);
		locus_divisible_run_destroy(r);
		locus_divisible_plan_destroy(p);
	}
	free(w);
	return 0;
}
