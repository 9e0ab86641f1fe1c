/*
 * libFuzzer target for the simulation's text inputs: the input is read as
 * a speed trace (against a platform of four nodes n01..n04), as a work
 * trace, and, split at its first newline, as a work spec and a policy
 * option list. Each either fails cleanly (no result, an error with its
 * code) or gives what its reader promises.
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

static struct locus_platform *platform;

static void speed_trace(const char *text, size_t size)
{
	struct locus_speed_change *sc = (void *)&sc;
	size_t n = 99;
	struct locus_error err = {0};
	int rc = locus_speed_trace_parse(&sc, &n, platform, text, size, "fuzz", &err);
	if (rc) {
		check(sc == NULL && n == 0 && err.code == rc);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		check(sc[i].node < platform->n_nodes);
		check(sc[i].time >= 0 && isfinite(sc[i].time));
		check(sc[i].speed > 0 && isfinite(sc[i].speed));
		check(i == 0 || sc[i].time >= sc[i - 1].time);
	}
	free(sc);
}

static void work_trace(const char *text, size_t size)
{
	double *v = (double *)&v;
	size_t n = 99;
	struct locus_error err = {0};
	int rc = locus_work_trace_parse(&v, &n, text, size, "fuzz", &err);
	if (rc) {
		check(v == NULL && n == 0 && err.code == rc);
		return;
	}
	check(n > 0);
	for (size_t i = 0; i < n; i++)
		check(v[i] >= 0 && isfinite(v[i]));
	free(v);
}

static void spec_and_options(const char *text, size_t size)
{
	const char *nl = memchr(text, '\n', size);
	size_t a = nl ? (size_t)(nl - text) : size;
	char *spec = strndup(text, a), *opts = strndup(nl ? nl + 1 : "", nl ? size - a - 1 : 0);
	struct locus_error err = {0};
	if (!spec || !opts)
		abort();
	/* A trace spec names a file: not the fuzzer's business. */
	if (strncmp(spec, "trace", 5) != 0) {
		struct locus_work_spec w;
		if (!locus_work_spec_parse(&w, spec, &err)) {
			check(w.dist != LOCUS_WORK_TRACE);
			check(w.mean >= 0 && isfinite(w.mean) && w.lo <= w.hi && w.lo >= 0);
			locus_work_spec_fini(&w);
		}
	}
	struct locus_kv kv;
	if (!locus_kv_parse(&kv, opts, &err)) {
		for (size_t i = 0; i < kv.n; i++) {
			check(kv.keys[i][0] && !strchr(kv.keys[i], '=') &&
			      !strchr(kv.keys[i], ','));
			check(kv.vals[i][0] && !strchr(kv.vals[i], ','));
			double v;
			locus_kv_double(&kv, kv.keys[i], 0, -1e300, 1e300, &v, &err);
		}
		check(locus_kv_unused(&kv) == NULL);
		locus_kv_fini(&kv);
	}
	free(spec);
	free(opts);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!platform && locus_platform_generate(&platform, 4, 2, 1, "n"))
		abort();
	char *text = malloc(size ? size : 1);
	if (!text)
		return 0;
	if (size)
		memcpy(text, data, size);
	speed_trace(text, size);
	work_trace(text, size);
	if (!memchr(text, 0, size))
		spec_and_options(text, size);
	free(text);
	return 0;
}
