/*
 * Dataflow patterns found at run time from the task list alone, as AME's
 * dispatchers do (Zhang et al., sections V-F1 and V-G): per stage, the
 * files its tasks read (Table IV) and each file's readers in the stage
 * (Table V).
 *
 *  - gather: a task reading at least opt.gather produced files (counted
 *    by the dispatcher or the worker from the task's inputs); a reduce
 *    when its stage has a reduce function;
 *  - multicast: a produced file that at least opt.multicast tasks of one
 *    stage read (the paper compares "the number of subsequent tasks of a
 *    file with some predefined threshold"; a workflow input on the shared
 *    file system is not produced, so it is not multicast: V-F acts once a
 *    file is produced);
 *  - scatter: a task with at least opt.scatter outputs that other tasks
 *    read (one task distributing pieces of data to many);
 *  - pipeline: by default (V-G): a task reading a produced file that is
 *    neither gathered nor multicast in its stage nor scattered to it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/flow.h"

void locus_pattern_options_init(struct locus_pattern_options *o)
{
	*o = (struct locus_pattern_options){
	    .version = LOCUS_PATTERN_OPTIONS_VERSION, .gather = 16, .multicast = 8, .scatter = 8};
}

const char *locus_pattern_name(unsigned k)
{
	static const char *const names[LOCUS_PATTERNS] = {"pipeline", "gather", "reduce", "scatter",
							  "multicast"};
	return k < LOCUS_PATTERNS ? names[k] : NULL;
}

uint32_t locus_flow_stage_of(const struct locus_graph *g, uint32_t t)
{
	if (!g->task_stage)
		return 0;
	return g->task_stage[t] != LOCUS_NONE ? g->task_stage[t] : (uint32_t)g->n_stages;
}

void locus_flow_analysis_destroy(struct locus_flow_analysis *a)
{
	if (!a)
		return;
	free(a->stages);
	free(a->task_patterns);
	free(a->object_patterns);
	free(a->consumers_in_stage);
	free(a->input_multicast);
	free(a->cp_tasks);
	free(a);
}

/* Whether stage s of g is one of the reduce stages. */
static int reduces(const struct locus_graph *g, uint32_t s, const struct locus_pattern_options *o)
{
	if (!g->task_stage || s >= g->n_stages)
		return 0;
	for (size_t k = 0; k < o->n_reduce; k++)
		if (o->reduce[k] && !strcmp(o->reduce[k], g->stage_names[s]))
			return 1;
	return 0;
}

/* The longest chain of runtimes: its length and its tasks. */
static int critical_path(struct locus_flow_analysis *a, const struct locus_graph *g)
{
	size_t n = g->n_tasks;
	double *len = locus__calloc(n ? n : 1, sizeof *len);
	uint32_t *from = locus__calloc(n ? n : 1, sizeof *from);
	if (!len || !from) {
		free(len);
		free(from);
		return LOCUS_ENOMEM;
	}
	uint32_t last = LOCUS_NONE;
	for (size_t k = 0; k < n; k++) {
		uint32_t t = g->topo[k];
		double best = 0;
		from[t] = LOCUS_NONE;
		for (uint32_t e = g->pred_at[t]; e < g->pred_at[t + 1]; e++) {
			uint32_t p = g->preds[e].task;
			if (len[p] > best || (from[t] == LOCUS_NONE && len[p] == best)) {
				best = len[p];
				from[t] = p;
			}
		}
		len[t] = best + g->tasks[t].work;
		if (last == LOCUS_NONE || len[t] > len[last])
			last = t;
	}
	size_t count = 0;
	for (uint32_t t = last; t != LOCUS_NONE; t = from[t])
		count++;
	a->cp_tasks = locus__calloc(count ? count : 1, sizeof *a->cp_tasks);
	if (!a->cp_tasks) {
		free(len);
		free(from);
		return LOCUS_ENOMEM;
	}
	a->n_cp = count;
	a->critical_path = last == LOCUS_NONE ? 0 : len[last];
	for (uint32_t t = last; t != LOCUS_NONE; t = from[t])
		a->cp_tasks[--count] = t;
	free(len);
	free(from);
	return 0;
}

int locus_flow_check_stages(const struct locus_graph *g, const char *list, char sep,
			    struct locus_error *err)
{
	size_t ns = g && g->task_stage ? g->n_stages : 0;
	for (const char *at = list; at && *at;) {
		const char *end = strchr(at, sep);
		size_t n = end ? (size_t)(end - at) : strlen(at), s = 0;
		while (s < ns &&
		       (strlen(g->stage_names[s]) != n || memcmp(g->stage_names[s], at, n)))
			s++;
		if (s == ns) {
			struct locus__buf b = {0};
			for (s = 0; s < ns && s < 8; s++)
				if (locus__buf_printf(&b, "%s%s", s ? ", " : "", g->stage_names[s]))
					break;
			if (ns > 8)
				locus__buf_printf(&b, ", ...");
			int rc = locus__err(err, LOCUS_EINVAL, g ? g->name : NULL, 0, 0,
					    "stage \"%.*s\": the workflow has no such stage: "
					    "expected one of its %zu stages (%s)",
					    (int)n, at, ns, b.data ? b.data : "");
			locus__buf_fini(&b);
			return rc;
		}
		at = end ? end + 1 : NULL;
	}
	return 0;
}

/* The analysis's stages: the graph's, and one more when some task has
 * no stage (every task, when the graph names none). */
static size_t count_stages(const struct locus_graph *g)
{
	size_t ns = g->task_stage ? g->n_stages : 0;
	int unnamed = !g->task_stage;
	for (size_t t = 0; t < g->n_tasks && !unnamed; t++)
		unnamed = g->task_stage[t] == LOCUS_NONE;
	return ns + (unnamed ? 1 : 0);
}

/* Table IV: each stage's tasks, their inputs and outputs. */
static int tabulate_tasks(struct locus_flow_analysis *a, const struct locus_graph *g)
{
	/* By producer: the last task counted as reading one of its files + 1. */
	uint32_t *seen = locus__calloc(g->n_tasks ? g->n_tasks : 1, sizeof *seen);
	if (!seen)
		return LOCUS_ENOMEM;
	for (uint32_t t = 0; t < g->n_tasks; t++) {
		const struct locus_task *tk = &g->tasks[t];
		struct locus_flow_stage *st = &a->stages[locus_flow_stage_of(g, t)];
		st->tasks++;
		st->consumption += tk->n_in;
		for (uint32_t k = 0; k < tk->n_in; k++) {
			uint32_t p = g->objects[g->inputs[tk->in_at + k]].producer;
			if (p != LOCUS_NONE && seen[p] != t + 1) {
				seen[p] = t + 1;
				st->group_reads++;
			}
		}
		st->bytes_in += tk->bytes;
		st->outputs += tk->n_out;
		for (uint32_t k = 0; k < tk->n_out; k++)
			st->bytes_out += g->objects[g->outputs[tk->out_at + k]].bytes;
		st->work += tk->work;
		if (tk->n_in > st->max_inputs)
			st->max_inputs = tk->n_in;
	}
	free(seen);
	return 0;
}

/* Table V: each file's readers by stage; multicast files. */
static int tabulate_files(struct locus_flow_analysis *a, const struct locus_graph *g)
{
	uint32_t *count = locus__calloc(a->n_stages ? a->n_stages : 1, sizeof *count);
	uint32_t *touched = locus__calloc(a->n_stages ? a->n_stages : 1, sizeof *touched);
	if (!count || !touched) {
		free(count);
		free(touched);
		return LOCUS_ENOMEM;
	}
	for (uint32_t o = 0; o < g->n_objects; o++) {
		const struct locus_object *ob = &g->objects[o];
		size_t n_touched = 0;
		for (uint32_t k = 0; k < ob->n_cons; k++) {
			uint32_t s = locus_flow_stage_of(g, g->consumers[ob->cons_at + k]);
			if (!count[s]++)
				touched[n_touched++] = s;
		}
		for (size_t i = 0; i < n_touched; i++) {
			uint32_t s = touched[i];
			struct locus_flow_stage *st = &a->stages[s];
			st->inputs++;
			st->produced_inputs += ob->producer != LOCUS_NONE;
			if (count[s] > st->max_consumers)
				st->max_consumers = count[s];
			if (count[s] > a->consumers_in_stage[o])
				a->consumers_in_stage[o] = count[s];
			if (ob->producer != LOCUS_NONE && count[s] >= a->opt.multicast) {
				st->multicast_files++;
				st->patterns |= LOCUS_PATTERN_MULTICAST;
				a->object_patterns[o] |= LOCUS_PATTERN_MULTICAST;
			}
			count[s] = 0;
		}
	}
	free(count);
	free(touched);
	return 0;
}

/* Each read: multicast when its stage reads the file that often.
 * Tasks by stage (a counting sort), then per stage each file's
 * readers counted, the reads marked, the counts cleared. */
static int mark_multicast_reads(struct locus_flow_analysis *a, const struct locus_graph *g)
{
	size_t nt = g->n_tasks ? g->n_tasks : 1, no = g->n_objects ? g->n_objects : 1;
	size_t n_reads = 0;
	for (uint32_t t = 0; t < g->n_tasks; t++)
		if ((size_t)g->tasks[t].in_at + g->tasks[t].n_in > n_reads)
			n_reads = (size_t)g->tasks[t].in_at + g->tasks[t].n_in;
	a->input_multicast = locus__calloc(n_reads ? n_reads : 1, 1);
	uint32_t *by_stage = locus__calloc(nt, sizeof *by_stage);
	uint32_t *at = locus__calloc(a->n_stages + 1, sizeof *at);
	uint32_t *readers = locus__calloc(no, sizeof *readers);
	if (!a->input_multicast || !by_stage || !at || !readers) {
		free(by_stage);
		free(at);
		free(readers);
		return LOCUS_ENOMEM;
	}
	for (uint32_t t = 0; t < g->n_tasks; t++)
		at[locus_flow_stage_of(g, t) + 1]++;
	for (size_t s = 0; s < a->n_stages; s++)
		at[s + 1] += at[s];
	for (uint32_t t = 0; t < g->n_tasks; t++)
		by_stage[at[locus_flow_stage_of(g, t)]++] = t;
	for (size_t s = a->n_stages; s > 0; s--)
		at[s] = at[s - 1];
	at[0] = 0;
	for (size_t s = 0; s < a->n_stages; s++) {
		for (int pass = 0; pass < 3; pass++)
			for (uint32_t i = at[s]; i < at[s + 1]; i++) {
				const struct locus_task *tk = &g->tasks[by_stage[i]];
				for (uint32_t k = 0; k < tk->n_in; k++) {
					uint32_t o = g->inputs[tk->in_at + k];
					if (pass == 0)
						readers[o]++;
					else if (pass == 1)
						a->input_multicast[tk->in_at + k] =
						    g->objects[o].producer != LOCUS_NONE &&
						    readers[o] >= a->opt.multicast;
					else
						readers[o] = 0;
				}
			}
	}
	free(by_stage);
	free(at);
	free(readers);
	return 0;
}

/* Scatters: tasks with many outputs that others read. */
static void find_scatters(struct locus_flow_analysis *a, const struct locus_graph *g)
{
	for (uint32_t t = 0; t < g->n_tasks; t++) {
		const struct locus_task *tk = &g->tasks[t];
		uint32_t read = 0;
		for (uint32_t k = 0; k < tk->n_out; k++)
			read += g->objects[g->outputs[tk->out_at + k]].n_cons > 0;
		if (read >= a->opt.scatter && g->succ_at[t + 1] - g->succ_at[t] >= a->opt.scatter) {
			a->task_patterns[t] |= LOCUS_PATTERN_SCATTER;
			struct locus_flow_stage *st = &a->stages[locus_flow_stage_of(g, t)];
			st->scatters++;
			st->patterns |= LOCUS_PATTERN_SCATTER;
		}
	}
}

/* Gathers (or reductions), then pipelines: after the scatters and the
 * multicast reads, which a pipeline is not. */
static void find_gathers_and_pipelines(struct locus_flow_analysis *a, const struct locus_graph *g)
{
	for (uint32_t t = 0; t < g->n_tasks; t++) {
		const struct locus_task *tk = &g->tasks[t];
		uint32_t s = locus_flow_stage_of(g, t), produced = 0, piped = 0;
		struct locus_flow_stage *st = &a->stages[s];
		for (uint32_t k = 0; k < tk->n_in; k++) {
			uint32_t o = g->inputs[tk->in_at + k], p = g->objects[o].producer;
			if (p == LOCUS_NONE)
				continue;
			produced++;
			piped += !a->input_multicast[tk->in_at + k] &&
				 !(a->task_patterns[p] & LOCUS_PATTERN_SCATTER);
		}
		if (produced >= a->opt.gather) {
			unsigned f =
			    reduces(g, s, &a->opt) ? LOCUS_PATTERN_REDUCE : LOCUS_PATTERN_GATHER;
			a->task_patterns[t] |= (uint8_t)f;
			st->gathers++;
			st->patterns |= f;
		} else if (piped) {
			a->task_patterns[t] |= LOCUS_PATTERN_PIPELINE;
			st->pipelines++;
			st->patterns |= LOCUS_PATTERN_PIPELINE;
		}
	}
}

int locus_flow_analyse(struct locus_flow_analysis **out, const struct locus_graph *g,
		       const struct locus_pattern_options *opt, struct locus_error *err)
{
	struct locus_pattern_options def;
	*out = NULL;
	if (!opt) {
		locus_pattern_options_init(&def);
		opt = &def;
	}
	int rc = locus__check_version(opt->version, LOCUS_PATTERN_OPTIONS_VERSION,
				      "locus_pattern_options", err);
	if (rc)
		return rc;
	if (!opt->gather || !opt->multicast || !opt->scatter)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "pattern thresholds: expected gather, multicast and scatter of 1 "
				  "or more");
	struct locus_flow_analysis *a = calloc(1, sizeof *a);
	if (!a)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	a->opt = *opt;
	a->n_stages = count_stages(g);
	size_t nt = g->n_tasks ? g->n_tasks : 1, no = g->n_objects ? g->n_objects : 1;
	a->stages = locus__calloc(a->n_stages ? a->n_stages : 1, sizeof *a->stages);
	a->task_patterns = locus__calloc(nt, 1);
	a->object_patterns = locus__calloc(no, 1);
	a->consumers_in_stage = locus__calloc(no, sizeof *a->consumers_in_stage);
	if (!a->stages || !a->task_patterns || !a->object_patterns || !a->consumers_in_stage ||
	    tabulate_tasks(a, g) || tabulate_files(a, g) || mark_multicast_reads(a, g))
		goto oom;
	find_scatters(a, g);
	find_gathers_and_pipelines(a, g);
	if (critical_path(a, g))
		goto oom;
	*out = a;
	return 0;
oom:
	locus_flow_analysis_destroy(a);
	return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
}

/* ---- replication ------------------------------------------------------------------ */

uint32_t locus_flow_replicas(uint64_t consumers, uint64_t consumption, uint32_t servers)
{
	if (!servers || !consumers)
		return 0;
	uint32_t most = consumers < servers ? (uint32_t)consumers : servers;
	if (consumers >= consumption)
		return most;
	/* ceil(consumers * servers / consumption): exact while the product
	 * fits in 64 bits (always, for fewer than 2^32 consumers). */
	uint64_t n;
	if (consumers <= UINT64_MAX / servers) {
		uint64_t num = consumers * servers;
		n = num / consumption + (num % consumption != 0);
	} else {
		n = (uint64_t)ceil((double)consumers * servers / (double)consumption);
	}
	if (n < 1)
		n = 1;
	return n > most ? most : (uint32_t)n;
}

uint32_t locus_flow_copies(uint32_t n, int produced_in_scope)
{
	return produced_in_scope ? (n ? n - 1 : 0) : n;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

uint32_t locus_flow_place_replicas(const uint32_t *load, uint32_t n_servers, uint32_t count,
				   const uint32_t *skip, uint32_t n_skip, uint32_t *out)
{
	uint32_t picked = 0;
	/* The servers sorted once, then the first not skipped (n log n; the
	 * pick-by-pick scan below, quadratic and more, only without memory). */
	/* Keys (load << 32 | index) sort as (load, index). */
	uint64_t *order = count > 1 ? malloc((size_t)n_servers * sizeof *order) : NULL;
	uint8_t *skipped = order ? calloc(n_servers ? n_servers : 1, 1) : NULL;
	if (order && skipped) {
		for (uint32_t i = 0; i < n_servers; i++)
			order[i] = (uint64_t)load[i] << 32 | i;
		qsort(order, n_servers, sizeof *order, cmp_u64);
		for (uint32_t k = 0; k < n_skip; k++)
			if (skip[k] < n_servers)
				skipped[skip[k]] = 1;
		for (uint32_t i = 0; i < n_servers && picked < count; i++)
			if (!skipped[(uint32_t)order[i]])
				out[picked++] = (uint32_t)order[i];
		free(order);
		free(skipped);
		return picked;
	}
	free(order);
	free(skipped);
	while (picked < count) {
		uint32_t best = LOCUS_NONE;
		for (uint32_t s = 0; s < n_servers; s++) {
			int taken = 0;
			for (uint32_t k = 0; k < n_skip && !taken; k++)
				taken = skip[k] == s;
			for (uint32_t k = 0; k < picked && !taken; k++)
				taken = out[k] == s;
			if (!taken && (best == LOCUS_NONE || load[s] < load[best]))
				best = s;
		}
		if (best == LOCUS_NONE)
			break;
		out[picked++] = best;
	}
	return picked;
}

/* ---- collectives -------------------------------------------------------------------- */

void locus_flow_binomial(size_t n, uint32_t *parent, uint32_t *round)
{
	if (!n)
		return;
	parent[0] = UINT32_MAX;
	round[0] = 0;
	/* Each holder of a list [lo, hi) (itself at lo) removes the later
	 * half of what is left, ceil of half, and hands it to the first
	 * address of that half one round later; iteratively, by the ranges
	 * of the entries (entry i's range starts at i). */
	size_t *end = malloc(n * sizeof *end);
	if (!end) {
		/* Without scratch: a chain, which is still a tree. */
		for (size_t i = 1; i < n; i++) {
			parent[i] = (uint32_t)(i - 1);
			round[i] = (uint32_t)i;
		}
		return;
	}
	end[0] = n;
	for (size_t i = 0; i < n; i++) {
		size_t hi = end[i];
		uint32_t r = round[i];
		while (hi > i + 1) {
			size_t left = hi - (i + 1), half = (left + 1) / 2, first = hi - half;
			parent[first] = (uint32_t)i;
			round[first] = ++r;
			end[first] = hi;
			hi = first;
		}
	}
	free(end);
}
