/*
 * The "locus-result" JSON document (docs/formats.md): summary, bounds,
 * policy counters, then one line per worker, per scheduler and per task.
 * Written by hand rather than through jansson so that 300,000 tasks take
 * a fraction of a second and numbers keep their exact shortest form.
 */
#include <inttypes.h>
#include <math.h>

#include "core/internal.h"
#include "locus/flow.h"
#include "locus/report.h"
#include "report/out.h"

static void field_seed(struct locus__out *o, uint64_t seed)
{
	locus__out_key(o, "seed");
	locus__out_seed(o, seed);
}

static void summary(struct locus__out *o, const struct locus_result *r)
{
	double bytes = (double)r->bytes_local + (double)r->bytes_remote;

	locus__out_str(o, "  \"summary\": {\n    ");
	locus__out_field_num(o, "makespan", r->makespan);
	locus__out_str(o, ",\n    ");
	locus__out_field_u64(o, "tasks", r->n_tasks);
	locus__out_str(o, ",\n    ");
	locus__out_field_u64(o, "workers", r->n_workers);
	locus__out_str(o, ",\n    ");
	locus__out_field_u64(o, "schedulers", r->n_schedulers);
	locus__out_str(o, ",\n    ");
	locus__out_field_u64(o, "nodes", r->n_nodes);
	locus__out_str(o, ",\n    ");
	locus__out_field_u64(o, "local_tasks", r->local_tasks);
	locus__out_str(o, ",\n    ");
	locus__out_field_num(o, "local_fraction", locus__local_fraction(r));
	locus__out_str(o, ",\n    ");
	locus__out_field_u64(o, "bytes_local", r->bytes_local);
	locus__out_str(o, ",\n    ");
	locus__out_field_u64(o, "bytes_remote", r->bytes_remote);
	locus__out_str(o, ",\n    ");
	locus__out_field_num(o, "local_bytes_fraction",
			     locus__ratio((double)r->bytes_local, bytes));
	locus__out_str(o, ",\n    ");
	locus__out_wait(o, r);
	locus__out_str(o, ",\n    ");
	locus__out_field_u64(o, "messages", r->messages);
	locus__out_str(o, ",\n    ");
	locus__out_field_u64(o, "message_bytes", r->message_bytes);
	locus__out_str(o, ",\n    \"scheduler_busy\": {");
	locus__out_field_num(o, "total", r->sched_busy_total);
	locus__out_str(o, ", ");
	locus__out_field_num(o, "max", r->sched_busy_max);
	locus__out_str(o, "},\n    ");
	locus__out_field_num(o, "worker_idle_total", r->worker_idle_total);
	locus__out_str(o, ",\n    ");
	locus__out_field_u64(o, "events", r->events);
	if (r->dag) {
		locus__out_str(o, ",\n    ");
		locus__out_field_u64(o, "tasks_done", r->tasks_done);
		locus__out_str(o, ",\n    ");
		locus__out_field_u64(o, "transfers", r->transfers);
		locus__out_str(o, ",\n    ");
		locus__out_field_u64(o, "bytes_moved", r->bytes_moved);
		locus__out_str(o, ",\n    ");
		locus__out_field_u64(o, "attempts_lost", r->attempts_lost);
	}
	if (r->flow) {
		locus__out_str(o, ",\n    \"file_system\": {");
		locus__out_field_u64(o, "operations", r->fs_ops);
		locus__out_str(o, ", ");
		locus__out_field_u64(o, "bytes_read", r->fs_bytes_read);
		locus__out_str(o, ", ");
		locus__out_field_u64(o, "bytes_written", r->fs_bytes_written);
		locus__out_str(o, "},\n    \"local_storage\": {");
		locus__out_field_num(o, "peak", r->storage_peak);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "end", r->storage_end);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "intermediate_end", r->intermediate_end);
		locus__out_char(o, '}');
	}
	locus__out_str(o, "\n  },\n");
}

/* A workflow's stages (version 3). */
static void stages(struct locus__out *o, const struct locus_result *r)
{
	const struct locus_graph *g = r->graph;
	size_t n = g ? g->n_stages : 0;
	locus__out_str(o, "  \"stages\": [");
	for (size_t s = 0; s < n; s++) {
		const struct locus_stage_result *st = &r->stages[s];
		locus__out_str(o, s ? ",\n    {" : "\n    {");
		locus__out_key(o, "name");
		locus__out_json_str(o, g->stage_names[s], strlen(g->stage_names[s]));
		locus__out_str(o, ", ");
		locus__out_field_u64(o, "tasks", st->tasks);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "first_start", st->first_start);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "last_end", st->last_end);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "input_wait", st->input_wait);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "read", st->read);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "compute", st->compute);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "write", st->write);
		locus__out_str(o, ", ");
		locus__out_field_u64(o, "bytes_local", st->bytes_local);
		locus__out_str(o, ", ");
		locus__out_field_u64(o, "bytes_peer", st->bytes_peer);
		locus__out_str(o, ", ");
		locus__out_field_u64(o, "bytes_fs_read", st->bytes_fs_read);
		locus__out_str(o, ", ");
		locus__out_field_u64(o, "bytes_fs_written", st->bytes_fs_written);
		/* What the policy found and did (null: it says nothing). */
		locus__out_str(o, ", \"patterns\": ");
		if (st->patterns < 0) {
			locus__out_str(o, "null, \"collectives\": null");
		} else {
			int first = 1;
			locus__out_char(o, '[');
			for (unsigned k = 0; k < LOCUS_PATTERNS; k++) {
				if (!((unsigned)st->patterns & 1u << k))
					continue;
				locus__out_str(o, first ? "\"" : ", \"");
				locus__out_str(o, locus_pattern_name(k));
				locus__out_char(o, '"');
				first = 0;
			}
			locus__out_str(o, "], ");
			locus__out_field_u64(o, "collectives", st->collectives);
		}
		locus__out_char(o, '}');
	}
	locus__out_str(o, n ? "\n  ],\n" : "],\n");
}

static void bounds(struct locus__out *o, const struct locus_result *r)
{
	locus__out_str(o, "  \"bounds\": {\n    ");
	locus__out_field_num(o, "makespan_lower", r->lb_makespan);
	locus__out_str(o, ",\n    ");
	locus__out_field_num(o, "work", r->lb_work);
	locus__out_str(o, ",\n    ");
	locus__out_field_num(o, "io", r->lb_io);
	locus__out_str(o, ",\n    ");
	locus__out_field_num(o, "serial", r->lb_serial);
	locus__out_str(o, ",\n    ");
	locus__out_field_num(o, "longest_task", r->lb_longest);
	locus__out_str(o, ",\n    ");
	locus__out_field_num(o, "makespan_ratio", locus__makespan_ratio(r));
	locus__out_str(o, ",\n    ");
	/* The most tasks a balanced assignment keeps local, and the run's
	 * local tasks over it (out.h says the names of each version). */
	locus__out_key(o, "balanced_local_tasks");
	if (r->opt_local < 0)
		locus__out_str(o, "null");
	else
		locus__out_i64(o, r->opt_local);
	locus__out_str(o, ",\n    ");
	locus__out_field_num(o, "local_vs_balanced", locus__local_vs_balanced(r));
	if (r->dag) {
		/* A task graph's: its critical path at least costs, and the
		 * papers' normalised lengths (0: not defined for this run). */
		locus__out_str(o, ",\n    ");
		locus__out_field_num(o, "critical_path", r->lb_cp);
		locus__out_str(o, ",\n    ");
		locus__out_field_num(o, "cp_mean", r->cp_mean);
		locus__out_str(o, ",\n    ");
		locus__out_field_num(o, "cp_min", r->cp_min);
		locus__out_str(o, ",\n    ");
		locus__out_field_num(o, "nsl", r->nsl);
		locus__out_str(o, ",\n    ");
		locus__out_field_num(o, "slr", r->slr);
		locus__out_str(o, ",\n    ");
		locus__out_key(o, "planned_makespan");
		if (r->pstats.planned_makespan > 0)
			locus__out_num(o, r->pstats.planned_makespan);
		else
			locus__out_str(o, "null");
	}
	locus__out_str(o, "\n  },\n");
}

static void policy_stats(struct locus__out *o, const struct locus_result *r)
{
	const struct locus_policy_stats *ps = &r->pstats;

	locus__out_str(o, "  \"policy_stats\": {\n    ");
	locus__out_field_u64(o, "entries_examined", ps->entries_examined);
	locus__out_str(o, ",\n    ");
	locus__out_field_u64(o, "local_assignments", ps->local_assignments);
	locus__out_str(o, ",\n    ");
	locus__out_field_u64(o, "remote_assignments", ps->remote_assignments);
	locus__out_str(o, ",\n    \"counters\": {");
	for (size_t i = 0; i < LOCUS__ARRAY_LEN(ps->counter_names) && ps->counter_names[i]; i++) {
		if (i)
			locus__out_str(o, ", ");
		locus__out_json_str(o, ps->counter_names[i], strlen(ps->counter_names[i]));
		locus__out_write(o, ": ", 2);
		locus__out_u64(o, ps->counters[i]);
	}
	locus__out_str(o, "}\n  },\n");
}

static void workers(struct locus__out *o, const struct locus_result *r)
{
	size_t n = r->workers ? r->n_workers : 0;

	locus__out_str(o, "  \"workers\": [");
	for (size_t w = 0; w < n; w++) {
		const struct locus_worker_result *wr = &r->workers[w];
		locus__out_str(o, w ? ",\n    {" : "\n    {");
		locus__out_field_u64(o, "node", wr->node);
		locus__out_str(o, ", ");
		locus__out_field_u64(o, "tasks", wr->tasks);
		locus__out_str(o, ", ");
		locus__out_field_u64(o, "local_tasks", wr->local_tasks);
		locus__out_str(o, ", ");
		locus__out_field_u64(o, "bytes_local", wr->bytes_local);
		locus__out_str(o, ", ");
		locus__out_field_u64(o, "bytes_remote", wr->bytes_remote);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "busy", wr->busy);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "idle", wr->idle);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "max_wait", wr->max_wait);
		locus__out_char(o, '}');
	}
	locus__out_str(o, n ? "\n  ],\n" : "],\n");
}

static void schedulers(struct locus__out *o, const struct locus_result *r)
{
	size_t n = r->scheds ? r->n_schedulers : 0;

	locus__out_str(o, "  \"schedulers\": [");
	for (size_t s = 0; s < n; s++) {
		locus__out_str(o, s ? ",\n    {" : "\n    {");
		locus__out_field_u64(o, "events", r->scheds[s].events);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "busy", r->scheds[s].busy);
		locus__out_str(o, ", ");
		locus__out_field_u64(o, "queue_max", r->scheds[s].queue_max);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "queue_mean", r->scheds[s].queue_mean);
		locus__out_char(o, '}');
	}
	locus__out_str(o, n ? "\n  ]" : "]");
}

static void tasks(struct locus__out *o, const struct locus_result *r)
{
	locus__out_str(o, ",\n  \"tasks\": [");
	for (size_t t = 0; t < r->n_tasks; t++) {
		const struct locus_task_result *tr = &r->tasks[t];
		locus__out_str(o, t ? ",\n    {\"worker\": " : "\n    {\"worker\": ");
		locus__out_u64(o, tr->worker);
		locus__out_str(o, ", \"node\": ");
		locus__out_u64(o, tr->node);
		locus__out_str(o, ", \"source\": ");
		if (tr->source == UINT32_MAX)
			locus__out_str(o, "null");
		else
			locus__out_u64(o, tr->source);
		locus__out_str(o, tr->local ? ", \"local\": true" : ", \"local\": false");
		locus__out_str(o, ", \"idle_since\": ");
		locus__out_num(o, tr->idle_since);
		locus__out_str(o, ", \"assigned\": ");
		locus__out_num(o, tr->assigned);
		locus__out_str(o, ", \"read_end\": ");
		locus__out_num(o, tr->read_end);
		locus__out_str(o, ", \"end\": ");
		locus__out_num(o, tr->end);
		if (r->dag) {
			locus__out_str(o, ", \"start\": ");
			locus__out_num(o, tr->start);
			locus__out_str(o, ", \"attempts\": ");
			locus__out_u64(o, tr->attempts);
			const char *name =
			    r->graph && t < r->graph->n_tasks ? r->graph->tasks[t].name : NULL;
			if (name) {
				locus__out_str(o, ", \"name\": ");
				locus__out_json_str(o, name, strlen(name));
			}
		}
		locus__out_char(o, '}');
	}
	locus__out_str(o, r->n_tasks ? "\n  ]" : "]");
}

static void transfers(struct locus__out *o, const struct locus_result *r)
{
	locus__out_str(o, ",\n  \"transfers\": [");
	for (size_t i = 0; i < r->n_xfers; i++) {
		const struct locus_transfer_result *x = &r->xfers[i];
		locus__out_str(o, i ? ",\n    {\"object\": " : "\n    {\"object\": ");
		if (x->object == UINT32_MAX)
			locus__out_str(o, "null"); /* bytes alone */
		else
			locus__out_u64(o, x->object);
		const char *name = r->graph && x->object < r->graph->n_objects
				       ? r->graph->objects[x->object].name
				       : NULL;
		if (name) {
			locus__out_str(o, ", \"name\": ");
			locus__out_json_str(o, name, strlen(name));
		}
		/* A node, or null: the shared file system. */
		locus__out_str(o, ", \"from\": ");
		if (x->from == UINT32_MAX)
			locus__out_str(o, "null");
		else
			locus__out_u64(o, x->from);
		locus__out_str(o, ", \"to\": ");
		if (x->to == UINT32_MAX)
			locus__out_str(o, "null");
		else
			locus__out_u64(o, x->to);
		locus__out_str(o, ", \"task\": ");
		if (x->task == UINT32_MAX)
			locus__out_str(o, "null");
		else
			locus__out_u64(o, x->task);
		locus__out_str(o, ", \"start\": ");
		locus__out_num(o, x->start);
		locus__out_str(o, ", \"end\": ");
		locus__out_num(o, x->end);
		locus__out_str(o, ", \"bytes\": ");
		locus__out_u64(o, x->bytes);
		locus__out_char(o, '}');
	}
	locus__out_str(o, r->n_xfers ? "\n  ]" : "]");
}

int locus_report_json(const struct locus_result *r, FILE *fp)
{
	struct locus__out o;

	if (!r || !fp)
		return LOCUS_EINVAL;
	locus__out_init(&o, fp);
	locus__out_str(&o, "{\n  \"format\": \"" LOCUS_RESULT_FORMAT "\",\n  \"version\": ");
	locus__out_u64(&o, r->flow  ? LOCUS__RESULT_VERSION_FLOW
			   : r->dag ? LOCUS__RESULT_VERSION_DAG
				    : LOCUS__RESULT_VERSION_CHUNKS);
	locus__out_str(&o, ",\n  \"engine\": ");
	locus__out_json_str(&o, r->engine[0] ? r->engine : "sim",
			    r->engine[0] ? strnlen(r->engine, sizeof r->engine) : 3);
	locus__out_str(&o, ",\n  \"policy\": ");
	locus__out_json_str(&o, r->policy, locus__policy_len(r));
	if (r->flow) {
		/* Version 3: what else says how the policy ran. */
		locus__out_str(&o, ",\n  \"policy_options\": ");
		if (r->policy_options)
			locus__out_json_str(&o, r->policy_options, strlen(r->policy_options));
		else
			locus__out_str(&o, "null");
	}
	locus__out_str(&o, ",\n  ");
	field_seed(&o, r->seed);
	if (r->dag && r->var_bound > 0) {
		/* Within version 5: the scenario's variability, its period
		 * above all (what decides GTP's gain). */
		locus__out_str(&o, ",\n  \"variability\": {");
		locus__out_field_num(&o, "bound", r->var_bound);
		locus__out_str(&o, ", ");
		locus__out_field_num(&o, "period", r->var_period);
		locus__out_str(&o, ", ");
		locus__out_field_num(&o, "horizon", r->var_horizon);
		locus__out_str(&o, ", \"links\": ");
		locus__out_str(&o, r->var_links ? "true" : "false");
		locus__out_str(&o, "}");
	}
	if (r->dag) {
		locus__out_str(&o, ",\n  \"status\": ");
		locus__out_str(&o, r->failed ? "\"failed\"" : "\"complete\"");
		if (r->failed) {
			locus__out_str(&o, ",\n  \"failure\": ");
			locus__out_json_str(&o, r->failure, strnlen(r->failure, sizeof r->failure));
		}
	}
	if (r->n_problems) {
		/* What the locality source said was wrong with the data (only
		 * when it said something: other documents keep their bytes). */
		locus__out_str(&o, ",\n  ");
		locus__out_problems(&o, r, "    ", "  ");
	}
	locus__out_str(&o, ",\n");
	summary(&o, r);
	if (r->flow && r->stages)
		stages(&o, r);
	bounds(&o, r);
	policy_stats(&o, r);
	workers(&o, r);
	schedulers(&o, r);
	if (r->tasks)
		tasks(&o, r);
	if (r->dag)
		transfers(&o, r);
	locus__out_str(&o, "\n}\n");
	return locus__out_fini(&o);
}
