/*
 * Max-min fair sharing of resources (disks, network interfaces, a
 * backbone, a shared file system) by the flows that cross them, in
 * simulated time. Internal to the simulator.
 *
 * A flow moves `bytes` over up to LOCUS__SHARE_MAX_RES resources, its rate
 * optionally capped; at every instant the rates are the max-min fair
 * allocation (progressive filling: raise all rates together, freeze the
 * flows of each resource that saturates, and those at their cap). Rates
 * change only when a flow starts, ends or is cancelled, or a resource's
 * capacity changes.
 */
#ifndef LOCUS_SIM_SHARE_H
#define LOCUS_SIM_SHARE_H

#include <stddef.h>
#include <stdint.h>

#define LOCUS__SHARE_MAX_RES 6

struct locus__share;

/* Creates `n_res` resources with the given capacities (bytes/s, > 0;
 * INFINITY allowed). Returns 0 or LOCUS_ENOMEM/LOCUS_EINVAL. */
int locus__share_create(struct locus__share **out, size_t n_res, const double *capacity);
void locus__share_destroy(struct locus__share *s);

/* Starts a flow at time `now` (>= the last time given) over `n` distinct
 * resources `res` (n may be 0: then only `cap` limits it), capped at `cap`
 * bytes/s (0 or INFINITY: no cap; a flow with no resource needs a finite
 * cap). `user` comes back when it completes. A flow of 0 bytes completes at
 * `now`. Returns 0 or LOCUS_ENOMEM/LOCUS_EINVAL. */
int locus__share_start(struct locus__share *s, double now, const uint32_t *res, unsigned n,
		       double cap, double bytes, uint64_t user);

/* The same, storing in *id (if not NULL) the flow's handle for
 * locus__share_cancel and locus__share_left (valid until it completes). */
int locus__share_start_id(struct locus__share *s, double now, const uint32_t *res, unsigned n,
			  double cap, double bytes, uint64_t user, uint32_t *id);

/* Stops flow `id` at time `now` before it completes: the others' rates
 * change then. *left (may be NULL) gets the bytes it had left. Returns 0,
 * LOCUS_EINVAL (no such running flow) or LOCUS_ENOMEM (nothing changed). */
int locus__share_cancel(struct locus__share *s, double now, uint32_t id, double *left);

/* The bytes flow `id` has left at time `now` (>= the last change). */
double locus__share_left(const struct locus__share *s, uint32_t id, double now);

/* Resource r's capacity becomes `capacity` (finite, > 0) from `now` on;
 * the rates follow. r must have been created finite. 0, LOCUS_EINVAL or
 * LOCUS_ENOMEM (nothing changed). */
int locus__share_set_capacity(struct locus__share *s, double now, uint32_t r, double capacity);

/* The earliest completion time of the running flows (INFINITY if none). */
double locus__share_next(const struct locus__share *s);

/* If a flow completes at or before `now` (normally now == next()), removes
 * the earliest (ties: the one started first), stores its user value and
 * returns 1; else returns 0. Time advances to `now`. */
int locus__share_pop(struct locus__share *s, double now, uint64_t *user);

/* Current rate of the flow whose user value is `user` (testing), or -1. */
double locus__share_rate(const struct locus__share *s, uint64_t user);

/* Filling rounds so far, those that found the region too small and grew
 * it, and the classes filled over all rounds (the cost of the sharing). */
void locus__share_stats(const struct locus__share *s, uint64_t *rounds, uint64_t *grown,
			uint64_t *filled);

/* Number of running flows. */
size_t locus__share_count(const struct locus__share *s);

#endif
