/*
 * A Chrome trace-event JSON document (docs/formats.md), which Perfetto
 * (ui.perfetto.dev) and chrome://tracing open: one process per node, one
 * thread per worker, a complete event ("X") for the read and for the
 * compute part of every task, and global instant events at the makespan
 * lower bound and at the makespan.
 *
 * Process ids are node + 1 and thread ids worker + 1: the viewers treat
 * pid and tid 0 as the kernel's idle task. The names say the real ids.
 * Times are in microseconds, the unit of the format.
 */
#include <math.h>
#include <stdlib.h>

#include "locus/report.h"
#include "report/out.h"

#define US 1e6

/* Starts an event: events after the first are preceded by a comma. */
static void next_event(struct locus__out *o, size_t *n)
{
	locus__out_str(o, (*n)++ ? ",\n{" : "\n{");
}

static void name_event(struct locus__out *o, size_t *n, const char *what, uint64_t pid,
		       uint64_t tid, const char *prefix, uint64_t id)
{
	next_event(o, n);
	locus__out_str(o, "\"ph\":\"M\",\"name\":\"");
	locus__out_str(o, what);
	locus__out_str(o, "\",\"pid\":");
	locus__out_u64(o, pid);
	locus__out_str(o, ",\"tid\":");
	locus__out_u64(o, tid);
	locus__out_str(o, ",\"args\":{\"name\":\"");
	locus__out_str(o, prefix);
	locus__out_u64(o, id);
	locus__out_str(o, "\"}}");
}

static void sort_event(struct locus__out *o, size_t *n, const char *what, uint64_t pid,
		       uint64_t tid, uint64_t index)
{
	next_event(o, n);
	locus__out_str(o, "\"ph\":\"M\",\"name\":\"");
	locus__out_str(o, what);
	locus__out_str(o, "\",\"pid\":");
	locus__out_u64(o, pid);
	locus__out_str(o, ",\"tid\":");
	locus__out_u64(o, tid);
	locus__out_str(o, ",\"args\":{\"sort_index\":");
	locus__out_u64(o, index);
	locus__out_str(o, "}}");
}

/* Names every node that has a worker, and every worker. */
static void metadata(struct locus__out *o, size_t *n, const struct locus_result *r)
{
	size_t n_nodes = r->n_nodes;
	unsigned char *seen = NULL;

	for (size_t w = 0; r->workers && w < r->n_workers; w++)
		if (r->workers[w].node >= n_nodes)
			n_nodes = (size_t)r->workers[w].node + 1;
	if (n_nodes)
		seen = calloc(n_nodes, 1);
	if (n_nodes && !seen) {
		o->rc = LOCUS_ENOMEM;
		return;
	}
	for (size_t w = 0; r->workers && w < r->n_workers; w++) {
		uint32_t node = r->workers[w].node;
		if (!seen[node]) {
			seen[node] = 1;
			name_event(o, n, "process_name", (uint64_t)node + 1, 0, "node ", node);
			sort_event(o, n, "process_sort_index", (uint64_t)node + 1, 0, node);
		}
		name_event(o, n, "thread_name", (uint64_t)node + 1, (uint64_t)w + 1, "worker ", w);
		sort_event(o, n, "thread_sort_index", (uint64_t)node + 1, (uint64_t)w + 1, w);
	}
	free(seen);
}

static void slice(struct locus__out *o, size_t *n, const char *name, const char *cat,
		  const struct locus_task_result *tr, double start, double end)
{
	next_event(o, n);
	locus__out_str(o, "\"ph\":\"X\",\"name\":\"");
	locus__out_str(o, name);
	locus__out_str(o, "\",\"cat\":\"");
	locus__out_str(o, cat);
	locus__out_str(o, "\",\"pid\":");
	locus__out_u64(o, (uint64_t)tr->node + 1);
	locus__out_str(o, ",\"tid\":");
	locus__out_u64(o, (uint64_t)tr->worker + 1);
	locus__out_str(o, ",\"ts\":");
	locus__out_num(o, start * US);
	locus__out_str(o, ",\"dur\":");
	locus__out_num(o, (end - start) * US);
}

/* When a task began reading: its start where the engine kept it (a task
 * placed behind others starts after its assignment), else its assignment. */
static double read_start(const struct locus_task_result *tr)
{
	return tr->attempts ? tr->start : tr->assigned;
}

static void task_events(struct locus__out *o, size_t *n, const struct locus_result *r)
{
	for (size_t t = 0; t < r->n_tasks; t++) {
		const struct locus_task_result *tr = &r->tasks[t];
		slice(o, n, tr->local ? "read local" : "read remote", "read", tr, read_start(tr),
		      tr->read_end);
		locus__out_str(o, ",\"args\":{\"task\":");
		locus__out_u64(o, t);
		locus__out_str(o, ",\"source\":");
		if (tr->source == UINT32_MAX)
			locus__out_str(o, "\"shared fs\"");
		else
			locus__out_u64(o, tr->source);
		locus__out_str(o, ",\"wait\":");
		locus__out_num(o, tr->assigned - tr->idle_since);
		locus__out_str(o, "}}");
		slice(o, n, "compute", "compute", tr, tr->read_end, tr->end);
		locus__out_str(o, ",\"args\":{\"task\":");
		locus__out_u64(o, t);
		locus__out_str(o, "}}");
	}
}

/* The track of a transfer's destination: its node's, or the shared file
 * system's (named once, after the nodes). */
static uint64_t transfer_pid(const struct locus_result *r, uint32_t to)
{
	return to == UINT32_MAX ? (uint64_t)r->n_nodes + 1 : (uint64_t)to + 1;
}

/* Transfers overlap on a node: async slices ("b"/"e"), one track per
 * destination node (or the file system). */
static void transfer_events(struct locus__out *o, size_t *n, const struct locus_result *r)
{
	int fs_named = 0;
	for (size_t i = 0; i < r->n_xfers; i++) {
		const struct locus_transfer_result *x = &r->xfers[i];
		const char *name = r->graph && x->object < r->graph->n_objects
				       ? r->graph->objects[x->object].name
				       : NULL;
		if (x->to == UINT32_MAX && !fs_named) {
			fs_named = 1;
			next_event(o, n);
			locus__out_str(o, "\"ph\":\"M\",\"name\":\"process_name\",\"pid\":");
			locus__out_u64(o, transfer_pid(r, x->to));
			locus__out_str(o, ",\"tid\":0,\"args\":{\"name\":\"shared file system\"}}");
		}
		for (int end = 0; end < 2; end++) {
			next_event(o, n);
			locus__out_str(o, end ? "\"ph\":\"e\"" : "\"ph\":\"b\"");
			locus__out_str(o, ",\"cat\":\"transfer\",\"name\":");
			if (name)
				locus__out_json_str(o, name, strlen(name));
			else
				locus__out_str(o, "\"object\"");
			locus__out_str(o, ",\"id\":");
			locus__out_u64(o, i + 1);
			locus__out_str(o, ",\"pid\":");
			locus__out_u64(o, transfer_pid(r, x->to));
			locus__out_str(o, ",\"tid\":0,\"ts\":");
			locus__out_num(o, (end ? x->end : x->start) * US);
			if (!end) {
				/* null: no object (bytes alone), or the file
				 * system. */
				locus__out_str(o, ",\"args\":{\"object\":");
				if (x->object == UINT32_MAX)
					locus__out_str(o, "null");
				else
					locus__out_u64(o, x->object);
				locus__out_str(o, ",\"from\":");
				if (x->from == UINT32_MAX)
					locus__out_str(o, "null");
				else
					locus__out_u64(o, x->from);
				locus__out_str(o, ",\"bytes\":");
				locus__out_u64(o, x->bytes);
				locus__out_char(o, '}');
			}
			locus__out_char(o, '}');
		}
	}
}

static void instant(struct locus__out *o, size_t *n, const char *name, double t)
{
	if (!isfinite(t))
		return;
	next_event(o, n);
	locus__out_str(o, "\"ph\":\"i\",\"s\":\"g\",\"name\":\"");
	locus__out_str(o, name);
	locus__out_str(o, "\",\"pid\":1,\"tid\":1,\"ts\":");
	locus__out_num(o, t * US);
	locus__out_char(o, '}');
}

int locus_report_trace(const struct locus_result *r, FILE *fp)
{
	struct locus__out o;
	size_t n = 0;

	if (!r || !fp)
		return LOCUS_EINVAL;
	locus__out_init(&o, fp);
	locus__out_str(&o, "{\"traceEvents\":[");
	metadata(&o, &n, r);
	if (r->tasks)
		task_events(&o, &n, r);
	transfer_events(&o, &n, r);
	instant(&o, &n, "makespan lower bound", r->lb_makespan);
	instant(&o, &n, "makespan", r->makespan);
	locus__out_str(&o,
		       "\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"generator\":\"locus\","
		       "\"policy\":");
	locus__out_json_str(&o, r->policy, locus__policy_len(r));
	locus__out_str(&o, ",\"seed\":");
	locus__out_seed(&o, r->seed);
	locus__out_str(&o, ",\"makespan\":");
	locus__out_num(&o, r->makespan);
	locus__out_str(&o, ",\"makespan_lower\":");
	locus__out_num(&o, r->lb_makespan);
	locus__out_str(&o, "}}\n");
	return locus__out_fini(&o);
}
