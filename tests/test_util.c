#include "test_util.h"
#include "locus/locus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *test_tmpdir(void)
{
	static char bufs[8][512];
	static int next;
	char *b = bufs[next++ % 8];
	const char *base = getenv("TMPDIR");
	snprintf(b, 512, "%s/locus-test-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(b)) {
		perror("mkdtemp");
		abort();
	}
	return b;
}

const char *test_fixture(const char *name)
{
	static char buf[1024];
	snprintf(buf, sizeof buf, "%s/fixtures/%s", LOCUS_TEST_DIR, name);
	return buf;
}

char *test_slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	size_t r;
	while (buf && (r = fread(buf + n, 1, cap - n - 1, fp)) > 0) {
		n += r;
		if (cap - n - 1 == 0) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				buf = NULL;
			}
			buf = nb;
		}
	}
	fclose(fp);
	if (buf)
		buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

int test_write(const char *path, const char *text)
{
	FILE *fp = fopen(path, "wb");
	if (!fp)
		return -1;
	size_t n = strlen(text);
	int ok = fwrite(text, 1, n, fp) == n;
	return (fclose(fp) == 0 && ok) ? 0 : -1;
}

struct locus_result *test_simulate(const struct locus_scenario_spec *spec, const char *policy,
				   double cost_msg, double cost_entry, double shared_fs,
				   long *opt_local)
{
	struct locus_scenario *sc = NULL;
	struct locus_error err = {0};
	struct locus_result *r = NULL;
	if (locus_scenario_build(&sc, spec, &err)) {
		fprintf(stderr, "scenario: %s\n", err.message);
		return NULL;
	}
	struct locus_sim_config cfg = {.wl = sc->workload,
				       .policy = locus_policy_find(policy),
				       .seed = spec->seed,
				       .latency = -1,
				       .cost_per_msg = cost_msg,
				       .cost_per_entry = cost_entry,
				       .shared_fs_bw = shared_fs,
				       .no_task_results = 1};
	if (!cfg.policy || locus_sim_run(&r, &cfg, &err))
		fprintf(stderr, "%s: %s\n", policy, err.message);
	if (r && opt_local && locus_bound_locality(sc->workload, NULL, opt_local, NULL, &err))
		*opt_local = -1;
	locus_scenario_destroy(sc);
	return r;
}
