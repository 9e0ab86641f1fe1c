/*
 * DLS/sr (section 6 of ../shared/papers/gtp.txt, after Zhao and
 * Sakellariou 2004), the mapping of its rescheduling points: DLS over
 * what is left from the monitor's state, with GTP's cost equations
 * (gtp_cost.c), and the spare times that decide when a point is asked
 * for (gtp.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dag/gtp_impl.h"

/* The time an edge's data takes from task t's processor to task c's in
 * the schedule s->newmu (nominal start-up; bandwidth now, or the
 * platform's before the run). */
static double edge_time(const struct gtp *s, uint32_t t, uint32_t c, uint64_t bytes)
{
	uint32_t a = locus__gtp_node(s, s->newmu[t]), b = locus__gtp_node(s, s->newmu[c]);
	if (a == b)
		return 0;
	double bw = s->mon->pair_bw(s->mon, a, b);
	if (!(bw > 0))
		bw = locus_platform_pair_bw(s->wl->platform, a, b);
	return s->wl->platform->latency + (double)bytes / bw;
}

/* The spare time of every task in the schedule (newmu, est, eft; section
 * 6 of the paper after Zhao and Sakellariou 2004): how much later it may
 * end without delaying a successor's start (its data included) or the
 * next task on its processor. */
void locus__gtp_plan_spare(struct gtp *s)
{
	for (uint32_t t = 0; t < s->n; t++)
		s->spare[t] = INFINITY;
	for (uint32_t t = 0; t < s->n; t++) {
		for (uint32_t e = s->g->succ_at[t]; e < s->g->succ_at[t + 1]; e++) {
			uint32_t c = s->g->succs[e].task;
			double room =
			    s->est[c] - (s->eft[t] + edge_time(s, t, c, s->g->succs[e].bytes));
			if (room < s->spare[t])
				s->spare[t] = room;
		}
	}
	/* The next task on the same processor: by start time, per worker. */
	for (uint32_t w = 0; w < s->nw; w++) {
		uint32_t prev = LOCUS_NONE;
		for (uint32_t k = 0; k < s->n; k++) {
			uint32_t t = s->morder[k];
			if (s->newmu[t] != w)
				continue;
			if (prev != LOCUS_NONE && s->est[t] - s->eft[prev] < s->spare[prev])
				s->spare[prev] = s->est[t] - s->eft[prev];
			prev = t;
		}
	}
	for (uint32_t t = 0; t < s->n; t++)
		if (s->spare[t] < 0)
			s->spare[t] = 0;
}

/* The dynamic level of ready slot k's task on worker w (w up), its EST
 * and EFT (as cost_on, from the slot's rows). */
static double dls_level(const struct gtp *s, uint32_t k, uint32_t w, double now, double *est,
			double *eft)
{
	uint32_t t = s->ready[k];
	size_t at = (size_t)k * s->nw + w;
	int started = s->pi[t] == w && s->kc[t] > 0;
	double cost = s->rcost[at];
	*est = started ? now : s->pa[w] > s->rda[at] ? s->pa[w] : s->rda[at];
	*eft = *est + cost * (started ? 1 - s->kc[t] : 1) / s->avail[w];
	return s->sl[t] - *est + (s->rmean[k] - cost / s->avail[w]);
}

/* Ready slot k's best worker now: the largest dynamic level, the first
 * worker within a relative 1e-9 of it on ties. */
static void dls_search(struct gtp *s, uint32_t k, double now)
{
	double best = -INFINITY, est, eft;
	uint32_t bw = LOCUS_NONE;
	for (uint32_t w = 0; w < s->nw; w++) {
		if (!(s->avail[w] > 0) || !locus__gtp_holds(s, s->ready[k], w))
			continue;
		double dl = dls_level(s, k, w, now, &est, &eft);
		if (bw == LOCUS_NONE || dl > best + 1e-9 * fabs(best)) {
			best = dl;
			bw = w;
		}
	}
	s->rdl[k] = best;
	s->rw[k] = bw;
}

/* *pp (an array) to n elements of `size` bytes, kept as it was when
 * memory runs out: 0, or -1. */
static int resize(void *pp, size_t n, size_t size)
{
	void **p = pp;
	void *q = locus__reallocarray(*p, n, size);
	if (!q)
		return -1;
	*p = q;
	return 0;
}

/* Puts task t on the ready list of map_dls, with what stays fixed while
 * it waits there: its mean cost, its data's arrival and cost on every worker
 * (its predecessors are mapped, and the monitor does not change during a
 * point); then finds its best worker. Returns 0 or LOCUS_ENOMEM. */
static int dls_ready(struct gtp *s, uint32_t t, uint32_t *n_ready, double now)
{
	uint32_t k = (*n_ready)++;
	if (k >= s->rows_cap) {
		size_t cap = s->rows_cap ? 2 * (size_t)s->rows_cap : 64;
		if (resize(&s->rda, cap * s->nw, sizeof *s->rda) ||
		    resize(&s->rcost, cap * s->nw, sizeof *s->rcost) ||
		    resize(&s->rmean, cap, sizeof *s->rmean) || resize(&s->rdl, cap, sizeof *s->rdl) ||
		    resize(&s->rw, cap, sizeof *s->rw))
			return LOCUS_ENOMEM;
		s->rows_cap = (uint32_t)cap;
	}
	s->ready[k] = t;
	s->rmean[k] = locus_workload_mean_cost(s->wl, t);
	double *row = s->rda + (size_t)k * s->nw, *cost = s->rcost + (size_t)k * s->nw;
	for (uint32_t w = 0; w < s->nw; w++) {
		row[w] = s->avail[w] > 0 && !(s->pi[t] == w && s->kc[t] > 0)
			     ? locus__gtp_data_ready(s, t, w, now)
			     : now;
		cost[w] = locus_workload_cost(s->wl, t, w);
	}
	dls_search(s, k, now);
	return 0;
}

/* DLS over what is left (Sih and Lee; as src/dag/dls.c, from the state
 * now): repeatedly the ready task and processor with the largest dynamic
 * level SL - EST + (mean cost - cost now), until every unfinished task is
 * mapped (ties within a relative 1e-9: the lower task, then the lower
 * worker). As in dls.c, a level only falls when its worker takes a task,
 * so each ready task keeps its best worker and only those whose best
 * worker was just taken are searched again. Returns 0 or LOCUS_ENOMEM. */
int locus__gtp_map_dls(struct gtp *s, double now)
{
	uint32_t n_ready = 0, n_left = 0, k_order = 0;
	for (uint32_t t = 0; t < s->n; t++) {
		s->mapped[t] = s->done[t];
		if (s->done[t]) {
			s->eft[t] = now;
			s->newmu[t] = s->pi[t];
			s->morder[k_order++] = t;
		} else {
			n_left++;
		}
	}
	for (uint32_t t = 0; t < s->n; t++) {
		if (s->mapped[t])
			continue;
		int ready = 1;
		for (uint32_t e = s->g->pred_at[t]; e < s->g->pred_at[t + 1] && ready; e++)
			ready = s->mapped[s->g->preds[e].task];
		if (ready && dls_ready(s, t, &n_ready, now))
			return LOCUS_ENOMEM;
	}
	while (n_left && n_ready) {
		double best = -INFINITY;
		uint32_t bt = LOCUS_NONE, bk = 0;
		for (uint32_t k = 0; k < n_ready; k++) {
			uint32_t t = s->ready[k];
			double dl = s->rdl[k];
			if (s->rw[k] == LOCUS_NONE)
				continue;
			if (bt == LOCUS_NONE || dl > best + 1e-9 * fabs(best) ||
			    (fabs(dl - best) <= 1e-9 * fabs(best) && t < bt)) {
				best = dl;
				bt = t;
				bk = k;
			}
		}
		if (bt == LOCUS_NONE)
			break; /* no processor up */
		uint32_t bw = s->rw[bk];
		double est, eft;
		dls_level(s, bk, bw, now, &est, &eft);
		s->newmu[bt] = bw;
		s->est[bt] = est;
		s->eft[bt] = eft;
		if (eft > s->pa[bw])
			s->pa[bw] = eft;
		s->mapped[bt] = 1;
		s->morder[k_order++] = bt;
		n_left--;
		/* The last ready task takes bt's place, with its row. */
		if (bk != --n_ready) {
			s->ready[bk] = s->ready[n_ready];
			s->rmean[bk] = s->rmean[n_ready];
			s->rdl[bk] = s->rdl[n_ready];
			s->rw[bk] = s->rw[n_ready];
			memcpy(s->rda + (size_t)bk * s->nw, s->rda + (size_t)n_ready * s->nw,
			       s->nw * sizeof *s->rda);
			memcpy(s->rcost + (size_t)bk * s->nw, s->rcost + (size_t)n_ready * s->nw,
			       s->nw * sizeof *s->rcost);
		}
		for (uint32_t k = 0; k < n_ready; k++)
			if (s->rw[k] == bw)
				dls_search(s, k, now);
		for (uint32_t e = s->g->succ_at[bt]; e < s->g->succ_at[bt + 1]; e++) {
			uint32_t c = s->g->succs[e].task;
			if (s->mapped[c])
				continue;
			int ready = 1;
			for (uint32_t f = s->g->pred_at[c]; f < s->g->pred_at[c + 1] && ready; f++)
				ready = s->mapped[s->g->preds[f].task];
			/* A task enters once: when its last predecessor is mapped. */
			if (ready) {
				int in = 0;
				for (uint32_t k = 0; k < n_ready && !in; k++)
					in = s->ready[k] == c;
				if (!in && dls_ready(s, c, &n_ready, now))
					return LOCUS_ENOMEM;
			}
		}
	}
	/* Tasks left unmapped (no processor up) keep their worker. */
	for (uint32_t t = 0; t < s->n; t++)
		if (!s->mapped[t]) {
			s->eft[t] = INFINITY;
			s->morder[k_order++] = t;
		}
	return 0;
}
