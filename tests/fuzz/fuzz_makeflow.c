/*
 * libFuzzer target for the Makeflow reader (locus_flow_read_makeflow),
 * read with no options (no file system). Each input either fails cleanly
 * (no graph; LOCUS_EPARSE with a message, a line and a column, or
 * LOCUS_ENOMEM) or gives a finished graph that keeps the model's
 * promises: every task named and found by its name, one producer per
 * object, inputs and outputs in range and named, a stage and a command
 * line for every task, works >= 0, edges down the topological order; and
 * read again, the same graph, also with a workflow default demand (each
 * task's own values kept, the default's where it states none).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "locus/locus.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static void check_graph(const struct locus_graph *g)
{
	check(g->n_tasks > 0 && g->n_procs == 0 && g->data_bw == 0);
	check(g->task_stage && g->commands && g->n_stages > 0);
	uint32_t *pos = calloc(g->n_tasks, sizeof *pos);
	check(pos != NULL);
	for (size_t k = 0; k < g->n_tasks; k++)
		pos[g->topo[k]] = (uint32_t)k;
	for (size_t t = 0; t < g->n_tasks; t++) {
		const struct locus_task *tk = &g->tasks[t];
		check(tk->name && locus_graph_find_task(g, tk->name) == (long)t);
		check(tk->work >= 0 && isfinite(tk->work));
		check(g->task_stage[t] < g->n_stages && g->stage_names[g->task_stage[t]][0]);
		const struct locus_command *c = &g->commands[t];
		check(c->line && c->line[0] && !c->argv && !c->argc);
		check(!(c->flags & ~LOCUS_COMMAND_LOCAL));
		for (uint32_t e = 0; e < c->n_env; e++)
			check(strchr(c->env[e], '=') != NULL);
		check(tk->n_out > 0);
		/* The task is named by one of its outputs. */
		int named = 0;
		for (uint32_t k = 0; k < tk->n_out; k++) {
			uint32_t o = g->outputs[tk->out_at + k];
			check(o < g->n_objects && g->objects[o].producer == t);
			named |= !strcmp(g->objects[o].name, tk->name);
		}
		check(named);
		uint64_t bytes = 0;
		for (uint32_t k = 0; k < tk->n_in; k++) {
			uint32_t o = g->inputs[tk->in_at + k];
			check(o < g->n_objects && g->objects[o].producer != t);
			bytes += g->objects[o].bytes;
		}
		check(bytes == tk->bytes);
		for (uint32_t e = g->pred_at[t]; e < g->pred_at[t + 1]; e++) {
			uint32_t p = g->preds[e].task;
			check(p < g->n_tasks && pos[p] < pos[t] && g->level[p] < g->level[t]);
		}
	}
	for (size_t o = 0; o < g->n_objects; o++) {
		const struct locus_object *ob = &g->objects[o];
		check(ob->name && ob->name[0] && locus_graph_find_object(g, ob->name) == (long)o);
		check(ob->producer == LOCUS_NONE || ob->producer < g->n_tasks);
		for (uint32_t k = 0; k < ob->n_cons; k++)
			check(g->consumers[ob->cons_at + k] < g->n_tasks);
	}
	free(pos);
}

static void check_same(const struct locus_graph *a, const struct locus_graph *b)
{
	check(a->n_tasks == b->n_tasks && a->n_objects == b->n_objects &&
	      a->n_edges == b->n_edges && a->n_stages == b->n_stages);
	for (size_t t = 0; t < a->n_tasks; t++) {
		const struct locus_command *x = &a->commands[t], *y = &b->commands[t];
		check(!strcmp(a->tasks[t].name, b->tasks[t].name));
		check(a->tasks[t].work == b->tasks[t].work);
		check(a->task_stage[t] == b->task_stage[t]);
		check(!strcmp(x->line, y->line) && x->flags == y->flags && x->n_env == y->n_env);
		for (uint32_t e = 0; e < x->n_env; e++)
			check(!strcmp(x->env[e], y->env[e]));
		check(a->tasks[t].n_in == b->tasks[t].n_in &&
		      a->tasks[t].n_out == b->tasks[t].n_out);
	}
	size_t n_in = a->tasks[a->n_tasks - 1].in_at + a->tasks[a->n_tasks - 1].n_in;
	size_t n_out = a->tasks[a->n_tasks - 1].out_at + a->tasks[a->n_tasks - 1].n_out;
	for (size_t i = 0; i < n_in; i++)
		check(a->inputs[i] == b->inputs[i] &&
		      same_str(a->input_as ? a->input_as[i] : NULL,
			       b->input_as ? b->input_as[i] : NULL));
	for (size_t i = 0; i < n_out; i++)
		check(a->outputs[i] == b->outputs[i] &&
		      same_str(a->output_as ? a->output_as[i] : NULL,
			       b->output_as ? b->output_as[i] : NULL));
	for (size_t o = 0; o < a->n_objects; o++)
		check(!strcmp(a->objects[o].name, b->objects[o].name) &&
		      a->objects[o].bytes == b->objects[o].bytes);
	for (size_t e = 0; e < a->n_edges; e++)
		check(a->preds[e].task == b->preds[e].task &&
		      a->preds[e].bytes == b->preds[e].bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct locus_graph *g = (struct locus_graph *)&g, *again = NULL;
	struct locus_error err = {0};
	int rc = locus_flow_read_makeflow(&g, text, size, "fuzz", NULL, &err);
	if (rc) {
		check(g == NULL && err.code == rc && err.message[0]);
		check(rc == LOCUS_EPARSE || rc == LOCUS_ENOMEM);
		if (rc == LOCUS_EPARSE)
			check(err.line >= 1 && err.column >= 1 && !strcmp(err.file, "fuzz"));
		return 0;
	}
	check_graph(g);
	check(locus_flow_read_makeflow(&again, text, size, "fuzz", NULL, &err) == 0);
	check_same(g, again);
	locus_graph_destroy(again);
	/* With a workflow default: the same graph, each task's demand its
	 * own where it states one, else the default's. */
	struct locus_makeflow_options opt = {.task_default = {2, 1 << 20, 3 << 20}};
	check(locus_flow_read_makeflow(&again, text, size, "fuzz", &opt, &err) == 0);
	check_same(g, again);
	check(again->demand != NULL);
	for (uint32_t t = 0; t < g->n_tasks; t++) {
		struct locus_demand a = locus_graph_demand(g, t), b = locus_graph_demand(again, t);
		check(b.cores == a.cores || (a.cores == 1 && b.cores == 2));
		check(b.memory == a.memory || (a.memory == 0 && b.memory == 1 << 20));
		check(b.disk == a.disk || (a.disk == 0 && b.disk == 3 << 20));
	}
	locus_graph_destroy(again);
	locus_graph_destroy(g);
	return 0;
}
