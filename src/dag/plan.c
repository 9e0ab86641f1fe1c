/*
 * Static list schedulers (locus/dag.h): options and names, the plan and its
 * allocation, the dispatch to HEFT, CPOP, DLS and PEFT, and what they
 * share: each processor's timeline with insertion, data-ready times, the
 * choice of the earliest finish, and the ready list.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/internal.h"
#include "dag/plan.h"

static const char *const algorithm_names[] = {
    [LOCUS_DAG_HEFT] = "heft",
    [LOCUS_DAG_CPOP] = "cpop",
    [LOCUS_DAG_DLS] = "dls",
    [LOCUS_DAG_PEFT] = "peft",
};

void locus_dag_options_init(struct locus_dag_options *o)
{
	memset(o, 0, sizeof *o);
	o->version = LOCUS_DAG_OPTIONS_VERSION;
	o->insertion = 1;
}

int locus_dag_algorithm_parse(const char *name, enum locus_dag_algorithm *out)
{
	if (!name)
		return LOCUS_EINVAL;
	for (size_t a = 0; a < LOCUS__ARRAY_LEN(algorithm_names); a++)
		if (strcmp(name, algorithm_names[a]) == 0) {
			*out = (enum locus_dag_algorithm)a;
			return 0;
		}
	return LOCUS_EINVAL;
}

const char *locus_dag_algorithm_name(enum locus_dag_algorithm a)
{
	if ((size_t)a < LOCUS__ARRAY_LEN(algorithm_names))
		return algorithm_names[a];
	return "unknown";
}

void locus_dag_plan_destroy(struct locus_dag_plan *p)
{
	if (!p)
		return;
	free(p->slot);
	free(p->order);
	free(p->order_at);
	free(p->placed);
	free(p->priority);
	free(p);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A plan for n tasks on p processors with its arrays, zeroed. */
static struct locus_dag_plan *plan_new(enum locus_dag_algorithm alg, size_t n, size_t p)
{
	struct locus_dag_plan *plan = calloc(1, sizeof *plan);
	if (!plan)
		return NULL;
	plan->algorithm = alg;
	plan->n_tasks = n;
	plan->n_procs = p;
	plan->slot = locus__calloc(n ? n : 1, sizeof *plan->slot);
	plan->order = locus__calloc(n ? n : 1, sizeof *plan->order);
	plan->order_at = locus__calloc(p + 1, sizeof *plan->order_at);
	plan->placed = locus__calloc(n ? n : 1, sizeof *plan->placed);
	plan->priority = locus__calloc(n ? n : 1, sizeof *plan->priority);
	if (!plan->slot || !plan->order || !plan->order_at || !plan->placed || !plan->priority) {
		locus_dag_plan_destroy(plan);
		return NULL;
	}
	return plan;
}

int locus_dag_plan(struct locus_dag_plan **out, const struct locus_workload *wl,
		   enum locus_dag_algorithm alg, const struct locus_dag_options *opt,
		   struct locus_error *err)
{
	struct locus_dag_options defaults;
	double t0 = now();
	if (!out)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "expected a place for the plan");
	*out = NULL;
	if (!opt) {
		locus_dag_options_init(&defaults);
		opt = &defaults;
	}
	if (locus__check_version(opt->version, LOCUS_DAG_OPTIONS_VERSION, "locus_dag_options", err))
		return LOCUS_EINVAL;
	if (!wl || !wl->graph)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "expected a workload with a graph");
	if ((size_t)alg >= LOCUS__ARRAY_LEN(algorithm_names))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "expected an algorithm heft, cpop, dls or peft, got %d",
				  (int)alg);
	if (opt->insertion != 0 && opt->insertion != 1)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "expected insertion 0 or 1, got %d", opt->insertion);
	if (wl->n_tasks && !wl->n_workers)
		return locus__err(err, LOCUS_EINVAL, wl->graph->name, 0, 0,
				  "the workload has %zu tasks and no worker to run them",
				  wl->n_tasks);
	if (wl->n_workers > UINT32_MAX || wl->n_tasks > UINT32_MAX)
		return locus__err(err, LOCUS_ERANGE, NULL, 0, 0, "too many tasks or workers");

	struct locus_dag_plan *plan = plan_new(alg, wl->n_tasks, wl->n_workers);
	struct locus__dag s;
	int rc = LOCUS_ENOMEM;
	if (plan &&
	    !(rc = locus__dag_init(&s, wl, plan, alg == LOCUS_DAG_DLS ? 0 : opt->insertion))) {
		if (s.n_tasks == 0)
			rc = 0; /* an empty plan */
		else if (alg == LOCUS_DAG_HEFT)
			rc = locus__dag_heft(&s);
		else if (alg == LOCUS_DAG_CPOP)
			rc = locus__dag_cpop(&s);
		else if (alg == LOCUS_DAG_DLS)
			rc = locus__dag_dls(&s);
		else
			rc = locus__dag_peft(&s);
		if (!rc)
			locus__dag_finish(&s);
		locus__dag_fini(&s);
	}
	if (rc) {
		locus_dag_plan_destroy(plan);
		return locus__err(err, rc, NULL, 0, 0, "%s: %s", algorithm_names[alg],
				  locus_strerror(rc));
	}
	plan->seconds = now() - t0;
	*out = plan;
	return 0;
}

/* ---- the planning state ----------------------------------------------------- */

/* What makes an idle worker alike another (plan.h): its node's speed, the
 * links any node has to its node, `own` (not UINT32_MAX: alone), and,
 * when the tasks have demands, its node's room (cores, memory, storage:
 * alike workers hold the same tasks). */
struct class_key {
	double speed, net_bw, memory, storage;
	int cores;
	const char *rack; /* NULL: racks do not matter */
	uint32_t own, worker;
};

static int class_cmp(const void *a, const void *b)
{
	const struct class_key *x = a, *y = b;
	if (x->own != y->own)
		return x->own < y->own ? -1 : 1;
	if (x->speed != y->speed)
		return x->speed < y->speed ? -1 : 1;
	if (x->net_bw != y->net_bw)
		return x->net_bw < y->net_bw ? -1 : 1;
	if (x->cores != y->cores)
		return x->cores < y->cores ? -1 : 1;
	if (x->memory != y->memory)
		return x->memory < y->memory ? -1 : 1;
	if (x->storage != y->storage)
		return x->storage < y->storage ? -1 : 1;
	int r = x->rack && y->rack ? strcmp(x->rack, y->rack) : 0;
	if (r)
		return r;
	return (x->worker > y->worker) - (x->worker < y->worker);
}

static int same_class(const struct class_key *x, const struct class_key *y)
{
	return x->own == y->own && x->speed == y->speed && x->net_bw == y->net_bw &&
	       x->cores == y->cores && x->memory == y->memory && x->storage == y->storage &&
	       (!x->rack || !y->rack || !strcmp(x->rack, y->rack));
}

/* The classes of alike workers: members by class in index order. 0 or
 * LOCUS_ENOMEM. */
static int make_classes(struct locus__dag *s)
{
	const struct locus_workload *wl = s->wl;
	const struct locus_platform *pf = wl->platform;
	size_t p = s->n_procs;
	struct class_key *key = locus__calloc(p ? p : 1, sizeof *key);
	unsigned char *linked = locus__calloc(pf->n_nodes ? pf->n_nodes : 1, 1);
	s->members = locus__calloc(p ? p : 1, sizeof *s->members);
	s->member_at = locus__calloc(p + 1, sizeof *s->member_at);
	s->cursor = locus__calloc(p ? p : 1, sizeof *s->cursor);
	s->cls = locus__calloc(p ? p : 1, sizeof *s->cls);
	if (!key || !linked || !s->members || !s->member_at || !s->cursor || !s->cls) {
		free(key);
		free(linked);
		return LOCUS_ENOMEM;
	}
	int pairs = pf->network == LOCUS_NET_PAIRS, room = wl->graph->demand != NULL;
	for (size_t k = 0; pairs && k < pf->n_links; k++)
		linked[pf->links[k].a] = linked[pf->links[k].b] = 1;
	for (uint32_t w = 0; w < p; w++) {
		uint32_t nd = wl->worker_node[w];
		const struct locus_node *n = &pf->nodes[nd];
		key[w] = (struct class_key){
		    .speed = n->speed,
		    .net_bw = pairs ? 0 : n->net_bw,
		    .cores = room ? n->cores : 0,
		    .memory = room ? n->memory : 0,
		    .storage = room ? n->storage : 0,
		    .rack = !pairs && pf->rack_bw > 0 ? n->rack : NULL,
		    .own = wl->cost	? w
			   : linked[nd] ? nd
					: UINT32_MAX,
		    .worker = w,
		};
	}
	qsort(key, p, sizeof *key, class_cmp);
	s->n_classes = 0;
	for (size_t k = 0; k < p; k++) {
		if (k == 0 || !same_class(&key[k - 1], &key[k]))
			s->member_at[s->n_classes++] = (uint32_t)k;
		s->members[k] = key[k].worker;
		s->cls[key[k].worker] = (uint32_t)(s->n_classes - 1);
	}
	s->member_at[s->n_classes] = (uint32_t)p;
	for (size_t c = 0; c < s->n_classes; c++)
		s->cursor[c] = s->member_at[c];
	free(key);
	free(linked);
	return 0;
}

int locus__dag_init(struct locus__dag *s, const struct locus_workload *wl,
		    struct locus_dag_plan *plan, int insertion)
{
	memset(s, 0, sizeof *s);
	s->wl = wl;
	s->g = wl->graph;
	s->plan = plan;
	s->insertion = insertion;
	s->n_tasks = wl->n_tasks;
	s->n_procs = wl->n_workers;
	size_t n_nodes = wl->platform->n_nodes;
	s->tl = locus__calloc(s->n_procs ? s->n_procs : 1, sizeof *s->tl);
	s->mean_cost = locus__calloc(s->n_tasks ? s->n_tasks : 1, sizeof *s->mean_cost);
	s->node_ready = locus__calloc(n_nodes ? n_nodes : 1, sizeof *s->node_ready);
	s->node_first = locus__calloc(n_nodes + 1, sizeof *s->node_first);
	s->touched = locus__calloc(n_nodes ? n_nodes : 1, 1);
	s->touched_nodes = locus__calloc(n_nodes ? n_nodes : 1, sizeof *s->touched_nodes);
	s->cand = locus__calloc(s->n_procs ? s->n_procs : 1, sizeof *s->cand);
	if (!s->tl || !s->mean_cost || !s->node_ready || !s->node_first || !s->touched ||
	    !s->touched_nodes || !s->cand || make_classes(s)) {
		locus__dag_fini(s);
		return LOCUS_ENOMEM;
	}
	/* Workers are numbered in node order: node n's are node_first[n] on. */
	for (size_t n = 0, w = 0; n <= n_nodes; n++) {
		while (w < s->n_procs && wl->worker_node[w] < n)
			w++;
		s->node_first[n] = (uint32_t)w;
	}
	locus__dag_mean_costs(wl, s->mean_cost);
	for (size_t t = 0; t < s->n_tasks; t++)
		plan->slot[t].proc = UINT32_MAX;
	return 0;
}

void locus__dag_fini(struct locus__dag *s)
{
	if (s->tl)
		for (size_t w = 0; w < s->n_procs; w++)
			free(s->tl[w].busy);
	free(s->tl);
	free(s->mean_cost);
	free(s->node_ready);
	free(s->members);
	free(s->member_at);
	free(s->cursor);
	free(s->cls);
	free(s->node_first);
	free(s->touched);
	free(s->touched_nodes);
	free(s->cand);
	memset(s, 0, sizeof *s);
}

double locus__dag_ready_on(const struct locus__dag *s, uint32_t t, uint32_t node)
{
	const struct locus_graph *g = s->g;
	const struct locus_task *tk = &g->tasks[t];
	const struct locus_dag_slot *slot = s->plan->slot;
	double ready = 0;
	/* Each produced input on its own, as the simulator sends them (an
	 * edge of several objects is several transfers at once). */
	for (uint32_t k = 0; k < tk->n_in; k++) {
		const struct locus_object *o = &g->objects[g->inputs[tk->in_at + k]];
		if (o->producer == LOCUS_NONE)
			continue;
		const struct locus_dag_slot *ps = &slot[o->producer];
		double at = locus_workload_arrival(s->wl, ps->finish, o->bytes,
						   s->wl->worker_node[ps->proc], node);
		if (at > ready)
			ready = at;
	}
	return ready;
}

uint32_t locus__dag_class_idle(struct locus__dag *s, size_t c)
{
	const uint32_t *node_of = s->wl->worker_node;
	uint32_t *at = &s->cursor[c];
	while (*at < s->member_at[c + 1] && s->touched[node_of[s->members[*at]]])
		++*at;
	return *at < s->member_at[c + 1] ? s->members[*at] : UINT32_MAX;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

void locus__dag_ready_all(struct locus__dag *s, uint32_t t)
{
	const uint32_t *node_of = s->wl->worker_node;
	int room = s->g->demand != NULL;
	size_t n = 0;
	for (size_t k = 0; k < s->n_touched; k++) {
		uint32_t nd = s->touched_nodes[k];
		/* Only nodes that can hold t (a class's members hold alike). */
		if (room && !locus_workload_fits(s->wl, t, nd))
			continue;
		s->node_ready[nd] = locus__dag_ready_on(s, t, nd);
		for (uint32_t w = s->node_first[nd]; w < s->node_first[nd + 1]; w++)
			s->cand[n++] = w;
	}
	for (size_t c = 0; c < s->n_classes; c++) {
		uint32_t w = locus__dag_class_idle(s, c);
		if (w == UINT32_MAX)
			continue;
		if (room && !locus_workload_fits(s->wl, t, node_of[w]))
			continue;
		s->node_ready[node_of[w]] = locus__dag_ready_on(s, t, node_of[w]);
		s->cand[n++] = w;
	}
	qsort(s->cand, n, sizeof *s->cand, cmp_u32);
	s->n_cand = n;
}

struct locus__fit locus__dag_fit(const struct locus__dag *s, uint32_t w, double ready, double cost)
{
	const struct locus__timeline *tl = &s->tl[w];
	const struct locus__busy *b = tl->busy;
	struct locus__fit fit;
	size_t k = tl->n;
	if (s->insertion) {
		/* A gap that ends before `ready` cannot hold the task: start
		 * from the first task that starts at or after it. */
		size_t lo = 0, hi = tl->n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (b[mid].start < ready)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* A gap holds the task only if it starts strictly before
		 * b[k]: a task of no duration put at b[k]'s very start would
		 * run before it on this worker, and b[k] (placed earlier) may
		 * be its predecessor, or precede one at that same instant.
		 * So each worker's order rises in (start, placement) and
		 * every predecessor comes first: no run can wait on itself.
		 * With any duration, start + cost <= b[k].start says it. */
		for (k = lo; k < tl->n; k++) {
			double from = k ? b[k - 1].finish : 0;
			double start = from > ready ? from : ready;
			if (start < b[k].start && start + cost <= b[k].start)
				break;
		}
	}
	/* The gap before b[k], or after the last task when k == n. */
	double from = k ? b[k - 1].finish : 0;
	fit.start = from > ready ? from : ready;
	fit.finish = fit.start + cost;
	fit.pos = k;
	return fit;
}

struct locus__fit locus__dag_best_eft(const struct locus__dag *s, uint32_t t, uint32_t *best)
{
	struct locus__fit fit = {0, 0, 0};
	*best = UINT32_MAX;
	for (size_t k = 0; k < s->n_cand; k++) {
		uint32_t w = s->cand[k];
		double ready = s->node_ready[s->wl->worker_node[w]];
		struct locus__fit f = locus__dag_fit(s, w, ready, locus_workload_cost(s->wl, t, w));
		if (*best == UINT32_MAX || f.finish < fit.finish) {
			fit = f;
			*best = w;
		}
	}
	return fit;
}

int locus__dag_place(struct locus__dag *s, uint32_t t, uint32_t w, struct locus__fit fit)
{
	struct locus__timeline *tl = &s->tl[w];
	if (locus__grow(&tl->busy, &tl->cap, tl->n + 1, sizeof *tl->busy))
		return LOCUS_ENOMEM;
	memmove(&tl->busy[fit.pos + 1], &tl->busy[fit.pos], (tl->n - fit.pos) * sizeof *tl->busy);
	tl->busy[fit.pos] = (struct locus__busy){fit.start, fit.finish, t};
	tl->n++;
	uint32_t nd = s->wl->worker_node[w];
	if (!s->touched[nd]) {
		s->touched[nd] = 1;
		s->touched_nodes[s->n_touched++] = nd;
	}
	s->plan->slot[t] = (struct locus_dag_slot){w, 0, fit.start, fit.finish};
	s->plan->placed[s->n_placed++] = t;
	return 0;
}

void locus__dag_finish(struct locus__dag *s)
{
	struct locus_dag_plan *plan = s->plan;
	uint32_t at = 0;
	plan->makespan = 0;
	for (size_t w = 0; w < s->n_procs; w++) {
		plan->order_at[w] = at;
		for (size_t k = 0; k < s->tl[w].n; k++) {
			plan->order[at++] = s->tl[w].busy[k].task;
			if (s->tl[w].busy[k].finish > plan->makespan)
				plan->makespan = s->tl[w].busy[k].finish;
		}
	}
	plan->order_at[s->n_procs] = at;
}

/* ---- the ready list --------------------------------------------------------- */

struct locus__ready_item {
	double key;
	uint32_t task;
};

/* The heap's least element is the largest key, then the lower task. */
static int ready_cmp(const void *a, const void *b)
{
	const struct locus__ready_item *x = a, *y = b;
	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return (x->task > y->task) - (x->task < y->task);
}

/* Gives each task the largest priority of its group (plan.h). */
static int group_priorities(const double *priority, size_t n, double *key)
{
	struct locus__ready_item *by = locus__calloc(n, sizeof *by);
	if (!by)
		return LOCUS_ENOMEM;
	for (size_t t = 0; t < n; t++)
		by[t] = (struct locus__ready_item){priority[t], (uint32_t)t};
	qsort(by, n, sizeof *by, ready_cmp);
	double leader = 0;
	for (size_t k = 0; k < n; k++) {
		if (k == 0 || !locus__dag_ties(by[k].key, leader))
			leader = by[k].key;
		key[by[k].task] = leader;
	}
	free(by);
	return 0;
}

int locus__ready_init(struct locus__ready *r, const struct locus_graph *g, const double *priority)
{
	memset(r, 0, sizeof *r);
	r->waiting = locus__calloc(g->n_tasks, sizeof *r->waiting);
	r->key = locus__calloc(g->n_tasks, sizeof *r->key);
	if (!r->waiting || !r->key || group_priorities(priority, g->n_tasks, r->key) ||
	    locus_heap_init(&r->heap, sizeof(struct locus__ready_item), ready_cmp)) {
		free(r->waiting);
		free(r->key);
		memset(r, 0, sizeof *r);
		return LOCUS_ENOMEM;
	}
	for (size_t t = 0; t < g->n_tasks; t++) {
		r->waiting[t] = g->pred_at[t + 1] - g->pred_at[t];
		struct locus__ready_item it = {r->key[t], (uint32_t)t};
		if (!r->waiting[t] && locus_heap_push(&r->heap, &it)) {
			locus__ready_fini(r);
			return LOCUS_ENOMEM;
		}
	}
	return 0;
}

void locus__ready_fini(struct locus__ready *r)
{
	locus_heap_fini(&r->heap);
	free(r->waiting);
	free(r->key);
	r->waiting = NULL;
	r->key = NULL;
}

uint32_t locus__ready_pop(struct locus__ready *r)
{
	struct locus__ready_item top = {0, UINT32_MAX};
	locus_heap_pop(&r->heap, &top);
	return top.task;
}

int locus__ready_done(struct locus__ready *r, const struct locus_graph *g, uint32_t t)
{
	for (uint32_t e = g->succ_at[t]; e < g->succ_at[t + 1]; e++) {
		uint32_t j = g->succs[e].task;
		struct locus__ready_item it = {r->key[j], j};
		if (!--r->waiting[j] && locus_heap_push(&r->heap, &it))
			return LOCUS_ENOMEM;
	}
	return 0;
}
