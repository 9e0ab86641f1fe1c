/*
 * What a real run measured, gathered at rank 0 into the result schema of
 * the simulator (engine.h), so that a run and its simulation compare side
 * by side, and into the figures `locus sim` needs to replay it.
 *
 * Each task's record is its successful attempt (or its last one when all
 * failed). Times are seconds since the common start (each rank's clock
 * read just after a barrier). The bounds use what was measured: each
 * task's work is the time the function ran on it (reading included), so
 * the I/O part of the bound is nil; the platform handed back for a replay
 * carries the disk and network bandwidths the run's transfers achieved.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locus/bounds.h"
#include "mpi/engine.h"

struct sched_fig {
	uint64_t events;
	double busy;
	uint32_t qmax, pad;
	double qmean;
};

#define N_SUMS (3 + 8 + 3)

/* Gathers n_bytes from every rank at rank 0 into *all (allocated). */
static int gather_bytes(struct engine *e, const void *mine, size_t n_bytes, char **all,
			int **counts, int **displs)
{
	int n = (int)n_bytes, rc = 0;
	*all = NULL;
	*counts = *displs = NULL;
	if (n_bytes > INT32_MAX)
		rc = locus__err(e->err, LOCUS_ERANGE, NULL, 0, 0, "too many records to gather");
	if (e->rank == 0) {
		*counts = locus__calloc((size_t)e->size, sizeof **counts);
		*displs = locus__calloc((size_t)e->size, sizeof **displs);
		if (!*counts || !*displs)
			rc = locus__err(e->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	if ((rc = locus__mpi_agree(e, rc)))
		return rc;
	MPI_Gather(&n, 1, MPI_INT, *counts, 1, MPI_INT, 0, e->comm);
	if (e->rank == 0) {
		size_t total = 0;
		for (int r = 0; r < e->size; r++) {
			(*displs)[r] = (int)total;
			total += (size_t)(*counts)[r];
		}
		if (total > INT32_MAX)
			rc = locus__err(e->err, LOCUS_ERANGE, NULL, 0, 0,
					"too many records to gather");
		else if (!(*all = malloc(total ? total : 1)))
			rc = locus__err(e->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	if ((rc = locus__mpi_agree(e, rc)))
		return rc;
	MPI_Gatherv(mine, n, MPI_BYTE, *all, *counts, *displs, MPI_BYTE, 0, e->comm);
	return 0;
}

/* Rank 0: the result from every rank's records. */
static int build(struct engine *e, struct locus_mpi_report *rep, const struct task_rec *recs,
		 size_t n_recs, const struct locus_worker_result *wres,
		 const struct sched_fig *sfig, const uint64_t *sums)
{
	const struct locus_workload *wl = e->wl;
	size_t n = wl->n_tasks;
	struct locus_result *r = calloc(1, sizeof *r);
	long *pick = locus__calloc(n + 1, sizeof *pick);
	double *waits = locus__calloc(n_recs + 1, sizeof *waits);
	rep->work = locus__calloc(n + 1, sizeof *rep->work);
	if (r)
		r->tasks = locus__calloc(n + 1, sizeof *r->tasks);
	if (r)
		r->workers = locus__calloc(e->n_workers, sizeof *r->workers);
	if (r)
		r->scheds = locus__calloc(e->n_scheds, sizeof *r->scheds);
	if (!r || !pick || !waits || !rep->work || !r->tasks || !r->workers || !r->scheds) {
		locus_result_destroy(r);
		free(pick);
		free(waits);
		return locus__err(e->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	rep->result = r;
	snprintf(r->engine, sizeof r->engine, "mpi");
	snprintf(r->policy, sizeof r->policy, "%s", e->pol->name);
	r->seed = e->opt->seed;
	r->n_tasks = n;
	r->n_workers = e->n_workers;
	r->n_schedulers = e->n_scheds;
	r->n_nodes = e->plat->n_nodes;
	r->opt_local = -1;
	/* What the store scan found wrong (a replica dropped, a chunk no
	 * node holds): the run says it, as locus locate does. */
	if (locus_result_set_problems(r, e->cat, e->opt->dataset)) {
		free(pick);
		free(waits);
		return locus__err(e->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	/* Each task's final attempt. */
	for (size_t t = 0; t < n; t++)
		pick[t] = -1;
	size_t n_waits = 0;
	double best_rtt = INFINITY;
	for (size_t i = 0; i < n_recs; i++) {
		const struct task_rec *x = &recs[i];
		if (x->task >= n)
			continue;
		long *p = &pick[x->task];
		if (*p < 0 || (x->ok && !recs[*p].ok) ||
		    (x->ok == recs[*p].ok && x->attempt > recs[*p].attempt))
			*p = (long)i;
		if (x->end > r->makespan)
			r->makespan = x->end;
		if (x->from_policy) {
			double w = x->assigned > x->idle_since ? x->assigned - x->idle_since : 0;
			waits[n_waits++] = w;
			if (w > 0 && w < best_rtt)
				best_rtt = w;
		}
	}
	for (size_t t = 0; t < n; t++) {
		if (pick[t] < 0)
			continue;
		const struct task_rec *x = &recs[pick[t]];
		struct locus_task_result *tr = &r->tasks[t];
		*tr = (struct locus_task_result){.worker = x->worker,
						 .node = x->node,
						 .source = x->source,
						 .local = x->local,
						 .idle_since = x->idle_since,
						 .assigned = x->assigned,
						 .read_end = x->read_end,
						 .end = x->end};
		if (x->local) {
			r->local_tasks++;
			r->bytes_local += wl->tasks[t].bytes;
		} else {
			r->bytes_remote += wl->tasks[t].bytes;
		}
		rep->work[t] = x->end - x->read_end;
	}
	locus_result_set_waits(r, waits, n_waits);
	free(waits);
	free(pick);
	for (size_t w = 0; w < e->n_workers; w++) {
		r->workers[w] = wres[w];
		r->workers[w].node = wl->worker_node[w];
		r->worker_idle_total += wres[w].idle;
	}
	for (size_t s = 0; s < e->n_scheds; s++) {
		const struct sched_fig *f = &sfig[s];
		r->scheds[s] = (struct locus_sched_result){.events = f->events,
							   .busy = f->busy,
							   .queue_max = f->qmax,
							   .queue_mean = f->qmean};
		r->sched_busy_total += f->busy;
		if (f->busy > r->sched_busy_max)
			r->sched_busy_max = f->busy;
	}
	/* Policy counters, summed over the ranks' processes. */
	struct locus_policy_stats ps = {0};
	if (e->pstate && e->pol->stats)
		e->pol->stats(e->pstate, &ps);
	r->pstats.entries_examined = sums[0] ? sums[0] : sums[13];
	r->pstats.local_assignments = sums[1];
	r->pstats.remote_assignments = sums[2];
	for (size_t k = 0; k < 8; k++) {
		r->pstats.counters[k] = sums[3 + k];
		r->pstats.counter_names[k] = ps.counter_names[k];
	}
	r->messages = sums[11];
	r->message_bytes = sums[12];
	/* What the transfers achieved. */
	double fetched = 0, fetch_s = 0, served = 0, read_s = 0;
	for (size_t i = 0; i < rep->n_ranks; i++) {
		const struct locus_mpi_rank *k = &rep->ranks[i];
		fetched += (double)k->bytes_fetched;
		fetch_s += k->fetch_seconds;
		served += (double)k->bytes_served;
		read_s += k->serve_read_seconds;
		r->events += k->events;
	}
	rep->net_bw = fetch_s > 0 ? fetched / fetch_s : 0;
	rep->disk_bw = read_s > 0 ? served / read_s : 0;
	rep->latency = isfinite(best_rtt) ? best_rtt / 2 : 0;
	/* The bounds count each task's measured time only: the engine does
	 * not time local reads (the function does them, or not), so an I/O
	 * part from bandwidths would claim what was never measured. The
	 * platform handed back for the replay gets the measured figures. */
	struct locus_bound_env env = {.work = rep->work, .free_io = 1};
	struct locus_makespan_bound mb;
	r->lb_makespan = locus_bound_makespan(wl, &env, &mb);
	r->lb_work = mb.work;
	r->lb_io = mb.io;
	r->lb_serial = mb.serial;
	r->lb_longest = mb.longest;
	/* Within the limits a platform file holds (platform.h), so that the
	 * platform saved for the replay loads back. */
	for (size_t k = 0; k < e->plat->n_nodes; k++) {
		e->plat->nodes[k].net_bw = rep->net_bw > 0
					       ? fmin(fmax(rep->net_bw, LOCUS_BW_MIN), LOCUS_BW_MAX)
					       : LOCUS_DEFAULT_NET_BW;
		e->plat->nodes[k].disk_bw =
		    rep->disk_bw > 0 ? fmin(fmax(rep->disk_bw, LOCUS_BW_MIN), LOCUS_BW_MAX)
				     : LOCUS_DEFAULT_DISK_BW;
	}
	if (rep->latency > 0)
		e->plat->latency = fmin(rep->latency, LOCUS_LATENCY_MAX);
	long best = -1;
	if (locus_bound_locality(wl, NULL, &best, NULL, e->err) == 0)
		r->opt_local = best;
	locus_error_clear(e->err);
	r->wall_seconds = r->makespan;
	return 0;
}

int locus__mpi_results(struct engine *e, struct locus_mpi_report *rep)
{
	struct locus_mpi_rank *me = &e->self;
	char *all = NULL;
	int *counts = NULL, *displs = NULL, rc;

	me->rank = e->rank;
	me->role = e->is_worker ? 0 : 1;
	me->proc = e->proc;
	me->node = e->node;
	rep->self = *me;
	rep->total = e->total_chunks;
	rep->skipped = e->skipped;

	/* Every rank's record. */
	if ((rc = gather_bytes(e, me, sizeof *me, &all, &counts, &displs)))
		goto out;
	if (e->rank == 0) {
		rep->ranks = (struct locus_mpi_rank *)all;
		rep->n_ranks = (size_t)e->size;
		all = NULL;
	}
	free(counts);
	free(displs);
	/* Workers' and schedulers' figures, by rank. */
	struct {
		struct locus_worker_result w;
		struct sched_fig s;
	} fig = {.w = e->wres};
	fig.s = (struct sched_fig){.events = e->self.events,
				   .busy = e->self.decide_seconds,
				   .qmax = e->qmax,
				   .qmean = e->qlooks ? (double)e->qsum / (double)e->qlooks : 0};
	char *figs = NULL;
	if ((rc = gather_bytes(e, &fig, sizeof fig, &figs, &counts, &displs)))
		goto out;
	free(counts);
	free(displs);
	counts = displs = NULL;
	/* Policy counters and messages, summed. */
	uint64_t mine[N_SUMS] = {0}, sums[N_SUMS] = {0};
	if (e->pstate && e->pol->stats) {
		struct locus_policy_stats ps = {0};
		e->pol->stats(e->pstate, &ps);
		mine[0] = ps.entries_examined;
		mine[1] = ps.local_assignments;
		mine[2] = ps.remote_assignments;
		for (size_t k = 0; k < 8; k++)
			mine[3 + k] = ps.counters[k];
	}
	mine[11] = e->self.msgs_sent;
	mine[12] = e->msg_bytes;
	mine[13] = e->entries;
	MPI_Reduce(mine, sums, N_SUMS, MPI_UINT64_T, MPI_SUM, 0, e->comm);
	/* The tasks' records. */
	if ((rc = gather_bytes(e, e->recs, e->n_recs * sizeof *e->recs, &all, &counts, &displs))) {
		free(figs);
		goto out;
	}
	if (e->rank == 0) {
		size_t n_recs = 0;
		for (int r = 0; r < e->size; r++)
			n_recs += (size_t)counts[r] / sizeof(struct task_rec);
		struct locus_worker_result *wres = locus__calloc(e->n_workers, sizeof *wres);
		struct sched_fig *sfig = locus__calloc(e->n_scheds, sizeof *sfig);
		if (!wres || !sfig) {
			rc = locus__err(e->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		} else {
			for (int r = 0; r < e->size; r++) {
				uint32_t p = e->rank_proc[r];
				memcpy(&fig, figs + (size_t)r * sizeof fig, sizeof fig);
				if (p < e->n_workers)
					wres[p] = fig.w;
				else
					sfig[p - e->n_workers] = fig.s;
			}
			rc = build(e, rep, (const struct task_rec *)all, n_recs, wres, sfig, sums);
		}
		free(wres);
		free(sfig);
		if (!rc) {
			rep->failures = e->failures;
			rep->n_failures = e->n_failures;
			e->failures = NULL;
			e->n_failures = 0;
			rep->platform = e->plat;
			e->plat = NULL;
		}
	}
	free(figs);
	rc = locus__mpi_agree(e, rc);
out:
	free(all);
	free(counts);
	free(displs);
	return rc;
}
