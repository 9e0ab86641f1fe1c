/*
 * Workflows: many-task workflows of ordinary programs coupled by files
 * (Zhang et al., the AME/AMFS paper, ../shared/papers/ame-amfs.txt).
 *
 * A workflow is a task graph (task.h) whose tasks have stages (the program
 * each runs) and commands, and whose objects are files with names and
 * sizes: a file nobody writes is an input of the workflow, on the shared
 * file system at the start; a file nobody reads is an output, which ends
 * on the shared file system. Readers return a finished graph the caller
 * frees with locus_graph_destroy; errors carry the file, line and column
 * and say what was expected.
 */
#ifndef LOCUS_FLOW_H
#define LOCUS_FLOW_H

#include <stddef.h>
#include <stdint.h>

#include "locus/error.h"
#include "locus/platform.h"
#include "locus/task.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- readers ---------------------------------------------------------------- */

/* What a Makeflow does not say. */
#define LOCUS_MAKEFLOW_OPTIONS_VERSION 1

struct locus_makeflow_options {
	/* LOCUS_MAKEFLOW_OPTIONS_VERSION, set by locus_makeflow_options_init with the other
	 * defaults; 0 (a struct zeroed by hand) reads as version 1 (docs/formats.md). */
	int version;
	/* The directory the workflow's relative file names are in (where it
	 * would run): the size of an input no `.SIZE` gives is read there.
	 * NULL: sizes come from `.SIZE` only (0 otherwise). */
	const char *dir;
	/* A rule's runtime in seconds when no LOCUS_RUNTIME variable in its
	 * scope gives one (>= 0). */
	double runtime;
	/* What a rule takes of each resource (CORES, MEMORY, DISK) that
	 * neither it, its category nor the default category states: as if
	 * set in the default category before the file. Zero is the built-in
	 * default (LOCUS_DEMAND_DEFAULT; cores 0 is 1). */
	struct locus_demand task_default;
};

/* The current version and the defaults: no directory, runtime 0. */
void locus_makeflow_options_init(struct locus_makeflow_options *o);

/* Reads a Makeflow in the classic Make-like language of cctools
 * (docs/formats.md says which part): one task per rule, its targets its
 * outputs and its sources its inputs, its command a shell line. `name`
 * labels errors; `opt` may be NULL (no directory, runtime 0). Returns 0,
 * LOCUS_EPARSE (line, column, what was expected), LOCUS_EIO (a file under
 * opt->dir that cannot be read), LOCUS_ENOMEM. */
int locus_flow_read_makeflow(struct locus_graph **out, const char *text, size_t len,
			     const char *name, const struct locus_makeflow_options *opt,
			     struct locus_error *err);

/* What a workflow spec does not say (locus_flow_load). */
#define LOCUS_FLOW_LOAD_OPTIONS_VERSION 1

struct locus_flow_load_options {
	/* LOCUS_FLOW_LOAD_OPTIONS_VERSION, set by locus_flow_load_options_init with the other
	 * defaults; 0 (a struct zeroed by hand) reads as version 1 (docs/formats.md). */
	int version;
	double runtime;	      /* Makeflow: a rule's runtime when none is given */
	uint64_t seed;	      /* gen: the generator's seed */
	double jitter;	      /* gen: runtimes' coefficient of variation (0: its default) */
	double runtime_scale; /* gen: multiplies every runtime (0: 1) */
	/* The workflow's default demand: what a task takes of each resource
	 * the workflow does not state for it (a Makeflow as above; a
	 * WfCommons task's coreCount and memoryInBytes, each alone; every
	 * task of a format that states none: STG, text, gen). Zero: the
	 * built-in LOCUS_DEMAND_DEFAULT (cores 0 is 1). */
	struct locus_demand task_default;
};

/* The current version and the defaults: every member 0. */
void locus_flow_load_options_init(struct locus_flow_load_options *o);

/* Reads the workflow `spec` names: "makeflow:FILE", "wfcommons:FILE",
 * "stg:FILE", "text:FILE", "gen:montage[:IMAGES]" (1319 images: Table
 * VI's 6x6 degree mosaic), "gen:blast[:FRAGMENTS[:QUERIES]]" (63
 * fragments, 16 query files), or a FILE told by its name (Makeflow,
 * *.mf, *.makeflow: a Makeflow, whose input sizes are read in the
 * directory it is in) or its content (locus_dag_load's formats, else a
 * Makeflow). `opt` may be NULL. Errors as the readers'. */
int locus_flow_load(struct locus_graph **out, const char *spec,
		    const struct locus_flow_load_options *opt, struct locus_error *err);

/* Whether g can be run by its commands (locus flow run without
 * stand-ins): every task that writes files has a command. A task without
 * one and without outputs runs as nothing; one with outputs could only
 * fail after the run had started ("did not write f"). `name` (the
 * workflow's file) labels the error. 0, or LOCUS_EINVAL naming the first
 * such task and a file it writes. */
int locus_flow_check_commands(const struct locus_graph *g, const char *name,
			      struct locus_error *err);

/* The workflow left to run once the tasks with done[t] non-zero have run
 * (a resumed run's): the others, in id order, with their names, stages,
 * commands and remote names; a done task's output they read is one of its
 * inputs (LOCUS_NONE producer), the others keep theirs. LOCUS_ENOMEM. */
int locus_flow_remaining(struct locus_graph **out, const struct locus_graph *g,
			 const unsigned char *done, struct locus_error *err);

/* What the journal of a workflow run says (docs/formats.md, "Flow
 * journal"): the tasks it names as finished, and for each file it lists
 * the place that kept it (a node's name, or ":shared"; NULL when not
 * listed), its size and its checksum (FNV-1a 64; 0: none). */
struct locus_flow_journal {
	size_t n_tasks, n_objects;
	unsigned char *done;
	char **place;
	uint64_t *bytes, *sum;
};

/* Reads journal `text` of workflow g (`name` labels errors): LOCUS_EPARSE
 * (line, column, what was expected: a first line for another number of
 * tasks or files included), LOCUS_EINVAL (a task or file g lacks: another
 * workflow's journal), LOCUS_ENOMEM. Free with locus_flow_journal_fini. */
int locus_flow_journal_parse(struct locus_flow_journal *j, const struct locus_graph *g,
			     const char *text, size_t len, const char *name,
			     struct locus_error *err);
void locus_flow_journal_fini(struct locus_flow_journal *j);

/* ---- a run's status (docs/formats.md, "Flow status") --------------------------- */

/* Tasks by state, and the bytes the done tasks read and wrote. */
struct locus_flow_status_count {
	uint64_t total, waiting, running, done;
	uint64_t failed_attempts; /* attempts that failed (timed out included) */
	uint64_t bytes_read, bytes_written;
};

/* What a run of a workflow has done so far, as its rank 0 last wrote it:
 * `state` is "running", "complete" or "failed" (then `failure` says
 * why); times are Unix seconds; pid and host are rank 0's. */
struct locus_flow_status {
	char *workflow, *state, *failure, *host;
	long pid;
	double started, updated;
	struct locus_flow_status_count tasks;
	size_t n_stages;
	char **stage_names;
	struct locus_flow_status_count *stages;
};

/* Writes s to `path` as a locus-flow-status document, atomically (a
 * temporary beside it, renamed over it): a reader sees the last whole
 * one. 0, LOCUS_EIO (the reason), LOCUS_ENOMEM. */
int locus_flow_status_write(const struct locus_flow_status *s, const char *path,
			    struct locus_error *err);
/* Reads one back: 0, LOCUS_EIO, LOCUS_EPARSE (what was expected, with
 * the JSON path or line and column), LOCUS_ENOMEM. Free with
 * locus_flow_status_fini. */
int locus_flow_status_read(struct locus_flow_status *s, const char *path, struct locus_error *err);
void locus_flow_status_fini(struct locus_flow_status *s);

/* ---- dataflow patterns (AME/AMFS sections II-A, V-F, V-G) ------------------- */

/* The five patterns, as flags. */
enum {
	LOCUS_PATTERN_PIPELINE = 1u << 0, /* a file written by one task, read by one */
	LOCUS_PATTERN_GATHER = 1u << 1,	  /* a task reading the outputs of many */
	LOCUS_PATTERN_REDUCE = 1u << 2,	  /* a gather whose stage has a reduce function */
	LOCUS_PATTERN_SCATTER = 1u << 3,  /* a task whose outputs go to many tasks */
	LOCUS_PATTERN_MULTICAST = 1u << 4 /* a file read by many tasks of one stage */
};
#define LOCUS_PATTERNS 5

/* The name of pattern flag 1u << k ("pipeline", "gather", "reduce",
 * "scatter", "multicast"), or NULL for k >= LOCUS_PATTERNS. */
const char *locus_pattern_name(unsigned k);

/* The thresholds of pattern identification (the paper's "predefined
 * threshold", which it does not give). */
#define LOCUS_PATTERN_OPTIONS_VERSION 1

struct locus_pattern_options {
	/* LOCUS_PATTERN_OPTIONS_VERSION, set by locus_pattern_options_init with the other defaults;
	 * 0 (a struct zeroed by hand) reads as version 1 (docs/formats.md). */
	int version;
	uint32_t gather;    /* a task with this many produced inputs or more gathers */
	uint32_t multicast; /* a file this many tasks of one stage read is multicast */
	uint32_t scatter;   /* a task whose outputs this many tasks read scatters */
	/* Stages whose gathers are reductions (they have a reduce function). */
	const char *const *reduce;
	size_t n_reduce;
};

/* The current version and the defaults: gather 16, multicast 8, scatter
 * 8, no reduction. */
void locus_pattern_options_init(struct locus_pattern_options *o);

/* A stage as the paper's tables see it (Table IV: the stage's input
 * files; Table V: each file's consumers in the stage). */
struct locus_flow_stage {
	uint32_t tasks;
	uint32_t inputs;	      /* distinct files its tasks read */
	uint32_t produced_inputs;     /* of them, written by a task */
	uint32_t outputs;	      /* files its tasks write */
	uint64_t consumption;	      /* its tasks' inputs, counted per task (Table V's sum) */
	uint64_t bytes_in, bytes_out; /* of its tasks' inputs and outputs, per task */
	double work;		      /* its tasks' runtimes, summed */
	unsigned patterns;	      /* LOCUS_PATTERN_* found in it */
	uint32_t gathers, scatters, pipelines; /* tasks of each pattern */
	uint32_t multicast_files;	       /* its input files read by many of its tasks */
	uint32_t max_inputs;		       /* most input files of one of its tasks */
	uint32_t max_consumers;		       /* most of its tasks reading one file */
	/* Its tasks' produced inputs counted in file groups (V-F: a group
	 * is the files one task wrote that a task of the stage reads), per
	 * task: the consumption a multicast group's share q is taken of
	 * (workflow inputs are no group: nothing replicates them). */
	uint64_t group_reads;
};

/* What pattern identification found in a workflow, and its critical path. */
struct locus_flow_analysis {
	struct locus_pattern_options opt; /* the thresholds used (reduce borrowed) */
	size_t n_stages;		  /* the graph's, or 1 when it names none */
	struct locus_flow_stage *stages;
	/* Per task: the patterns it takes part in as a reader (GATHER,
	 * REDUCE, PIPELINE) or a writer (SCATTER). */
	uint8_t *task_patterns;
	/* Per object: LOCUS_PATTERN_MULTICAST when some stage has that many
	 * readers of it; consumers_in_stage[o] the most readers of it in one
	 * stage. */
	uint8_t *object_patterns;
	uint32_t *consumers_in_stage;
	/* Per read (indexed as graph->inputs: in_at + k): 1 when the file
	 * is produced and the reader's stage has that many readers of it (a
	 * multicast read), else 0. A file a multicast stage reads may have
	 * readers in other stages that take it as any other file. */
	uint8_t *input_multicast;
	/* The longest chain of runtimes (no data movement), its length in
	 * seconds and its tasks from first to last. */
	double critical_path;
	uint32_t *cp_tasks;
	size_t n_cp;
};

/* Identifies the patterns of g (opt NULL: the defaults): the paper's
 * run-time identification, from the task list alone. Stages are the
 * graph's (one stage when it has none). *out is allocated; free it with
 * locus_flow_analysis_destroy. LOCUS_EINVAL (a threshold of 0),
 * LOCUS_ENOMEM. */
int locus_flow_analyse(struct locus_flow_analysis **out, const struct locus_graph *g,
		       const struct locus_pattern_options *opt, struct locus_error *err);

/* Whether every stage the `sep`-separated `list` names ("mAdd,mBgModel")
 * is a stage of g: a name the workflow lacks (a misspelt --reduce) would
 * silently select nothing. 0, or LOCUS_EINVAL naming the first missing
 * one and g's stages. */
int locus_flow_check_stages(const struct locus_graph *g, const char *list, char sep,
			    struct locus_error *err);
void locus_flow_analysis_destroy(struct locus_flow_analysis *a);

/* The stage of task t in an analysis (0 when the graph names none). */
uint32_t locus_flow_stage_of(const struct locus_graph *g, uint32_t t);

/* ---- replication (section V-F) ----------------------------------------------- */

/* How many storage servers should hold a file group that `consumers`
 * tasks of a stage read, when the stage's tasks read `consumption` groups
 * in all (locus_flow_stage.group_reads, or a dispatcher's share of it)
 * and there are `servers` servers: ceil(q x servers), q = consumers /
 * consumption (1 at most), at least 1 and at most `servers` and
 * `consumers` (no more holders than readers: V-F's rule for a stage with
 * fewer tasks than workers, replicas in proportion to consumption); 0
 * when no task reads it. (The paper: 10 of 1,000 on 200 servers, 2.) */
uint32_t locus_flow_replicas(uint64_t consumers, uint64_t consumption, uint32_t servers);

/* The copies a dispatcher makes for n replicas wanted in its scope: n when
 * the file was produced outside its scope, n - 1 when inside (section
 * V-F4). */
uint32_t locus_flow_copies(uint32_t n, int produced_in_scope);

/* Picks `count` servers for the copies: those holding the fewest of the
 * stage's input files (load[s]), never one in `skip` (n_skip of them: the
 * holders), ties to the lower index; writes them to out in increasing
 * load. Returns how many it picked (fewer when too few are left). */
uint32_t locus_flow_place_replicas(const uint32_t *load, uint32_t n_servers, uint32_t count,
				   const uint32_t *skip, uint32_t n_skip, uint32_t *out);

/* ---- collectives (section V-B3) ------------------------------------------------ */

/* The minimum spanning tree the AMFS collectives use, built by halving
 * the address list: the node holding the list (first: list[0], the
 * root) removes the later half of what is left (ceil of half), sends it
 * to the first address of that half, which does the same with the rest
 * of its half, until every list is empty. parent[i] gets the index in
 * `list` of entry i's parent (the root's: UINT32_MAX) and round[i] the
 * step at which i receives its list (the root: 0; its first child: 1).
 * A gather sends in the reverse order: the deepest rounds first. */
void locus_flow_binomial(size_t n, uint32_t *parent, uint32_t *round);

/* ---- generated workflows ------------------------------------------------------ */

/* The paper's two applications as workflows of its sizes (section III,
 * VI-B; docs/flow.md, "Generated workflows", gives every number and its
 * source). Each task has a stage (its program) and a command (the
 * program's usual arguments, not run), each object a file name and a size
 * in bytes (1 MB = 2^20 bytes); runtimes are seconds on a speed-1 node.
 * The same spec and seed give the same graph. */

/* Montage (Tables II, VI, VII): mProject, mImgtbl, mOverlaps, mDiffFit,
 * mConcatFit, mBgModel, mBackground, mImgtbl again on the corrected
 * images, mAdd. The images lie on a near-square grid; the overlapping
 * pairs are grid neighbours (right, down, down-right, down-left), the
 * first `overlaps` of them in an order drawn by the seed. */
struct locus_montage_spec {
	/* Raw images (Table VI's 6x6 degree mosaic: 1319), >= 1. */
	uint32_t images;
	/* Overlapping pairs (0: 3883 * images / 1319, at most the neighbour
	 * pairs there are). */
	uint32_t overlaps;
	/* Images mBackground corrects, the first ones (0: 1297 * images / 1319). */
	uint32_t background;
	/* Multiplies every runtime (0: 1). */
	double runtime_scale;
	/* Coefficient of variation of each task's runtime around its stage's
	 * mean, lognormal (0: none). */
	double jitter;
	uint64_t seed;
};

/* A Montage workflow as `s` says, finished; the caller frees it with
 * locus_graph_destroy. LOCUS_EINVAL (the message says what was expected)
 * for 0 images, more overlaps than neighbour pairs, more background
 * images than images, a negative, NaN or infinite scale or jitter, or a
 * graph too large for 32-bit ids; LOCUS_ENOMEM. */
int locus_flow_montage(struct locus_graph **out, const struct locus_montage_spec *s,
		       struct locus_error *err);

/* mtcBLAST (Tables III, VIII): fastasplitn cuts nr into N slices,
 * formatdb formats each, blastp searches each of M query files against
 * each slice, merge joins each query file's N hits. */
struct locus_blast_spec {
	/* N: slices of the database (the paper: 63), >= 1. */
	uint32_t fragments;
	/* M: query files of 16 sequences (the paper: cores / 16), >= 1. */
	uint32_t queries;
	/* Multiplies every runtime (0: 1). */
	double runtime_scale;
	/* Coefficient of variation of each task's runtime, lognormal (0:
	 * none, except blastp's, 0.5 then: BLAST's task lengths vary). */
	double jitter;
	uint64_t seed;
};

/* An mtcBLAST workflow as `s` says, finished; the caller frees it with
 * locus_graph_destroy. LOCUS_EINVAL for 0 fragments or queries, a bad
 * scale or jitter, or a graph too large for 32-bit ids; LOCUS_ENOMEM. */
int locus_flow_blast(struct locus_graph **out, const struct locus_blast_spec *s,
		     struct locus_error *err);

/*
 * Named platforms for workflows (`locus flow sim --platform preset:NAME`):
 * a machine the papers measured on, with every constant of it in one
 * place, so that the reproductions (bench/repro_amfs) and a user's runs
 * see the same one. "bgp": the AME/AMFS paper's Blue Gene/P (Intrepid):
 * nodes of 4 cores, one 425 MB/s torus link each, a 1 GB/s RAM disk, one
 * node in 64 running a dispatcher and a metadata server (1:63), on the
 * 3-D torus of the partition (amfs's most cubic shape of the node count:
 * 8x8x8 for 512 nodes); GPFS of 1.25 GB/s per 64 nodes (one I/O node,
 * 10 Gb/s Ethernet) up to 60 GB/s, 11.3 ms for a client to open a file
 * (Table VII's GPFS rows), 2,000 metadata operations a second (assumed:
 * the paper gives none); 50 us latency, 5 us a message, 0.1 us a
 * metadata entry; a worker's peer copy of a file set up in 67.7 ms (the
 * paper's FTP daemon, calibrated on Montage's Data Cache mImgtbl:
 * docs/results/amfs.md).
 */
struct locus_flow_preset {
	const char *name, *summary;
	int cores;			      /* per worker node */
	double net_bw, disk_bw;		      /* per node, bytes/s */
	uint32_t nodes_per_dispatcher;	      /* of each so many nodes, one runs a dispatcher */
	double fs_bw_per64, fs_bw_max;	      /* the shared file system, bytes/s */
	double fs_latency, fs_ops;	      /* open cost (s), metadata operations a second */
	double latency, cost_msg, cost_entry; /* seconds */
	double fetch_cost;		      /* amfs's -o fetch_cost (s) */
};

/* The preset named `name` ("bgp"), or NULL. */
const struct locus_flow_preset *locus_flow_preset_find(const char *name);

/* The preset's partition of `nodes` nodes (>= 2): the first nodes -
 * D run workers (named node00000, ...), the last D = ceil(nodes /
 * nodes_per_dispatcher) none (disp0000, ...: the dispatchers'); *fs_bw
 * gets the file system's bandwidth for that size. The caller frees *out
 * with locus_platform_destroy. LOCUS_EINVAL for fewer than 2 nodes (the
 * message says so), LOCUS_ENOMEM. */
int locus_flow_preset_platform(const struct locus_flow_preset *pr, size_t nodes,
			       struct locus_platform **out, size_t *dispatchers, double *fs_bw,
			       struct locus_error *err);

#ifdef __cplusplus
}
#endif
#endif
