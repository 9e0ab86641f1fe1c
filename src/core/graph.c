/*
 * Task graphs (include/locus/task.h): built by adding tasks, objects,
 * inputs and outputs, then frozen by locus_graph_finish into arrays by
 * task and by object, edge lists and a topological order.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/heap.h"
#include "locus/task.h"

/* A (task, object) pair: an input or an output as it was added, with the
 * name it has where the task runs (or NULL). */
struct pair {
	uint32_t task, object;
	const char *as;
};

struct builder {
	size_t tasks_cap, objects_cap;
	struct pair *ins, *outs;
	size_t n_ins, ins_cap, n_outs, outs_cap;
	char **names; /* every copied name, freed with the graph */
	size_t n_names, names_cap;
	struct locus__strmap task_ix, object_ix; /* built by finish */
	struct locus__strmap stage_ix;		 /* stage name -> id */
	size_t stages_cap;			 /* stage_names */
	size_t stage_len, stage_cap;		 /* task_stage: tasks covered, room */
	size_t commands_len, commands_cap;	 /* commands: the same */
	size_t demand_len, demand_cap;		 /* demand: the same */
	size_t line_len, line_cap;		 /* task_line: the same */
	int finished;
};

static struct builder *bld(const struct locus_graph *g)
{
	return g->priv;
}

static const char *keep_name(struct locus_graph *g, const char *name, int *oom)
{
	struct builder *b = bld(g);
	*oom = 0;
	if (!name)
		return NULL;
	if (locus__grow(&b->names, &b->names_cap, b->n_names + 1, sizeof *b->names)) {
		*oom = 1;
		return NULL;
	}
	char *copy = locus__strdup(name);
	if (!copy) {
		*oom = 1;
		return NULL;
	}
	b->names[b->n_names++] = copy;
	return copy;
}

int locus_graph_create(struct locus_graph **out, const char *name, struct locus_error *err)
{
	struct locus_graph *g = calloc(1, sizeof *g);
	struct builder *b = calloc(1, sizeof *b);
	int oom = 0;
	*out = NULL;
	if (!g || !b) {
		free(g);
		free(b);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	g->priv = b;
	locus__strmap_init(&b->task_ix);
	locus__strmap_init(&b->object_ix);
	locus__strmap_init(&b->stage_ix);
	g->name = keep_name(g, name, &oom);
	if (oom) {
		locus_graph_destroy(g);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	*out = g;
	return 0;
}

void locus_graph_destroy(struct locus_graph *g)
{
	if (!g)
		return;
	struct builder *b = bld(g);
	/* The commands set so far (those past it were never written). */
	for (size_t t = 0; g->commands && b && t < b->commands_len; t++) {
		free((void *)g->commands[t].argv);
		free((void *)g->commands[t].env);
	}
	if (b) {
		for (size_t i = 0; i < b->n_names; i++)
			free(b->names[i]);
		free(b->names);
		free(b->ins);
		free(b->outs);
		locus__strmap_fini(&b->task_ix);
		locus__strmap_fini(&b->object_ix);
		locus__strmap_fini(&b->stage_ix);
		free(b);
	}
	free(g->commands);
	free(g->stage_names);
	free(g->task_stage);
	free(g->demand);
	free(g->task_line);
	free(g->input_as);
	free(g->output_as);
	free(g->tasks);
	free(g->objects);
	free(g->inputs);
	free(g->outputs);
	free(g->consumers);
	free(g->pred_at);
	free(g->succ_at);
	free(g->preds);
	free(g->succs);
	free(g->topo);
	free(g->level);
	free(g->cost);
	free(g);
}

long locus_graph_add_task(struct locus_graph *g, const char *name, double work)
{
	struct builder *b = bld(g);
	int oom;
	if (b->finished || !(work >= 0) || isinf(work))
		return LOCUS_EINVAL;
	if (g->n_tasks >= UINT32_MAX - 1)
		return LOCUS_ERANGE;
	if (locus__grow(&g->tasks, &b->tasks_cap, g->n_tasks + 1, sizeof *g->tasks))
		return LOCUS_ENOMEM;
	const char *kept = keep_name(g, name, &oom);
	if (oom)
		return LOCUS_ENOMEM;
	g->tasks[g->n_tasks] = (struct locus_task){
	    .dataset = LOCUS_NONE, .chunk = LOCUS_NONE, .work = work, .name = kept};
	return (long)g->n_tasks++;
}

long locus_graph_add_object(struct locus_graph *g, const char *name, uint64_t bytes)
{
	struct builder *b = bld(g);
	int oom;
	if (b->finished)
		return LOCUS_EINVAL;
	if (g->n_objects >= UINT32_MAX - 1)
		return LOCUS_ERANGE;
	if (locus__grow(&g->objects, &b->objects_cap, g->n_objects + 1, sizeof *g->objects))
		return LOCUS_ENOMEM;
	const char *kept = keep_name(g, name, &oom);
	if (oom)
		return LOCUS_ENOMEM;
	g->objects[g->n_objects] = (struct locus_object){.bytes = bytes,
							 .producer = LOCUS_NONE,
							 .dataset = LOCUS_NONE,
							 .chunk = LOCUS_NONE,
							 .name = kept};
	return (long)g->n_objects++;
}

int locus_graph_set_chunk(struct locus_graph *g, uint32_t object, uint32_t dataset, uint32_t chunk)
{
	if (bld(g)->finished || object >= g->n_objects)
		return LOCUS_EINVAL;
	g->objects[object].dataset = dataset;
	g->objects[object].chunk = chunk;
	return 0;
}

static int add_pair(struct pair **list, size_t *n, size_t *cap, uint32_t task, uint32_t object,
		    const char *as)
{
	if (locus__grow(list, cap, *n + 1, sizeof **list))
		return LOCUS_ENOMEM;
	(*list)[(*n)++] = (struct pair){task, object, as};
	return 0;
}

int locus_graph_add_input(struct locus_graph *g, uint32_t task, uint32_t object)
{
	return locus_graph_add_input_as(g, task, object, NULL);
}

int locus_graph_add_input_as(struct locus_graph *g, uint32_t task, uint32_t object, const char *as)
{
	struct builder *b = bld(g);
	int oom;
	if (b->finished || task >= g->n_tasks || object >= g->n_objects)
		return LOCUS_EINVAL;
	const char *kept = keep_name(g, as, &oom);
	if (oom)
		return LOCUS_ENOMEM;
	return add_pair(&b->ins, &b->n_ins, &b->ins_cap, task, object, kept);
}

int locus_graph_add_output(struct locus_graph *g, uint32_t task, uint32_t object,
			   struct locus_error *err)
{
	return locus_graph_add_output_as(g, task, object, NULL, err);
}

int locus_graph_add_output_as(struct locus_graph *g, uint32_t task, uint32_t object, const char *as,
			      struct locus_error *err)
{
	struct builder *b = bld(g);
	char n1[32], n2[32], n3[32];
	if (b->finished || task >= g->n_tasks || object >= g->n_objects)
		return locus__err(err, LOCUS_EINVAL, g->name, 0, 0, "no such task or object");
	uint32_t was = g->objects[object].producer;
	if (was == task)
		return 0;
	if (was != LOCUS_NONE) {
		const char *on = g->objects[object].name;
		if (!on) {
			snprintf(n3, sizeof n3, "%" PRIu32, object);
			on = n3;
		}
		return locus__err(err, LOCUS_EINVAL, g->name, 0, 0,
				  "object \"%s\" is written by task \"%s\" and by task \"%s\": "
				  "expected one writer per object",
				  on, locus_graph_task_name(g, was, n1, sizeof n1),
				  locus_graph_task_name(g, task, n2, sizeof n2));
	}
	int oom;
	const char *kept = keep_name(g, as, &oom);
	if (oom || add_pair(&b->outs, &b->n_outs, &b->outs_cap, task, object, kept))
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	g->objects[object].producer = task;
	return 0;
}

long locus_graph_stage(struct locus_graph *g, const char *name)
{
	struct builder *b = bld(g);
	size_t id;
	int oom;
	if (b->finished || !name || !*name)
		return LOCUS_EINVAL;
	if (locus__strmap_get(&b->stage_ix, name, &id))
		return (long)id;
	if (g->n_stages >= UINT32_MAX - 1)
		return LOCUS_ERANGE;
	if (locus__grow(&g->stage_names, &b->stages_cap, g->n_stages + 1, sizeof *g->stage_names))
		return LOCUS_ENOMEM;
	const char *kept = keep_name(g, name, &oom);
	if (oom || locus__strmap_put(&b->stage_ix, kept, g->n_stages))
		return LOCUS_ENOMEM;
	g->stage_names[g->n_stages] = kept;
	return (long)g->n_stages++;
}

/* Makes a per-task array cover every task added so far: *len of them are
 * set, the rest get `fill` (elem bytes each, or zeros when fill is NULL);
 * its capacity *cap grows geometrically (a reader setting each task as it
 * adds it stays linear). */
static int cover_tasks(const struct locus_graph *g, void **arr, size_t *len, size_t *cap,
		       size_t elem, const void *fill)
{
	if (*len >= g->n_tasks && *arr)
		return 0;
	if (*cap < g->n_tasks || !*arr) {
		size_t n = *cap * 2 > g->n_tasks ? *cap * 2 : g->n_tasks;
		if (!n)
			n = 1;
		unsigned char *a = realloc(*arr, n * elem);
		if (!a)
			return LOCUS_ENOMEM;
		*arr = a;
		*cap = n;
	}
	unsigned char *a = *arr;
	for (size_t t = *len; t < g->n_tasks; t++) {
		if (fill)
			memcpy(a + t * elem, fill, elem);
		else
			memset(a + t * elem, 0, elem);
	}
	*len = g->n_tasks;
	return 0;
}

int locus_graph_set_stage(struct locus_graph *g, uint32_t task, uint32_t stage)
{
	struct builder *b = bld(g);
	static const uint32_t none = LOCUS_NONE;
	if (b->finished || task >= g->n_tasks || stage >= g->n_stages)
		return LOCUS_EINVAL;
	if (cover_tasks(g, (void **)&g->task_stage, &b->stage_len, &b->stage_cap,
			sizeof *g->task_stage, &none))
		return LOCUS_ENOMEM;
	g->task_stage[task] = stage;
	return 0;
}

int locus_graph_set_demand(struct locus_graph *g, uint32_t task, const struct locus_demand *d)
{
	struct builder *b = bld(g);
	static const struct locus_demand def = LOCUS_DEMAND_DEFAULT;
	if (b->finished || task >= g->n_tasks || !d->cores)
		return LOCUS_EINVAL;
	if (cover_tasks(g, (void **)&g->demand, &b->demand_len, &b->demand_cap, sizeof *g->demand,
			&def))
		return LOCUS_ENOMEM;
	g->demand[task] = *d;
	return 0;
}

int locus_graph_set_line(struct locus_graph *g, uint32_t task, uint32_t line)
{
	struct builder *b = bld(g);
	if (b->finished || task >= g->n_tasks)
		return LOCUS_EINVAL;
	if (cover_tasks(g, (void **)&g->task_line, &b->line_len, &b->line_cap, sizeof *g->task_line,
			NULL))
		return LOCUS_ENOMEM;
	g->task_line[task] = line;
	return 0;
}

/* Copies n strings into the graph's names: a new array (NULL when n is 0),
 * or NULL with *oom set. */
static const char **keep_names(struct locus_graph *g, const char *const *v, uint32_t n, int *oom)
{
	*oom = 0;
	if (!n)
		return NULL;
	const char **copy = calloc(n, sizeof *copy);
	if (!copy) {
		*oom = 1;
		return NULL;
	}
	for (uint32_t i = 0; i < n && !*oom; i++)
		copy[i] = keep_name(g, v[i] ? v[i] : "", oom);
	if (*oom) {
		free(copy);
		return NULL;
	}
	return copy;
}

int locus_graph_set_command(struct locus_graph *g, uint32_t task, const struct locus_command *c)
{
	struct builder *b = bld(g);
	int oom = 0;
	if (b->finished || task >= g->n_tasks || !c || !c->line == !c->argc ||
	    (c->argc && !c->argv) || (c->n_env && !c->env) || !(c->wall_time >= 0))
		return LOCUS_EINVAL;
	if (cover_tasks(g, (void **)&g->commands, &b->commands_len, &b->commands_cap,
			sizeof *g->commands, NULL))
		return LOCUS_ENOMEM;
	const char **argv = keep_names(g, c->argv, c->argc, &oom), **env = NULL;
	const char *line = NULL;
	if (!oom)
		env = keep_names(g, c->env, c->n_env, &oom);
	if (!oom)
		line = keep_name(g, c->line, &oom);
	if (oom) {
		free(argv);
		free(env);
		return LOCUS_ENOMEM;
	}
	struct locus_command *to = &g->commands[task];
	free((void *)to->argv);
	free((void *)to->env);
	*to = (struct locus_command){line, argv, c->argc, c->flags, env, c->n_env, c->wall_time};
	return 0;
}

long locus_graph_add_edge(struct locus_graph *g, uint32_t from, uint32_t to, uint64_t bytes)
{
	if (from >= g->n_tasks || to >= g->n_tasks || from == to)
		return LOCUS_EINVAL;
	long o = locus_graph_add_object(g, NULL, bytes);
	if (o < 0)
		return o;
	g->objects[o].producer = from;
	struct builder *b = bld(g);
	if (add_pair(&b->outs, &b->n_outs, &b->outs_cap, from, (uint32_t)o, NULL) ||
	    add_pair(&b->ins, &b->n_ins, &b->ins_cap, to, (uint32_t)o, NULL))
		return LOCUS_ENOMEM;
	return o;
}

int locus_graph_set_costs(struct locus_graph *g, size_t n_procs, const double *cost,
			  struct locus_error *err)
{
	if (!n_procs || n_procs > UINT32_MAX || (g->n_tasks && n_procs > SIZE_MAX / g->n_tasks))
		return locus__err(err, LOCUS_EINVAL, g->name, 0, 0,
				  "expected costs on 1 processor or more");
	double *copy = locus__calloc(g->n_tasks * n_procs, sizeof *copy);
	if (!copy)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	for (size_t t = 0; t < g->n_tasks; t++) {
		double sum = 0;
		for (size_t m = 0; m < n_procs; m++) {
			double c = cost[t * n_procs + m];
			if (!(c >= 0) || isinf(c)) {
				char nb[32];
				free(copy);
				return locus__err(
				    err, LOCUS_EINVAL, g->name, 0, 0,
				    "task \"%s\" on processor %zu: expected a cost >= 0, "
				    "got %g",
				    locus_graph_task_name(g, (uint32_t)t, nb, sizeof nb), m + 1, c);
			}
			copy[t * n_procs + m] = c;
			sum += c;
		}
		g->tasks[t].work = sum / (double)n_procs;
	}
	free(g->cost);
	g->cost = copy;
	g->n_procs = n_procs;
	return 0;
}

const char *locus_graph_task_name(const struct locus_graph *g, uint32_t t, char *buf, size_t size)
{
	if (t < g->n_tasks && g->tasks[t].name)
		return g->tasks[t].name;
	snprintf(buf, size, "%" PRIu32, t);
	return buf;
}

long locus_graph_find_task(const struct locus_graph *g, const char *name)
{
	size_t v;
	return name && locus__strmap_get(&bld(g)->task_ix, name, &v) ? (long)v : -1;
}

long locus_graph_find_object(const struct locus_graph *g, const char *name)
{
	size_t v;
	return name && locus__strmap_get(&bld(g)->object_ix, name, &v) ? (long)v : -1;
}

int locus_graph_has_edges(const struct locus_graph *g)
{
	return g->n_edges > 0;
}

/* ---- finishing ------------------------------------------------------------ */

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	if (x->task != y->task)
		return x->task < y->task ? -1 : 1;
	if (x->object != y->object)
		return x->object < y->object ? -1 : 1;
	if (!x->as || !y->as)
		return (x->as != NULL) - (y->as != NULL);
	return strcmp(x->as, y->as);
}

/* Sorts pairs by task, object and name, drops repeats (a repeat with names
 * keeps the first of them in byte order), and lays them out as CSR: *at
 * (n_tasks + 1 offsets), *ids and *as (the names where the tasks run; NULL
 * when every pair has none). */
static int to_csr(struct pair *p, size_t n, size_t n_tasks, uint32_t **at, uint32_t **ids,
		  const char ***as, size_t *kept)
{
	size_t i0 = 1;
	while (i0 < n && cmp_pair(&p[i0 - 1], &p[i0]) <= 0)
		i0++;
	if (i0 < n) /* not in order already (a chunk workload is) */
		qsort(p, n, sizeof *p, cmp_pair);
	size_t k = 0, named = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || p[i].task != p[k - 1].task || p[i].object != p[k - 1].object) {
			p[k++] = p[i];
			named += p[i].as != NULL;
		} else if (!p[k - 1].as && p[i].as) {
			p[k - 1].as = p[i].as; /* the first named repeat */
			named++;
		}
	*at = locus__calloc(n_tasks + 1, sizeof **at);
	*ids = locus__calloc(k ? k : 1, sizeof **ids);
	*as = named ? locus__calloc(k, sizeof **as) : NULL;
	if (!*at || !*ids || (named && !*as))
		return LOCUS_ENOMEM;
	for (size_t i = 0; i < k; i++) {
		(*at)[p[i].task + 1]++;
		(*ids)[i] = p[i].object;
		if (*as)
			(*as)[i] = p[i].as;
	}
	for (size_t t = 0; t < n_tasks; t++)
		(*at)[t + 1] += (*at)[t];
	*kept = k;
	return 0;
}

/* An edge as gathered: producer -> consumer. */
struct raw_edge {
	uint32_t from, to;
	uint64_t bytes;
};

static int cmp_by_to(const void *a, const void *b)
{
	const struct raw_edge *x = a, *y = b;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return (x->from > y->from) - (x->from < y->from);
}

static int cmp_by_from(const void *a, const void *b)
{
	const struct raw_edge *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (x->to > y->to) - (x->to < y->to);
}

/* The index of the edge to `task` in list[lo .. hi), sorted by task. */
static uint32_t find_edge(const struct locus_edge *list, uint32_t lo, uint32_t hi, uint32_t task)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (list[mid].task < task)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Recomputes what depends on object sizes: each task's input bytes and
 * each edge's bytes. */
static void sum_bytes(struct locus_graph *g)
{
	for (size_t t = 0; t < g->n_tasks; t++) {
		struct locus_task *tk = &g->tasks[t];
		tk->bytes = 0;
		for (uint32_t k = 0; k < tk->n_in; k++)
			tk->bytes += g->objects[g->inputs[tk->in_at + k]].bytes;
		for (uint32_t e = g->pred_at[t]; e < g->pred_at[t + 1]; e++)
			g->preds[e].bytes = 0;
	}
	for (size_t t = 0; t < g->n_tasks; t++) {
		const struct locus_task *tk = &g->tasks[t];
		for (uint32_t k = 0; k < tk->n_in; k++) {
			const struct locus_object *o = &g->objects[g->inputs[tk->in_at + k]];
			if (o->producer == LOCUS_NONE)
				continue;
			uint32_t e =
			    find_edge(g->preds, g->pred_at[t], g->pred_at[t + 1], o->producer);
			g->preds[e].bytes += o->bytes;
		}
	}
	for (size_t t = 0; t < g->n_tasks; t++)
		for (uint32_t e = g->succ_at[t]; e < g->succ_at[t + 1]; e++) {
			uint32_t to = g->succs[e].task;
			uint32_t f =
			    find_edge(g->preds, g->pred_at[to], g->pred_at[to + 1], (uint32_t)t);
			g->succs[e].bytes = g->preds[f].bytes;
		}
}

static int build_edges(struct locus_graph *g)
{
	size_t n_raw = 0;
	for (size_t t = 0; t < g->n_tasks; t++) {
		const struct locus_task *tk = &g->tasks[t];
		for (uint32_t k = 0; k < tk->n_in; k++)
			n_raw += g->objects[g->inputs[tk->in_at + k]].producer != LOCUS_NONE;
	}
	struct raw_edge *raw = locus__calloc(n_raw ? n_raw : 1, sizeof *raw);
	g->pred_at = locus__calloc(g->n_tasks + 1, sizeof *g->pred_at);
	g->succ_at = locus__calloc(g->n_tasks + 1, sizeof *g->succ_at);
	if (!raw || !g->pred_at || !g->succ_at) {
		free(raw);
		return LOCUS_ENOMEM;
	}
	size_t r = 0;
	for (size_t t = 0; t < g->n_tasks; t++) {
		const struct locus_task *tk = &g->tasks[t];
		for (uint32_t k = 0; k < tk->n_in; k++) {
			const struct locus_object *o = &g->objects[g->inputs[tk->in_at + k]];
			if (o->producer != LOCUS_NONE)
				raw[r++] = (struct raw_edge){o->producer, (uint32_t)t, o->bytes};
		}
	}
	/* Merge the objects between the same two tasks into one edge. */
	qsort(raw, n_raw, sizeof *raw, cmp_by_to);
	size_t n_e = 0;
	uint32_t *count = locus__calloc(n_raw ? n_raw : 1, sizeof *count);
	if (!count) {
		free(raw);
		return LOCUS_ENOMEM;
	}
	for (size_t i = 0; i < n_raw; i++) {
		if (n_e && raw[n_e - 1].from == raw[i].from && raw[n_e - 1].to == raw[i].to) {
			raw[n_e - 1].bytes += raw[i].bytes;
			count[n_e - 1]++;
		} else {
			raw[n_e] = raw[i];
			count[n_e++] = 1;
		}
	}
	g->n_edges = n_e;
	g->preds = locus__calloc(n_e ? n_e : 1, sizeof *g->preds);
	g->succs = locus__calloc(n_e ? n_e : 1, sizeof *g->succs);
	if (!g->preds || !g->succs) {
		free(raw);
		free(count);
		return LOCUS_ENOMEM;
	}
	for (size_t i = 0; i < n_e; i++) {
		g->pred_at[raw[i].to + 1]++;
		g->preds[i] = (struct locus_edge){raw[i].from, count[i], raw[i].bytes};
	}
	for (size_t t = 0; t < g->n_tasks; t++)
		g->pred_at[t + 1] += g->pred_at[t];
	/* The same edges by producer; the counts travel with them. */
	for (size_t i = 0; i < n_e; i++)
		raw[i].bytes = count[i];
	qsort(raw, n_e, sizeof *raw, cmp_by_from);
	for (size_t i = 0; i < n_e; i++) {
		g->succ_at[raw[i].from + 1]++;
		g->succs[i] = (struct locus_edge){raw[i].to, (uint32_t)raw[i].bytes, 0};
	}
	for (size_t t = 0; t < g->n_tasks; t++)
		g->succ_at[t + 1] += g->succ_at[t];
	free(raw);
	free(count);
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Kahn's algorithm with the smallest ready id first. On a cycle, *stuck
 * is a task on it. */
static int order(struct locus_graph *g, uint32_t *stuck)
{
	size_t n = g->n_tasks, done = 0;
	uint32_t *indeg = locus__calloc(n ? n : 1, sizeof *indeg);
	struct locus_heap h;
	g->topo = locus__calloc(n ? n : 1, sizeof *g->topo);
	g->level = locus__calloc(n ? n : 1, sizeof *g->level);
	if (!indeg || !g->topo || !g->level || locus_heap_init(&h, sizeof(uint32_t), cmp_u32)) {
		free(indeg);
		return LOCUS_ENOMEM;
	}
	if (!g->n_edges) {
		/* No edge: every task is an entry task, in id order. */
		for (size_t t = 0; t < n; t++)
			g->topo[t] = (uint32_t)t;
		done = n;
	}
	for (size_t t = 0; t < n && g->n_edges; t++) {
		indeg[t] = g->pred_at[t + 1] - g->pred_at[t];
		if (!indeg[t] && locus_heap_push(&h, &(uint32_t){(uint32_t)t}))
			goto oom;
	}
	while (h.count) {
		uint32_t t;
		locus_heap_pop(&h, &t);
		g->topo[done++] = t;
		for (uint32_t e = g->succ_at[t]; e < g->succ_at[t + 1]; e++) {
			uint32_t s = g->succs[e].task;
			if (g->level[t] + 1 > g->level[s])
				g->level[s] = g->level[t] + 1;
			if (!--indeg[s] && locus_heap_push(&h, &s))
				goto oom;
		}
	}
	locus_heap_fini(&h);
	if (done < n) {
		/* Every task left has a predecessor left: walking back from one
		 * repeats, and what repeats is on a cycle. */
		uint32_t t = 0;
		while (!indeg[t])
			t++;
		for (size_t step = 0; step < n; step++) {
			uint32_t next = t;
			for (uint32_t e = g->pred_at[t]; e < g->pred_at[t + 1]; e++)
				if (indeg[g->preds[e].task]) {
					next = g->preds[e].task;
					break;
				}
			t = next;
		}
		*stuck = t;
		free(indeg);
		return LOCUS_EINVAL;
	}
	g->n_levels = 0;
	for (size_t t = 0; t < n; t++)
		if (g->level[t] + (size_t)1 > g->n_levels)
			g->n_levels = g->level[t] + (size_t)1;
	free(indeg);
	return 0;
oom:
	locus_heap_fini(&h);
	free(indeg);
	return LOCUS_ENOMEM;
}

int locus_graph_finish(struct locus_graph *g, struct locus_error *err)
{
	struct builder *b = bld(g);
	uint32_t *at = NULL;
	size_t k;
	char n1[32];
	if (b->finished)
		return 0;
	/* Inputs and outputs by task. */
	if (to_csr(b->ins, b->n_ins, g->n_tasks, &at, &g->inputs, &g->input_as, &k))
		goto oom;
	for (size_t t = 0; t < g->n_tasks; t++) {
		g->tasks[t].in_at = at[t];
		g->tasks[t].n_in = at[t + 1] - at[t];
	}
	free(at);
	at = NULL;
	if (to_csr(b->outs, b->n_outs, g->n_tasks, &at, &g->outputs, &g->output_as, &k))
		goto oom;
	for (size_t t = 0; t < g->n_tasks; t++) {
		g->tasks[t].out_at = at[t];
		g->tasks[t].n_out = at[t + 1] - at[t];
	}
	free(at);
	at = NULL;
	/* Consumers by object, in task order. */
	size_t n_in =
	    g->n_tasks ? g->tasks[g->n_tasks - 1].in_at + g->tasks[g->n_tasks - 1].n_in : 0;
	g->consumers = locus__calloc(n_in ? n_in : 1, sizeof *g->consumers);
	uint32_t *fill = locus__calloc(g->n_objects ? g->n_objects : 1, sizeof *fill);
	if (!g->consumers || !fill) {
		free(fill);
		goto oom;
	}
	for (size_t i = 0; i < n_in; i++)
		g->objects[g->inputs[i]].n_cons++;
	uint32_t pos = 0;
	for (size_t o = 0; o < g->n_objects; o++) {
		g->objects[o].cons_at = pos;
		pos += g->objects[o].n_cons;
	}
	for (size_t t = 0; t < g->n_tasks; t++) {
		const struct locus_task *tk = &g->tasks[t];
		for (uint32_t i = 0; i < tk->n_in; i++) {
			uint32_t o = g->inputs[tk->in_at + i];
			if (g->objects[o].producer == t) {
				free(fill);
				return locus__err(
				    err, LOCUS_EINVAL, g->name, 0, 0,
				    "task \"%s\" reads an object it writes",
				    locus_graph_task_name(g, (uint32_t)t, n1, sizeof n1));
			}
			g->consumers[g->objects[o].cons_at + fill[o]++] = (uint32_t)t;
		}
	}
	free(fill);
	if (build_edges(g))
		goto oom;
	uint32_t stuck = 0;
	int rc = order(g, &stuck);
	if (rc == LOCUS_ENOMEM)
		goto oom;
	if (rc)
		return locus__err(err, LOCUS_EINVAL, g->name, 0, 0,
				  "the graph has a cycle through task \"%s\": expected a DAG",
				  locus_graph_task_name(g, stuck, n1, sizeof n1));
	sum_bytes(g);
	/* Stages, commands, demands and lines cover every task. */
	static const uint32_t none = LOCUS_NONE;
	static const struct locus_demand def = LOCUS_DEMAND_DEFAULT;
	if ((g->task_stage && cover_tasks(g, (void **)&g->task_stage, &b->stage_len, &b->stage_cap,
					  sizeof *g->task_stage, &none)) ||
	    (g->commands && cover_tasks(g, (void **)&g->commands, &b->commands_len,
					&b->commands_cap, sizeof *g->commands, NULL)) ||
	    (g->demand && cover_tasks(g, (void **)&g->demand, &b->demand_len, &b->demand_cap,
				      sizeof *g->demand, &def)) ||
	    (g->task_line && cover_tasks(g, (void **)&g->task_line, &b->line_len, &b->line_cap,
					 sizeof *g->task_line, NULL)))
		goto oom;
	for (size_t t = 0; t < g->n_tasks; t++)
		if (g->tasks[t].name && locus__strmap_put(&b->task_ix, g->tasks[t].name, t))
			goto oom;
	for (size_t o = 0; o < g->n_objects; o++)
		if (g->objects[o].name && locus__strmap_put(&b->object_ix, g->objects[o].name, o))
			goto oom;
	free(b->ins);
	free(b->outs);
	b->ins = b->outs = NULL;
	b->finished = 1;
	return 0;
oom:
	free(at);
	return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
}

int locus_graph_set_object_bytes(struct locus_graph *g, uint32_t object, uint64_t bytes)
{
	if (object >= g->n_objects)
		return LOCUS_EINVAL;
	struct locus_object *o = &g->objects[object];
	uint64_t was = o->bytes;
	o->bytes = bytes;
	if (!bld(g)->finished)
		return 0;
	for (uint32_t k = 0; k < o->n_cons; k++) {
		uint32_t c = g->consumers[o->cons_at + k];
		g->tasks[c].bytes = g->tasks[c].bytes - was + bytes;
		if (o->producer == LOCUS_NONE)
			continue;
		uint32_t e = find_edge(g->preds, g->pred_at[c], g->pred_at[c + 1], o->producer);
		g->preds[e].bytes = g->preds[e].bytes - was + bytes;
		uint32_t f =
		    find_edge(g->succs, g->succ_at[o->producer], g->succ_at[o->producer + 1], c);
		g->succs[f].bytes = g->preds[e].bytes;
	}
	return 0;
}
