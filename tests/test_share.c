/* Max-min fair sharing (sim/share.h): hand-computed cases, edge cases, and
 * random scenarios against a naive reference simulation. */
#include <math.h>
#include <stdint.h>

#include "locus/error.h"
#include "locus/rng.h"
#include "sim/share.h"
#include "test.h"

/* Relative agreement asked of every time and rate. */
#define REL		1e-9
#define CHECK_REL(a, b) CHECK_NEAR((a), (b), REL *fabs((double)(b)) + 1e-12)

static int start1(struct locus__share *s, double now, uint32_t r, double cap, double bytes,
		  uint64_t user)
{
	return locus__share_start(s, now, &r, 1, cap, bytes, user);
}

static int start2(struct locus__share *s, double now, uint32_t r0, uint32_t r1, double cap,
		  double bytes, uint64_t user)
{
	uint32_t r[2] = {r0, r1};
	return locus__share_start(s, now, r, 2, cap, bytes, user);
}

/* Pops the next completion; *t gets its time. Returns the user or -1. */
static long long pop_next(struct locus__share *s, double *t)
{
	uint64_t u;
	*t = locus__share_next(s);
	if (locus__share_pop(s, *t, &u) != 1)
		return -1;
	return (long long)u;
}

TEST(one_flow_gets_full_capacity)
{
	struct locus__share *s;
	double cap[1] = {100};
	CHECK_EQ_INT(locus__share_create(&s, 1, cap), 0);
	CHECK(locus__share_next(s) == INFINITY);
	CHECK_EQ_INT(start1(s, 0, 0, 0, 500, 7), 0);
	CHECK_EQ_INT(locus__share_count(s), 1);
	CHECK(locus__share_rate(s, 7) == 100);
	CHECK_REL(locus__share_next(s), 5.0);
	uint64_t u = 0;
	CHECK_EQ_INT(locus__share_pop(s, 4.9, &u), 0);
	CHECK_EQ_INT(locus__share_pop(s, 5.0, &u), 1);
	CHECK_EQ_INT(u, 7);
	CHECK_EQ_INT(locus__share_count(s), 0);
	CHECK(locus__share_next(s) == INFINITY);
	CHECK(locus__share_rate(s, 7) == -1);
	CHECK_EQ_INT(locus__share_pop(s, 100, &u), 0);
	locus__share_destroy(s);
}

TEST(two_flows_share_equally_and_survivor_speeds_up)
{
	struct locus__share *s;
	double cap[1] = {100};
	CHECK_EQ_INT(locus__share_create(&s, 1, cap), 0);
	CHECK_EQ_INT(start1(s, 0, 0, 0, 100, 1), 0);
	CHECK_EQ_INT(start1(s, 0, 0, 0, 300, 2), 0);
	CHECK(locus__share_rate(s, 1) == 50);
	CHECK(locus__share_rate(s, 2) == 50);
	double t;
	/* 1 is done at 2; 2 then has 200 left at 100/s. */
	CHECK_EQ_INT(pop_next(s, &t), 1);
	CHECK_REL(t, 2.0);
	CHECK(locus__share_rate(s, 2) == 100);
	CHECK_EQ_INT(pop_next(s, &t), 2);
	CHECK_REL(t, 4.0);
	locus__share_destroy(s);
}

TEST(staggered_start)
{
	/* A alone from 0 to 5 (50 of 100 bytes); B's 20 bytes at 5/s end at
	 * 9; A's last 30 bytes at 10/s end at 12. */
	struct locus__share *s;
	double cap[1] = {10};
	CHECK_EQ_INT(locus__share_create(&s, 1, cap), 0);
	CHECK_EQ_INT(start1(s, 0, 0, 0, 100, 'A'), 0);
	CHECK_REL(locus__share_next(s), 10.0);
	CHECK_EQ_INT(start1(s, 5, 0, 0, 20, 'B'), 0);
	CHECK(locus__share_rate(s, 'A') == 5);
	double t;
	CHECK_EQ_INT(pop_next(s, &t), 'B');
	CHECK_REL(t, 9.0);
	CHECK_EQ_INT(pop_next(s, &t), 'A');
	CHECK_REL(t, 12.0);
	locus__share_destroy(s);
}

TEST(cap_leaves_the_rest)
{
	/* Capacity 100, caps 30 and none: 30 and 70. The capped flow's 30
	 * bytes end at 1; the other has 70 left, at 100/s: 1.7. */
	struct locus__share *s;
	double cap[1] = {100};
	CHECK_EQ_INT(locus__share_create(&s, 1, cap), 0);
	CHECK_EQ_INT(start1(s, 0, 0, 30, 30, 1), 0);
	CHECK_EQ_INT(start1(s, 0, 0, INFINITY, 140, 2), 0);
	CHECK_REL(locus__share_rate(s, 1), 30);
	CHECK_REL(locus__share_rate(s, 2), 70);
	double t;
	CHECK_EQ_INT(pop_next(s, &t), 1);
	CHECK_REL(t, 1.0);
	CHECK_REL(locus__share_rate(s, 2), 100);
	CHECK_EQ_INT(pop_next(s, &t), 2);
	CHECK_REL(t, 1.7);
	locus__share_destroy(s);
}

TEST(several_caps_on_one_resource)
{
	/* Caps 10 and 20 freeze first; the two uncapped flows split 70. */
	struct locus__share *s;
	double cap[1] = {100};
	CHECK_EQ_INT(locus__share_create(&s, 1, cap), 0);
	CHECK_EQ_INT(start1(s, 0, 0, 20, 1000, 1), 0);
	CHECK_EQ_INT(start1(s, 0, 0, 0, 1000, 2), 0);
	CHECK_EQ_INT(start1(s, 0, 0, 10, 1000, 3), 0);
	CHECK_EQ_INT(start1(s, 0, 0, 0, 1000, 4), 0);
	CHECK_REL(locus__share_rate(s, 1), 20);
	CHECK_REL(locus__share_rate(s, 2), 35);
	CHECK_REL(locus__share_rate(s, 3), 10);
	CHECK_REL(locus__share_rate(s, 4), 35);
	/* A cap above the fair share does not bind: 4 flows, caps 20+ ... */
	CHECK_EQ_INT(start1(s, 0, 0, 40, 1000, 5), 0);
	/* Level: 100 - 10 - 20 = 70 over 3 flows = 23.33 < 40. */
	CHECK_REL(locus__share_rate(s, 5), 70.0 / 3);
	CHECK_REL(locus__share_rate(s, 2), 70.0 / 3);
	locus__share_destroy(s);
}

TEST(classic_three_resources)
{
	/* R0 = 12, R1 = 10, R2 = 3; a over R0 R1, b over R0, c over R1 R2,
	 * d over R2, e over R1. Filling: R2 saturates first (c = d = 1.5),
	 * then R1 ((10 - 1.5) / 2: a = e = 4.25), then R0 (b = 12 - 4.25). */
	struct locus__share *s;
	double cap[3] = {12, 10, 3};
	CHECK_EQ_INT(locus__share_create(&s, 3, cap), 0);
	CHECK_EQ_INT(start2(s, 0, 0, 1, 0, 17, 'a'), 0);
	CHECK_EQ_INT(start1(s, 0, 0, 0, 15.5, 'b'), 0);
	CHECK_EQ_INT(start2(s, 0, 2, 1, 0, 9, 'c'), 0);
	CHECK_EQ_INT(start1(s, 0, 2, 0, 12, 'd'), 0);
	CHECK_EQ_INT(start1(s, 0, 1, 0, 25.5, 'e'), 0);
	CHECK_REL(locus__share_rate(s, 'a'), 4.25);
	CHECK_REL(locus__share_rate(s, 'b'), 7.75);
	CHECK_REL(locus__share_rate(s, 'c'), 1.5);
	CHECK_REL(locus__share_rate(s, 'd'), 1.5);
	CHECK_REL(locus__share_rate(s, 'e'), 4.25);
	double t;
	/* b (15.5 at 7.75) ends at 2; nothing else changes. */
	CHECK_EQ_INT(pop_next(s, &t), 'b');
	CHECK_REL(t, 2.0);
	CHECK_REL(locus__share_rate(s, 'a'), 4.25);
	/* a (17 at 4.25) ends at 4; e then gets 10 - 1.5 = 8.5. */
	CHECK_EQ_INT(pop_next(s, &t), 'a');
	CHECK_REL(t, 4.0);
	CHECK_REL(locus__share_rate(s, 'e'), 8.5);
	/* e: 17 done by 4, 8.5 left at 8.5/s: 5. R1 is then c's alone. */
	CHECK_EQ_INT(pop_next(s, &t), 'e');
	CHECK_REL(t, 5.0);
	CHECK_REL(locus__share_rate(s, 'c'), 1.5);
	/* c: 9 at 1.5: 6. d: 9 done by 6, 3 left alone on R2 at 3/s: 7. */
	CHECK_EQ_INT(pop_next(s, &t), 'c');
	CHECK_REL(t, 6.0);
	CHECK_REL(locus__share_rate(s, 'd'), 3);
	CHECK_EQ_INT(pop_next(s, &t), 'd');
	CHECK_REL(t, 7.0);
	CHECK_EQ_INT(locus__share_count(s), 0);
	locus__share_destroy(s);
}

TEST(three_flows_finish_in_turn)
{
	/* 30, 60, 90 bytes on 90/s: 30/s each until 1; then 45/s each, the
	 * second's 30 left end at 1 + 2/3; the third's last 30 at 90/s: 2. */
	struct locus__share *s;
	double cap[1] = {90};
	CHECK_EQ_INT(locus__share_create(&s, 1, cap), 0);
	CHECK_EQ_INT(start1(s, 0, 0, 0, 30, 1), 0);
	CHECK_EQ_INT(start1(s, 0, 0, 0, 60, 2), 0);
	CHECK_EQ_INT(start1(s, 0, 0, 0, 90, 3), 0);
	double t;
	CHECK_EQ_INT(pop_next(s, &t), 1);
	CHECK_REL(t, 1.0);
	CHECK_EQ_INT(pop_next(s, &t), 2);
	CHECK_REL(t, 1.0 + 2.0 / 3);
	CHECK_EQ_INT(pop_next(s, &t), 3);
	CHECK_REL(t, 2.0);
	locus__share_destroy(s);
}

TEST(late_pop_reallocates_at_completion_time)
{
	/* 10, 20, 30 bytes on 10/s: ends at 3, 5, 6. Popping with a later
	 * `now` still gives each flow its own completion time. */
	struct locus__share *s;
	double cap[1] = {10};
	CHECK_EQ_INT(locus__share_create(&s, 1, cap), 0);
	for (int i = 1; i <= 3; i++)
		CHECK_EQ_INT(start1(s, 0, 0, 0, 10.0 * i, (uint64_t)i), 0);
	uint64_t u;
	CHECK_REL(locus__share_next(s), 3.0);
	CHECK_EQ_INT(locus__share_pop(s, 100, &u), 1);
	CHECK_EQ_INT(u, 1);
	CHECK_REL(locus__share_next(s), 5.0);
	CHECK_EQ_INT(locus__share_pop(s, 100, &u), 1);
	CHECK_EQ_INT(u, 2);
	CHECK_REL(locus__share_next(s), 6.0);
	CHECK_EQ_INT(locus__share_pop(s, 100, &u), 1);
	CHECK_EQ_INT(u, 3);
	CHECK_EQ_INT(locus__share_pop(s, 100, &u), 0);
	locus__share_destroy(s);
}

TEST(star_with_receiver_links)
{
	/* Master link 100 (resource 0), receiver links 10 (1..20). Four flows:
	 * receiver-bound at 10. Then 16 more: 100/20 = 5 each. */
	struct locus__share *s;
	double cap[21];
	cap[0] = 100;
	for (int i = 1; i <= 20; i++)
		cap[i] = 10;
	CHECK_EQ_INT(locus__share_create(&s, 21, cap), 0);
	for (uint32_t i = 1; i <= 4; i++)
		CHECK_EQ_INT(start2(s, 0, 0, i, 0, 10, i), 0);
	for (uint32_t i = 1; i <= 4; i++)
		CHECK(locus__share_rate(s, i) == 10);
	CHECK_REL(locus__share_next(s), 1.0);
	/* At 0.5 each of the four has 5 left. */
	for (uint32_t i = 5; i <= 20; i++)
		CHECK_EQ_INT(start2(s, 0.5, 0, i, 0, 10, i), 0);
	for (uint32_t i = 1; i <= 20; i++)
		CHECK_REL(locus__share_rate(s, i), 5);
	/* The first four end at 1.5, then 16 flows: 100/16 = 6.25 each, 5 of
	 * their 10 bytes left: 1.5 + 0.8 = 2.3. */
	double t;
	for (uint32_t i = 1; i <= 4; i++) {
		CHECK_EQ_INT(pop_next(s, &t), i);
		CHECK_REL(t, 1.5);
	}
	CHECK_REL(locus__share_rate(s, 5), 6.25);
	for (uint32_t i = 5; i <= 20; i++) {
		CHECK_EQ_INT(pop_next(s, &t), i);
		CHECK_REL(t, 2.3);
	}
	locus__share_destroy(s);
}

TEST(two_flows_on_one_receiver)
{
	/* Two flows to receiver 1 share its link (10) under the master (100);
	 * a third to receiver 2 gets its own 10. */
	struct locus__share *s;
	double cap[3] = {100, 10, 10};
	CHECK_EQ_INT(locus__share_create(&s, 3, cap), 0);
	CHECK_EQ_INT(start2(s, 0, 0, 1, 0, 10, 1), 0);
	CHECK_EQ_INT(start2(s, 0, 0, 1, 0, 20, 2), 0);
	CHECK_EQ_INT(start2(s, 0, 0, 2, 0, 50, 3), 0);
	CHECK_REL(locus__share_rate(s, 1), 5);
	CHECK_REL(locus__share_rate(s, 2), 5);
	CHECK_REL(locus__share_rate(s, 3), 10);
	double t;
	CHECK_EQ_INT(pop_next(s, &t), 1);
	CHECK_REL(t, 2.0);
	/* Flow 2 has receiver 1 to itself now: 10 left at 10/s. */
	CHECK_REL(locus__share_rate(s, 2), 10);
	CHECK_EQ_INT(pop_next(s, &t), 2);
	CHECK_REL(t, 3.0);
	CHECK_EQ_INT(pop_next(s, &t), 3);
	CHECK_REL(t, 5.0);
	locus__share_destroy(s);
}

TEST(zero_byte_flows_complete_at_start)
{
	struct locus__share *s;
	double cap[1] = {10};
	CHECK_EQ_INT(locus__share_create(&s, 1, cap), 0);
	CHECK_EQ_INT(start1(s, 0, 0, 0, 100, 1), 0);
	/* Two empty flows at 1, one on the busy resource, one on none. */
	CHECK_EQ_INT(start1(s, 1, 0, 0, 0, 2), 0);
	CHECK_EQ_INT(locus__share_start(s, 1, NULL, 0, 5, 0, 3), 0);
	CHECK_EQ_INT(locus__share_count(s), 3);
	CHECK(locus__share_rate(s, 1) == 10);
	CHECK(locus__share_next(s) == 1.0);
	double t;
	CHECK_EQ_INT(pop_next(s, &t), 2);
	CHECK(t == 1.0);
	CHECK_EQ_INT(pop_next(s, &t), 3);
	CHECK(t == 1.0);
	CHECK_EQ_INT(pop_next(s, &t), 1);
	CHECK_REL(t, 10.0);
	/* An empty flow alone. */
	CHECK_EQ_INT(start1(s, 12, 0, 0, 0, 4), 0);
	CHECK_EQ_INT(pop_next(s, &t), 4);
	CHECK(t == 12.0);
	locus__share_destroy(s);
}

TEST(infinite_resource)
{
	struct locus__share *s;
	double cap[2] = {INFINITY, 10};
	CHECK_EQ_INT(locus__share_create(&s, 2, cap), 0);
	/* Capped flows on an infinite resource do not meet. */
	CHECK_EQ_INT(start1(s, 0, 0, 50, 100, 1), 0);
	CHECK_EQ_INT(start1(s, 0, 0, 25, 100, 2), 0);
	CHECK(locus__share_rate(s, 1) == 50);
	CHECK(locus__share_rate(s, 2) == 25);
	/* Through the infinite one and a finite one: the finite one rules. */
	CHECK_EQ_INT(start2(s, 0, 0, 1, 0, 30, 3), 0);
	CHECK(locus__share_rate(s, 3) == 10);
	/* Uncapped on the infinite one alone: done at once. */
	CHECK_EQ_INT(start1(s, 0.5, 0, 0, 1e12, 4), 0);
	CHECK(locus__share_rate(s, 4) == INFINITY);
	double t;
	CHECK_EQ_INT(pop_next(s, &t), 4);
	CHECK(t == 0.5);
	CHECK_EQ_INT(pop_next(s, &t), 1);
	CHECK_REL(t, 2.0);
	CHECK_EQ_INT(pop_next(s, &t), 3);
	CHECK_REL(t, 3.0);
	CHECK_EQ_INT(pop_next(s, &t), 2);
	CHECK_REL(t, 4.0);
	locus__share_destroy(s);
}

TEST(flow_without_resources)
{
	struct locus__share *s;
	CHECK_EQ_INT(locus__share_create(&s, 0, NULL), 0);
	CHECK_EQ_INT(locus__share_start(s, 0, NULL, 0, 25, 100, 1), 0);
	CHECK_EQ_INT(locus__share_start(s, 0, NULL, 0, 50, 100, 2), 0);
	CHECK(locus__share_rate(s, 1) == 25);
	double t;
	CHECK_EQ_INT(pop_next(s, &t), 2);
	CHECK_REL(t, 2.0);
	CHECK_EQ_INT(pop_next(s, &t), 1);
	CHECK_REL(t, 4.0);
	/* Nothing would limit it. */
	CHECK_EQ_INT(locus__share_start(s, 5, NULL, 0, 0, 100, 3), LOCUS_EINVAL);
	CHECK_EQ_INT(locus__share_start(s, 5, NULL, 0, INFINITY, 100, 3), LOCUS_EINVAL);
	CHECK_EQ_INT(locus__share_count(s), 0);
	locus__share_destroy(s);
}

TEST(same_instant_ties_in_start_order)
{
	/* 100 equal flows from one instant end together; they come out in
	 * start order, whatever their user values. */
	struct locus__share *s;
	double cap[1] = {100};
	CHECK_EQ_INT(locus__share_create(&s, 1, cap), 0);
	for (int i = 0; i < 100; i++)
		CHECK_EQ_INT(start1(s, 0, 0, 0, 10, (uint64_t)(1000 - i)), 0);
	for (int i = 0; i < 100; i++) {
		double t;
		CHECK_EQ_INT(pop_next(s, &t), 1000 - i);
		CHECK_REL(t, 10.0);
	}
	/* Equal completion times in different classes (different disks):
	 * 40 bytes at 20/s and 20 bytes at 10/s both end at exactly 2. */
	struct locus__share *d;
	double caps[2] = {10, 20};
	CHECK_EQ_INT(locus__share_create(&d, 2, caps), 0);
	CHECK_EQ_INT(start1(d, 0, 1, 0, 40, 9), 0);
	CHECK_EQ_INT(start1(d, 0, 0, 0, 20, 8), 0);
	double t;
	CHECK_EQ_INT(pop_next(d, &t), 9);
	CHECK(t == 2.0);
	CHECK_EQ_INT(pop_next(d, &t), 8);
	CHECK(t == 2.0);
	locus__share_destroy(d);
	locus__share_destroy(s);
}

TEST(invalid_arguments)
{
	struct locus__share *s = NULL;
	double bad[2] = {10, 0};
	CHECK_EQ_INT(locus__share_create(&s, 2, bad), LOCUS_EINVAL);
	bad[1] = NAN;
	CHECK_EQ_INT(locus__share_create(&s, 2, bad), LOCUS_EINVAL);
	bad[1] = -1;
	CHECK_EQ_INT(locus__share_create(&s, 2, bad), LOCUS_EINVAL);
	CHECK_EQ_INT(locus__share_create(&s, 2, NULL), LOCUS_EINVAL);
	double cap[2] = {10, 10};
	CHECK_EQ_INT(locus__share_create(&s, 2, cap), 0);
	uint32_t r[5] = {0, 1, 0, 1, 0};
	CHECK_EQ_INT(locus__share_start(s, 0, r, 3, 0, 1, 1), LOCUS_EINVAL); /* repeated */
	CHECK_EQ_INT(locus__share_start(s, 0, r, 5, 0, 1, 1), LOCUS_EINVAL); /* too many */
	uint32_t out[1] = {2};
	CHECK_EQ_INT(locus__share_start(s, 0, out, 1, 0, 1, 1), LOCUS_EINVAL);
	CHECK_EQ_INT(locus__share_start(s, 0, r, 1, 0, -1, 1), LOCUS_EINVAL);
	CHECK_EQ_INT(locus__share_start(s, 0, r, 1, 0, NAN, 1), LOCUS_EINVAL);
	CHECK_EQ_INT(locus__share_start(s, 0, r, 1, 0, INFINITY, 1), LOCUS_EINVAL);
	CHECK_EQ_INT(locus__share_start(s, 0, r, 1, -5, 1, 1), LOCUS_EINVAL);
	CHECK_EQ_INT(locus__share_start(s, NAN, r, 1, 0, 1, 1), LOCUS_EINVAL);
	CHECK_EQ_INT(locus__share_count(s), 0);
	CHECK(locus__share_next(s) == INFINITY);
	/* Still usable. */
	CHECK_EQ_INT(locus__share_start(s, 0, r, 2, 0, 10, 1), 0);
	CHECK_REL(locus__share_next(s), 1.0);
	locus__share_destroy(s);
	locus__share_destroy(NULL);
}

/* ---- random scenarios against a naive reference ---------------------- */

#define MAX_FLOWS 64
#define MAX_RES	  24

struct sflow {
	double start, bytes, cap; /* cap: 0 or INFINITY for none */
	unsigned n;
	uint32_t res[4];
};

struct scen {
	size_t n_res;
	double capacity[MAX_RES];
	size_t n_flows;
	struct sflow f[MAX_FLOWS]; /* by start time; user value = index */
};

static double pick(struct locus_rng *r, const double *v, size_t n)
{
	return v[locus_rng_below(r, n)];
}

/* Scenarios of four shapes: any flows over any resources; a star (every
 * flow crosses resource 0 and one other, as a master link and receiver
 * links); few flows, so caps and lone resources often bind; a cluster
 * (nodes with a disk, an outgoing and an incoming link; reads local to a
 * disk or remote over source disk, source link and reader link), where
 * the region of an event must often grow. Half draw from a few round
 * values, so classes, equal rates and simultaneous events are common;
 * half from continuous ones. */
static void scen_make(struct scen *sc, uint64_t seed)
{
	static const double caps[] = {10, 40, 100}, fcaps[] = {5, 10, 15}, sizes[] = {10, 20, 50},
			    most[] = {48, 48, 6, MAX_FLOWS};
	struct locus_rng r;
	locus_rng_init(&r, seed);
	int discrete = (int)locus_rng_below(&r, 2);
	int shape = (int)locus_rng_below(&r, 4);
	sc->n_res = 1 + locus_rng_below(&r, 7);
	if (shape == 3)
		sc->n_res = 3 * (2 + locus_rng_below(&r, MAX_RES / 3 - 1));
	if (shape == 1 && sc->n_res < 3)
		sc->n_res = 3;
	for (size_t i = 0; i < sc->n_res; i++) {
		if (locus_rng_below(&r, 10) == 0)
			sc->capacity[i] = INFINITY;
		else
			sc->capacity[i] =
			    discrete ? pick(&r, caps, 3) : 1 + 99 * locus_rng_uniform(&r);
	}
	sc->n_flows = 1 + locus_rng_below(&r, (uint64_t)most[shape]);
	double t = 0;
	for (size_t i = 0; i < sc->n_flows; i++) {
		struct sflow *f = &sc->f[i];
		if (locus_rng_below(&r, 3))
			t += discrete ? (double)locus_rng_below(&r, 3)
				      : locus_rng_exponential(&r, 2.0);
		f->start = t;
		if (shape == 1) {
			f->n = 2;
			f->res[0] = 0;
			f->res[1] = 1 + (uint32_t)locus_rng_below(&r, sc->n_res - 1);
		} else if (shape == 3) {
			/* Node k has disk 3k, outgoing link 3k+1, incoming 3k+2. */
			uint32_t nodes = (uint32_t)(sc->n_res / 3);
			uint32_t src = (uint32_t)locus_rng_below(&r, nodes);
			uint32_t dst = (uint32_t)locus_rng_below(&r, nodes);
			f->res[0] = 3 * src;
			f->n = 1;
			if (dst != src) {
				f->res[1] = 3 * src + 1;
				f->res[2] = 3 * dst + 2;
				f->n = 3;
			}
		} else {
			f->n = (unsigned)locus_rng_below(&r, 5);
			if (f->n > sc->n_res)
				f->n = (unsigned)sc->n_res;
		}
		for (unsigned j = 0; shape != 1 && shape != 3 && j < f->n; j++) {
			uint32_t x;
			int dup;
			do {
				x = (uint32_t)locus_rng_below(&r, sc->n_res);
				dup = 0;
				for (unsigned k = 0; k < j; k++)
					dup |= f->res[k] == x;
			} while (dup);
			f->res[j] = x;
		}
		unsigned capped = (unsigned)locus_rng_below(&r, shape == 3 ? 6 : 3);
		if (capped == 0 || f->n == 0)
			f->cap = discrete ? pick(&r, fcaps, 3) : 0.5 + 50 * locus_rng_uniform(&r);
		else
			f->cap = capped == 1 ? 0 : INFINITY;
		if (locus_rng_below(&r, 20) == 0)
			f->bytes = 0;
		else
			f->bytes =
			    discrete ? pick(&r, sizes, 3) : 0.1 + 200 * locus_rng_uniform(&r);
	}
}

static double flow_cap(const struct sflow *f)
{
	return f->cap > 0 ? f->cap : INFINITY;
}

/* Naive progressive filling over the flows with active[i] set: raise
 * every unfrozen rate by the largest step no resource or cap forbids,
 * freeze the flows of saturated resources and those at their cap, again.
 * Empty flows take nothing and get an infinite rate. */
static void ref_rates(const struct scen *sc, const int *active, double *rate)
{
	int frozen[MAX_FLOWS];
	size_t left = 0;
	for (size_t i = 0; i < sc->n_flows; i++) {
		rate[i] = 0;
		frozen[i] = !active[i] || sc->f[i].bytes == 0;
		if (active[i] && sc->f[i].bytes == 0)
			rate[i] = INFINITY;
		left += !frozen[i];
	}
	while (left) {
		double step = INFINITY;
		for (size_t r = 0; r < sc->n_res; r++) {
			double used = 0;
			int open = 0;
			for (size_t i = 0; i < sc->n_flows; i++)
				for (unsigned j = 0; j < sc->f[i].n; j++)
					if (sc->f[i].res[j] == r && active[i] &&
					    sc->f[i].bytes > 0) {
						used += rate[i];
						open += !frozen[i];
					}
			if (open && (sc->capacity[r] - used) / open < step)
				step = (sc->capacity[r] - used) / open;
		}
		for (size_t i = 0; i < sc->n_flows; i++)
			if (!frozen[i] && flow_cap(&sc->f[i]) - rate[i] < step)
				step = flow_cap(&sc->f[i]) - rate[i];
		if (step == INFINITY) {
			for (size_t i = 0; i < sc->n_flows; i++)
				if (!frozen[i])
					rate[i] = INFINITY;
			break;
		}
		if (step < 0)
			step = 0;
		for (size_t i = 0; i < sc->n_flows; i++)
			if (!frozen[i])
				rate[i] += step;
		for (size_t r = 0; r < sc->n_res; r++) {
			double used = 0;
			for (size_t i = 0; i < sc->n_flows; i++)
				for (unsigned j = 0; j < sc->f[i].n; j++)
					if (sc->f[i].res[j] == r && active[i] && sc->f[i].bytes > 0)
						used += rate[i];
			if (used < sc->capacity[r] * (1 - 1e-12))
				continue;
			for (size_t i = 0; i < sc->n_flows; i++)
				for (unsigned j = 0; j < sc->f[i].n; j++)
					if (sc->f[i].res[j] == r && !frozen[i]) {
						frozen[i] = 1;
						left--;
					}
		}
		for (size_t i = 0; i < sc->n_flows; i++)
			if (!frozen[i] && rate[i] >= flow_cap(&sc->f[i]) * (1 - 1e-12)) {
				frozen[i] = 1;
				left--;
			}
	}
}

/* Naive time stepping: recompute every rate, advance to the earliest
 * start or completion, again. Completions before starts at equal times. */
static void ref_run(const struct scen *sc, double *done)
{
	int active[MAX_FLOWS] = {0};
	double rem[MAX_FLOWS], rate[MAX_FLOWS], t = 0;
	size_t next = 0;
	for (;;) {
		ref_rates(sc, active, rate);
		double tc = INFINITY;
		int first = -1;
		for (size_t i = 0; i < sc->n_flows; i++) {
			if (!active[i])
				continue;
			double ti = t + rem[i] / rate[i];
			if (first < 0 || ti < tc) {
				tc = ti;
				first = (int)i;
			}
		}
		double ts = next < sc->n_flows ? sc->f[next].start : INFINITY;
		if (first < 0 && ts == INFINITY)
			break;
		double tn = tc <= ts ? tc : ts;
		for (size_t i = 0; i < sc->n_flows; i++) {
			if (!active[i])
				continue;
			rem[i] = rate[i] == INFINITY ? 0 : rem[i] - rate[i] * (tn - t);
			if (rem[i] < 0)
				rem[i] = 0;
		}
		t = tn;
		if (tc <= ts) {
			active[first] = 0;
			done[first] = t;
		} else {
			active[next] = 1;
			rem[next] = sc->f[next].bytes;
			next++;
		}
	}
}

/* Rounds in which an event's region had to grow, over all runs. */
static uint64_t share_rounds_grown;

/* Runs the scenario through the share. Records each flow's completion
 * time and the completion sequence. With check_rates, compares every
 * running flow's rate with the reference after each event. Returns the
 * number of problems (and reports them). */
static int share_run(const struct scen *sc, double *done, uint64_t *order, double *when,
		     int check_rates)
{
	struct locus__share *s;
	int bad = 0;
	if (locus__share_create(&s, sc->n_res, sc->capacity))
		return 1;
	int active[MAX_FLOWS] = {0};
	size_t next = 0, k = 0;
	double last = 0;
	for (;;) {
		double tc = locus__share_next(s);
		double ts = next < sc->n_flows ? sc->f[next].start : INFINITY;
		if (tc == INFINITY && ts == INFINITY)
			break;
		if (tc < last) {
			fprintf(stderr, "completion at %.17g before now %.17g\n", tc, last);
			bad++;
		}
		if (tc <= ts) {
			uint64_t u;
			if (locus__share_pop(s, tc, &u) != 1 || u >= sc->n_flows || !active[u]) {
				bad++;
				break;
			}
			active[u] = 0;
			done[u] = tc;
			order[k] = u;
			when[k++] = tc;
			last = tc;
		} else {
			const struct sflow *f = &sc->f[next];
			if (locus__share_start(s, ts, f->res, f->n, f->cap, f->bytes, next)) {
				bad++;
				break;
			}
			active[next++] = 1;
			last = ts;
		}
		if (locus__share_count(s) > sc->n_flows)
			bad++;
		if (!check_rates)
			continue;
		double rate[MAX_FLOWS];
		ref_rates(sc, active, rate);
		for (size_t i = 0; i < sc->n_flows; i++) {
			if (!active[i] || sc->f[i].bytes == 0)
				continue;
			double got = locus__share_rate(s, i);
			if (rate[i] == INFINITY ? got != INFINITY
						: !(fabs(got - rate[i]) <= REL * rate[i])) {
				fprintf(stderr, "flow %zu: rate %.17g, reference %.17g\n", i, got,
					rate[i]);
				bad++;
			}
		}
	}
	if (k != sc->n_flows)
		bad++;
	uint64_t rounds, grown, filled;
	locus__share_stats(s, &rounds, &grown, &filled);
	share_rounds_grown += grown;
	locus__share_destroy(s);
	return bad;
}

TEST(random_against_reference)
{
	static struct scen sc;
	double ref[MAX_FLOWS], got[MAX_FLOWS], when[MAX_FLOWS];
	uint64_t order[MAX_FLOWS];
	share_rounds_grown = 0;
	for (uint64_t seed = 1; seed <= 2000; seed++) {
		scen_make(&sc, seed);
		ref_run(&sc, ref);
		int bad = share_run(&sc, got, order, when, 1);
		for (size_t i = 0; i < sc.n_flows; i++)
			if (!(fabs(got[i] - ref[i]) <= REL * fabs(ref[i]) + 1e-12)) {
				fprintf(stderr, "flow %zu: done at %.17g, reference %.17g\n", i,
					got[i], ref[i]);
				bad++;
			}
		if (bad)
			fprintf(stderr, "seed %llu: %d problems\n", (unsigned long long)seed, bad);
		CHECK_EQ_INT(bad, 0);
	}
	/* The scenarios reach the region growth, not only first rounds. */
	printf("regions grown in %llu rounds\n", (unsigned long long)share_rounds_grown);
	CHECK(share_rounds_grown > 100);
}

TEST(deterministic)
{
	static struct scen sc;
	double d1[MAX_FLOWS], d2[MAX_FLOWS], w1[MAX_FLOWS], w2[MAX_FLOWS];
	uint64_t o1[MAX_FLOWS], o2[MAX_FLOWS];
	for (uint64_t seed = 1000; seed < 1050; seed++) {
		scen_make(&sc, seed);
		CHECK_EQ_INT(share_run(&sc, d1, o1, w1, 0), 0);
		CHECK_EQ_INT(share_run(&sc, d2, o2, w2, 0), 0);
		CHECK(memcmp(o1, o2, sc.n_flows * sizeof *o1) == 0);
		CHECK(memcmp(w1, w2, sc.n_flows * sizeof *w1) == 0);
	}
}

/* Flows cancelled and capacities changed at random moments: after every
 * event each running flow's rate is the reference's for the flows and
 * capacities then, and a cancelled flow's bytes left are what the rates
 * since its start leave (integrated here, step by step). */
TEST(cancel_and_capacity_against_reference)
{
	static struct scen sc;
	struct locus_rng r;
	int bad = 0;
	size_t cancels = 0, changes = 0;
	for (uint64_t seed = 1; seed <= 1500 && !bad; seed++) {
		scen_make(&sc, seed);
		locus_rng_init(&r, seed * 7919);
		struct locus__share *s;
		CHECK_EQ_INT(locus__share_create(&s, sc.n_res, sc.capacity), 0);
		int active[MAX_FLOWS] = {0};
		uint32_t id[MAX_FLOWS];
		double rem[MAX_FLOWS], rate[MAX_FLOWS], t = 0;
		size_t next = 0;
		ref_rates(&sc, active, rate);
		for (int step = 0; step < 4 * MAX_FLOWS && !bad; step++) {
			double tc = locus__share_next(s);
			double ts = next < sc.n_flows ? sc.f[next].start : INFINITY;
			/* A change now and then, between events. */
			double tx = t + locus_rng_exponential(&r, 1.5);
			if (tc == INFINITY && ts == INFINITY)
				break;
			double tn = tc < ts ? tc : ts;
			int change = tx < tn;
			if (change)
				tn = tx;
			for (size_t i = 0; i < sc.n_flows; i++)
				if (active[i] && rate[i] != INFINITY) {
					rem[i] -= rate[i] * (tn - t);
					if (rem[i] < 0)
						rem[i] = 0;
				}
			t = tn;
			if (change && locus_rng_below(&r, 2)) {
				/* Cancel a running flow, if any. */
				size_t pick = (size_t)locus_rng_below(&r, sc.n_flows);
				for (size_t k = 0; k < sc.n_flows; k++) {
					size_t i = (pick + k) % sc.n_flows;
					if (!active[i])
						continue;
					double left = -1;
					if (locus__share_cancel(s, t, id[i], &left))
						bad++;
					double tol = 1e-7 * (sc.f[i].bytes + 1);
					if (rate[i] != INFINITY && !(fabs(left - rem[i]) <= tol)) {
						fprintf(stderr,
							"seed %llu flow %zu: %.17g left, reference "
							"%.17g\n",
							(unsigned long long)seed, i, left, rem[i]);
						bad++;
					}
					active[i] = 0;
					cancels++;
					break;
				}
			} else if (change) {
				/* A finite resource gets a new capacity. */
				size_t k = (size_t)locus_rng_below(&r, sc.n_res);
				if (sc.capacity[k] != INFINITY) {
					sc.capacity[k] = 1 + 99 * locus_rng_uniform(&r);
					if (locus__share_set_capacity(s, t, (uint32_t)k,
								      sc.capacity[k]))
						bad++;
					changes++;
				} else if (locus__share_set_capacity(s, t, (uint32_t)k, 5) !=
					   LOCUS_EINVAL) {
					bad++;
				}
			} else if (tc <= ts) {
				uint64_t u;
				if (locus__share_pop(s, tc, &u) != 1 || u >= sc.n_flows ||
				    !active[u])
					bad++;
				else
					active[u] = 0;
			} else {
				const struct sflow *f = &sc.f[next];
				if (locus__share_start_id(s, ts, f->res, f->n, f->cap, f->bytes,
							  next, &id[next]))
					bad++;
				rem[next] = f->bytes;
				active[next++] = 1;
			}
			ref_rates(&sc, active, rate);
			for (size_t i = 0; i < sc.n_flows; i++) {
				if (!active[i] || sc.f[i].bytes == 0)
					continue;
				double got = locus__share_rate(s, i);
				if (rate[i] == INFINITY ? got != INFINITY
							: !(fabs(got - rate[i]) <= REL * rate[i])) {
					fprintf(stderr,
						"seed %llu flow %zu: rate %.17g, reference %.17g\n",
						(unsigned long long)seed, i, got, rate[i]);
					bad++;
				}
				double left = locus__share_left(s, id[i], t);
				if (rate[i] != INFINITY &&
				    !(fabs(left - rem[i]) <= 1e-7 * (sc.f[i].bytes + 1))) {
					fprintf(stderr,
						"seed %llu flow %zu: %.17g left, reference %.17g\n",
						(unsigned long long)seed, i, left, rem[i]);
					bad++;
				}
			}
		}
		locus__share_destroy(s);
	}
	CHECK_EQ_INT(bad, 0);
	printf("%zu cancels, %zu capacity changes\n", cancels, changes);
	CHECK(cancels > 1000 && changes > 1000);
	CHECK_EQ_INT(locus__share_cancel(NULL, 0, 0, NULL), LOCUS_EINVAL);
}

TEST(closed_loop_star_makespan)
{
	/* The SimGrid comparison case: 8192 receivers each fetch 10 files of
	 * 1 MB one after another over the 1.25 GB/s master link and their own
	 * 125 MB/s link. All run in lock step: 10 rounds of 8192 MB at
	 * 1.25 GB/s, 65.536 s. */
	enum { N = 8192, PER = 10 };
	static double cap[N + 1];
	struct locus__share *s;
	cap[0] = 1.25e9;
	for (int i = 1; i <= N; i++)
		cap[i] = 1.25e8;
	CHECK_EQ_INT(locus__share_create(&s, N + 1, cap), 0);
	for (uint32_t i = 1; i <= N; i++)
		CHECK_EQ_INT(start2(s, 0, 0, i, 0, 1e6, i), 0);
	CHECK_REL(locus__share_rate(s, 1), 1.25e9 / N);
	static int left[N + 1];
	for (int i = 1; i <= N; i++)
		left[i] = PER - 1;
	size_t done = 0;
	double t = 0;
	while (locus__share_count(s)) {
		uint64_t u;
		t = locus__share_next(s);
		CHECK_EQ_INT(locus__share_pop(s, t, &u), 1);
		done++;
		if (left[u]-- > 0)
			CHECK_EQ_INT(start2(s, t, 0, (uint32_t)u, 0, 1e6, u), 0);
	}
	CHECK_EQ_INT(done, N * PER);
	CHECK_REL(t, PER * N * 1e6 / 1.25e9);
	locus__share_destroy(s);
}

/* Every read remote, as fifo makes them: 128 nodes with a 100 MB/s disk
 * and a 125 MB/s incoming link, 16 readers each fetching four 64 MB
 * chunks in turn from random other nodes' disks, 1 to 3 s apart (drawn
 * beforehand, so the scenario does not depend on the completion order).
 * The disks and links are full and depend on each other across the
 * cluster; an event's region grows until its change has died out. The
 * classes filled count the sharing's work: 164 an event when a region
 * grew one hop a round, 81 since a round takes in what its wrong border
 * resources reach (take_reached). The count is deterministic. */
TEST(remote_reads_fill_few_classes)
{
	enum { NODES = 128, PER = 16, READS = 4, W = NODES * PER };
	static double cap[2 * NODES], think[W][READS], next_at[W];
	static uint32_t src[W][READS];
	static int done[W];
	struct locus_rng r;
	locus_rng_init(&r, 25);
	for (int n = 0; n < NODES; n++) {
		cap[n] = 100e6;
		cap[NODES + n] = 125e6;
	}
	for (uint32_t w = 0; w < W; w++)
		for (int k = 0; k < READS; k++) {
			src[w][k] =
			    (uint32_t)((w / PER + 1 + locus_rng_below(&r, NODES - 1)) % NODES);
			think[w][k] = 1 + 2 * locus_rng_uniform(&r);
		}
	struct locus__share *s;
	CHECK_EQ_INT(locus__share_create(&s, 2 * NODES, cap), 0);
	for (uint32_t w = 0; w < W; w++)
		next_at[w] = 0;
	size_t events = 0;
	double t = 0;
	for (;;) {
		double tc = locus__share_next(s), ts = INFINITY;
		uint32_t wn = 0;
		for (uint32_t w = 0; w < W; w++)
			if (next_at[w] < ts)
				ts = next_at[wn = w];
		if (tc == INFINITY && ts == INFINITY)
			break;
		if (tc <= ts) {
			uint64_t u;
			t = tc;
			CHECK_EQ_INT(locus__share_pop(s, t, &u), 1);
			if (++done[u] < READS)
				next_at[u] = t + think[u][done[u]];
		} else {
			t = ts;
			next_at[wn] = INFINITY;
			CHECK_EQ_INT(start2(s, t, src[wn][done[wn]], NODES + wn / PER, 0, 64e6, wn),
				     0);
		}
		events++;
	}
	uint64_t rounds, grown, filled;
	locus__share_stats(s, &rounds, &grown, &filled);
	printf("%zu events, %llu rounds, %llu grown, %llu classes filled, end %.9f s\n", events,
	       (unsigned long long)rounds, (unsigned long long)grown, (unsigned long long)filled,
	       t);
	CHECK_EQ_INT(events, 2 * W * READS);
	CHECK(filled < 100 * (uint64_t)events);
	locus__share_destroy(s);
}

TEST_MAIN(TEST_ENTRY(one_flow_gets_full_capacity),
	  TEST_ENTRY(two_flows_share_equally_and_survivor_speeds_up), TEST_ENTRY(staggered_start),
	  TEST_ENTRY(cap_leaves_the_rest), TEST_ENTRY(several_caps_on_one_resource),
	  TEST_ENTRY(classic_three_resources), TEST_ENTRY(three_flows_finish_in_turn),
	  TEST_ENTRY(late_pop_reallocates_at_completion_time), TEST_ENTRY(star_with_receiver_links),
	  TEST_ENTRY(two_flows_on_one_receiver), TEST_ENTRY(zero_byte_flows_complete_at_start),
	  TEST_ENTRY(infinite_resource), TEST_ENTRY(flow_without_resources),
	  TEST_ENTRY(same_instant_ties_in_start_order), TEST_ENTRY(invalid_arguments),
	  TEST_ENTRY(random_against_reference), TEST_ENTRY(deterministic),
	  TEST_ENTRY(closed_loop_star_makespan), TEST_ENTRY(cancel_and_capacity_against_reference),
	  TEST_ENTRY(remote_reads_fill_few_classes))
