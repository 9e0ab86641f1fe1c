/*
 * The task model: tasks that consume and produce data objects, and the
 * replica table that says where each object is during a run.
 *
 * One model for every kind of run:
 *  - a bag of chunk tasks (DL-MPI, ScalScheduling): one task per chunk of
 *    a dataset, each reading its chunk, no task depending on another;
 *  - a DAG (STG, the HEFT and GTP papers): an edge i -> j carrying d bytes
 *    is an object of d bytes that i produces and j consumes;
 *  - a workflow (WfCommons, Makeflow): files written by one task and read
 *    by any number of others.
 *
 * A data object is a chunk of a dataset or a file a task writes, with a
 * size in bytes. An object nobody produces is *stored*: it exists at the
 * start, on the nodes the catalog names (or on a shared store). A task is
 * ready when every input exists somewhere. Dependencies follow from the
 * objects: j depends on i when j consumes an object i produces; the graph's
 * edges merge every object between the same two tasks into one edge whose
 * size is their sum.
 *
 * A task's cost is its work in seconds on a speed-1 node (scaled by the
 * speed of the node that runs it), or, for unrelated heterogeneity (the
 * HEFT paper's examples), a matrix W(t, m) of seconds on each processor m.
 *
 * Building: locus_graph_create, then add tasks, objects, inputs and
 * outputs (or edges), then locus_graph_finish, which checks the graph (no
 * cycle, one producer per object), builds the edge lists and a
 * topological order, and makes it read-only. The library allocates the
 * graph and the caller frees it with locus_graph_destroy; names are
 * copied.
 */
#ifndef LOCUS_TASK_H
#define LOCUS_TASK_H

#include <stddef.h>
#include <stdint.h>

#include "locus/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* No task, object or node. */
#define LOCUS_NONE UINT32_MAX

struct locus_object {
	uint64_t bytes;
	uint32_t producer; /* the task that writes it; LOCUS_NONE: stored */
	/* A stored chunk: its catalog dataset and index (LOCUS_NONE otherwise). */
	uint32_t dataset, chunk;
	uint32_t cons_at, n_cons; /* its consumers: graph->consumers[cons_at ..] */
	const char *name;	  /* a file's name, or NULL */
};

struct locus_task {
	/* A task that reads one chunk: the chunk's dataset and index (the
	 * chunk workloads; LOCUS_NONE for other tasks). */
	uint32_t dataset, chunk;
	uint64_t bytes; /* bytes it reads: the sum of its inputs */
	double work;	/* compute, seconds on a speed-1 node */
	/* Where its input is at the start: the nodes holding its stored
	 * input (its largest, when it has several), in workload->holders.
	 * Set by the workload (locus_workload_*); 0 and 0 in a graph. */
	uint32_t holders_at, n_holders;
	uint32_t in_at, n_in;	/* inputs: graph->inputs[in_at ..] (object ids) */
	uint32_t out_at, n_out; /* outputs: graph->outputs[out_at ..] */
	const char *name;	/* or NULL */
};

/* What a task runs, for an engine that runs it for real: a shell command
 * line (a Makeflow rule's, run by /bin/sh -c where the task runs), or a
 * program and its arguments run without a shell (WfCommons' command). */
struct locus_command {
	const char *line;	 /* the shell line, or NULL */
	const char *const *argv; /* argc words run without a shell, or NULL */
	uint32_t argc;
	uint32_t flags; /* LOCUS_COMMAND_* */
	/* Variables set in its environment: n_env "NAME=value" strings
	 * (Makeflow's exported variables), or NULL. */
	const char *const *env;
	uint32_t n_env;
	/* Seconds an attempt may run before it is ended and fails (a
	 * Makeflow rule's WALL_TIME); 0: no limit of its own. */
	double wall_time;
};

/* Makeflow's LOCAL: the command runs where the workflow was started. */
#define LOCUS_COMMAND_LOCAL 1u

/* What a task occupies on its node while it runs (Makeflow's CORES,
 * MEMORY and DISK; WfCommons' coreCount and memoryInBytes). A task that
 * declares nothing takes LOCUS_DEMAND_DEFAULT: one core, no memory, no
 * disk, which every node with a worker holds. Engines start a task only
 * where its demand fits what the node has free (docs/flow.md,
 * "Resources"). */
struct locus_demand {
	uint32_t cores;	 /* >= 1: worker slots of its node it holds */
	uint64_t memory; /* bytes */
	uint64_t disk;	 /* bytes of the node's storage */
};
#define LOCUS_DEMAND_DEFAULT ((struct locus_demand){1, 0, 0})

/* An edge of the graph: the other task and the bytes it carries. */
struct locus_edge {
	uint32_t task;
	uint32_t n_objects; /* objects merged into this edge */
	uint64_t bytes;
};

struct locus_graph {
	size_t n_tasks, n_objects, n_edges;
	struct locus_task *tasks;
	struct locus_object *objects;
	uint32_t *inputs, *outputs; /* object ids, by task (in_at, out_at) */
	uint32_t *consumers;	    /* task ids, by object (cons_at) */
	/* Edges, by task: predecessors preds[pred_at[t] .. pred_at[t+1]) and
	 * successors succs[succ_at[t] .. succ_at[t+1]), each in id order. */
	uint32_t *pred_at, *succ_at;
	struct locus_edge *preds, *succs;
	/* Tasks in a topological order (entry tasks first, ties by id), and
	 * each task's level: 0 for entry tasks, else 1 + the highest level
	 * of its predecessors. */
	uint32_t *topo;
	uint32_t *level;
	size_t n_levels;
	/* W(t, m): seconds of task t on processor m, cost[t * n_procs + m];
	 * NULL (n_procs 0) when tasks have work only. */
	size_t n_procs;
	double *cost;
	/* The bandwidth, bytes/s, that the objects' sizes were stated
	 * against (a graph whose data are transfer times on unit links, as
	 * the HEFT paper's: 1); 0 when the sizes are real bytes. */
	double data_bw;
	/* Stages: the programs the tasks run (a workflow's stages; the
	 * AME/AMFS paper keys its tables by them). stage_names[0 ..
	 * n_stages); task_stage[t] is task t's stage or LOCUS_NONE, and is
	 * NULL when no task has one. */
	size_t n_stages;
	const char **stage_names;
	uint32_t *task_stage;
	/* commands[t]: what task t runs ({0} when nothing is known); NULL
	 * when no task has a command. */
	struct locus_command *commands;
	/* input_as[i] (output_as[i]): the name inputs[i] (outputs[i]) has
	 * where its task runs, when it differs from the object's (Makeflow's
	 * remote names), else NULL; the arrays are NULL when none differs. */
	const char **input_as, **output_as;
	/* demand[t]: what task t occupies where it runs; NULL when every
	 * task takes LOCUS_DEMAND_DEFAULT (locus_graph_demand reads it). */
	struct locus_demand *demand;
	/* task_line[t]: the line of the file that declared task t (a
	 * Makeflow rule's), 0 when unknown; NULL when none is known. */
	uint32_t *task_line;
	const char *name; /* where it came from (a file), or NULL */
	void *priv;	  /* the builder's state; private */
};

/* A new, empty graph named `name` (may be NULL). */
int locus_graph_create(struct locus_graph **out, const char *name, struct locus_error *err);

/* Adds a task (name may be NULL; work >= 0); returns its id, or a negative
 * LOCUS_E* code (LOCUS_EINVAL for a bad work, LOCUS_ENOMEM). */
long locus_graph_add_task(struct locus_graph *g, const char *name, double work);

/* Adds an object of `bytes` bytes (name may be NULL); returns its id or a
 * negative code. */
long locus_graph_add_object(struct locus_graph *g, const char *name, uint64_t bytes);

/* Marks object `object` a stored chunk: chunk `chunk` of catalog dataset
 * `dataset`. 0 or LOCUS_EINVAL. */
int locus_graph_set_chunk(struct locus_graph *g, uint32_t object, uint32_t dataset, uint32_t chunk);

/* Task `task` reads object `object` (a repeated input counts once). */
int locus_graph_add_input(struct locus_graph *g, uint32_t task, uint32_t object);

/* Task `task` writes object `object`. LOCUS_EINVAL when another task
 * writes it already (the error names both). */
int locus_graph_add_output(struct locus_graph *g, uint32_t task, uint32_t object,
			   struct locus_error *err);

/* The same, the object being named `as` where the task runs (copied; NULL:
 * its own name). A repeated input with several names keeps the first in
 * byte order. */
int locus_graph_add_input_as(struct locus_graph *g, uint32_t task, uint32_t object, const char *as);
int locus_graph_add_output_as(struct locus_graph *g, uint32_t task, uint32_t object, const char *as,
			      struct locus_error *err);

/* The id of the stage named `name`, added when it is new; a negative code
 * (LOCUS_EINVAL after finish or for an empty name, LOCUS_ENOMEM). */
long locus_graph_stage(struct locus_graph *g, const char *name);
/* Task `task` belongs to stage `stage` (an id from locus_graph_stage). */
int locus_graph_set_stage(struct locus_graph *g, uint32_t task, uint32_t stage);
/* Task `task` occupies `d` where it runs (d->cores >= 1). LOCUS_EINVAL
 * after finish, for a bad task or no cores; LOCUS_ENOMEM. */
int locus_graph_set_demand(struct locus_graph *g, uint32_t task, const struct locus_demand *d);
/* Task `task` was declared at line `line` of the graph's file. */
int locus_graph_set_line(struct locus_graph *g, uint32_t task, uint32_t line);
/* Task t's demand: its own, or LOCUS_DEMAND_DEFAULT. */
static inline struct locus_demand locus_graph_demand(const struct locus_graph *g, uint32_t t)
{
	return g->demand ? g->demand[t] : LOCUS_DEMAND_DEFAULT;
}
/* Task `task` runs `c` (its strings are copied). LOCUS_EINVAL when c has
 * neither a line nor words, or both. */
int locus_graph_set_command(struct locus_graph *g, uint32_t task, const struct locus_command *c);

/* An edge from -> to carrying `bytes`: a new object that `from` writes and
 * `to` reads. Returns the object's id or a negative code. */
long locus_graph_add_edge(struct locus_graph *g, uint32_t from, uint32_t to, uint64_t bytes);

/* Gives every task its cost on each of n_procs processors: cost[t *
 * n_procs + m] seconds, every one finite and >= 0 (copied), once every
 * task is added (before or after finish). Each task's work becomes the
 * mean of its row (GTP's Eq. 2). */
int locus_graph_set_costs(struct locus_graph *g, size_t n_procs, const double *cost,
			  struct locus_error *err);

/* Sets object `object`'s size after the fact (a CCR's data sizes, say):
 * the edges and task input sizes that include it follow. */
int locus_graph_set_object_bytes(struct locus_graph *g, uint32_t object, uint64_t bytes);

/* Checks and freezes the graph: LOCUS_EINVAL (with the task named) for a
 * cycle, a task that reads an object it writes, or an id out of range;
 * LOCUS_ENOMEM. After it, only locus_graph_set_costs and
 * locus_graph_set_object_bytes may change it. */
int locus_graph_finish(struct locus_graph *g, struct locus_error *err);

void locus_graph_destroy(struct locus_graph *g);

/* The id of the task or object named `name`, or -1 (after finish). */
long locus_graph_find_task(const struct locus_graph *g, const char *name);
long locus_graph_find_object(const struct locus_graph *g, const char *name);

/* A printable name for task t: its name, or its id. `buf` holds it when
 * the task has no name. */
const char *locus_graph_task_name(const struct locus_graph *g, uint32_t t, char *buf, size_t size);

/* Whether some task consumes another's output (the graph has edges). */
int locus_graph_has_edges(const struct locus_graph *g);

/*
 * The replica table: which nodes hold each object, as it changes during a
 * run (outputs written, transfers done, nodes failed). An engine owns one
 * per run and updates it; policies read it. Holders of an object are kept
 * in the order they were added.
 */
struct locus_replicas;

int locus_replicas_create(struct locus_replicas **out, size_t n_objects, size_t n_nodes);
void locus_replicas_destroy(struct locus_replicas *r);

/* Node `node` now holds object `object`: 1 if it is new, 0 if it held it
 * already, LOCUS_ENOMEM. */
int locus_replicas_add(struct locus_replicas *r, uint32_t object, uint32_t node);
/* Node `node` no longer holds it: 1 if it did, 0 if not. */
int locus_replicas_remove(struct locus_replicas *r, uint32_t object, uint32_t node);
int locus_replicas_has(const struct locus_replicas *r, uint32_t object, uint32_t node);
/* How many nodes hold it, and which (valid until the next change). */
uint32_t locus_replicas_count(const struct locus_replicas *r, uint32_t object);
const uint32_t *locus_replicas_nodes(const struct locus_replicas *r, uint32_t object);
/* Node `node` is lost: it holds nothing any more. Calls lost(user,
 * object) for each object it leaves with no holder; returns how many
 * replicas it dropped. */
size_t locus_replicas_drop_node(struct locus_replicas *r, uint32_t node,
				void (*lost)(void *user, uint32_t object), void *user);

#ifdef __cplusplus
}
#endif
#endif
