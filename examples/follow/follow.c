/*
 * "follow" (follow.h): a scheduler process and the workers. Everything a
 * process knows comes from its events; the engine (simulator or MPI
 * runtime) runs a copy of this code for each process and delivers them.
 */
#include <stdio.h>
#include <stdlib.h>

#include "follow.h"

enum { M_DONE = LOCUS_MSG_USER }; /* worker -> scheduler: task arg[0] is done */

struct follow {
	const struct locus_workload *wl;
	const struct locus_monitor *mon; /* where the files are now */
	uint32_t n_workers, next;	 /* next: round-robin */
	uint32_t *waiting;		 /* by task: inputs not made yet */
};

static size_t schedulers(size_t n_workers, size_t requested)
{
	(void)n_workers;
	(void)requested;
	return 1; /* process n_workers */
}

static int create(void **state, const struct locus_policy_ctx *ctx, struct locus_error *err)
{
	const struct locus_graph *g = ctx->wl->graph;
	if (!ctx->monitor) {
		locus_error_clear(err);
		err->code = LOCUS_ENOTSUP;
		snprintf(err->message, sizeof err->message,
			 "follow reads where files are: it needs an engine with a monitor");
		return err->code;
	}
	struct follow *s = calloc(1, sizeof *s);
	if (!s || !(s->waiting = calloc(g->n_tasks + 1, sizeof *s->waiting))) {
		free(s);
		return LOCUS_ENOMEM;
	}
	s->wl = ctx->wl;
	s->mon = ctx->monitor;
	s->n_workers = (uint32_t)ctx->n_workers;
	for (uint32_t t = 0; t < g->n_tasks; t++)
		for (uint32_t k = 0; k < g->tasks[t].n_in; k++)
			s->waiting[t] +=
			    g->objects[g->inputs[g->tasks[t].in_at + k]].producer != LOCUS_NONE;
	*state = s;
	return 0;
}

static void destroy(void *state)
{
	struct follow *s = state;
	free(s->waiting);
	free(s);
}

/* Task t to the worker whose node holds most of its inputs' bytes, among
 * the nodes that can hold its demand (cores, memory: version 6). */
static void place(struct follow *s, struct locus_actions *act, uint32_t t)
{
	const struct locus_graph *g = s->wl->graph;
	const struct locus_task *tk = &g->tasks[t];
	uint64_t best = 0;
	uint32_t to = s->next++ % s->n_workers;
	for (uint32_t k = 0;
	     k < s->n_workers && !locus_workload_fits(s->wl, t, s->wl->worker_node[to]); k++)
		to = (to + 1) % s->n_workers;
	for (uint32_t w = 0; w < s->n_workers; w++) {
		if (!locus_workload_fits(s->wl, t, s->wl->worker_node[w]))
			continue;
		uint64_t here = 0;
		for (uint32_t k = 0; k < tk->n_in; k++) {
			uint32_t o = g->inputs[tk->in_at + k];
			if (locus_replicas_has(s->mon->replicas, o, s->wl->worker_node[w]))
				here += g->objects[o].bytes;
		}
		if (here > best)
			best = here, to = w;
	}
	locus_act_assign(act, s->n_workers, to, t, -1);
}

static void on_event(void *state, const struct locus_event *ev, struct locus_actions *act)
{
	struct follow *s = state;
	const struct locus_graph *g = s->wl->graph;
	if (ev->proc < s->n_workers) { /* a worker */
		struct locus_msg m = {.type = M_DONE, .from = ev->proc, .to = s->n_workers};
		if (ev->kind == LOCUS_EV_DONE) {
			m.n_args = 1;
			m.arg[0] = ev->done.task;
			locus_act_send(act, &m);
		} else if (ev->kind == LOCUS_EV_FAILED && !ev->failed.final) {
			locus_act_assign(act, ev->proc, (ev->proc + 1) % s->n_workers,
					 ev->failed.task, -1);
		}
		return;
	}
	if (ev->kind == LOCUS_EV_START) {
		for (uint32_t t = 0; t < g->n_tasks; t++)
			if (!s->waiting[t])
				place(s, act, t);
	} else if (ev->kind == LOCUS_EV_MESSAGE && ev->msg->type == M_DONE) {
		const struct locus_task *tk = &g->tasks[ev->msg->arg[0]];
		for (uint32_t k = 0; k < tk->n_out; k++) {
			const struct locus_object *o = &g->objects[g->outputs[tk->out_at + k]];
			for (uint32_t c = 0; c < o->n_cons; c++)
				if (!--s->waiting[g->consumers[o->cons_at + c]])
					place(s, act, g->consumers[o->cons_at + c]);
		}
	}
}

const struct locus_policy follow_policy = {
    .version = LOCUS_POLICY_VERSION,
    .name = "follow",
    .summary = "each task where most of its inputs' bytes are; a failed one to the next worker",
    .schedulers = schedulers,
    .create = create,
    .destroy = destroy,
    .on_event = on_event,
    .flags = LOCUS_POLICY_GRAPHS | LOCUS_POLICY_RETRIES,
    .needs = LOCUS_NEEDS_FAILED,
};
