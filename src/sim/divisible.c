/*
 * Executes a divisible-load plan in simulated time (locus_divisible_simulate).
 *
 * The plan decides; this file only keeps time. Resource 0 is the master's
 * link (b0), resource 1 + i worker i's link (b_i). The master serves the
 * used virtual workers one after the other, round after round: a group's
 * member i gets a flow of c_ji units over both links, capped at b'_i, that
 * starts eps_i after the group does; the next group starts when the last of
 * them has arrived. Rates are the max-min fair share of the links
 * (sim/share.h), so a plan whose rates overfilled b0 would be slowed here,
 * not trusted. A worker computes its chunks in arrival order, each taking
 * c / s_i + delta_i.
 *
 * When a group's caps fit its links (sum of b'_i <= b0, b'_i <= b_i), the
 * max-min allocation is the caps themselves, whatever the order in which
 * the flows start and end, so the flows' ends are computed directly; a
 * group whose caps do not fit goes through the sharing model. The shortcut
 * matters for groups of thousands of flows with distinct caps, where each
 * event of the sharing model re-sorts the group's caps.
 */
#include <math.h>
#include <stdlib.h>

#include "core/internal.h"
#include "locus/divisible.h"
#include "sim/divisible.h"
#include "sim/share.h"

void locus_divisible_run_destroy(struct locus_divisible_run *r)
{
	if (!r)
		return;
	free(r->events);
	free(r);
}

/* A flow waiting for its setup time. */
struct pending {
	double at;
	size_t ev;
};

static int by_at(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

int locus_divisible_simulate(struct locus_divisible_run **out, const struct locus_divisible_plan *p,
			     struct locus_error *err)
{
	return locus__divisible_simulate(p, 0, out, err);
}

/* Whether the caps of members[0, np) of a group fit the links. */
static int caps_fit(const struct locus_divisible_plan *p, const struct locus_divisible_run *r,
		    const struct pending *pend, size_t np)
{
	double sum = 0;
	for (size_t m = 0; m < np; m++) {
		uint32_t i = r->events[pend[m].ev].worker;
		if (p->rate[i] > p->workers[i].b * (1 + 1e-12))
			return 0;
		sum += p->rate[i];
	}
	return sum <= p->b0 * (1 + 1e-12);
}

/* Records that event ev's chunk arrived at tf and schedules its
 * computation; returns the arrival. */
static double arrive(const struct locus_divisible_plan *p, struct locus_divisible_run *r,
		     double *free_at, size_t ev, double tf)
{
	struct locus_divisible_event *e = &r->events[ev];
	e->recv_end = tf;
	double s = free_at[e->worker] > tf ? free_at[e->worker] : tf;
	const struct locus_divisible_worker *w = &p->workers[e->worker];
	e->comp_start = s;
	e->comp_end = s + e->units / w->s + w->delta;
	free_at[e->worker] = e->comp_end;
	if (e->comp_end > r->makespan)
		r->makespan = e->comp_end;
	return tf;
}

int locus__divisible_simulate(const struct locus_divisible_plan *p, int always_share,
			      struct locus_divisible_run **out, struct locus_error *err)
{
	*out = NULL;
	size_t n = p->n_workers, K = p->n_used, M = p->rounds;
	size_t most = 0;
	for (size_t k = 0; k < K; k++)
		most += p->groups[k].count;
	struct locus_divisible_run *r = locus__calloc(1, sizeof *r);
	double *cap = locus__calloc(n + 1, sizeof *cap);
	double *free_at = locus__calloc(n, sizeof *free_at);
	struct pending *pend = locus__calloc(most ? most : 1, sizeof *pend);
	struct locus__share *sh = NULL;
	int rc = LOCUS_ENOMEM;
	if (!r || !cap || !free_at || !pend)
		goto fail;
	r->events = locus__calloc(M * most + 1, sizeof *r->events);
	if (!r->events)
		goto fail;
	cap[0] = p->b0;
	for (size_t i = 0; i < n; i++)
		cap[1 + i] = p->workers[i].b;
	rc = locus__share_create(&sh, n + 1, cap);
	if (rc)
		goto fail;
	double t = 0;
	for (size_t j = 0; j < M; j++) {
		for (size_t k = 0; k < K; k++) {
			const struct locus_divisible_group *g = &p->groups[k];
			size_t np = 0;
			for (size_t m = g->first; m < g->first + g->count; m++) {
				size_t i = p->order[m];
				double c = locus_divisible_worker_chunk(p, j, i);
				if (!(c > 0))
					continue;
				struct locus_divisible_event *e = &r->events[r->n_events];
				e->worker = (uint32_t)i;
				e->round = (uint32_t)j;
				e->group = (uint32_t)k;
				e->units = c;
				e->send_start = t;
				pend[np++] = (struct pending){t + p->workers[i].eps, r->n_events};
				r->n_events++;
			}
			if (!np)
				continue;
			qsort(pend, np, sizeof *pend, by_at);
			size_t next = 0, done = 0;
			double first = pend[0].at, end = t;
			if (!always_share && caps_fit(p, r, pend, np)) {
				for (size_t m = 0; m < np; m++) {
					struct locus_divisible_event *e = &r->events[pend[m].ev];
					double tf =
					    arrive(p, r, free_at, pend[m].ev,
						   pend[m].at + e->units / p->rate[e->worker]);
					if (tf > end)
						end = tf;
				}
				done = np;
			}
			while (done < np) {
				double tf = locus__share_next(sh);
				if (next < np && pend[next].at <= tf) {
					struct locus_divisible_event *e = &r->events[pend[next].ev];
					uint32_t res[2] = {0, 1 + e->worker};
					rc = locus__share_start(sh, pend[next].at, res, 2,
								p->rate[e->worker], e->units,
								pend[next].ev);
					if (rc)
						goto fail;
					r->flows++;
					next++;
					continue;
				}
				uint64_t ev;
				if (locus__share_pop(sh, tf, &ev) != 1) {
					rc = LOCUS_EINVAL;
					goto fail;
				}
				if (arrive(p, r, free_at, ev, tf) > end)
					end = tf;
				done++;
			}
			r->link_busy += end - first;
			for (size_t m = 0; m < np; m++)
				r->events[pend[m].ev].send_end = end;
			t = end;
		}
	}
	locus__share_destroy(sh);
	free(cap);
	free(free_at);
	free(pend);
	*out = r;
	return 0;
fail:
	locus__share_destroy(sh);
	free(cap);
	free(free_at);
	free(pend);
	locus_divisible_run_destroy(r);
	return locus__err(err, rc, NULL, 0, 0, "%s",
			  rc == LOCUS_ENOMEM ? "out of memory" : "the network model failed");
}
