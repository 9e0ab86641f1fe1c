/*
 * Replica placement: argument checks, determinism, the HDFS rack rules on
 * every chunk, the spread of skewed placement (ScalScheduling Fig. 6) and
 * the evenness of random placement.
 */
#include <stdint.h>

#include "locus/place.h"
#include "locus/platform.h"
#include "test.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Seeds every statistical check is run under. Fixed, so the checks cannot
 * flake; several, so a lucky seed cannot hide a bias. */
static const uint64_t seeds[] = {1, 2, 3, 42, 20240607};

static struct locus_platform *platform(size_t n, size_t racks)
{
	struct locus_platform *p = NULL;

	if (locus_platform_generate(&p, n, racks, 1, "node") != 0)
		return NULL;
	return p;
}

static struct locus_place_options options(enum locus_place_policy policy, unsigned r, uint64_t seed)
{
	struct locus_place_options o = {
	    .policy = policy,
	    .replicas = r,
	    .seed = seed,
	    .skew_std = 0,
	};
	return o;
}

/* Places n_chunks chunks; returns the array (caller frees) or NULL. */
static uint32_t *place(const struct locus_platform *p, size_t n_chunks,
		       const struct locus_place_options *o)
{
	struct locus_error err;
	uint32_t *out = malloc((n_chunks ? n_chunks : 1) * o->replicas * sizeof *out);

	if (out && locus_place(p, n_chunks, o, out, &err) != 0) {
		fprintf(stderr, "locus_place: %s\n", err.message);
		free(out);
		return NULL;
	}
	return out;
}

/* Whether every chunk has r distinct, valid node indices. */
static int rows_valid(const uint32_t *out, size_t n_chunks, unsigned r, size_t n)
{
	for (size_t c = 0; c < n_chunks; c++) {
		for (unsigned j = 0; j < r; j++) {
			if (out[c * r + j] >= n)
				return 0;
			for (unsigned k = 0; k < j; k++)
				if (out[c * r + j] == out[c * r + k])
					return 0;
		}
	}
	return 1;
}

/* Replicas per node; the caller frees. */
static size_t *node_counts(const uint32_t *out, size_t total, size_t n)
{
	size_t *counts = calloc(n, sizeof *counts);

	if (counts)
		for (size_t i = 0; i < total; i++)
			counts[out[i]]++;
	return counts;
}

static double pop_std(const size_t *counts, size_t n)
{
	double mean = 0, var = 0;

	for (size_t i = 0; i < n; i++)
		mean += (double)counts[i];
	mean /= (double)n;
	for (size_t i = 0; i < n; i++)
		var += ((double)counts[i] - mean) * ((double)counts[i] - mean);
	return sqrt(var / (double)n);
}

static int same_rack(const struct locus_platform *p, uint32_t a, uint32_t b)
{
	return strcmp(p->nodes[a].rack, p->nodes[b].rack) == 0;
}

/* ---- names and arguments ------------------------------------------------ */

TEST(policy_names)
{
	static const char *names[] = {"hdfs", "random", "skewed"};
	enum locus_place_policy pol;

	for (size_t i = 0; i < 3; i++) {
		CHECK_EQ_INT(locus_place_policy_parse(names[i], &pol), 0);
		CHECK_EQ_STR(locus_place_policy_name(pol), names[i]);
	}
	CHECK_EQ_INT(pol, LOCUS_PLACE_SKEWED);
	CHECK_EQ_INT(locus_place_policy_parse("HDFS", &pol), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_place_policy_parse("", &pol), LOCUS_EINVAL);
	CHECK_EQ_INT(locus_place_policy_parse(NULL, &pol), LOCUS_EINVAL);
	CHECK_EQ_STR(locus_place_policy_name((enum locus_place_policy)99), "unknown");
}

TEST(bad_arguments)
{
	struct locus_platform *p = platform(4, 2);
	struct locus_place_options o = options(LOCUS_PLACE_HDFS, 5, 1);
	struct locus_error err;
	uint32_t out[5 * 8];

	CHECK(p);
	/* More replicas than nodes, and none. */
	locus_error_clear(&err);
	CHECK_EQ_INT(locus_place(p, 8, &o, out, &err), LOCUS_EINVAL);
	CHECK_EQ_INT(err.code, LOCUS_EINVAL);
	CHECK(strstr(err.message, "5 replicas") != NULL);
	o.replicas = 0;
	CHECK_EQ_INT(locus_place(p, 8, &o, out, &err), LOCUS_EINVAL);
	CHECK(strstr(err.message, "at least 1") != NULL);

	/* A writer that is not a node. */
	o.replicas = 2;
	o.writer = "elsewhere";
	CHECK_EQ_INT(locus_place(p, 8, &o, out, &err), LOCUS_ENOENT);
	CHECK(strstr(err.message, "elsewhere") != NULL);

	/* A negative or non-finite spread. */
	o.writer = NULL;
	o.policy = LOCUS_PLACE_SKEWED;
	o.skew_std = -1;
	CHECK_EQ_INT(locus_place(p, 8, &o, out, &err), LOCUS_EINVAL);
	o.skew_std = NAN;
	CHECK_EQ_INT(locus_place(p, 8, &o, out, &err), LOCUS_EINVAL);
	o.skew_std = INFINITY;
	CHECK_EQ_INT(locus_place(p, 8, &o, out, &err), LOCUS_EINVAL);

	/* A spread no counts in [0, n_chunks] can reach: 8 chunks x 2 over 4
	 * nodes is mean 4, widest sqrt(4 * 4) = 4. */
	o.skew_std = 4.5;
	CHECK_EQ_INT(locus_place(p, 8, &o, out, &err), LOCUS_ERANGE);
	o.skew_std = 4;
	CHECK_EQ_INT(locus_place(p, 8, &o, out, &err), 0);
	CHECK(rows_valid(out, 8, 2, 4));

	/* An unknown policy; no error struct at all. */
	o.policy = (enum locus_place_policy)7;
	CHECK_EQ_INT(locus_place(p, 8, &o, out, NULL), LOCUS_EINVAL);

	/* Zero chunks is nothing to do, and needs no array. */
	o.policy = LOCUS_PLACE_HDFS;
	CHECK_EQ_INT(locus_place(p, 0, &o, NULL, &err), 0);
	CHECK_EQ_INT(locus_place(NULL, 1, &o, out, &err), LOCUS_EINVAL);
	locus_platform_destroy(p);
}

/* ---- every policy -------------------------------------------------------- */

TEST(deterministic)
{
	struct locus_platform *p = platform(50, 5);
	enum locus_place_policy pols[] = {LOCUS_PLACE_HDFS, LOCUS_PLACE_RANDOM, LOCUS_PLACE_SKEWED};
	const size_t n_chunks = 500;

	CHECK(p);
	for (size_t i = 0; i < 3; i++) {
		struct locus_place_options o = options(pols[i], 3, 99);
		uint32_t *a, *b, *c;
		int same, differ;

		o.skew_std = 4;
		a = place(p, n_chunks, &o);
		b = place(p, n_chunks, &o);
		o.seed = 100;
		c = place(p, n_chunks, &o);
		CHECK(a && b && c);
		same = memcmp(a, b, n_chunks * 3 * sizeof *a) == 0;
		differ = memcmp(a, c, n_chunks * 3 * sizeof *a) != 0;
		free(a);
		free(b);
		free(c);
		CHECK(same);
		CHECK(differ);
	}
	locus_platform_destroy(p);
}

TEST(distinct_replicas)
{
	static const struct {
		size_t nodes, racks;
		unsigned r;
	} cases[] = {
	    {1, 1, 1}, {2, 1, 2},  {3, 3, 3},	{5, 4, 3},  {5, 4, 5},
	    {7, 2, 6}, {10, 3, 4}, {16, 4, 16}, {30, 2, 7}, {64, 8, 3},
	};
	enum locus_place_policy pols[] = {LOCUS_PLACE_HDFS, LOCUS_PLACE_RANDOM, LOCUS_PLACE_SKEWED};

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct locus_platform *p = platform(cases[i].nodes, cases[i].racks);

		CHECK(p);
		for (size_t k = 0; k < 3; k++) {
			for (size_t s = 0; s < ARRAY_LEN(seeds); s++) {
				struct locus_place_options o =
				    options(pols[k], cases[i].r, seeds[s]);
				uint32_t *out;
				int ok;

				o.skew_std = 1;
				if (cases[i].r == cases[i].nodes)
					o.skew_std = 0; /* every node holds every chunk */
				out = place(p, 200, &o);
				CHECK(out);
				ok = rows_valid(out, 200, cases[i].r, cases[i].nodes);
				free(out);
				if (!ok)
					fprintf(stderr, "case %zu, policy %zu, seed %zu\n", i, k,
						s);
				CHECK(ok);
			}
		}
		locus_platform_destroy(p);
	}
}

/* ---- hdfs ---------------------------------------------------------------- */

/* Checks the first three replicas of every chunk against the HDFS rules
 * on a platform where every rack has at least two nodes. */
static int hdfs_rules_hold(const struct locus_platform *p, const uint32_t *out, size_t n_chunks,
			   unsigned r)
{
	for (size_t c = 0; c < n_chunks; c++) {
		const uint32_t *row = out + c * r;

		if (r >= 2 && same_rack(p, row[0], row[1]))
			return 0;
		if (r >= 3 && (!same_rack(p, row[1], row[2]) || row[1] == row[2]))
			return 0;
	}
	return 1;
}

/* Largest number of one chunk's replicas in one rack. */
static size_t max_per_rack(const struct locus_platform *p, const uint32_t *row, unsigned r)
{
	size_t most = 0;

	for (unsigned j = 0; j < r; j++) {
		size_t k = 0;

		for (unsigned i = 0; i < r; i++)
			k += same_rack(p, row[i], row[j]);
		if (k > most)
			most = k;
	}
	return most;
}

TEST(hdfs_rack_rules)
{
	static const size_t racks[] = {2, 4};
	const size_t n_chunks = 2000;

	for (size_t i = 0; i < ARRAY_LEN(racks); i++) {
		struct locus_platform *p = platform(24, racks[i]);

		CHECK(p);
		for (size_t s = 0; s < ARRAY_LEN(seeds); s++) {
			struct locus_place_options o = options(LOCUS_PLACE_HDFS, 3, seeds[s]);
			uint32_t *out = place(p, n_chunks, &o);
			size_t *firsts = calloc(24, sizeof *firsts);
			int ok;

			CHECK(out && firsts);
			ok = rows_valid(out, n_chunks, 3, 24) &&
			     hdfs_rules_hold(p, out, n_chunks, 3);
			/* Without a writer the first replica goes anywhere. */
			for (size_t c = 0; c < n_chunks; c++)
				firsts[out[c * 3]]++;
			for (size_t v = 0; v < 24; v++)
				if (firsts[v] == 0)
					ok = 0;
			free(out);
			free(firsts);
			CHECK(ok);
		}
		locus_platform_destroy(p);
	}
}

TEST(hdfs_further_replicas)
{
	/* (r - 1) / racks + 2 per rack: r = 5 on 4 racks allows 3 per rack,
	 * r = 6 on 2 racks 4, r = 8 on 4 racks 3. */
	static const struct {
		size_t nodes, racks;
		unsigned r;
		size_t cap;
	} cases[] = {{16, 4, 5, 3}, {12, 2, 6, 4}, {20, 4, 8, 3}};
	const size_t n_chunks = 1000;

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct locus_platform *p = platform(cases[i].nodes, cases[i].racks);
		unsigned r = cases[i].r;

		CHECK(p);
		for (size_t s = 0; s < ARRAY_LEN(seeds); s++) {
			struct locus_place_options o = options(LOCUS_PLACE_HDFS, r, seeds[s]);
			uint32_t *out = place(p, n_chunks, &o);
			int ok;

			CHECK(out);
			ok = rows_valid(out, n_chunks, r, cases[i].nodes) &&
			     hdfs_rules_hold(p, out, n_chunks, r);
			for (size_t c = 0; ok && c < n_chunks; c++)
				if (max_per_rack(p, out + c * r, r) > cases[i].cap)
					ok = 0;
			free(out);
			CHECK(ok);
		}
		locus_platform_destroy(p);
	}
}

TEST(hdfs_cap_relaxed)
{
	/*
	 * Racks of 9 nodes and 1 node (made by pointing nine nodes at one
	 * rack string; the originals are put back before destroying). With
	 * r = 6 the cap is 5 / 2 + 2 = 4, but the small rack takes only one
	 * replica, so five must go to the big rack: the cap relaxes instead
	 * of failing, and every chunk has exactly one replica on node 9.
	 */
	struct locus_platform *p = platform(10, 2);
	char *saved[10];
	const size_t n_chunks = 500;
	int all_ok = 1;

	CHECK(p);
	for (size_t v = 0; v < 10; v++) {
		saved[v] = p->nodes[v].rack;
		if (v < 9)
			p->nodes[v].rack = saved[0];
	}
	for (unsigned r = 2; r <= 10; r += 4) {
		struct locus_place_options o = options(LOCUS_PLACE_HDFS, r, 21);
		uint32_t *out = place(p, n_chunks, &o);
		int ok = out != NULL;

		ok = ok && rows_valid(out, n_chunks, r, 10);
		for (size_t c = 0; ok && c < n_chunks; c++) {
			size_t on9 = 0;

			if (same_rack(p, out[c * r], out[c * r + 1]))
				ok = 0;

			for (unsigned j = 0; j < r; j++)
				on9 += out[c * r + j] == 9;
			ok = ok && on9 == 1;
		}
		free(out);
		all_ok = all_ok && ok;
	}
	for (size_t v = 0; v < 10; v++)
		p->nodes[v].rack = saved[v];
	locus_platform_destroy(p);
	CHECK(all_ok);
}

TEST(hdfs_small_racks)
{
	/* 5 nodes on 4 racks: rack 0 has two nodes, racks 1-3 one each. The
	 * third replica shares the second's rack when that rack has a free
	 * node, else goes to any free node. */
	struct locus_platform *p = platform(5, 4);
	const size_t n_chunks = 1000;
	size_t in_rack = 0, fallback = 0;

	CHECK(p);
	for (size_t s = 0; s < ARRAY_LEN(seeds); s++) {
		struct locus_place_options o = options(LOCUS_PLACE_HDFS, 3, seeds[s]);
		uint32_t *out = place(p, n_chunks, &o);
		int ok;

		CHECK(out);
		ok = rows_valid(out, n_chunks, 3, 5);
		for (size_t c = 0; ok && c < n_chunks; c++) {
			const uint32_t *row = out + c * 3;
			int free_in_rack = 0;

			if (same_rack(p, row[0], row[1]))
				ok = 0;
			for (uint32_t v = 0; v < 5; v++)
				if (v != row[0] && v != row[1] && same_rack(p, v, row[1]))
					free_in_rack = 1;
			if (free_in_rack) {
				ok = ok && same_rack(p, row[1], row[2]);
				in_rack++;
			} else {
				fallback++;
			}
		}
		free(out);
		CHECK(ok);
	}
	CHECK(in_rack > 0);
	CHECK(fallback > 0);
	locus_platform_destroy(p);
}

TEST(hdfs_writer)
{
	static const uint32_t writers[] = {0, 13, 19};
	struct locus_platform *p = platform(20, 4);
	const size_t n_chunks = 1000;

	CHECK(p);
	for (size_t w = 0; w < ARRAY_LEN(writers); w++) {
		for (size_t s = 0; s < ARRAY_LEN(seeds); s++) {
			struct locus_place_options o = options(LOCUS_PLACE_HDFS, 3, seeds[s]);
			uint32_t *out;
			int ok;

			o.writer = p->nodes[writers[w]].name;
			out = place(p, n_chunks, &o);
			CHECK(out);
			ok = rows_valid(out, n_chunks, 3, 20) &&
			     hdfs_rules_hold(p, out, n_chunks, 3);
			for (size_t c = 0; ok && c < n_chunks; c++)
				if (out[c * 3] != writers[w])
					ok = 0;
			free(out);
			CHECK(ok);
		}
	}
	locus_platform_destroy(p);
}

TEST(hdfs_single_rack)
{
	struct locus_platform *p = platform(6, 1);
	const size_t n_chunks = 600;

	CHECK(p);
	for (unsigned r = 1; r <= 6; r++) {
		struct locus_place_options o = options(LOCUS_PLACE_HDFS, r, 11);
		uint32_t *out;
		size_t *counts;
		int ok;

		o.writer = p->nodes[2].name;
		out = place(p, n_chunks, &o);
		CHECK(out);
		ok = rows_valid(out, n_chunks, r, 6);
		for (size_t c = 0; ok && c < n_chunks; c++)
			ok = out[c * r] == 2;
		/* The other replicas still reach every other node. */
		counts = node_counts(out, n_chunks * r, 6);
		CHECK(counts);
		for (size_t v = 0; r > 1 && v < 6; v++)
			if (counts[v] == 0)
				ok = 0;
		free(counts);
		free(out);
		CHECK(ok);
	}
	locus_platform_destroy(p);
}

/* ---- random -------------------------------------------------------------- */

TEST(random_even)
{
	/* 6400 chunks x 3 over 64 nodes: 300 per node expected. A node's count
	 * is close to binomial(6400, 3/64), std about 16.9; the chi-square
	 * statistic over 64 nodes has mean about 63 and std about 11, so 150
	 * and a +-100 band per node never trip for an unbiased placer, while
	 * a placer that favours a node or a rack trips them at once. */
	struct locus_platform *p = platform(64, 8);
	const size_t n_chunks = 6400;

	CHECK(p);
	for (size_t s = 0; s < ARRAY_LEN(seeds); s++) {
		struct locus_place_options o = options(LOCUS_PLACE_RANDOM, 3, seeds[s]);
		uint32_t *out = place(p, n_chunks, &o);
		size_t *counts;
		double chi2 = 0;
		int ok;

		CHECK(out);
		ok = rows_valid(out, n_chunks, 3, 64);
		counts = node_counts(out, n_chunks * 3, 64);
		CHECK(counts);
		for (size_t v = 0; v < 64; v++) {
			double d = (double)counts[v] - 300;

			chi2 += d * d / 300;
			if (counts[v] < 200 || counts[v] > 400)
				ok = 0;
		}
		free(counts);
		free(out);
		if (chi2 >= 150)
			fprintf(stderr, "seed %llu: chi2 %.1f\n", (unsigned long long)seeds[s],
				chi2);
		CHECK(ok);
		CHECK(chi2 < 150);
	}
	locus_platform_destroy(p);
}

TEST(random_all_nodes)
{
	/* r = n: every chunk is a permutation of the nodes. */
	struct locus_platform *p = platform(5, 2);
	struct locus_place_options o = options(LOCUS_PLACE_RANDOM, 5, 8);
	uint32_t *out;
	int ok;

	CHECK(p);
	out = place(p, 100, &o);
	CHECK(out);
	ok = rows_valid(out, 100, 5, 5);
	free(out);
	CHECK(ok);
	locus_platform_destroy(p);
}

/* ---- skewed -------------------------------------------------------------- */

/* Places skewed and checks the measured spread against the target; returns
 * the measured population std, or -1 when a check fails. */
static double skewed_std(const struct locus_platform *p, size_t n_chunks, unsigned r, double sd,
			 uint64_t seed)
{
	struct locus_place_options o = options(LOCUS_PLACE_SKEWED, r, seed);
	uint32_t *out;
	size_t *counts;
	size_t sum = 0;
	double got;
	int ok;

	o.skew_std = sd;
	out = place(p, n_chunks, &o);
	if (!out)
		return -1;
	ok = rows_valid(out, n_chunks, r, p->n_nodes);
	counts = node_counts(out, n_chunks * r, p->n_nodes);
	if (!counts) {
		free(out);
		return -1;
	}
	for (size_t v = 0; v < p->n_nodes; v++) {
		sum += counts[v];
		if (counts[v] > n_chunks)
			ok = 0;
	}
	got = pop_std(counts, p->n_nodes);
	free(counts);
	free(out);
	if (!ok || sum != n_chunks * r)
		return -1;
	return got;
}

TEST(skewed_fig6)
{
	/* ScalScheduling Fig. 6: 1024 processes, 30720 fragments, one copy
	 * each (mean 30), std 6.05, 7.42 and 8.82. */
	static const double targets[] = {6.05, 7.42, 8.82};
	struct locus_platform *p = platform(1024, 32);

	CHECK(p);
	for (size_t t = 0; t < ARRAY_LEN(targets); t++) {
		for (size_t s = 0; s < ARRAY_LEN(seeds); s++) {
			double got = skewed_std(p, 30720, 1, targets[t], seeds[s]);

			if (fabs(got - targets[t]) > 0.02 * targets[t])
				fprintf(stderr, "target %.2f seed %llu: std %.4f\n", targets[t],
					(unsigned long long)seeds[s], got);
			CHECK_NEAR(got, targets[t], 0.02 * targets[t]);
		}
	}
	locus_platform_destroy(p);
}

TEST(skewed_three_replicas)
{
	/* The same platform with r = 3: every replica counts, mean 90. */
	static const double targets[] = {8.82, 15};
	struct locus_platform *p = platform(1024, 32);

	CHECK(p);
	for (size_t t = 0; t < ARRAY_LEN(targets); t++) {
		for (size_t s = 0; s < 3; s++) {
			double got = skewed_std(p, 30720, 3, targets[t], seeds[s]);

			CHECK_NEAR(got, targets[t], 0.02 * targets[t]);
		}
	}
	locus_platform_destroy(p);
}

TEST(skewed_even)
{
	/* std 0: every node within one of the mean, whether or not the mean
	 * is a whole number. */
	static const size_t chunks[] = {100, 107, 3};
	struct locus_platform *p = platform(30, 3);

	CHECK(p);
	for (size_t i = 0; i < ARRAY_LEN(chunks); i++) {
		struct locus_place_options o = options(LOCUS_PLACE_SKEWED, 2, 4);
		uint32_t *out = place(p, chunks[i], &o);
		size_t *counts, lo = SIZE_MAX, hi = 0;
		int ok;

		CHECK(out);
		ok = rows_valid(out, chunks[i], 2, 30);
		counts = node_counts(out, chunks[i] * 2, 30);
		CHECK(counts);
		for (size_t v = 0; v < 30; v++) {
			lo = counts[v] < lo ? counts[v] : lo;
			hi = counts[v] > hi ? counts[v] : hi;
		}
		free(counts);
		free(out);
		CHECK(ok);
		CHECK(hi - lo <= 1);
	}
	locus_platform_destroy(p);
}

TEST(skewed_clamped)
{
	/* A wide spread on a small mean: many counts clamp at 0 and the
	 * total is repaired; a node holding every chunk clamps at n_chunks. */
	struct locus_platform *p = platform(40, 4);

	CHECK(p);
	for (size_t s = 0; s < ARRAY_LEN(seeds); s++) {
		CHECK(skewed_std(p, 20, 3, 3.0, seeds[s]) >= 0);
		CHECK(skewed_std(p, 10, 39, 1.0, seeds[s]) >= 0);
		CHECK(skewed_std(p, 10, 40, 0.0, seeds[s]) == 0.0);
	}
	locus_platform_destroy(p);
}

TEST(skewed_small_exhaustive)
{
	/* Every small shape, with spreads from none to the widest possible:
	 * the repair must keep each count in [0, n_chunks] (else a chunk
	 * would hold a node twice) and hit the total exactly. */
	for (size_t n = 1; n <= 7; n++) {
		struct locus_platform *p = platform(n, 2);

		CHECK(p);
		for (unsigned r = 1; r <= n; r++) {
			for (size_t chunks = 1; chunks <= 12; chunks++) {
				double m = (double)chunks * r / (double)n;
				double widest = sqrt(m * ((double)chunks - m));
				const double sds[] = {0, fmin(0.5, widest), widest / 2, widest};

				for (size_t k = 0; k < ARRAY_LEN(sds); k++) {
					for (uint64_t seed = 0; seed < 4; seed++) {
						double got = skewed_std(p, chunks, r, sds[k], seed);

						if (got < 0)
							fprintf(stderr,
								"n %zu r %u chunks %zu "
								"sd %g seed %llu\n",
								n, r, chunks, sds[k],
								(unsigned long long)seed);
						CHECK(got >= 0);
					}
				}
			}
		}
		locus_platform_destroy(p);
	}
}

TEST_MAIN(TEST_ENTRY(policy_names), TEST_ENTRY(bad_arguments), TEST_ENTRY(deterministic),
	  TEST_ENTRY(distinct_replicas), TEST_ENTRY(hdfs_rack_rules),
	  TEST_ENTRY(hdfs_further_replicas), TEST_ENTRY(hdfs_cap_relaxed),
	  TEST_ENTRY(hdfs_small_racks), TEST_ENTRY(hdfs_writer), TEST_ENTRY(hdfs_single_rack),
	  TEST_ENTRY(random_even), TEST_ENTRY(random_all_nodes), TEST_ENTRY(skewed_fig6),
	  TEST_ENTRY(skewed_three_replicas), TEST_ENTRY(skewed_even), TEST_ENTRY(skewed_clamped),
	  TEST_ENTRY(skewed_small_exhaustive))
