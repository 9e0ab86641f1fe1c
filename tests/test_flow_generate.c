/*
 * The generated workflows (src/flow/generate.c) against the AME/AMFS
 * paper's Table VI (Montage) and Table VIII (mtcBLAST): tasks, files and
 * bytes stage by stage, the graphs' shape, determinism, the runtimes'
 * means and spread, small cases by hand, and the errors.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locus.h"
#include "test.h"

#define MB 1048576.0

static long stage_id(const struct locus_graph *g, const char *name)
{
	for (size_t s = 0; s < g->n_stages; s++)
		if (strcmp(g->stage_names[s], name) == 0)
			return (long)s;
	return -1;
}

static int starts(const char *s, const char *prefix)
{
	return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

/* What a stage's tasks (or the one task named `only`) read and write. */
struct tally {
	size_t tasks;
	size_t in_refs, out_refs; /* inputs and outputs, counted per task */
	size_t in_images;	  /* inputs named `prefix`..., not an _area file, per task */
	size_t in_distinct;	  /* distinct input files */
	double in_mb, out_mb;	  /* their sizes, per task */
};

static struct tally tally(const struct locus_graph *g, const char *stage, const char *only,
			  const char *prefix)
{
	struct tally c = {0};
	long s = stage_id(g, stage);
	char *seen = calloc(g->n_objects ? g->n_objects : 1, 1);
	for (size_t t = 0; s >= 0 && seen && t < g->n_tasks; t++) {
		const struct locus_task *k = &g->tasks[t];
		if (g->task_stage[t] != (uint32_t)s || (only && strcmp(k->name, only) != 0))
			continue;
		c.tasks++;
		c.in_mb += (double)k->bytes / MB; /* the sum of its inputs' sizes */
		for (uint32_t i = 0; i < k->n_in; i++) {
			uint32_t o = g->inputs[k->in_at + i];
			const char *name = g->objects[o].name;
			c.in_refs++;
			if (starts(name, prefix) && !strstr(name, "_area"))
				c.in_images++;
			if (!seen[o])
				c.in_distinct++;
			seen[o] = 1;
		}
		for (uint32_t i = 0; i < k->n_out; i++) {
			c.out_refs++;
			c.out_mb += (double)g->objects[g->outputs[k->out_at + i]].bytes / MB;
		}
	}
	free(seen);
	return c;
}

static int within(double got, double want, double rel)
{
	return fabs(got - want) <= rel * want;
}

static struct locus_graph *montage(uint32_t images, uint32_t overlaps, uint32_t background,
				   double jitter, uint64_t seed)
{
	struct locus_montage_spec s = {.images = images,
				       .overlaps = overlaps,
				       .background = background,
				       .jitter = jitter,
				       .seed = seed};
	struct locus_graph *g = NULL;
	struct locus_error err;
	if (locus_flow_montage(&g, &s, &err))
		return NULL;
	return g;
}

static const char *input_name(const struct locus_graph *g, uint32_t t, uint32_t i)
{
	return g->objects[g->inputs[g->tasks[t].in_at + i]].name;
}

/* Whether task t reads the file named `name` (a task's inputs are kept in
 * the order of their ids). */
static int reads(const struct locus_graph *g, uint32_t t, const char *name)
{
	for (uint32_t i = 0; i < g->tasks[t].n_in; i++)
		if (strcmp(input_name(g, t, i), name) == 0)
			return 1;
	return 0;
}

/* Table VI, stage by stage, at the paper's 1319 images (3883 overlaps and
 * 1297 corrected images by default). "# In" counts what the table counts:
 * mProject's raw images (region.hdr left out), mImgtbl's projected images,
 * mDiffFit's two images a task (p_i, p_j: 7766 = 2 x 3883; their area
 * files and the tables left out), mConcatFit's fits, mBackground's image.
 * "In (MB)" sums every input of every task (task->bytes); "Out (MB)" every
 * output. */
TEST(montage_table_vi)
{
	struct locus_graph *g = montage(1319, 0, 0, 0, 1);
	CHECK(g != NULL);

	struct tally c = tally(g, "mProject", NULL, "raw_");
	CHECK_EQ_INT(c.tasks, 1319);
	CHECK_EQ_INT(c.in_images, 1319);
	CHECK_EQ_INT(c.out_refs, 2638);
	CHECK(within(c.in_mb, 2800, 0.03)); /* 1319 x (2800/1319 MB + 1 KB) */
	CHECK(within(c.out_mb, 5500, 0.03));

	c = tally(g, "mImgtbl", "mImgtbl", "p_");
	CHECK_EQ_INT(c.tasks, 1);
	CHECK_EQ_INT(c.in_images, 1319);
	CHECK_EQ_INT(c.out_refs, 1);
	CHECK(within(c.in_mb, 2800, 0.03)); /* 1319 x 5500/2638 MB = 2750 MB */
	CHECK(within(c.out_mb, 0.81, 0.03));

	c = tally(g, "mDiffFit", NULL, "p_");
	CHECK_EQ_INT(c.tasks, 3883);
	CHECK_EQ_INT(c.in_images, 7766);
	CHECK_EQ_INT(c.in_refs, 6 * 3883);
	CHECK_EQ_INT(c.out_refs, 3883);
	CHECK(within(c.out_mb, 3900, 0.03));
	/* Table VI is not consistent with itself here: its mProject row makes
	 * an image and its area 5500/1319 = 4.17 MB, its mDiffFit row 31000 /
	 * 3883 / 2 = 3.99 MB. Reading four such files, diffs.tbl and
	 * region.hdr, a task reads 8.44 MB: 32,775 MB in all, 5.7 % above the
	 * table (4.5 % for the images alone). */
	CHECK(within(c.in_mb, 31000, 0.06));
	CHECK_NEAR(c.in_mb, 3883 * (4 * 5500 / 2638.0 + 0.1 + 1 / 1024.0), 0.01);

	c = tally(g, "mConcatFit", NULL, "fit_");
	CHECK_EQ_INT(c.tasks, 1);
	CHECK_EQ_INT(c.in_images, 3883);
	CHECK_EQ_INT(c.out_refs, 1);
	CHECK(within(c.in_mb, 3900, 0.03));
	CHECK(within(c.out_mb, 0.32, 0.03));

	c = tally(g, "mBackground", NULL, "p_");
	CHECK_EQ_INT(c.tasks, 1297);
	CHECK_EQ_INT(c.in_images, 1297);
	CHECK_EQ_INT(c.out_refs, 1297);
	CHECK(within(c.out_mb, 3700, 0.03));
	/* The same: 5200 / 1297 = 4.01 MB an image and its area in the table,
	 * 4.17 MB from mProject's row; with corrections.tbl 5,473 MB, 5.3 %
	 * above (4.0 % for the images alone). */
	CHECK(within(c.in_mb, 5200, 0.06));

	/* The other stages: one task each but mImgtbl's second. */
	CHECK_EQ_INT(tally(g, "mImgtbl", NULL, "").tasks, 2);
	CHECK_EQ_INT(tally(g, "mImgtbl", "mImgtbl_corrected", "c_").in_images, 1297);
	CHECK_EQ_INT(tally(g, "mOverlaps", NULL, "").tasks, 1);
	CHECK_EQ_INT(tally(g, "mBgModel", NULL, "").tasks, 1);
	struct tally add = tally(g, "mAdd", NULL, "c_");
	CHECK_EQ_INT(add.tasks, 1);
	CHECK_EQ_INT(add.in_images, 1297);
	CHECK_EQ_INT(add.in_refs, 2 * 1297 + 2);
	CHECK_NEAR(add.out_mb, 7400, 0.01);
	CHECK_EQ_INT(g->n_tasks, 1319 + 1 + 1 + 3883 + 1 + 1 + 1297 + 1 + 1);
	locus_graph_destroy(g);
}

TEST(montage_shape)
{
	struct locus_graph *g = montage(1319, 0, 0, 0, 1);
	CHECK(g != NULL);
	static const char *const names[] = {"mProject",	  "mImgtbl",  "mOverlaps",   "mDiffFit",
					    "mConcatFit", "mBgModel", "mBackground", "mAdd"};
	CHECK_EQ_INT(g->n_stages, 8);
	for (size_t s = 0; s < 8; s++)
		CHECK_EQ_STR(g->stage_names[s], names[s]);
	CHECK(g->task_stage != NULL && g->commands != NULL);
	for (size_t t = 0; t < g->n_tasks; t++) {
		CHECK(g->task_stage[t] != LOCUS_NONE);
		CHECK(g->tasks[t].name != NULL);
		CHECK(g->commands[t].argc >= 3 && g->commands[t].argv);
		/* The command is the stage's program. */
		CHECK_EQ_STR(g->commands[t].argv[0], g->stage_names[g->task_stage[t]]);
	}
	for (size_t o = 0; o < g->n_objects; o++)
		CHECK(g->objects[o].name != NULL && g->objects[o].name[0]);
	/* mProject, mImgtbl, mOverlaps, mDiffFit, mConcatFit, mBgModel,
	 * mBackground, mImgtbl, mAdd: nine levels. */
	CHECK_EQ_INT(g->n_levels, 9);
	long t = locus_graph_find_task(g, "mAdd");
	CHECK(t >= 0);
	CHECK_EQ_INT(g->level[t], 8);
	/* The stored inputs: the raw images and region.hdr. */
	size_t stored = 0;
	for (size_t o = 0; o < g->n_objects; o++)
		if (g->objects[o].producer == LOCUS_NONE) {
			stored++;
			CHECK(starts(g->objects[o].name, "raw_") ||
			      strcmp(g->objects[o].name, "region.hdr") == 0);
		}
	CHECK_EQ_INT(stored, 1320);
	long raw = locus_graph_find_object(g, "raw_0001.fits");
	CHECK(raw >= 0);
	CHECK_EQ_INT(g->objects[raw].bytes, (uint64_t)llround(2800 * MB / 1319));
	/* mProject's command, word by word. */
	t = locus_graph_find_task(g, "mProject_0001");
	CHECK(t >= 0);
	const struct locus_command *c = &g->commands[t];
	CHECK_EQ_INT(c->argc, 4);
	CHECK_EQ_STR(c->argv[1], "raw_0001.fits");
	CHECK_EQ_STR(c->argv[2], "p_0001.fits");
	CHECK_EQ_STR(c->argv[3], "region.hdr");
	CHECK_EQ_INT(g->tasks[t].n_out, 2);
	CHECK(locus_graph_find_object(g, "p_0001_area.fits") >= 0);
	locus_graph_destroy(g);
}

static int same_graph(const struct locus_graph *a, const struct locus_graph *b)
{
	if (a->n_tasks != b->n_tasks || a->n_objects != b->n_objects)
		return 0;
	for (size_t t = 0; t < a->n_tasks; t++) {
		const struct locus_task *x = &a->tasks[t], *y = &b->tasks[t];
		if (strcmp(x->name, y->name) || x->work != y->work || x->n_in != y->n_in ||
		    x->n_out != y->n_out || x->bytes != y->bytes)
			return 0;
		for (uint32_t i = 0; i < x->n_in; i++)
			if (a->inputs[x->in_at + i] != b->inputs[y->in_at + i])
				return 0;
		for (uint32_t i = 0; i < x->n_out; i++)
			if (a->outputs[x->out_at + i] != b->outputs[y->out_at + i])
				return 0;
	}
	for (size_t o = 0; o < a->n_objects; o++)
		if (strcmp(a->objects[o].name, b->objects[o].name) ||
		    a->objects[o].bytes != b->objects[o].bytes)
			return 0;
	return 1;
}

TEST(montage_determinism)
{
	struct locus_graph *a = montage(1319, 0, 0, 0.3, 7), *b = montage(1319, 0, 0, 0.3, 7);
	struct locus_graph *c = montage(1319, 0, 0, 0.3, 8), *d = montage(1319, 0, 0, 0, 7);
	CHECK(a && b && c && d);
	CHECK(same_graph(a, b));
	CHECK(!same_graph(a, c));
	/* Another seed: other pairs (the mDiffFit tasks read other images). */
	int differ = 0;
	long s = stage_id(a, "mDiffFit");
	for (size_t t = 0; t < a->n_tasks; t++)
		if (a->task_stage[t] == (uint32_t)s)
			for (uint32_t i = 0; i < 4; i++)
				differ |= strcmp(input_name(a, (uint32_t)t, i),
						 input_name(c, (uint32_t)t, i)) != 0;
	CHECK(differ);
	/* The jitter changes the runtimes, never the pairs. */
	for (size_t t = 0; t < a->n_tasks; t++)
		for (uint32_t i = 0; i < a->tasks[t].n_in; i++)
			CHECK_EQ_INT(a->inputs[a->tasks[t].in_at + i],
				     d->inputs[d->tasks[t].in_at + i]);
	locus_graph_destroy(a);
	locus_graph_destroy(b);
	locus_graph_destroy(c);
	locus_graph_destroy(d);
}

TEST(montage_runtimes)
{
	struct locus_graph *g = montage(1319, 0, 0, 0, 1);
	CHECK(g != NULL);
	static const struct {
		const char *stage;
		double mean;
	} want[] = {{"mProject", 12.0},	   {"mOverlaps", 1.0}, {"mDiffFit", 1.2},
		    {"mConcatFit", 28.49}, {"mBgModel", 10.0}, {"mBackground", 6.9},
		    {"mAdd", 60.0},	   {"mImgtbl", 0.43}};
	for (size_t t = 0; t < g->n_tasks; t++) {
		const char *stage = g->stage_names[g->task_stage[t]];
		for (size_t w = 0; w < sizeof want / sizeof want[0]; w++)
			if (strcmp(stage, want[w].stage) == 0)
				CHECK(g->tasks[t].work == want[w].mean);
	}
	locus_graph_destroy(g);

	/* Jitter 0.3: over mDiffFit's 3883 tasks, the mean within 2 % and
	 * the coefficient of variation within 10 %. */
	g = montage(1319, 0, 0, 0.3, 11);
	CHECK(g != NULL);
	long s = stage_id(g, "mDiffFit");
	double sum = 0, sum2 = 0;
	size_t n = 0;
	for (size_t t = 0; t < g->n_tasks; t++)
		if (g->task_stage[t] == (uint32_t)s) {
			double w = g->tasks[t].work;
			CHECK(w > 0);
			sum += w;
			sum2 += w * w;
			n++;
		}
	CHECK_EQ_INT(n, 3883);
	double mean = sum / (double)n;
	double sd = sqrt((sum2 - (double)n * mean * mean) / ((double)n - 1));
	CHECK(within(mean, 1.2, 0.02));
	CHECK(within(sd / mean, 0.3, 0.10));
	locus_graph_destroy(g);

	/* runtime_scale multiplies. */
	struct locus_montage_spec spec = {.images = 16, .runtime_scale = 2.5};
	struct locus_error err;
	CHECK_EQ_INT(locus_flow_montage(&g, &spec, &err), 0);
	CHECK(g->tasks[0].work == 30.0);
	locus_graph_destroy(g);
}

/* The (row, column) of p_NNNN.fits on a grid 4 wide. */
static int image_index(const char *name)
{
	return starts(name, "p_") ? atoi(name + 2) - 1 : -1;
}

/* 16 images on a 4 x 4 grid, 20 pairs, 10 corrected: by hand. */
TEST(montage_small)
{
	struct locus_graph *g = montage(16, 20, 10, 0, 3);
	CHECK(g != NULL);
	/* 16 mProject, mImgtbl, mOverlaps, 20 mDiffFit, mConcatFit, mBgModel,
	 * 10 mBackground, mImgtbl_corrected, mAdd. */
	CHECK_EQ_INT(g->n_tasks, 16 + 1 + 1 + 20 + 1 + 1 + 10 + 1 + 1);
	/* region.hdr, 16 raw, 16 p, 16 areas, images.tbl, diffs.tbl, 20 fits,
	 * fits.tbl, corrections.tbl, 10 c, cimages.tbl, the mosaic's two. */
	CHECK_EQ_INT(g->n_objects, 1 + 16 * 3 + 2 + 20 + 2 + 10 + 1 + 2);
	CHECK_EQ_INT(tally(g, "mDiffFit", NULL, "").tasks, 20);
	CHECK_EQ_INT(tally(g, "mBackground", NULL, "").tasks, 10);

	/* Every p_i read by mImgtbl. */
	long t = locus_graph_find_task(g, "mImgtbl");
	CHECK(t >= 0);
	CHECK_EQ_INT(g->tasks[t].n_in, 16);
	int read[16] = {0};
	for (uint32_t i = 0; i < 16; i++) {
		int k = image_index(input_name(g, (uint32_t)t, i));
		CHECK(k >= 0 && k < 16);
		read[k]++;
	}
	for (int k = 0; k < 16; k++)
		CHECK_EQ_INT(read[k], 1);

	/* Every pair two grid neighbours, no pair twice, fit_k in grid order. */
	int seen[16][16] = {{0}}, last = -1;
	long s = stage_id(g, "mDiffFit");
	for (size_t u = 0; u < g->n_tasks; u++) {
		if (g->task_stage[u] != (uint32_t)s)
			continue;
		CHECK_EQ_INT(g->tasks[u].n_in, 6);
		/* Its two images, in id order: i before j. */
		int i = -1, j = -1;
		for (uint32_t k = 0; k < 6; k++) {
			const char *name = input_name(g, (uint32_t)u, k);
			if (image_index(name) >= 0 && !strstr(name, "_area")) {
				CHECK(j < 0);
				if (i < 0)
					i = image_index(name);
				else
					j = image_index(name);
			}
		}
		CHECK(i >= 0 && j > i && j < 16);
		char area[32];
		snprintf(area, sizeof area, "p_%04d_area.fits", i + 1);
		CHECK(reads(g, (uint32_t)u, area));
		snprintf(area, sizeof area, "p_%04d_area.fits", j + 1);
		CHECK(reads(g, (uint32_t)u, area));
		CHECK(abs(i / 4 - j / 4) <= 1 && abs(i % 4 - j % 4) <= 1);
		CHECK(!seen[i][j]);
		seen[i][j] = 1;
		CHECK(i * 16 + j > last);
		last = i * 16 + j;
		CHECK(reads(g, (uint32_t)u, "diffs.tbl") && reads(g, (uint32_t)u, "region.hdr"));
		const struct locus_command *c = &g->commands[u];
		CHECK_EQ_INT(c->argc, 7);
		CHECK_EQ_INT(image_index(c->argv[3]), i);
		CHECK_EQ_INT(image_index(c->argv[4]), j);
	}
	/* mBackground corrects the first ten; mAdd reads them and their areas. */
	t = locus_graph_find_task(g, "mBackground_0010");
	CHECK(t >= 0);
	CHECK(reads(g, (uint32_t)t, "p_0010.fits") && reads(g, (uint32_t)t, "p_0010_area.fits"));
	CHECK(locus_graph_find_task(g, "mBackground_0011") < 0);
	t = locus_graph_find_task(g, "mAdd");
	CHECK_EQ_INT(g->tasks[t].n_in, 1 + 2 * 10 + 1);
	CHECK_EQ_INT(g->n_levels, 9);
	locus_graph_destroy(g);

	/* The default: 3883 / 1319 pairs an image is more than a 4 x 4 grid
	 * has (42), so every pair; 1297 * 16 / 1319 = 15 corrected. */
	g = montage(16, 0, 0, 0, 3);
	CHECK(g != NULL);
	CHECK_EQ_INT(tally(g, "mDiffFit", NULL, "").tasks, 42);
	CHECK_EQ_INT(tally(g, "mBackground", NULL, "").tasks, 15);
	locus_graph_destroy(g);
	/* One image: no pair, nothing to correct, still a graph. */
	g = montage(1, 0, 0, 0, 3);
	CHECK(g != NULL);
	CHECK_EQ_INT(g->n_tasks, 7);
	locus_graph_destroy(g);
}

/* The paper's largest scale: 32,768 cores, 64 times the 6x6 mosaic. */
TEST(montage_large)
{
	struct locus_graph *g = montage(1319 * 64, 0, 0, 0.3, 5);
	CHECK(g != NULL);
	CHECK_EQ_INT(g->n_tasks, 84416 + 248512 + 83008 + 6);
	CHECK_EQ_INT(g->n_levels, 9);
	long t = locus_graph_find_task(g, "mConcatFit");
	CHECK(t >= 0);
	CHECK_EQ_INT(g->tasks[t].n_in, 248512);
	locus_graph_destroy(g);
}

static struct locus_graph *blast(uint32_t n, uint32_t m, double jitter, uint64_t seed)
{
	struct locus_blast_spec s = {.fragments = n, .queries = m, .jitter = jitter, .seed = seed};
	struct locus_graph *g = NULL;
	struct locus_error err;
	if (locus_flow_blast(&g, &s, &err))
		return NULL;
	return g;
}

/* Distinct inputs as Table VIII counts them: a formatted slice (its .phr,
 * .pin and .psq) is one database, so the name up to its last '.'. */
static size_t distinct_stems(const struct locus_graph *g, const char *stage)
{
	long s = stage_id(g, stage);
	size_t n = 0, cap = 0;
	char **stems = NULL;
	for (size_t t = 0; t < g->n_tasks; t++) {
		if (g->task_stage[t] != (uint32_t)s)
			continue;
		for (uint32_t i = 0; i < g->tasks[t].n_in; i++) {
			const char *name = input_name(g, (uint32_t)t, i);
			size_t len = (size_t)(strrchr(name, '.') - name);
			size_t k = 0;
			while (k < n && !(strlen(stems[k]) == len && !strncmp(stems[k], name, len)))
				k++;
			if (k < n)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				stems = realloc(stems, cap * sizeof *stems);
			}
			stems[n] = calloc(len + 1, 1);
			memcpy(stems[n++], name, len);
		}
	}
	for (size_t k = 0; k < n; k++)
		free(stems[k]);
	free(stems);
	return n;
}

static int check_blast(uint32_t N, uint32_t M)
{
	struct locus_graph *g = blast(N, M, 0, 1);
	if (!g)
		return 0;
	int ok = 1;
	double n = N, m = M;
	struct tally c = tally(g, "fastasplitn", NULL, "");
	ok &= c.tasks == 1 && c.in_distinct == 1 && c.out_refs == N;
	ok &= c.in_mb == 4039 && fabs(c.out_mb - 4039) < 1e-9;
	c = tally(g, "formatdb", NULL, "");
	ok &= c.tasks == N && c.in_distinct == N && c.out_refs == 3 * N;
	ok &= fabs(c.in_mb - 4039) < 1e-9 && fabs(c.out_mb - 4400) < 1e-9;
	c = tally(g, "blastp", NULL, "");
	ok &= c.tasks == (size_t)N * M && c.out_refs == (size_t)N * M;
	ok &= c.in_distinct == 3 * (size_t)N + M && distinct_stems(g, "blastp") == N + M;
	/* Each blastp reads one slice's 4400/N MB and a 16 KB query file:
	 * 4400 M + 16 N M / 1024 MB in all. Table VIII says 73 N M: with N =
	 * 63 a slice is 69.8 MB, 4.3 % less than the table. */
	ok &= fabs(c.in_mb - (4400 * m + n * m * 16 / 1024)) < 1e-6;
	ok &= fabs(c.out_mb - 2.4 * n * m) < n * m / MB;
	c = tally(g, "merge", NULL, "hits_");
	ok &= c.tasks == M && c.in_distinct == (size_t)N * M && c.in_images == (size_t)N * M;
	ok &= c.out_refs == M;
	ok &= fabs(c.in_mb - 2.4 * n * m) < n * m / MB && fabs(c.out_mb - 4.8 * m) < m / MB;
	ok &= g->n_tasks == 1 + N + (size_t)N * M + M && g->n_levels == 4;
	/* Each merge reads exactly its query's N hits. */
	char want[64];
	for (uint32_t q = 0; q < M && ok; q++) {
		snprintf(want, sizeof want, "merge_%u", q);
		long t = locus_graph_find_task(g, want);
		ok &= t >= 0 && g->tasks[t].n_in == N;
		for (uint32_t i = 0; ok && i < N; i++) {
			snprintf(want, sizeof want, "hits_%u_%u", q, i);
			ok &= reads(g, (uint32_t)t, want);
		}
	}
	locus_graph_destroy(g);
	return ok;
}

/* Table VIII at 256 cores (N = 63, M = 256 / 16). */
TEST(blast_table_viii)
{
	CHECK(check_blast(63, 16));
	CHECK(check_blast(4, 3));
	struct locus_graph *g = blast(63, 16, 0, 1);
	CHECK(g != NULL);
	static const char *const names[] = {"fastasplitn", "formatdb", "blastp", "merge"};
	CHECK_EQ_INT(g->n_stages, 4);
	for (size_t s = 0; s < 4; s++)
		CHECK_EQ_STR(g->stage_names[s], names[s]);
	for (size_t o = 0; o < g->n_objects; o++)
		CHECK(g->objects[o].name != NULL);
	for (size_t t = 0; t < g->n_tasks; t++) {
		CHECK(g->task_stage[t] != LOCUS_NONE);
		CHECK(g->commands[t].argc >= 3);
	}
	/* blastp: lognormal around 30 s, coefficient of variation 0.5. */
	long s = stage_id(g, "blastp");
	double sum = 0, sum2 = 0;
	size_t n = 0;
	for (size_t t = 0; t < g->n_tasks; t++)
		if (g->task_stage[t] == (uint32_t)s) {
			sum += g->tasks[t].work;
			sum2 += g->tasks[t].work * g->tasks[t].work;
			n++;
		}
	double mean = sum / (double)n;
	double sd = sqrt((sum2 - (double)n * mean * mean) / ((double)n - 1));
	CHECK(within(mean, 30, 0.06));
	CHECK(within(sd / mean, 0.5, 0.15));
	CHECK(g->tasks[locus_graph_find_task(g, "formatdb_0")].work == 56.0);
	CHECK(g->tasks[locus_graph_find_task(g, "merge_0")].work == 2.0);
	locus_graph_destroy(g);
}

/* N = 4, M = 3 by hand. */
TEST(blast_small)
{
	struct locus_graph *g = blast(4, 3, 0, 9);
	CHECK(g != NULL);
	CHECK_EQ_INT(g->n_tasks, 1 + 4 + 12 + 3);
	/* nr, 3 queries, 4 slices, 12 formatted files, 12 hits, 3 results. */
	CHECK_EQ_INT(g->n_objects, 1 + 3 + 4 + 12 + 12 + 3);
	long o = locus_graph_find_object(g, "frag_2.fasta");
	CHECK(o >= 0);
	CHECK_EQ_INT(g->objects[o].bytes, 4039ull * 1048576 / 4);
	CHECK_EQ_INT(g->objects[locus_graph_find_object(g, "frag_2.phr")].bytes,
		     4400ull * 1048576 / 4 * 3 / 10);
	CHECK_EQ_INT(g->objects[locus_graph_find_object(g, "frag_2.pin")].bytes,
		     4400ull * 1048576 / 4 / 10);
	CHECK_EQ_INT(g->objects[locus_graph_find_object(g, "frag_2.psq")].bytes,
		     4400ull * 1048576 / 4 * 6 / 10);
	CHECK_EQ_INT(g->objects[locus_graph_find_object(g, "query_1.fasta")].bytes, 16384);

	long t = locus_graph_find_task(g, "blastp_1_2");
	CHECK(t >= 0);
	static const char *const ins[] = {"frag_2.phr", "frag_2.pin", "frag_2.psq",
					  "query_1.fasta"};
	CHECK_EQ_INT(g->tasks[t].n_in, 4);
	for (uint32_t i = 0; i < 4; i++)
		CHECK(reads(g, (uint32_t)t, ins[i]));
	CHECK_EQ_STR(g->objects[g->outputs[g->tasks[t].out_at]].name, "hits_1_2");
	static const char *const argv[] = {"blastp", "-query", "query_1.fasta", "-db",
					   "frag_2", "-out",   "hits_1_2"};
	CHECK_EQ_INT(g->commands[t].argc, 7);
	for (uint32_t i = 0; i < 7; i++)
		CHECK_EQ_STR(g->commands[t].argv[i], argv[i]);

	/* Runtimes: a slice 63/4 times the paper's. */
	CHECK(g->tasks[locus_graph_find_task(g, "fastasplitn")].work == 60.0);
	CHECK(g->tasks[locus_graph_find_task(g, "formatdb_3")].work == 56.0 * 63 / 4);
	CHECK(g->tasks[locus_graph_find_task(g, "merge_2")].work == 2.0);
	t = locus_graph_find_task(g, "formatdb_1");
	CHECK_EQ_INT(g->commands[t].argc, 7);
	CHECK_EQ_STR(g->commands[t].argv[2], "frag_1.fasta");
	CHECK_EQ_STR(g->commands[t].argv[6], "frag_1");
	t = locus_graph_find_task(g, "merge_0");
	CHECK_EQ_INT(g->commands[t].argc, 6);
	CHECK_EQ_STR(g->commands[t].argv[1], "result_0");
	CHECK_EQ_STR(g->commands[t].argv[5], "hits_0_3");

	/* Same seed, same graph; a given jitter applies to every stage. */
	struct locus_graph *h = blast(4, 3, 0, 9), *j = blast(4, 3, 0.2, 9);
	CHECK(h && j);
	CHECK(same_graph(g, h));
	CHECK(j->tasks[locus_graph_find_task(j, "merge_2")].work != 2.0);
	locus_graph_destroy(g);
	locus_graph_destroy(h);
	locus_graph_destroy(j);
}

static int fails_with(int rc, const struct locus_error *err, const char *words)
{
	if (rc != LOCUS_EINVAL || !strstr(err->message, words)) {
		fprintf(stderr, "rc %d, message \"%s\", wanted \"%s\"\n", rc, err->message, words);
		return 0;
	}
	return 1;
}

TEST(errors)
{
	struct locus_graph *g = (struct locus_graph *)&g;
	struct locus_error err;
	struct locus_montage_spec m = {.images = 16};
	CHECK(fails_with(locus_flow_montage(&g, NULL, &err), &err, "spec"));
	CHECK(g == NULL);
	m.images = 0;
	CHECK(fails_with(locus_flow_montage(&g, &m, &err), &err, "expected 1 image or more"));
	m = (struct locus_montage_spec){.images = 16, .overlaps = 43};
	CHECK(fails_with(locus_flow_montage(&g, &m, &err), &err,
			 "expected at most 42 overlapping pairs"));
	m = (struct locus_montage_spec){.images = 16, .background = 17};
	CHECK(fails_with(locus_flow_montage(&g, &m, &err), &err,
			 "expected at most 16 background-corrected"));
	m = (struct locus_montage_spec){.images = 16, .runtime_scale = -1};
	CHECK(fails_with(locus_flow_montage(&g, &m, &err), &err, "runtime_scale >= 0"));
	m.runtime_scale = NAN;
	CHECK(fails_with(locus_flow_montage(&g, &m, &err), &err, "runtime_scale >= 0"));
	m.runtime_scale = INFINITY;
	CHECK(fails_with(locus_flow_montage(&g, &m, &err), &err, "runtime_scale >= 0"));
	m = (struct locus_montage_spec){.images = 16, .jitter = -0.1};
	CHECK(fails_with(locus_flow_montage(&g, &m, &err), &err, "jitter"));
	m.jitter = NAN;
	CHECK(fails_with(locus_flow_montage(&g, &m, &err), &err, "jitter"));
	m = (struct locus_montage_spec){.images = 16, .runtime_scale = 1e308};
	CHECK(fails_with(locus_flow_montage(&g, &m, &err), &err, "finite runtimes"));
	m = (struct locus_montage_spec){.images = UINT32_MAX};
	CHECK(fails_with(locus_flow_montage(&g, &m, &err), &err, "fewer than 2^32"));
	CHECK(g == NULL);

	struct locus_blast_spec b = {.fragments = 0, .queries = 3};
	CHECK(fails_with(locus_flow_blast(&g, &b, &err), &err, "expected 1 database fragment"));
	b = (struct locus_blast_spec){.fragments = 3, .queries = 0};
	CHECK(fails_with(locus_flow_blast(&g, &b, &err), &err, "expected 1 query file"));
	b = (struct locus_blast_spec){.fragments = 3, .queries = 3, .jitter = -1};
	CHECK(fails_with(locus_flow_blast(&g, &b, &err), &err, "jitter"));
	b = (struct locus_blast_spec){.fragments = 3, .queries = 3, .runtime_scale = NAN};
	CHECK(fails_with(locus_flow_blast(&g, &b, &err), &err, "runtime_scale"));
	b = (struct locus_blast_spec){.fragments = 70000, .queries = 70000};
	CHECK(fails_with(locus_flow_blast(&g, &b, &err), &err, "fewer than 2^32"));
	CHECK(fails_with(locus_flow_blast(&g, NULL, &err), &err, "spec"));
	CHECK(g == NULL);
	CHECK_EQ_INT(locus_flow_blast(NULL, &b, &err), LOCUS_EINVAL);
}

TEST_MAIN(TEST_ENTRY(montage_table_vi), TEST_ENTRY(montage_shape), TEST_ENTRY(montage_determinism),
	  TEST_ENTRY(montage_runtimes), TEST_ENTRY(montage_small), TEST_ENTRY(montage_large),
	  TEST_ENTRY(blast_table_viii), TEST_ENTRY(blast_small), TEST_ENTRY(errors))
