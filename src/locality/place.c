/*
 * Replica placement: the HDFS default policy, uniform random placement and
 * skewed placement with a target spread of replicas per node
 * (ScalScheduling Fig. 6).
 *
 * Every draw comes from one generator seeded with options.seed and the
 * draws are made in a fixed order, so a seed gives the same placement, byte
 * for byte, on every platform.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/place.h"
#include "locus/rng.h"

/* Random probes tried before a pick falls back to counting the eligible
 * nodes. Both ways pick uniformly among the eligible nodes; the probes make
 * the common case (most nodes eligible) O(1). */
#define PICK_PROBES 32

static const char *const policy_names[] = {
    [LOCUS_PLACE_HDFS] = "hdfs",
    [LOCUS_PLACE_RANDOM] = "random",
    [LOCUS_PLACE_SKEWED] = "skewed",
};

int locus_place_policy_parse(const char *name, enum locus_place_policy *out)
{
	if (!name || !out)
		return LOCUS_EINVAL;
	for (size_t i = 0; i < LOCUS__ARRAY_LEN(policy_names); i++) {
		if (strcmp(name, policy_names[i]) == 0) {
			*out = (enum locus_place_policy)i;
			return 0;
		}
	}
	return LOCUS_EINVAL;
}

const char *locus_place_policy_name(enum locus_place_policy p)
{
	if ((unsigned)p >= LOCUS__ARRAY_LEN(policy_names))
		return "unknown";
	return policy_names[p];
}

/* ---- hdfs --------------------------------------------------------------- */

/*
 * The racks of a platform, numbered in order of first appearance among the
 * nodes, with the nodes of each rack listed together so that "a node of
 * rack k" and "a node outside rack k" are both one index draw.
 */
struct racks {
	size_t n;	   /* number of racks */
	uint32_t *of_node; /* rack of each node */
	size_t *start;	   /* rack k holds by_rack[start[k] .. start[k + 1]) */
	uint32_t *by_rack; /* node indices grouped by rack, in node order */
};

static void racks_fini(struct racks *rk)
{
	free(rk->of_node);
	free(rk->start);
	free(rk->by_rack);
	memset(rk, 0, sizeof *rk);
}

static int racks_init(struct racks *rk, const struct locus_platform *p)
{
	struct locus__strmap ids;
	size_t *fill = NULL;
	int rc = LOCUS_ENOMEM;

	memset(rk, 0, sizeof *rk);
	locus__strmap_init(&ids);
	rk->of_node = locus__calloc(p->n_nodes, sizeof *rk->of_node);
	rk->by_rack = locus__calloc(p->n_nodes, sizeof *rk->by_rack);
	if (!rk->of_node || !rk->by_rack)
		goto out;
	for (size_t i = 0; i < p->n_nodes; i++) {
		const char *name = p->nodes[i].rack ? p->nodes[i].rack : "";
		size_t id;

		if (!locus__strmap_get(&ids, name, &id)) {
			id = rk->n++;
			if (locus__strmap_put(&ids, name, id))
				goto out;
		}
		rk->of_node[i] = (uint32_t)id;
	}

	/* Counting sort of the nodes by rack keeps node order within a rack. */
	rk->start = locus__calloc(rk->n + 1, sizeof *rk->start);
	fill = locus__calloc(rk->n, sizeof *fill);
	if (!rk->start || !fill)
		goto out;
	for (size_t i = 0; i < p->n_nodes; i++)
		rk->start[rk->of_node[i] + 1]++;
	for (size_t k = 0; k < rk->n; k++)
		rk->start[k + 1] += rk->start[k];
	for (size_t i = 0; i < p->n_nodes; i++) {
		uint32_t k = rk->of_node[i];

		rk->by_rack[rk->start[k] + fill[k]++] = (uint32_t)i;
	}
	rc = 0;
out:
	free(fill);
	locus__strmap_fini(&ids);
	if (rc)
		racks_fini(rk);
	return rc;
}

/* State of the HDFS placer while it fills the replicas of one chunk. */
struct hdfs {
	struct racks racks;
	size_t n_nodes;
	size_t *used;	     /* used[v] == stamp: v holds a replica of this chunk */
	size_t stamp;	     /* chunk index + 1 */
	uint32_t *rack_load; /* replicas of this chunk per rack */
	uint32_t *row;	     /* the chunk's replicas */
	size_t filled;	     /* replicas placed so far */
	struct locus_rng *rng;
};

static int hdfs_eligible(const struct hdfs *h, size_t v, size_t cap)
{
	return h->used[v] != h->stamp && h->rack_load[h->racks.of_node[v]] < cap;
}

static void hdfs_take(struct hdfs *h, size_t v)
{
	h->row[h->filled++] = (uint32_t)v;
	h->used[v] = h->stamp;
	h->rack_load[h->racks.of_node[v]]++;
}

/* A uniformly random node among nodes[0 .. m) (a list of node indices, or
 * all nodes when `nodes` is NULL) that holds no replica of the chunk and
 * whose rack holds fewer than `cap` of its replicas; -1 if there is none. */
static long hdfs_pick(struct hdfs *h, const uint32_t *nodes, size_t m, size_t cap)
{
	size_t count = 0, k;

	if (m == 0)
		return -1;
	for (int t = 0; t < PICK_PROBES; t++) {
		size_t i = (size_t)locus_rng_below(h->rng, m);
		size_t v = nodes ? nodes[i] : i;

		if (hdfs_eligible(h, v, cap))
			return (long)v;
	}
	for (size_t i = 0; i < m; i++)
		count += hdfs_eligible(h, nodes ? nodes[i] : i, cap);
	if (count == 0)
		return -1;
	k = (size_t)locus_rng_below(h->rng, count);
	for (size_t i = 0; i < m; i++) {
		size_t v = nodes ? nodes[i] : i;

		if (hdfs_eligible(h, v, cap) && k-- == 0)
			return (long)v;
	}
	return -1; /* not reached */
}

/* A uniformly random node outside rack `k` (there is another rack, and only
 * the first replica, in rack k, has been placed, so every such node is
 * free). */
static size_t hdfs_other_rack(struct hdfs *h, uint32_t k)
{
	size_t lo = h->racks.start[k], size = h->racks.start[k + 1] - lo;
	size_t i = (size_t)locus_rng_below(h->rng, h->n_nodes - size);

	if (i >= lo)
		i += size;
	return h->racks.by_rack[i];
}

/* Replicas after the third: random free nodes, at most `cap` per rack. If
 * every free node is in a full rack, the cap rises to one above the least
 * loaded rack that still has a free node, the smallest relaxation that
 * allows a choice. */
static size_t hdfs_further(struct hdfs *h, size_t cap)
{
	long v = hdfs_pick(h, NULL, h->n_nodes, cap);

	if (v < 0) {
		size_t least = SIZE_MAX;

		for (size_t i = 0; i < h->n_nodes; i++) {
			if (h->used[i] == h->stamp)
				continue;
			if (h->rack_load[h->racks.of_node[i]] < least)
				least = h->rack_load[h->racks.of_node[i]];
		}
		v = hdfs_pick(h, NULL, h->n_nodes, least + 1);
	}
	return (size_t)v;
}

static int place_hdfs(const struct locus_platform *p, size_t n_chunks, unsigned r, long writer,
		      struct locus_rng *rng, uint32_t *out)
{
	struct hdfs h = {.n_nodes = p->n_nodes, .rng = rng};
	size_t cap;
	int rc = racks_init(&h.racks, p);

	if (rc)
		return rc;
	h.used = locus__calloc(p->n_nodes, sizeof *h.used);
	h.rack_load = locus__calloc(h.racks.n, sizeof *h.rack_load);
	if (!h.used || !h.rack_load) {
		rc = LOCUS_ENOMEM;
		goto out;
	}

	/* The cap HDFS's BlockPlacementPolicyDefault applies to the replicas
	 * of one block: (r - 1) / racks + 2 per rack. */
	cap = (r - 1) / h.racks.n + 2;

	for (size_t c = 0; c < n_chunks; c++) {
		h.stamp = c + 1;
		h.row = out + c * r;
		h.filled = 0;

		/* First: the writer's node, else any node. */
		hdfs_take(&h,
			  writer >= 0 ? (size_t)writer : (size_t)locus_rng_below(rng, p->n_nodes));

		/* Second: another rack, or any other node when there is one
		 * rack. */
		if (r >= 2) {
			uint32_t k0 = h.racks.of_node[h.row[0]];

			if (h.racks.n > 1)
				hdfs_take(&h, hdfs_other_rack(&h, k0));
			else
				hdfs_take(&h, (size_t)hdfs_pick(&h, NULL, p->n_nodes, SIZE_MAX));
		}

		/* Third: another node of the second's rack, else any free
		 * node. */
		if (r >= 3) {
			uint32_t k1 = h.racks.of_node[h.row[1]];
			size_t lo = h.racks.start[k1];
			long v = hdfs_pick(&h, h.racks.by_rack + lo, h.racks.start[k1 + 1] - lo,
					   SIZE_MAX);

			if (v < 0)
				v = hdfs_pick(&h, NULL, p->n_nodes, SIZE_MAX);
			hdfs_take(&h, (size_t)v);
		}

		while (h.filled < r)
			hdfs_take(&h, hdfs_further(&h, cap));

		for (size_t j = 0; j < r; j++)
			h.rack_load[h.racks.of_node[h.row[j]]] = 0;
	}
out:
	free(h.used);
	free(h.rack_load);
	racks_fini(&h.racks);
	return rc;
}

/* ---- random ------------------------------------------------------------- */

/*
 * A partial Fisher-Yates shuffle of a permutation of the nodes gives r
 * distinct nodes, each ordered r-tuple equally likely, whatever order the
 * permutation was left in by the previous chunk; so one permutation serves
 * all chunks and each chunk costs O(r).
 */
static int place_random(const struct locus_platform *p, size_t n_chunks, unsigned r,
			struct locus_rng *rng, uint32_t *out)
{
	size_t n = p->n_nodes;
	uint32_t *perm = locus__calloc(n, sizeof *perm);

	if (!perm)
		return LOCUS_ENOMEM;
	for (size_t i = 0; i < n; i++)
		perm[i] = (uint32_t)i;
	for (size_t c = 0; c < n_chunks; c++) {
		for (size_t j = 0; j < r; j++) {
			size_t k = j + (size_t)locus_rng_below(rng, n - j);
			uint32_t t = perm[j];

			perm[j] = perm[k];
			perm[k] = t;
			out[c * r + j] = perm[j];
		}
	}
	free(perm);
	return 0;
}

/* ---- skewed ------------------------------------------------------------- */

/* Population standard deviation of replicas per node. */
static double counts_std(const size_t *counts, size_t n)
{
	double mean = 0, var = 0;

	for (size_t i = 0; i < n; i++)
		mean += (double)counts[i];
	mean /= (double)n;
	for (size_t i = 0; i < n; i++)
		var += ((double)counts[i] - mean) * ((double)counts[i] - mean);
	return sqrt(var / (double)n);
}

/*
 * Target replicas per node: normal deviates standardised to mean 0 and
 * population std 1 (so the spread before rounding is exactly the target,
 * not a random draw around it), scaled by `sd` around the mean M, rounded
 * and clamped to [0, n_chunks] (a node holds at most one replica of a
 * chunk).
 *
 * The rounded counts rarely sum to n_chunks * r. Single +-1 steps repair
 * the total, each on a node drawn uniformly among those the step keeps in
 * range, in rounds: no node takes a second step before every eligible node
 * took one, so the repair moves the spread as little as it can (with
 * sd = 0 every count ends at floor(M) or ceil(M)).
 */
static int skewed_counts(size_t n, size_t n_chunks, size_t total, double sd, struct locus_rng *rng,
			 size_t *counts)
{
	double *z = locus__calloc(n, sizeof *z);
	uint32_t *cand = locus__calloc(n, sizeof *cand);
	double mean = 0, var = 0, m = (double)total / (double)n;
	size_t sum = 0, n_elig = 0, n_round;
	int up;

	if (!z || !cand) {
		free(z);
		free(cand);
		return LOCUS_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		z[i] = locus_rng_normal(rng);
		mean += z[i];
	}
	mean /= (double)n;
	for (size_t i = 0; i < n; i++)
		var += (z[i] - mean) * (z[i] - mean);
	var /= (double)n;

	for (size_t i = 0; i < n; i++) {
		double s = var > 0 ? (z[i] - mean) / sqrt(var) : 0;
		double v = round(m + sd * s);

		if (v < 0)
			v = 0;
		if (v > (double)n_chunks)
			v = (double)n_chunks;
		counts[i] = (size_t)v;
		sum += counts[i];
	}

	/*
	 * cand[0 .. n_elig) are the nodes a step in the needed direction
	 * keeps within the clamp; cand[0 .. n_round) those not yet stepped
	 * in this round. Feasible because total <= n * n_chunks: while the
	 * sum is short some node is below n_chunks, while it is over some
	 * node is above 0.
	 */
	up = sum < total;
	for (size_t i = 0; i < n; i++)
		if (up ? counts[i] < n_chunks : counts[i] > 0)
			cand[n_elig++] = (uint32_t)i;
	n_round = n_elig;
	while (sum != total) {
		size_t k = (size_t)locus_rng_below(rng, n_round);
		uint32_t v = cand[k];

		if (up) {
			counts[v]++;
			sum++;
		} else {
			counts[v]--;
			sum--;
		}
		cand[k] = cand[--n_round];
		cand[n_round] = v;
		if (up ? counts[v] == n_chunks : counts[v] == 0) {
			cand[n_round] = cand[--n_elig];
			cand[n_elig] = v;
		}
		if (n_round == 0)
			n_round = n_elig;
	}
	free(z);
	free(cand);
	return 0;
}

static int row_has(const uint32_t *row, unsigned r, uint32_t v)
{
	for (unsigned j = 0; j < r; j++)
		if (row[j] == v)
			return 1;
	return 0;
}

/* Number of bits needed to write x: the log2 factor of the mixing length. */
static unsigned bit_length(size_t x)
{
	unsigned b = 0;

	while (x) {
		b++;
		x >>= 1;
	}
	return b;
}

/*
 * Gives node v exactly counts[v] replicas with no chunk holding a node
 * twice.
 *
 * Start: lay the replica slots out node after node (nodes in random order)
 * and deal slot k to chunk k mod n_chunks. A node's slots are consecutive
 * and at most n_chunks, so they land in distinct chunks, and every chunk
 * gets exactly r. That layout is valid but structured: a node shares chunks
 * with the same few neighbours in the deal. For r > 1, random switches
 * remove the structure: pick two replicas (chunk a holds x, chunk b holds
 * y) and exchange them when neither chunk would hold a node twice. Each
 * switch keeps every count and the no-duplicate rule, so the result is
 * valid at every step and the number of switches is fixed in advance:
 * total * log2(total) / 2 attempts, about the length a random-transposition
 * shuffle needs to mix. Last, the chunks and the replicas within each
 * chunk are shuffled, which for r = 1 alone gives a uniformly random
 * assignment with these counts.
 */
static int skewed_assign(size_t n, size_t n_chunks, unsigned r, const size_t *counts,
			 struct locus_rng *rng, uint32_t *out)
{
	size_t total = n_chunks * r;
	uint32_t *order = locus__calloc(n, sizeof *order);
	size_t k = 0;

	if (!order)
		return LOCUS_ENOMEM;
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	locus_rng_shuffle(rng, order, n, sizeof *order);
	for (size_t i = 0; i < n; i++) {
		for (size_t t = 0; t < counts[order[i]]; t++, k++)
			out[(k % n_chunks) * r + k / n_chunks] = order[i];
	}
	free(order);

	if (r > 1) {
		size_t switches = total / 2 * bit_length(total);

		for (size_t s = 0; s < switches; s++) {
			size_t a = (size_t)locus_rng_below(rng, total);
			size_t b = (size_t)locus_rng_below(rng, total);
			uint32_t *ra = out + a / r * r, *rb = out + b / r * r;
			uint32_t x = out[a], y = out[b];

			if (ra == rb || x == y || row_has(ra, r, y) || row_has(rb, r, x))
				continue;
			out[a] = y;
			out[b] = x;
		}
	}
	locus_rng_shuffle(rng, out, n_chunks, r * sizeof *out);
	if (r > 1) {
		for (size_t c = 0; c < n_chunks; c++)
			locus_rng_shuffle(rng, out + c * r, r, sizeof *out);
	}
	return 0;
}

static int place_skewed(const struct locus_platform *p, size_t n_chunks, unsigned r, double sd,
			struct locus_rng *rng, uint32_t *out, struct locus_error *err)
{
	size_t n = p->n_nodes, total = n_chunks * r;
	double m = (double)total / (double)n;
	/* The widest spread counts in [0, n_chunks] with mean m can have:
	 * every node at 0 or at n_chunks. */
	double widest = sqrt(m * ((double)n_chunks - m));
	size_t *counts;
	int rc;

	if (sd > widest * (1 + 1e-12))
		return locus__err(err, LOCUS_ERANGE, NULL, 0, 0,
				  "skew_std %g is larger than the widest spread possible "
				  "(%g) for %zu replicas over %zu nodes",
				  sd, widest, total, n);
	counts = locus__calloc(n, sizeof *counts);
	if (!counts)
		return LOCUS_ENOMEM;
	rc = skewed_counts(n, n_chunks, total, sd, rng, counts);
	if (!rc)
		rc = skewed_assign(n, n_chunks, r, counts, rng, out);
	if (!rc)
		locus_log(LOCUS_LOG_PLACE,
			  "skewed: %zu replicas on %zu nodes, mean %.3f, target std %.3f, "
			  "measured std %.3f",
			  total, n, m, sd, counts_std(counts, n));
	free(counts);
	return rc;
}

/* ---- entry point -------------------------------------------------------- */

void locus_place_options_init(struct locus_place_options *o)
{
	*o = (struct locus_place_options){
	    .version = LOCUS_PLACE_OPTIONS_VERSION, .policy = LOCUS_PLACE_HDFS, .replicas = 3};
}

int locus_place(const struct locus_platform *p, size_t n_chunks,
		const struct locus_place_options *opt, uint32_t *out, struct locus_error *err)
{
	struct locus_rng rng;
	long writer = -1;
	unsigned r;
	int rc = LOCUS_EINVAL;

	if (!p || !opt || (!out && n_chunks > 0))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "placement needs a platform, options and an output array");
	if (locus__check_version(opt->version, LOCUS_PLACE_OPTIONS_VERSION, "locus_place_options",
				 err))
		return LOCUS_EINVAL;
	if (p->n_nodes == 0)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "the platform has no node to place replicas on");
	if (p->n_nodes > UINT32_MAX)
		return locus__err(err, LOCUS_ERANGE, NULL, 0, 0,
				  "the platform has %zu nodes, more than node ids can name",
				  p->n_nodes);
	r = opt->replicas;
	if (r < 1)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "replicas must be at least 1");
	if (r > p->n_nodes)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "%u replicas need %u distinct nodes; the platform has %zu", r, r,
				  p->n_nodes);
	if ((unsigned)opt->policy >= LOCUS__ARRAY_LEN(policy_names))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "unknown placement policy %d",
				  (int)opt->policy);
	if (!(opt->skew_std >= 0) || isinf(opt->skew_std))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "skew_std must be a finite number >= 0, not %g", opt->skew_std);
	if (opt->writer) {
		writer = locus_platform_find(p, opt->writer);
		if (writer < 0)
			return locus__err(err, LOCUS_ENOENT, NULL, 0, 0,
					  "writer '%s' is not a node of the platform", opt->writer);
	}
	if (n_chunks > SIZE_MAX / sizeof *out / r)
		return locus__err(err, LOCUS_ERANGE, NULL, 0, 0,
				  "%zu chunks of %u replicas are too many", n_chunks, r);
	if (n_chunks == 0)
		return 0;

	locus_rng_init(&rng, opt->seed);
	switch (opt->policy) {
	case LOCUS_PLACE_HDFS:
		rc = place_hdfs(p, n_chunks, r, writer, &rng, out);
		break;
	case LOCUS_PLACE_RANDOM:
		rc = place_random(p, n_chunks, r, &rng, out);
		break;
	case LOCUS_PLACE_SKEWED:
		rc = place_skewed(p, n_chunks, r, opt->skew_std, &rng, out, err);
		break;
	}
	if (rc == LOCUS_ENOMEM)
		return locus__err(err, rc, NULL, 0, 0,
				  "out of memory placing %zu chunks on %zu nodes", n_chunks,
				  p->n_nodes);
	return rc;
}

int locus_place_catalog(struct locus_catalog **out, const struct locus_platform *p,
			const char *dataset, size_t n_chunks, uint64_t chunk_size,
			const struct locus_place_options *opt, struct locus_error *err)
{
	struct locus_catalog *cat = NULL;
	uint32_t *nodes;
	int rc;

	*out = NULL;
	if (!opt || opt->replicas == 0 || opt->replicas > p->n_nodes)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "replicas must be between 1 and the number of nodes (%zu)",
				  p->n_nodes);
	if (n_chunks > SIZE_MAX / opt->replicas / sizeof *nodes)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	nodes = locus__calloc(n_chunks ? n_chunks * opt->replicas : 1, sizeof *nodes);
	if (!nodes)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	rc = locus_place(p, n_chunks, opt, nodes, err);
	if (!rc && locus_catalog_create(&cat))
		rc = locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	for (size_t i = 0; !rc && i < p->n_nodes; i++)
		if (locus_catalog_add_host(cat, p->nodes[i].name, p->nodes[i].rack) != (long)i)
			rc = locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	if (!rc && locus_catalog_add_dataset(cat, dataset) != 0)
		rc =
		    locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "cannot add dataset \"%s\"", dataset);
	for (size_t c = 0; !rc && c < n_chunks; c++)
		if (locus_catalog_add_chunk(cat, 0, chunk_size, nodes + c * opt->replicas,
					    opt->replicas, 0) < 0)
			rc = locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	free(nodes);
	if (rc) {
		locus_catalog_destroy(cat);
		return rc;
	}
	*out = cat;
	return 0;
}
