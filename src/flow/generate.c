/*
 * The AME/AMFS paper's two applications as workflows (Zhang et al.,
 * ../shared/papers/ame-amfs.txt, sections III and VI-B): Montage's 6x6
 * degree 2MASS mosaic of Table VI and mtcBLAST of Table VIII, with the
 * counts, file sizes and runtimes the paper gives, and the rest chosen
 * and said so below and in docs/flow.md. Sizes are in MB of 2^20 bytes,
 * as Locus's size suffixes; each file's size is the table's MB over the
 * table's file count, rounded to a byte.
 *
 * Montage at Table VI's size (1319 images, 3883 overlaps, 1297 corrected;
 * a task's files, sizes in MB, runtime in seconds):
 *
 *   stage        tasks       reads                           writes                        s
 *   mProject     images      raw_i 2.123, region.hdr (1 KB)  p_i, a_i 2.085 each        12.0
 *   mImgtbl      1           every p_i                       images.tbl 0.81            0.43
 *   mOverlaps    1           images.tbl                      diffs.tbl 0.1               1.0
 *   mDiffFit     overlaps    p_i, a_i, p_j, a_j, diffs.tbl,  fit_k 1.004                 1.2
 *                            region.hdr
 *   mConcatFit   1           every fit_k                     fits.tbl 0.32             28.49
 *   mBgModel     1           images.tbl, fits.tbl            corrections.tbl 0.05       10.0
 *   mBackground  background  p_i, a_i, corrections.tbl       c_i 2.853                   6.9
 *   mImgtbl      1           every c_i                       cimages.tbl 0.81           0.43
 *   mAdd         1           cimages.tbl, every c_i and its  mosaic.fits and            60.0
 *                            a_i, region.hdr                 mosaic_area.fits 3700 each
 *
 * Sizes: Table VI's MB over its file counts: raw 2800/1319, projected
 * 5500/2638 (an image and its area alike), fits 3900/3883, corrected
 * 3700/1297; images.tbl's 0.81 and fits.tbl's 0.32 MB are Table VI's
 * outputs of mImgtbl and mConcatFit, cimages.tbl is as large as
 * images.tbl, and diffs.tbl's 0.1 and corrections.tbl's 0.05 MB are
 * ours. Table VI is not
 * consistent with itself: its mDiffFit and mBackground rows read 31000
 * and 5200 MB, 3.99 and 4.01 MB for an image and its area, where its
 * mProject row writes 4.17 MB; we keep mProject's, so these two stages
 * read 5.7 % and 5.3 % more than the table says (the others are within
 * 2 %).
 *
 * Runtimes: mImgtbl 0.43 s and mConcatFit 28.49 s are Table VII's
 * execute times (GPFS); mDiffFit 1.2 s and mBackground 6.9 s are VI-B1b's
 * averages once the input is in memory; the paper gives none for
 * mProject: WfCommons' 2MASS Montage instance on Chameleon
 * (../shared/data/wfcommons) has mProject around 17 s, and we take 12 s
 * for the BG/P; mOverlaps 1 s, mBgModel 10 s and mAdd 60 s are our
 * guesses (the paper times none of them). The serial stages' tables, the
 * mosaic and their runtimes grow with the rows they handle (images,
 * pairs or corrected images over Table VI's), so Table VI's size gives
 * exactly the numbers above and a mosaic 64 times larger has tables and
 * an mAdd 64 times larger. The mosaic's two files are Table VI's 3700 MB
 * out of mBackground (the paper gives no mAdd row).
 *
 * The pairs: image i sits at row i / C, column i % C of a grid C =
 * ceil(sqrt(images)) wide; its neighbours right, down, down-right and
 * down-left that exist (the last row may be short) make the candidate
 * pairs, in image order. A generator seeded with spec->seed shuffles them
 * and the first `overlaps` are taken, then sorted by image, so fit_k
 * numbers them in grid order. The 1319 images lie in 36 rows of 37 (the
 * last of 24), with 5,060 neighbour pairs, enough for Table VI's 3883;
 * when the default 3883 / 1319 pairs an image is more than a small grid
 * has, the default is every pair.
 *
 * mtcBLAST, N slices and M query files (Table VIII; the paper: N = 63;
 * sizes in MB, runtimes in seconds):
 *
 *   stage        tasks  reads                          writes                         s
 *   fastasplitn  1      nr.fasta 4039                  frag_i.fasta 4039/N each      60
 *   formatdb     N      frag_i.fasta                   frag_i.phr, .pin, .psq:        56 x 63/N
 *                                                      4400/N in all
 *   blastp       N M    frag_i.phr, .pin, .psq,        hits_q_i 2.4                   30 x 63/N,
 *                       query_q.fasta (16 KB)                                         cv 0.5
 *   merge        M      hits_q_i for every i           result_q 4.8                    2
 *
 * formatdb's 56 s is VI-B2's (63 slices on 63 nodes in 56 s). blastp's
 * 30 s: the paper takes 143.3 s for blastp and merge together, and at
 * every scale runs about four blastp tasks per worker core (n cores, n/16
 * query files, 63 slices: 63 n / 16 tasks on the 63 n / 64 worker cores),
 * so a task takes about 30 s; its runtimes are lognormal with a
 * coefficient of variation of 0.5 unless the spec gives another, since
 * "BLAST task lengths are not related to the query sequence length" and
 * starved workers on 256 cores. formatdb and blastp work on one slice, so
 * their runtimes are the paper's at N = 63 and grow as a slice does
 * (63/N). fastasplitn's 60 s and merge's 2 s are our guesses. The slices
 * split 4039 MB exactly (sizes differ by a byte at most), and each
 * slice's formatted files 4400/N MB: 30 % headers (.phr), 10 % index
 * (.pin), 60 % sequences (.psq), our split. Table VIII's blastp reads 73
 * MB a task; 4400/63 MB of database and a query file is 69.9 MB.
 *
 * The commands are the programs' usual arguments, for reading, not run:
 * mProject in out template (it writes out_area.fits beside out, hence
 * the area files' names), mImgtbl dir table (it reads the FITS headers in
 * dir, where the task's inputs are), mOverlaps, mDiffFit -s status in1
 * in2 diff template (the difference image is scratch, not modelled),
 * mConcatFit statfiles fits dir, mBgModel, mBackground -t in out images
 * corrections, mAdd -e table template out; formatdb -i -p T -n (NCBI's
 * legacy formatter), blastp -query -db -out (BLAST+, which reads
 * formatdb's databases). Two tables that a program reads besides the
 * files above, mConcatFit's list of status files and mBackground's
 * images.tbl, are named in the command but are not the task's inputs,
 * so that each stage's files and bytes are Table VI's. The paper names
 * fastasplitn and merge without their usage: ours take the file and the
 * slice count, and the output and then the inputs.
 *
 * Runtimes: a task's is its stage's mean times runtime_scale times, when
 * its coefficient of variation cv > 0, a lognormal factor of mean 1 and
 * that cv (exp(N(-s^2/2, s^2)), s^2 = ln(1 + cv^2)), drawn in task order
 * from a second generator seeded from the first: the runtimes do not
 * change the pairs.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/flow.h"
#include "locus/rng.h"

#define MB 1048576.0

/* Table VI's 6x6 degree mosaic. */
#define M_IMAGES     1319.0
#define M_OVERLAPS   3883.0
#define M_BACKGROUND 1297.0

/* The graph's ids and input/output arrays are 32-bit. */
#define GEN_MAX_IDS ((uint64_t)UINT32_MAX - 1)

/* A graph being built: the first error sticks, so the steps read as a list. */
struct build {
	struct locus_graph *g;
	struct locus_rng times; /* runtimes' factors */
	double scale;
	int rc;
	struct locus_error *err;
};

static double lognormal_factor(struct build *b, double cv)
{
	if (!(cv > 0))
		return 1;
	double s2 = log1p(cv * cv);
	return exp(-s2 / 2 + sqrt(s2) * locus_rng_normal(&b->times));
}

/* A task of stage `stage` running argv; its id, or LOCUS_NONE after an error. */
static uint32_t add_task(struct build *b, const char *name, uint32_t stage, double mean, double cv,
			 const char *const *argv, uint32_t argc)
{
	if (b->rc)
		return LOCUS_NONE;
	double work = mean * b->scale * lognormal_factor(b, cv);
	if (!isfinite(work)) {
		b->rc = locus__err(b->err, LOCUS_EINVAL, NULL, 0, 0,
				   "expected finite runtimes: %s takes %g s at runtime_scale %g",
				   name, work, b->scale);
		return LOCUS_NONE;
	}
	long t = locus_graph_add_task(b->g, name, work);
	if (t < 0) {
		b->rc = (int)t;
		return LOCUS_NONE;
	}
	struct locus_command c = {.argv = argv, .argc = argc};
	int rc = locus_graph_set_stage(b->g, (uint32_t)t, stage);
	if (!rc)
		rc = locus_graph_set_command(b->g, (uint32_t)t, &c);
	if (rc) {
		b->rc = rc;
		return LOCUS_NONE;
	}
	return (uint32_t)t;
}

/* x MB in bytes. */
static uint64_t mb(double x)
{
	return (uint64_t)llround(x * MB);
}

static uint32_t add_file(struct build *b, const char *name, uint64_t bytes)
{
	if (b->rc)
		return LOCUS_NONE;
	long o = locus_graph_add_object(b->g, name, bytes);
	if (o < 0) {
		b->rc = (int)o;
		return LOCUS_NONE;
	}
	return (uint32_t)o;
}

/* A file that task t writes. */
static uint32_t add_output(struct build *b, uint32_t t, const char *name, uint64_t bytes)
{
	uint32_t o = add_file(b, name, bytes);
	if (!b->rc)
		b->rc = locus_graph_add_output(b->g, t, o, b->err);
	return o;
}

static void add_input(struct build *b, uint32_t t, uint32_t o)
{
	if (!b->rc)
		b->rc = locus_graph_add_input(b->g, t, o);
}

static uint32_t add_stage(struct build *b, const char *name)
{
	if (b->rc)
		return LOCUS_NONE;
	long s = locus_graph_stage(b->g, name);
	if (s < 0) {
		b->rc = (int)s;
		return LOCUS_NONE;
	}
	return (uint32_t)s;
}

/* Finishes or frees the graph; the code to return. */
static int build_end(struct build *b, struct locus_graph **out)
{
	if (!b->rc)
		b->rc = locus_graph_finish(b->g, b->err);
	if (b->rc) {
		locus_graph_destroy(b->g);
		if (b->rc == LOCUS_ENOMEM)
			return locus__err(b->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		if (b->err && b->err->code != b->rc)
			locus__err(b->err, b->rc, NULL, 0, 0, "could not build the workflow");
		return b->rc;
	}
	*out = b->g;
	return 0;
}

static int check_numbers(double scale, double jitter, struct locus_error *err)
{
	if (!(scale >= 0) || isinf(scale))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "expected a runtime_scale >= 0 and finite (0: 1), got %g", scale);
	if (!(jitter >= 0) || !isfinite(jitter * jitter))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "expected a jitter (coefficient of variation) >= 0 and finite, "
				  "got %g",
				  jitter);
	return 0;
}

/* ---- Montage ---------------------------------------------------------------- */

struct pair {
	uint32_t i, j;
};

/* How many neighbour pairs grid_pairs finds: R full rows of C images and
 * a last row of L < C: R (C - 1) right, (R - 1) C down, 2 (R - 1) (C - 1)
 * diagonal, and in the last row L - 1 right, L down, L - 1 down-right
 * and L down-left. */
static uint64_t grid_pair_count(uint64_t n, uint64_t C)
{
	uint64_t R = n / C, L = n % C;
	uint64_t k = R * (C - 1) + (R - 1) * C + 2 * (R - 1) * (C - 1);
	return L ? k + 4 * L - 2 : k;
}

static uint32_t grid_width(uint32_t n)
{
	uint64_t c = (uint64_t)sqrt((double)n);
	while (c * c < n)
		c++;
	while (c > 1 && (c - 1) * (c - 1) >= n)
		c--;
	return (uint32_t)c;
}

/* The neighbour pairs of n images on a grid `cols` wide, in image order
 * (right, down, down-right, down-left): writes them to out and returns
 * how many there are. */
static uint64_t grid_pairs(uint32_t n, uint32_t cols, struct pair *out)
{
	uint64_t k = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t c = i % cols;
		uint64_t nb[4] = {c + 1 < cols ? i + 1 : n, i + cols,
				  c + 1 < cols ? i + cols + 1 : n, c > 0 ? i + cols - 1 : n};
		for (int d = 0; d < 4; d++) {
			if (nb[d] >= n)
				continue;
			out[k++] = (struct pair){(uint32_t)i, (uint32_t)nb[d]};
		}
	}
	return k;
}

static int pair_cmp(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	if (x->i != y->i)
		return x->i < y->i ? -1 : 1;
	return (x->j > y->j) - (x->j < y->j);
}

/* Checks a Montage spec and works out its grid and counts: the grid's
 * width, its neighbour pairs, the overlapping pairs taken (P) and the
 * background-corrected images (B). */
static int montage_counts(const struct locus_montage_spec *s, uint32_t *cols, uint64_t *n_pairs,
			  uint64_t *P, uint64_t *B, struct locus_error *err)
{
	const uint32_t n = s->images;
	if (n == 0)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "expected 1 image or more, got 0");
	int rc = check_numbers(s->runtime_scale, s->jitter, err);
	if (rc)
		return rc;
	*cols = grid_width(n);
	*n_pairs = grid_pair_count(n, *cols);
	*P = s->overlaps;
	if (*P == 0) {
		*P = (uint64_t)M_OVERLAPS * n / (uint64_t)M_IMAGES;
		if (*P > *n_pairs)
			*P = *n_pairs;
	}
	if (*P > *n_pairs)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "expected at most %" PRIu64 " overlapping pairs (the neighbours "
				  "on a grid %" PRIu32 " images wide of %" PRIu32
				  " images), got %" PRIu64,
				  *n_pairs, *cols, n, *P);
	if (s->background > n)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "expected at most %" PRIu32 " background-corrected images (the "
				  "images), got %" PRIu32,
				  n, s->background);
	*B = s->background ? s->background : (uint64_t)M_BACKGROUND * n / (uint64_t)M_IMAGES;
	/* Tasks, files, and inputs and outputs (as the table of the comment). */
	uint64_t tasks = n + *P + *B + 6, files = 3 * (uint64_t)n + *P + *B + 8;
	uint64_t refs = 5 * (uint64_t)n + 8 * *P + 7 * *B + 12;
	if (tasks > GEN_MAX_IDS || files > GEN_MAX_IDS || refs > GEN_MAX_IDS)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "expected a workflow of fewer than 2^32 - 1 tasks, files and "
				  "file uses, got %" PRIu64 " tasks, %" PRIu64 " files and %" PRIu64
				  " uses",
				  tasks, files, refs);
	return 0;
}

/* Montage being built: its counts, its stages and the ids of the files
 * that later stages read. The steps below add the tasks in the order of
 * the table at the top of this file, so ids and runtimes follow it. */
struct montage {
	struct build b;
	uint32_t n;		  /* images */
	uint64_t P, B;		  /* overlapping pairs, corrected images */
	double cv;		  /* the runtimes' coefficient of variation */
	double rn, rp, rb;	  /* images, pairs and corrected images over Table VI's */
	const struct pair *pairs; /* the P pairs taken, in image order */
	uint32_t st_project, st_imgtbl, st_overlaps, st_diff, st_concat, st_bg, st_back, st_add;
	uint32_t region, images_tbl, diffs_tbl, corrections;
	uint32_t *raw_id, *p_id, *a_id, *c_id, *fit_id; /* per image, or per pair */
};

static void montage_stages(struct montage *m)
{
	m->st_project = add_stage(&m->b, "mProject");
	m->st_imgtbl = add_stage(&m->b, "mImgtbl");
	m->st_overlaps = add_stage(&m->b, "mOverlaps");
	m->st_diff = add_stage(&m->b, "mDiffFit");
	m->st_concat = add_stage(&m->b, "mConcatFit");
	m->st_bg = add_stage(&m->b, "mBgModel");
	m->st_back = add_stage(&m->b, "mBackground");
	m->st_add = add_stage(&m->b, "mAdd");
}

/* The workflow's inputs, and mProject: each raw image projected into an
 * image and its area. */
static void montage_project(struct montage *m)
{
	struct build *b = &m->b;
	char n1[64], n2[64], n3[64], tn[64];
	m->region = add_file(b, "region.hdr", 1024);
	for (uint32_t i = 0; i < m->n; i++) {
		snprintf(n1, sizeof n1, "raw_%04" PRIu32 ".fits", i + 1);
		m->raw_id[i] = add_file(b, n1, mb(2800 / M_IMAGES));
	}
	for (uint32_t i = 0; i < m->n && !b->rc; i++) {
		snprintf(n1, sizeof n1, "raw_%04" PRIu32 ".fits", i + 1);
		snprintf(n2, sizeof n2, "p_%04" PRIu32 ".fits", i + 1);
		snprintf(n3, sizeof n3, "p_%04" PRIu32 "_area.fits", i + 1);
		snprintf(tn, sizeof tn, "mProject_%04" PRIu32, i + 1);
		const char *argv[] = {"mProject", n1, n2, "region.hdr"};
		uint32_t t = add_task(b, tn, m->st_project, 12.0, m->cv, argv, 4);
		add_input(b, t, m->raw_id[i]);
		add_input(b, t, m->region);
		m->p_id[i] = add_output(b, t, n2, mb(5500 / (2 * M_IMAGES)));
		m->a_id[i] = add_output(b, t, n3, mb(5500 / (2 * M_IMAGES)));
	}
}

/* mImgtbl over the projected images, then mOverlaps from its table. */
static void montage_overlaps(struct montage *m)
{
	struct build *b = &m->b;
	const char *imgtbl_argv[] = {"mImgtbl", ".", "images.tbl"};
	uint32_t t = add_task(b, "mImgtbl", m->st_imgtbl, 0.43 * m->rn, m->cv, imgtbl_argv, 3);
	for (uint32_t i = 0; i < m->n; i++)
		add_input(b, t, m->p_id[i]);
	m->images_tbl = add_output(b, t, "images.tbl", mb(0.81 * m->rn));

	const char *overlaps_argv[] = {"mOverlaps", "images.tbl", "diffs.tbl"};
	t = add_task(b, "mOverlaps", m->st_overlaps, 1.0 * m->rn, m->cv, overlaps_argv, 3);
	add_input(b, t, m->images_tbl);
	m->diffs_tbl = add_output(b, t, "diffs.tbl", mb(0.1 * m->rp));
}

/* mDiffFit for each overlapping pair, mConcatFit gathering the fits, and
 * mBgModel's corrections from them. */
static void montage_fit(struct montage *m)
{
	struct build *b = &m->b;
	char n1[64], n2[64], n3[64], n4[64], tn[64];
	uint32_t t;
	for (uint64_t k = 0; k < m->P && !b->rc; k++) {
		uint32_t i = m->pairs[k].i, j = m->pairs[k].j;
		snprintf(n1, sizeof n1, "fit_%06" PRIu64 ".txt", k + 1);
		snprintf(n2, sizeof n2, "p_%04" PRIu32 ".fits", i + 1);
		snprintf(n3, sizeof n3, "p_%04" PRIu32 ".fits", j + 1);
		snprintf(n4, sizeof n4, "diff_%06" PRIu64 ".fits", k + 1);
		snprintf(tn, sizeof tn, "mDiffFit_%06" PRIu64, k + 1);
		const char *argv[] = {"mDiffFit", "-s", n1, n2, n3, n4, "region.hdr"};
		t = add_task(b, tn, m->st_diff, 1.2, m->cv, argv, 7);
		add_input(b, t, m->p_id[i]);
		add_input(b, t, m->a_id[i]);
		add_input(b, t, m->p_id[j]);
		add_input(b, t, m->a_id[j]);
		add_input(b, t, m->diffs_tbl);
		add_input(b, t, m->region);
		m->fit_id[k] = add_output(b, t, n1, mb(3900 / M_OVERLAPS));
	}

	const char *concat_argv[] = {"mConcatFit", "statfiles.tbl", "fits.tbl", "."};
	t = add_task(b, "mConcatFit", m->st_concat, 28.49 * m->rp, m->cv, concat_argv, 4);
	for (uint64_t k = 0; k < m->P; k++)
		add_input(b, t, m->fit_id[k]);
	const uint32_t fits_tbl = add_output(b, t, "fits.tbl", mb(0.32 * m->rp));

	const char *bg_argv[] = {"mBgModel", "images.tbl", "fits.tbl", "corrections.tbl"};
	t = add_task(b, "mBgModel", m->st_bg, 10.0 * m->rp, m->cv, bg_argv, 4);
	add_input(b, t, m->images_tbl);
	add_input(b, t, fits_tbl);
	m->corrections = add_output(b, t, "corrections.tbl", mb(0.05 * m->rn));
}

/* mBackground for each corrected image, mImgtbl over them, and mAdd
 * writing the mosaic. */
static void montage_mosaic(struct montage *m)
{
	struct build *b = &m->b;
	char n1[64], n2[64], tn[64];
	uint32_t t;
	for (uint32_t i = 0; i < m->B && !b->rc; i++) {
		snprintf(n1, sizeof n1, "p_%04" PRIu32 ".fits", i + 1);
		snprintf(n2, sizeof n2, "c_%04" PRIu32 ".fits", i + 1);
		snprintf(tn, sizeof tn, "mBackground_%04" PRIu32, i + 1);
		const char *argv[] = {"mBackground", "-t", n1, n2, "images.tbl", "corrections.tbl"};
		t = add_task(b, tn, m->st_back, 6.9, m->cv, argv, 6);
		add_input(b, t, m->p_id[i]);
		add_input(b, t, m->a_id[i]);
		add_input(b, t, m->corrections);
		m->c_id[i] = add_output(b, t, n2, mb(3700 / M_BACKGROUND));
	}

	const char *cimgtbl_argv[] = {"mImgtbl", ".", "cimages.tbl"};
	t = add_task(b, "mImgtbl_corrected", m->st_imgtbl, 0.43 * m->rb, m->cv, cimgtbl_argv, 3);
	for (uint32_t i = 0; i < m->B; i++)
		add_input(b, t, m->c_id[i]);
	const uint32_t cimages_tbl = add_output(b, t, "cimages.tbl", mb(0.81 * m->rb));

	const char *add_argv[] = {"mAdd", "-e", "cimages.tbl", "region.hdr", "mosaic.fits"};
	t = add_task(b, "mAdd", m->st_add, 60.0 * m->rn, m->cv, add_argv, 5);
	add_input(b, t, cimages_tbl);
	for (uint32_t i = 0; i < m->B; i++) {
		add_input(b, t, m->c_id[i]);
		add_input(b, t, m->a_id[i]);
	}
	add_input(b, t, m->region);
	add_output(b, t, "mosaic.fits", mb(3700 * m->rn));
	add_output(b, t, "mosaic_area.fits", mb(3700 * m->rn));
}

int locus_flow_montage(struct locus_graph **out, const struct locus_montage_spec *s,
		       struct locus_error *err)
{
	if (!out)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "no place for the graph");
	*out = NULL;
	if (!s)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "no Montage spec");
	uint32_t cols = 0;
	uint64_t n_pairs = 0, P = 0, B = 0;
	int rc = montage_counts(s, &cols, &n_pairs, &P, &B, err);
	if (rc)
		return rc;
	const uint32_t n = s->images;
	struct montage m = {
	    .b = {.scale = s->runtime_scale > 0 ? s->runtime_scale : 1, .err = err},
	    .n = n,
	    .P = P,
	    .B = B,
	    .cv = s->jitter,
	    .rn = n / M_IMAGES,
	    .rp = (double)P / M_OVERLAPS,
	    .rb = (double)B / M_BACKGROUND,
	};
	struct locus_rng pick;
	locus_rng_init(&pick, s->seed);
	locus_rng_init(&m.b.times, locus_rng_next(&pick));
	/* The pairs: every neighbour pair shuffled, the first P in image order. */
	struct pair *pairs = locus__calloc(n_pairs ? n_pairs : 1, sizeof *pairs);
	uint32_t *ids = locus__calloc((size_t)n * 4 + P, sizeof *ids);
	if (!pairs || !ids) {
		free(pairs);
		free(ids);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	grid_pairs(n, cols, pairs);
	locus_rng_shuffle(&pick, pairs, n_pairs, sizeof *pairs);
	qsort(pairs, P, sizeof *pairs, pair_cmp);
	m.pairs = pairs;
	m.raw_id = ids;
	m.p_id = ids + n;
	m.a_id = ids + 2 * (size_t)n;
	m.c_id = ids + 3 * (size_t)n;
	m.fit_id = ids + 4 * (size_t)n;

	if ((rc = locus_graph_create(&m.b.g, "montage", err))) {
		free(pairs);
		free(ids);
		return rc;
	}
	montage_stages(&m);
	montage_project(&m);
	montage_overlaps(&m);
	montage_fit(&m);
	montage_mosaic(&m);
	free(pairs);
	free(ids);
	return build_end(&m.b, out);
}

/* ---- mtcBLAST ---------------------------------------------------------------- */

/* Part i of `total` bytes cut into n parts that differ by a byte at most
 * (total * n fits in 64 bits: the caller's limits keep n below 2^32). */
static uint64_t share(uint64_t total, uint64_t i, uint64_t n)
{
	return total * (i + 1) / n - total * i / n;
}

int locus_flow_blast(struct locus_graph **out, const struct locus_blast_spec *s,
		     struct locus_error *err)
{
	if (!out)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "no place for the graph");
	*out = NULL;
	if (!s)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "no BLAST spec");
	if (s->fragments == 0)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "expected 1 database fragment or more, got 0");
	if (s->queries == 0)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "expected 1 query file or more, got 0");
	int rc = check_numbers(s->runtime_scale, s->jitter, err);
	if (rc)
		return rc;
	const uint64_t N = s->fragments, M = s->queries;
	uint64_t tasks = 1 + N + N * M + M, files = 1 + 2 * M + 4 * N + N * M;
	uint64_t refs = 1 + N + 4 * N + 5 * N * M + N * M + M;
	if (tasks > GEN_MAX_IDS || files > GEN_MAX_IDS || refs > GEN_MAX_IDS)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "expected a workflow of fewer than 2^32 - 1 tasks, files and "
				  "file uses, got %" PRIu64 " tasks, %" PRIu64 " files and %" PRIu64
				  " uses (%" PRIu64 " fragments x %" PRIu64 " queries)",
				  tasks, files, refs, N, M);

	struct build b = {.scale = s->runtime_scale > 0 ? s->runtime_scale : 1, .err = err};
	struct locus_rng root;
	locus_rng_init(&root, s->seed);
	locus_rng_init(&b.times, locus_rng_next(&root));
	/* File ids: the slices, their formatted files, the queries, the hits. */
	uint32_t *ids = locus__calloc(4 * N + M + N * M, sizeof *ids);
	/* merge's words: "merge", its output, its N inputs' names. */
	const char **words = locus__calloc(N + 2, sizeof *words);
	char *names = locus__calloc(N, 64);
	if (!ids || !words || !names) {
		free(ids);
		free(words);
		free(names);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	uint32_t *frag = ids, *db = ids + N, *query = db + 3 * N, *hits = query + M;
	if ((rc = locus_graph_create(&b.g, "mtcBLAST", err))) {
		free(ids);
		free(words);
		free(names);
		return rc;
	}
	const double cv = s->jitter, blast_cv = s->jitter > 0 ? s->jitter : 0.5;
	const double slice = 63.0 / (double)N; /* a slice's size over the paper's */
	const uint64_t nr_bytes = mb(4039), db_bytes = mb(4400);
	const uint32_t st_split = add_stage(&b, "fastasplitn"),
		       st_format = add_stage(&b, "formatdb"), st_blast = add_stage(&b, "blastp"),
		       st_merge = add_stage(&b, "merge");
	char n1[64], n2[64], n3[64], tn[64], count[24];

	const uint32_t nr = add_file(&b, "nr.fasta", nr_bytes);
	for (uint64_t q = 0; q < M; q++) {
		snprintf(n1, sizeof n1, "query_%" PRIu64 ".fasta", q);
		query[q] = add_file(&b, n1, 16 * 1024);
	}

	snprintf(count, sizeof count, "%" PRIu64, N);
	const char *split_argv[] = {"fastasplitn", "nr.fasta", count};
	uint32_t t = add_task(&b, "fastasplitn", st_split, 60.0, cv, split_argv, 3);
	add_input(&b, t, nr);
	for (uint64_t i = 0; i < N && !b.rc; i++) {
		snprintf(n1, sizeof n1, "frag_%" PRIu64 ".fasta", i);
		frag[i] = add_output(&b, t, n1, share(nr_bytes, i, N));
	}

	static const char *const ext[3] = {"phr", "pin", "psq"};
	for (uint64_t i = 0; i < N && !b.rc; i++) {
		snprintf(n1, sizeof n1, "frag_%" PRIu64 ".fasta", i);
		snprintf(n2, sizeof n2, "frag_%" PRIu64, i);
		snprintf(tn, sizeof tn, "formatdb_%" PRIu64, i);
		const char *argv[] = {"formatdb", "-i", n1, "-p", "T", "-n", n2};
		t = add_task(&b, tn, st_format, 56.0 * slice, cv, argv, 7);
		add_input(&b, t, frag[i]);
		uint64_t all = share(db_bytes, i, N);
		const uint64_t part[3] = {all * 3 / 10, all / 10, all - all * 3 / 10 - all / 10};
		for (int e = 0; e < 3; e++) {
			snprintf(n3, sizeof n3, "frag_%" PRIu64 ".%s", i, ext[e]);
			db[3 * i + (uint64_t)e] = add_output(&b, t, n3, part[e]);
		}
	}

	for (uint64_t q = 0; q < M && !b.rc; q++)
		for (uint64_t i = 0; i < N && !b.rc; i++) {
			snprintf(n1, sizeof n1, "query_%" PRIu64 ".fasta", q);
			snprintf(n2, sizeof n2, "frag_%" PRIu64, i);
			snprintf(n3, sizeof n3, "hits_%" PRIu64 "_%" PRIu64, q, i);
			snprintf(tn, sizeof tn, "blastp_%" PRIu64 "_%" PRIu64, q, i);
			const char *argv[] = {"blastp", "-query", n1, "-db", n2, "-out", n3};
			t = add_task(&b, tn, st_blast, 30.0 * slice, blast_cv, argv, 7);
			for (int e = 0; e < 3; e++)
				add_input(&b, t, db[3 * i + (uint64_t)e]);
			add_input(&b, t, query[q]);
			hits[q * N + i] = add_output(&b, t, n3, mb(2.4));
		}

	for (uint64_t q = 0; q < M && !b.rc; q++) {
		snprintf(n1, sizeof n1, "result_%" PRIu64, q);
		snprintf(tn, sizeof tn, "merge_%" PRIu64, q);
		words[0] = "merge";
		words[1] = n1;
		for (uint64_t i = 0; i < N; i++) {
			snprintf(names + 64 * i, 64, "hits_%" PRIu64 "_%" PRIu64, q, i);
			words[2 + i] = names + 64 * i;
		}
		t = add_task(&b, tn, st_merge, 2.0, cv, words, (uint32_t)(N + 2));
		for (uint64_t i = 0; i < N; i++)
			add_input(&b, t, hits[q * N + i]);
		add_output(&b, t, n1, mb(4.8));
	}
	free(ids);
	free(words);
	free(names);
	return build_end(&b, out);
}
