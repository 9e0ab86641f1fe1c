/*
 * Speed of max-min fair sharing (src/sim/share.c) on the simulator's
 * common shapes, in closed loops: each worker starts its next flow when
 * its previous one completes (after a think time, when there is one).
 *
 *   disks     327,680 reads over 32,768 disks of 100 MB/s, 10 per worker
 *             of 64 MB, 90 % from the worker's own disk, 10 % from another
 *             one; exponential compute (mean 1 s) between reads
 *   star      8,192 receivers fetch 10 files of 1 MB each (81,920 flows)
 *             over a 1.25 GB/s master link and their own 125 MB/s link,
 *             without think time and with 1 s; SimGrid took 242 s for it
 *   star-8    the same with receiver links of 8 speeds (8 node types)
 *   star-all  receiver links all of different speeds: every flow is its
 *             own class, the worst case (1,024 receivers; 8,192 with --all)
 *   cluster   nodes with a disk (100 MB/s) and two links (125 MB/s), 4 or 32
 *             workers each, every read of 64 MB from a random node: the
 *             most coupled sharing (1,024 nodes of 32 with --all)
 *
 * Prints flows/s, seconds and filling rounds per event for each case.
 * make bench runs it; build/bench_share --all adds the slowest cases.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "locus/heap.h"
#include "locus/rng.h"
#include "sim/share.h"

struct timer {
	double t;
	uint64_t seq;
	uint32_t worker;
};

static int timer_cmp(const void *a, const void *b)
{
	const struct timer *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

struct bench {
	const char *name;
	size_t workers;
	unsigned per; /* flows per worker */
	double think; /* seconds between flows; < 0: exponential, mean -think */
	double bytes;
	/* Resources of worker w's next flow. */
	unsigned (*route)(struct bench *b, uint32_t w, uint32_t *res);
	struct locus_rng rng;
	size_t n_res;
	uint32_t ppn; /* cluster: workers per node */
};

static unsigned route_disk(struct bench *b, uint32_t w, uint32_t *res)
{
	res[0] = w;
	if (locus_rng_below(&b->rng, 10) == 0)
		res[0] = (uint32_t)locus_rng_below(&b->rng, b->n_res);
	return 1;
}

/* Worker w of a cluster of nodes with `ppn` workers each (resources: disk
 * 3k, outgoing link 3k+1, incoming link 3k+2 of node k) reads from a
 * random node: remote unless it drew its own. */
static unsigned route_cluster(struct bench *b, uint32_t w, uint32_t *res)
{
	uint32_t nodes = (uint32_t)(b->n_res / 3), me = w / b->ppn;
	uint32_t src = (uint32_t)locus_rng_below(&b->rng, nodes);
	res[0] = 3 * src;
	if (src == me)
		return 1;
	res[1] = 3 * src + 1;
	res[2] = 3 * me + 2;
	return 3;
}

static unsigned route_star(struct bench *b, uint32_t w, uint32_t *res)
{
	res[0] = 0;
	res[1] = 1 + w;
	return 2;
}

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int run(struct bench *b, const double *capacity)
{
	struct locus__share *s;
	struct locus_heap timers;
	unsigned *left = calloc(b->workers, sizeof *left);
	if (!left || locus__share_create(&s, b->n_res, capacity) ||
	    locus_heap_init(&timers, sizeof(struct timer), timer_cmp))
		return 1;
	locus_rng_init(&b->rng, 1);
	double t0 = seconds(), now = 0;
	uint64_t seq = 0, flows = 0;
	size_t peak = 0;
	uint32_t res[LOCUS__SHARE_MAX_RES];
	for (uint32_t w = 0; w < b->workers; w++) {
		left[w] = b->per - 1;
		unsigned n = b->route(b, w, res);
		if (locus__share_start(s, 0, res, n, 0, b->bytes, w))
			return 1;
	}
	for (;;) {
		double tc = locus__share_next(s);
		const struct timer *top = locus_heap_peek(&timers);
		double tt = top ? top->t : INFINITY;
		uint32_t w;
		if (tc == INFINITY && tt == INFINITY)
			break;
		if (locus__share_count(s) > peak)
			peak = locus__share_count(s);
		if (tc <= tt) {
			uint64_t u;
			if (locus__share_pop(s, tc, &u) != 1)
				return 1;
			flows++;
			now = tc;
			w = (uint32_t)u;
			if (!left[w])
				continue;
			left[w]--;
			if (b->think != 0) {
				double d = b->think > 0 ? b->think
							: locus_rng_exponential(&b->rng, -b->think);
				struct timer x = {now + d, seq++, w};
				if (locus_heap_push(&timers, &x))
					return 1;
				continue;
			}
		} else {
			struct timer x;
			locus_heap_pop(&timers, &x);
			now = x.t;
			w = x.worker;
		}
		unsigned n = b->route(b, w, res);
		if (locus__share_start(s, now, res, n, 0, b->bytes, w))
			return 1;
	}
	double wall = seconds() - t0;
	uint64_t rounds, grown, filled;
	locus__share_stats(s, &rounds, &grown, &filled);
	printf("%-9s %6zu workers %7llu flows  think %-4s  peak %5zu running  "
	       "simulated %9.3f s  wall %7.4f s  %10.0f flows/s  rounds/event %.2f  classes/round "
	       "%.0f\n",
	       b->name, b->workers, (unsigned long long)flows,
	       b->think == 0  ? "0"
	       : b->think > 0 ? "1 s"
			      : "exp",
	       peak, now, wall, (double)flows / wall, (double)rounds / (2.0 * (double)flows),
	       rounds ? (double)filled / (double)rounds : 0);
	locus_heap_fini(&timers);
	locus__share_destroy(s);
	free(left);
	return 0;
}

/* A cluster of `nodes` nodes with `ppn` workers each, every read from a
 * random node: fifo's traffic, the most coupled sharing there is. */
static int cluster(size_t nodes, uint32_t ppn)
{
	double *cap = malloc(3 * nodes * sizeof *cap);
	if (!cap)
		return 1;
	for (size_t i = 0; i < nodes; i++) {
		cap[3 * i] = 1e8;
		cap[3 * i + 1] = cap[3 * i + 2] = 1.25e8;
	}
	struct bench b = {.name = "cluster",
			  .workers = nodes * ppn,
			  .per = 10,
			  .think = -1.0,
			  .bytes = 64e6,
			  .route = route_cluster,
			  .n_res = 3 * nodes,
			  .ppn = ppn};
	int rc = run(&b, cap);
	free(cap);
	return rc;
}

/* A star of n receivers whose links take their speed from speed(i). */
static int star(const char *name, size_t n, double think, double (*speed)(size_t i, size_t n))
{
	double *cap = malloc((n + 1) * sizeof *cap);
	if (!cap)
		return 1;
	cap[0] = 1.25e9;
	for (size_t i = 0; i < n; i++)
		cap[1 + i] = speed(i, n);
	struct bench b = {.name = name,
			  .workers = n,
			  .per = 10,
			  .think = think,
			  .bytes = 1e6,
			  .route = route_star,
			  .n_res = n + 1};
	int rc = run(&b, cap);
	free(cap);
	return rc;
}

static double same_speed(size_t i, size_t n)
{
	return 1.25e8;
}

static double eight_speeds(size_t i, size_t n)
{
	return 1.25e8 * (1 + (double)(i % 8) / 8);
}

static double all_speeds(size_t i, size_t n)
{
	return 1.25e8 * (1 + (double)i / (double)n);
}

int main(int argc, char **argv)
{
	int all = argc > 1 && strcmp(argv[1], "--all") == 0;
	enum { DISKS = 32768 };
	static double disk[DISKS];
	for (size_t i = 0; i < DISKS; i++)
		disk[i] = 1e8;
	struct bench d = {.name = "disks",
			  .workers = DISKS,
			  .per = 10,
			  .think = -1.0,
			  .bytes = 64e6,
			  .route = route_disk,
			  .n_res = DISKS};
	if (run(&d, disk))
		return 1;
	if (star("star", 8192, 0, same_speed) || star("star", 8192, 1, same_speed) ||
	    star("star-8", 8192, 0, eight_speeds) || star("star-8", 8192, 1, eight_speeds) ||
	    star("star-all", 1024, 0, all_speeds) || star("star-all", 1024, 1, all_speeds) ||
	    (all && star("star-all", 8192, 1, all_speeds)))
		return 1;
	if (cluster(2048, 4) || cluster(256, 32) || (all && cluster(1024, 32)))
		return 1;
	return 0;
}
