#include "test_util.h"
#include "locus/locus.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The directories test_tmpdir made, removed with what is in them when
 * the test program exits (after a failed check too; an abort leaves them
 * for a person to look at). */
static char **tmpdirs;
static size_t n_tmpdirs;

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void remove_tmpdirs(void)
{
	for (size_t i = 0; i < n_tmpdirs; i++) {
		nftw(tmpdirs[i], remove_one, 16, FTW_DEPTH | FTW_PHYS);
		free(tmpdirs[i]);
	}
	free(tmpdirs);
	tmpdirs = NULL;
	n_tmpdirs = 0;
}

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
	char **more = realloc(tmpdirs, (n_tmpdirs + 1) * sizeof *tmpdirs);
	char *copy = more ? strdup(b) : NULL;
	if (more)
		tmpdirs = more;
	if (copy) {
		if (!n_tmpdirs)
			atexit(remove_tmpdirs);
		tmpdirs[n_tmpdirs++] = copy;
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

/* ---- small workflows ------------------------------------------------------------ */

static uint32_t wf_task(struct locus_graph *g, const char *stage, const char *name, double work)
{
	uint32_t t = (uint32_t)locus_graph_add_task(g, name, work);
	locus_graph_set_stage(g, t, (uint32_t)locus_graph_stage(g, stage));
	return t;
}

/* A new file of 1,000 bytes named by fmt and i (the builder finds no
 * names before the graph is finished: each file is made once). */
static uint32_t wf_file(struct locus_graph *g, const char *fmt, int i)
{
	char nm[64];
	snprintf(nm, sizeof nm, fmt, i);
	return (uint32_t)locus_graph_add_object(g, nm, 1000);
}

/* Montage on n images (a row): mProject, mImgtbl, mDiffFit on neighbours,
 * mConcatFit, mBgModel, mBackground, mAdd. */
struct locus_graph *test_workflow_montage(int n)
{
	struct locus_graph *g = NULL;
	struct locus_error err;
	locus_graph_create(&g, "montage", &err);
	uint32_t hdr = (uint32_t)locus_graph_add_object(g, "region.hdr", 10);
	uint32_t *p = calloc((size_t)n, sizeof *p);
	for (int i = 0; i < n; i++) {
		char nm[32];
		snprintf(nm, sizeof nm, "mProject_%d", i);
		uint32_t t = wf_task(g, "mProject", nm, 10);
		locus_graph_add_input(g, t, wf_file(g, "raw_%d", i));
		locus_graph_add_input(g, t, hdr);
		p[i] = wf_file(g, "p_%d", i);
		locus_graph_add_output(g, t, p[i], &err);
	}
	uint32_t imgtbl = wf_task(g, "mImgtbl", "mImgtbl", 1), tbl = wf_file(g, "images.tbl", 0);
	for (int i = 0; i < n; i++)
		locus_graph_add_input(g, imgtbl, p[i]);
	locus_graph_add_output(g, imgtbl, tbl, &err);
	uint32_t concat = wf_task(g, "mConcatFit", "mConcatFit", 20),
		 fits = wf_file(g, "fits.tbl", 0);
	for (int i = 0; i + 1 < n; i++) {
		char nm[32];
		snprintf(nm, sizeof nm, "mDiffFit_%d", i);
		uint32_t t = wf_task(g, "mDiffFit", nm, 1);
		locus_graph_add_input(g, t, p[i]);
		locus_graph_add_input(g, t, p[i + 1]);
		uint32_t fit = wf_file(g, "fit_%d", i);
		locus_graph_add_output(g, t, fit, &err);
		locus_graph_add_input(g, concat, fit);
	}
	locus_graph_add_output(g, concat, fits, &err);
	uint32_t model = wf_task(g, "mBgModel", "mBgModel", 5),
		 corr = wf_file(g, "corrections.tbl", 0);
	locus_graph_add_input(g, model, tbl);
	locus_graph_add_input(g, model, fits);
	locus_graph_add_output(g, model, corr, &err);
	uint32_t madd = wf_task(g, "mAdd", "mAdd", 30);
	for (int i = 0; i < n; i++) {
		char nm[32];
		snprintf(nm, sizeof nm, "mBackground_%d", i);
		uint32_t t = wf_task(g, "mBackground", nm, 7);
		locus_graph_add_input(g, t, p[i]);
		locus_graph_add_input(g, t, corr);
		uint32_t c = wf_file(g, "c_%d", i);
		locus_graph_add_output(g, t, c, &err);
		locus_graph_add_input(g, madd, c);
	}
	locus_graph_add_output(g, madd, wf_file(g, "mosaic.fits", 0), &err);
	free(p);
	if (locus_graph_finish(g, &err)) {
		locus_graph_destroy(g);
		return NULL;
	}
	return g;
}

/* Parallel BLAST: fastasplitn, n formatdb, n x m blastp, m merge. */
struct locus_graph *test_workflow_blast(int n, int m)
{
	struct locus_graph *g = NULL;
	struct locus_error err;
	locus_graph_create(&g, "blast", &err);
	uint32_t split = wf_task(g, "fastasplitn", "fastasplitn", 60);
	uint32_t *db = calloc((size_t)n, sizeof *db), *query = calloc((size_t)m, sizeof *query);
	locus_graph_add_input(g, split, wf_file(g, "nr", 0));
	for (int i = 0; i < n; i++) {
		char nm[32];
		uint32_t frag = wf_file(g, "frag_%d", i);
		locus_graph_add_output(g, split, frag, &err);
		snprintf(nm, sizeof nm, "formatdb_%d", i);
		uint32_t t = wf_task(g, "formatdb", nm, 56);
		locus_graph_add_input(g, t, frag);
		db[i] = wf_file(g, "db_%d", i);
		locus_graph_add_output(g, t, db[i], &err);
	}
	for (int q = 0; q < m; q++)
		query[q] = wf_file(g, "query_%d", q);
	for (int q = 0; q < m; q++) {
		char nm[32];
		snprintf(nm, sizeof nm, "merge_%d", q);
		uint32_t merge = wf_task(g, "merge", nm, 2);
		for (int i = 0; i < n; i++) {
			snprintf(nm, sizeof nm, "blastp_%d_%d", q, i);
			uint32_t t = wf_task(g, "blastp", nm, 30);
			locus_graph_add_input(g, t, db[i]);
			locus_graph_add_input(g, t, query[q]);
			snprintf(nm, sizeof nm, "hits_%d_%%d", q);
			uint32_t h = wf_file(g, nm, i);
			locus_graph_add_output(g, t, h, &err);
			locus_graph_add_input(g, merge, h);
		}
		locus_graph_add_output(g, merge, wf_file(g, "result_%d", q), &err);
	}
	free(db);
	free(query);
	if (locus_graph_finish(g, &err)) {
		locus_graph_destroy(g);
		return NULL;
	}
	return g;
}

struct locus_graph *test_workflow_random(uint64_t seed)
{
	struct locus_rng rng;
	locus_rng_init(&rng, seed);
	struct locus_graph *g = NULL;
	struct locus_error err;
	if (locus_graph_create(&g, "random", &err))
		return NULL;
	/* Every file written so far (a reader picks among them). */
	size_t cap = 4096, n_made = 0;
	uint32_t *made = malloc(cap * sizeof *made);
	char nm[64], st[32];
	int n_files = 0;
#define FILE_OF(t)                                                                                 \
	do {                                                                                       \
		snprintf(nm, sizeof nm, "f%d", n_files++);                                         \
		uint32_t o = (uint32_t)locus_graph_add_object(                                     \
		    g, nm, 1024 + locus_rng_below(&rng, 8u << 20));                                \
		locus_graph_add_output(g, (t), o, &err);                                           \
		if (n_made < cap)                                                                  \
			made[n_made++] = o;                                                        \
	} while (0)
#define WORK() (0.1 + 19.9 * locus_rng_uniform(&rng))
	uint32_t n0 = 1 + (uint32_t)locus_rng_below(&rng, 24);
	uint32_t shared_in = (uint32_t)locus_graph_add_object(g, "in_common", 1u << 20);
	for (uint32_t i = 0; i < n0; i++) {
		snprintf(nm, sizeof nm, "first_%u", i);
		uint32_t t = wf_task(g, "first", nm, WORK());
		locus_graph_add_input(
		    g, t, locus_rng_below(&rng, 2) ? shared_in : wf_file(g, "in_%d", (int)i));
		for (uint64_t k = 1 + locus_rng_below(&rng, 3); k > 0; k--)
			FILE_OF(t);
	}
	int stages = 3 + (int)locus_rng_below(&rng, 4);
	for (int s = 1; s <= stages && made; s++) {
		int kind = (int)locus_rng_below(&rng, 4);
		snprintf(st, sizeof st, "stage%d", s);
		uint32_t n = 1 + (uint32_t)locus_rng_below(&rng, 40);
		uint32_t common = made[locus_rng_below(&rng, n_made)];
		uint32_t pieces_at = 0;
		if (kind == 3) {
			/* A splitter writes one piece per task of the stage. */
			snprintf(nm, sizeof nm, "split%d", s);
			char ss[32];
			snprintf(ss, sizeof ss, "split%d", s);
			uint32_t t = wf_task(g, ss, nm, WORK());
			locus_graph_add_input(g, t, common);
			n = 8 + (uint32_t)locus_rng_below(&rng, 24);
			pieces_at = (uint32_t)n_made;
			for (uint32_t i = 0; i < n; i++)
				FILE_OF(t);
		}
		if (kind == 1)
			n = 1 + (uint32_t)locus_rng_below(&rng, 3);
		size_t before = n_made;
		for (uint32_t i = 0; i < n; i++) {
			snprintf(nm, sizeof nm, "%s_%u", st, i);
			uint32_t t = wf_task(g, st, nm, WORK());
			if (kind == 0) {
				for (uint64_t k = 1 + locus_rng_below(&rng, 3); k > 0; k--)
					locus_graph_add_input(g, t,
							      made[locus_rng_below(&rng, before)]);
			} else if (kind == 1) {
				for (uint64_t k = 16 + locus_rng_below(&rng, 45); k > 0; k--)
					locus_graph_add_input(g, t,
							      made[locus_rng_below(&rng, before)]);
			} else if (kind == 2) {
				locus_graph_add_input(g, t, common);
				locus_graph_add_input(g, t, made[locus_rng_below(&rng, before)]);
			} else {
				locus_graph_add_input(g, t, made[pieces_at + i]);
			}
			for (uint64_t k = 1 + locus_rng_below(&rng, 2); k > 0; k--)
				FILE_OF(t);
		}
	}
#undef FILE_OF
#undef WORK
	free(made);
	if (locus_graph_finish(g, &err)) {
		locus_graph_destroy(g);
		return NULL;
	}
	return g;
}

struct locus_platform *test_flow_cluster(int n, int cores, int D)
{
	char *json = malloc(64 * (size_t)(n + D) + 512);
	if (!json)
		return NULL;
	int k = sprintf(json,
			"{\"format\": \"locus-platform\", \"version\": 1, \"network\": "
			"{\"latency\": 5e-5}, \"defaults\": {\"cores\": %d, \"disk_bw\": 1e9, "
			"\"net_bw\": 4.25e8}, \"nodes\": [",
			cores);
	for (int i = 0; i < n; i++)
		k += sprintf(json + k, "%s{\"name\": \"n%02d\"}", i ? ", " : "", i);
	for (int i = 0; i < D; i++)
		k += sprintf(json + k, ", {\"name\": \"d%d\", \"cores\": 0}", i);
	sprintf(json + k, "]}");
	struct locus_platform *p = NULL;
	struct locus_error err;
	locus_platform_parse(&p, json, strlen(json), "cluster", &err);
	free(json);
	return p;
}

struct locus_sim_config test_flow_config(const struct locus_workload *wl, const char *policy,
					 const char *opts, int D, uint64_t seed, int keep_xfers)
{
	struct locus_sim_config cfg;
	locus_sim_config_init(&cfg);
	cfg.wl = wl;
	cfg.policy = locus_policy_find(policy);
	cfg.policy_opts = opts;
	cfg.schedulers = D > 0 ? (size_t)(1 + 2 * D) : 0;
	cfg.seed = seed;
	cfg.cost_per_msg = 5e-6;
	cfg.cost_per_entry = 1e-7;
	cfg.shared_fs_bw = 1.25e9;
	cfg.fs_ops = 2000;
	cfg.no_transfer_results = !keep_xfers;
	return cfg;
}
