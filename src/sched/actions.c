/* Collecting a policy's actions for one event. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "sched/actions.h"

/* The next action's slot, as it was left. */
static struct locus__action *slot(struct locus_actions *a)
{
	if (locus__grow(&a->list, &a->cap, a->n + 1, sizeof *a->list)) {
		a->oom = 1;
		return NULL;
	}
	return &a->list[a->n++];
}

static struct locus__action *push(struct locus_actions *a)
{
	struct locus__action *x = slot(a);
	if (x)
		memset(x, 0, sizeof *x);
	return x;
}

void locus_act_send(struct locus_actions *a, const struct locus_msg *m)
{
	/* A send is read for its kind, its message and its process alone
	 * (locus__exec_apply): those are written, the rest of the slot is
	 * not zeroed first (most actions are sends). */
	struct locus__action *x = slot(a);
	if (!x)
		return;
	x->kind = LOCUS__ACT_SEND;
	x->msg = *m;
	x->proc = m->to;
}

void locus_act_assign(struct locus_actions *a, uint32_t from, uint32_t worker, uint32_t task,
		      int32_t source)
{
	struct locus_msg m = {.type = LOCUS_MSG_ASSIGN, .from = from, .to = worker, .n_args = 2};
	m.arg[0] = task;
	m.arg[1] = source;
	locus_act_send(a, &m);
}

void locus_act_assign_flow(struct locus_actions *a, uint32_t from, uint32_t worker, uint32_t task,
			   int32_t source, enum locus_gather gather, enum locus_output output)
{
	struct locus_msg m = {
	    .type = LOCUS_MSG_ASSIGN_FLOW, .from = from, .to = worker, .n_args = 4};
	m.arg[0] = task;
	m.arg[1] = source;
	m.arg[2] = gather;
	m.arg[3] = output;
	locus_act_send(a, &m);
}

void locus_act_timer(struct locus_actions *a, uint32_t proc, double delay, uint64_t tag)
{
	struct locus__action *x = push(a);
	if (!x)
		return;
	x->kind = LOCUS__ACT_TIMER;
	x->proc = proc;
	x->delay = delay < 0 ? 0 : delay;
	x->tag = tag;
}

void locus_act_stop(struct locus_actions *a, uint32_t worker)
{
	struct locus__action *x = push(a);
	if (!x)
		return;
	x->kind = LOCUS__ACT_STOP;
	x->proc = worker;
}

void locus_act_cancel(struct locus_actions *a, uint32_t task)
{
	struct locus__action *x = push(a);
	if (!x)
		return;
	x->kind = LOCUS__ACT_CANCEL;
	x->tag = task;
}

void locus_act_rewind(struct locus_actions *a, uint32_t task)
{
	struct locus__action *x = push(a);
	if (!x)
		return;
	x->kind = LOCUS__ACT_REWIND;
	x->tag = task;
}

void locus_act_transfer(struct locus_actions *a, uint32_t object, uint32_t from, uint32_t to)
{
	struct locus__action *x = push(a);
	if (!x)
		return;
	x->kind = LOCUS__ACT_TRANSFER;
	x->tag = object;
	x->from = from;
	x->to = to;
}

void locus_act_copy(struct locus_actions *a, const struct locus_copy *c)
{
	int listed = c->n && c->objects;
	if (listed && locus__grow(&a->pool, &a->pool_cap, a->n_pool + c->n, sizeof *a->pool)) {
		a->oom = 1;
		return;
	}
	struct locus__action *x = push(a);
	if (!x)
		return;
	x->kind = LOCUS__ACT_COPY;
	/* n objects not given: at is SIZE_MAX, which the engines refuse. */
	x->at = listed || !c->n ? a->n_pool : SIZE_MAX;
	x->n = c->n;
	x->bytes = c->bytes;
	x->from = c->from;
	x->to = c->to;
	x->delay = c->delay > 0 ? c->delay : 0;
	x->tag = c->tag;
	x->task = c->task;
	if (listed) {
		memcpy(a->pool + a->n_pool, c->objects, c->n * sizeof *a->pool);
		a->n_pool += c->n;
	}
}

void locus_act_reduce(struct locus_actions *a, const struct locus_copy *c, const uint32_t *objects,
		      uint32_t n_objects)
{
	size_t before = a->n;
	locus_act_copy(a, c);
	if (a->n == before)
		return; /* out of memory, said */
	struct locus__action *x = &a->list[a->n - 1];
	x->reduce = 1;
	x->r_at = a->n_pool;
	if (n_objects && !objects) {
		x->r_at = SIZE_MAX; /* refused by the engines, as a copy's */
		return;
	}
	if (n_objects &&
	    locus__grow(&a->pool, &a->pool_cap, a->n_pool + n_objects, sizeof *a->pool)) {
		a->oom = 1;
		return;
	}
	if (n_objects)
		memcpy(a->pool + a->n_pool, objects, n_objects * sizeof *a->pool);
	a->n_pool += n_objects;
	x->r_n = n_objects;
}

void locus_act_drop(struct locus_actions *a, uint32_t object, uint32_t node)
{
	struct locus__action *x = push(a);
	if (!x)
		return;
	x->kind = LOCUS__ACT_DROP;
	x->tag = object;
	x->to = node;
}

void locus_act_cost(struct locus_actions *a, uint64_t entries)
{
	a->entries += entries;
}

void locus_act_oom(struct locus_actions *a)
{
	a->oom = 1;
}

void locus__actions_reset(struct locus_actions *a)
{
	a->n = 0;
	a->n_pool = 0;
	a->entries = 0;
}

void locus__actions_fini(struct locus_actions *a)
{
	free(a->list);
	free(a->pool);
	memset(a, 0, sizeof *a);
}

struct locus_actions *locus__actions_at(struct locus__action_stack *s, size_t depth)
{
	if (depth >= s->n) {
		size_t n = s->n ? 2 * s->n : 4;
		while (n <= depth)
			n *= 2;
		struct locus_actions **more = realloc(s->level, n * sizeof *more);
		if (!more)
			return NULL;
		memset(more + s->n, 0, (n - s->n) * sizeof *more);
		s->level = more;
		s->n = n;
	}
	if (!s->level[depth])
		s->level[depth] = calloc(1, sizeof **s->level);
	return s->level[depth];
}

void locus__action_stack_fini(struct locus__action_stack *s)
{
	for (size_t k = 0; k < s->n; k++) {
		if (s->level[k])
			locus__actions_fini(s->level[k]);
		free(s->level[k]);
	}
	free(s->level);
	memset(s, 0, sizeof *s);
}
