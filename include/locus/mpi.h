/*
 * The MPI engine: runs a scheduling policy for real, on the ranks of an
 * MPI communicator, over the chunks of a node-local store.
 *
 * It drives the very policy code the simulator drives (policy.h): every
 * rank runs one process of the policy, a worker or a scheduler, and
 * delivers its events from real messages and real completions. A worker
 * rank is given chunks one at a time and calls the caller's function on
 * each, with the chunk's path (and its bytes, if asked). A chunk the
 * rank's node holds is read from the node's own directory of the store; a
 * chunk it does not hold is fetched by MPI from a rank on a node that
 * holds it (a real transfer, counted), never read from another node's
 * directory. docs/mpi.md describes the roles, the wire protocol and the
 * measurements.
 *
 * Nodes: a rank's node is its processor name (MPI_Get_processor_name),
 * matched against the store's node directories (locus_host_match); on one
 * machine `emulate_nodes` K maps rank r onto the (r mod K)-th node
 * directory of the store instead, so the machine behaves like a K-node
 * cluster whose nodes each have their own disk.
 *
 * Threads: the caller must have initialised MPI (MPI_Init_thread with at
 * least MPI_THREAD_FUNNELED lets the function run on a thread of its own,
 * so that the rank keeps answering its peers while it computes; with
 * MPI_THREAD_SINGLE, or `inline_tasks`, it runs on the calling thread).
 * The function must not call MPI: do collective work after locus_mpi_run
 * returns. locus_mpi_run is collective over `comm`: every rank calls it
 * with the same options.
 *
 * locus_mpi_scatter, at the end, executes a divisible-load plan
 * (locus/divisible.h) for real over the bytes of one file.
 */
#ifndef LOCUS_MPI_H
#define LOCUS_MPI_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "locus/divisible.h"
#include "locus/error.h"
#include "locus/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What locus_mpi_run offers policies (policy.h): assignments, messages
 * and timers only. */
#define LOCUS_MPI_OFFERS 0u
/* What locus_mpi_flow_run offers policies: failed attempts told,
 * copies, drops and reductions, assignments that say how inputs come and
 * where outputs go, withdrawn assignments, rewinding a finished task, and
 * a monitor of every task (its scheduler ranks hear each task's state
 * from the rank that has it: a message late, where the simulator's is
 * exact). */
#define LOCUS_MPI_FLOW_OFFERS                                                                      \
	(LOCUS_NEEDS_FAILED | LOCUS_NEEDS_COPIES | LOCUS_NEEDS_FLOW | LOCUS_NEEDS_CANCEL |         \
	 LOCUS_NEEDS_REWIND | LOCUS_NEEDS_MONITOR)

/* What the function is given: one chunk of one dataset. */
struct locus_mpi_chunk {
	const char *dataset; /* dataset name (a path in the store) */
	size_t index;	     /* chunk index in the dataset */
	uint64_t offset;     /* byte offset in the dataset */
	uint64_t length;     /* bytes */
	const char *path;    /* a file holding exactly the chunk's bytes: the
			      * store's copy when local, else a scratch copy
			      * removed after the call */
	const void *data;    /* the bytes (options.want_bytes), else NULL */
	int local;	     /* 1: read from this rank's node */
	uint32_t task;	     /* task id in this run */
	int attempt;	     /* 0 the first time, 1.. on retries */
	int rank;	     /* this rank */
	const char *node;    /* this rank's node */
	/* With options.output set: the function may leave a malloc'ed
	 * buffer in *output and its length in *output_len; when it succeeds
	 * the engine sends it whole to rank 0 (and frees it), and drops it
	 * when it fails. NULL without options.output. */
	char **output;
	size_t *output_len;
};

/* Runs on one chunk. Returns 0 when done; non-zero when it failed, after
 * writing why into why[0 .. why_size) (it is then retried on another rank,
 * up to options.retries times). */
typedef int (*locus_mpi_chunk_fn)(void *user, const struct locus_mpi_chunk *chunk, char *why,
				  size_t why_size);

#define LOCUS_MPI_OPTIONS_VERSION 1

struct locus_mpi_options {
	/* LOCUS_MPI_OPTIONS_VERSION, set by locus_mpi_options_init with the other defaults;
	 * 0 (a struct zeroed by hand) reads as version 1 (docs/formats.md). */
	int version;
	const char *store;	 /* the store's root directory (required) */
	const char *dataset;	 /* only this dataset; NULL: every one */
	const char *policy;	 /* policy name; NULL: "scal" */
	const char *policy_opts; /* "key=value,..." or NULL */
	size_t schedulers;	 /* scheduler ranks; 0: the policy's default */
	size_t emulate_nodes;	 /* > 0: rank r on node directory r mod K */
	uint64_t seed;		 /* the policy's generators */
	int retries;		 /* more attempts of a failed chunk, on other ranks */
	const char *journal;	 /* file recording finished chunks; NULL: none. Locked
				  * while the run goes: another run on it is an error
				  * (LOCUS_EEXIST naming its pid) unless wait_journal */
	int wait_journal;	 /* 1: wait for another run's lock on the journal */
	int want_bytes;		 /* 1: pass the chunk's bytes too */
	int inline_tasks;	 /* 1: call the function on the calling thread */
	const char *scratch;	 /* where the nodes keep fetched chunks (each deleted
				  * once its task has ended); NULL: $TMPDIR, else
				  * /dev/shm */
	double emulate_net_bw;	 /* > 0: a fetch takes at least bytes / this (bytes/s) */
	double max_idle_sleep;	 /* longest sleep of an idle rank, s; 0: 1e-3 */
	volatile int *cancel;	 /* set non-zero (a signal handler, say) to stop */
	/* Rank 0 only, may be NULL: called about every 1 % of the chunks and
	 * at the end with what is done and failed so far. */
	void (*progress)(void *user, size_t done, size_t failed, size_t total, double seconds);
	void *progress_user;
	/* Rank 0 only, may be NULL: called with each successful chunk's
	 * output (locus_mpi_chunk.output), one chunk's at a time, so that
	 * outputs of chunks run on different ranks never interleave. */
	void (*output)(void *user, const char *data, size_t len);
	void *output_user;
};

/* The current version and the defaults: every member 0 or NULL but
 * retries, 1 (what locus run does). */
void locus_mpi_options_init(struct locus_mpi_options *o);

/* A chunk that failed on every attempt. */
struct locus_mpi_failure {
	char *dataset;
	size_t index;
	uint32_t task;
	int attempts;
	int rank; /* where the last attempt ran */
	char *why;
};

/* What one rank did. */
struct locus_mpi_rank {
	int rank;
	int role;	/* 0 worker, 1 scheduler */
	uint32_t proc;	/* policy process id */
	uint32_t node;	/* platform node index */
	uint64_t tasks; /* attempts run here (retries included) */
	uint64_t local_tasks;
	uint64_t failed;  /* attempts that failed here */
	uint64_t retried; /* attempts run here for another rank */
	uint64_t bytes_local, bytes_fetched, bytes_served;
	uint64_t fetches, serves;
	double fetch_seconds;		   /* from asking for a chunk to having all of it */
	double serve_read_seconds;	   /* reading chunks this rank served */
	double busy;			   /* running the function */
	uint64_t events;		   /* policy events handled */
	double decide_seconds;		   /* inside the policy (estimated: about one
					    * event in 8 is timed, at random) */
	uint64_t msgs_sent, msgs_received; /* policy messages */
};

struct locus_mpi_report {
	struct locus_mpi_rank self;
	/* Rank 0 only (NULL elsewhere): the run in the schema of locus_sim_run
	 * (engine "mpi"), every rank's record, the final failures. */
	struct locus_result *result;
	struct locus_mpi_rank *ranks;
	size_t n_ranks;
	struct locus_mpi_failure *failures;
	size_t n_failures;
	size_t skipped; /* chunks the journal said were done */
	size_t total;	/* chunks of the run, skipped ones included */
	/* Measured on this run (rank 0): what locus sim needs to replay it. */
	double net_bw;			 /* fetched bytes / fetch seconds; 0: no fetch */
	double disk_bw;			 /* served bytes / their read seconds; 0: none */
	double latency;			 /* one-way policy message latency, s (half the
					  * fastest request-to-assignment round trip) */
	struct locus_platform *platform; /* the nodes and ranks of the run */
	double *work;			 /* by task: seconds in the function */
};

/* Runs `fn` on every chunk of the store (or of one dataset), each exactly
 * once unless it fails, on the ranks of `comm`, as `opt->policy` decides.
 * Collective. On return every rank has report->self; rank 0 has the rest.
 * Returns 0 when every chunk ran (some may have failed: see
 * report->n_failures), or a negative LOCUS_E* code, the same on every
 * rank, with the first error's message in `err` (a bad option, an
 * unreadable store, a chunk no rank can reach, a policy that left a chunk
 * unassigned). Free the report with locus_mpi_report_fini. */
int locus_mpi_run(MPI_Comm comm, const struct locus_mpi_options *opt, locus_mpi_chunk_fn fn,
		  void *user, struct locus_mpi_report *report, struct locus_error *err);

void locus_mpi_report_fini(struct locus_mpi_report *report);

/* ---- divisible load: a plan executed for real (locus scatter) ----------- */

/* Runs on one chunk of a scattered file: `len` bytes that were at byte
 * `offset` of the input, sent in round `round`. Returns 0 when done,
 * non-zero when it failed. It must not call MPI; it runs on a thread of
 * its own when MPI gives at least MPI_THREAD_FUNNELED (so that the rank
 * keeps receiving its next chunk meanwhile), else on the calling thread.
 * `data` is valid during the call only. */
typedef int (*locus_mpi_scatter_fn)(const void *data, size_t len, uint64_t offset, uint32_t round,
				    void *user);

/* Executes a divisible-load plan (locus/divisible.h) for real: rank 0 is
 * the master and reads the file `input`; plan worker i is rank i + 1 and
 * calls `fn` on each chunk it receives, in the order they arrive.
 *
 * Chunks map to bytes in the plan's send order (round by round, the used
 * groups in order, each group's members in plan->order): the boundaries
 * are floor(cumulative units / total units * file size), so the chunks
 * partition the file, every byte exactly once; a chunk that rounds to no
 * byte is neither sent nor given to `fn`. For each round and each used
 * group in turn, the master sends the group's chunks at once (MPI_Isend,
 * pieces of at most 1 GiB) and waits for all of them before the next
 * group. A worker knows its chunks from the plan and posts the receive of
 * the next one before computing the current one.
 *
 * Collective over `comm`: every rank passes the same plan (it is checked);
 * `input` matters on rank 0 only, `fn` on the other ranks. *measured
 * (rank 0, may be NULL; NULL elsewhere and on error) gets the execution:
 * events in send order with units from the plan and times in seconds
 * (MPI_Wtime) since a common start after a barrier, on rank 0's clock
 * (each worker's offset measured by round trips): send_start taken by
 * the master, recv_end, comp_start and comp_end by the worker; makespan is
 * the last comp_end, link_busy the sum over groups of their first send to
 * their last arrival. Free it with locus_divisible_run_destroy.
 *
 * Returns 0, or the same negative code and message on every rank:
 * LOCUS_EINVAL when plan->n_workers is not the size of `comm` - 1 or the
 * ranks hold different plans; LOCUS_ENOENT or LOCUS_EIO for an input rank
 * 0 cannot open or read (or that shrank while it was sent); LOCUS_ENOMEM;
 * LOCUS_EINCOMPLETE when `fn` failed on a chunk (the message names the
 * rank, the worker, the round and the byte offset of the first that did;
 * the master sends no further group after it is told, and no worker
 * computes a chunk once it knows). docs/mpi.md, "locus scatter", has the
 * protocol and what is measured. */
int locus_mpi_scatter(MPI_Comm comm, const struct locus_divisible_plan *plan, const char *input,
		      locus_mpi_scatter_fn fn, void *user, struct locus_divisible_run **measured,
		      struct locus_error *err);

/* ---- workflows: files, commands and a workflow policy (locus flow run) -- */

/*
 * Runs a many-task workflow (locus/flow.h) for real under a workflow
 * policy (amfs, taskvine, dask: the very decisions the simulator runs),
 * on the ranks of `comm`. docs/mpi.md, "Workflows", has the protocol.
 *
 * Ranks: the first `dispatchers` ranks run the policy's scheduler
 * processes (amfs: the submitter, and a dispatcher with its metadata
 * server on each); every other rank is a worker and its node's storage
 * server. A worker node's storage is a directory under `local`: each node
 * keeps the files made or copied there, and the files move between nodes
 * by MPI (the bytes read from one node's directory, written into
 * another's), never through another node's directory. The shared
 * directory holds the workflow's inputs at the start and its final
 * outputs (those no task reads) at the end.
 *
 * A task runs in a working directory of its node where each input
 * appears under the name the workflow gives it (a symbolic link); a
 * Makeflow command line runs under /bin/sh -c there, argv words run
 * without a shell. The names it must write are picked up from there when
 * it exits with 0; a task that fails (non-zero exit, a signal, an output
 * missing) runs again, up to `retries` more times, then ends the run
 * with its stderr quoted.
 */
/* A task run by a function (locus_mpi_flow_options.fn) instead of its
 * command. */
struct locus_mpi_flow_task {
	uint32_t task;		/* its index in options.graph */
	const char *name;	/* its name (may be NULL) */
	uint32_t n_in, n_out;	/* as the graph's task */
	const char *const *in;	/* where to read each input, in the task's
				 * order: this node's copy, or the shared
				 * directory's */
	const char *const *out; /* where to write each output, in the
				 * task's order: files of this node's
				 * storage, kept when the function
				 * succeeds, deleted when it fails */
	int attempt;		/* 0 the first time, 1.. on retries */
	int rank;		/* this rank */
	const char *node;	/* this rank's node */
};

/* Runs one task. Returns 0 when every output is written; non-zero when it
 * failed, after writing why into why[0 .. why_size) (it then runs again,
 * up to options.retries times, before the run ends quoting `why`). It must
 * not call MPI. When MPI was initialised with at least
 * MPI_THREAD_FUNNELED it runs on a thread of its own, so that the rank
 * serves its files and messages meanwhile (as a simulated node does);
 * else, or with options.inline_tasks, on the rank's own thread between
 * two turns of its loop (a long one then delays the files the rank serves
 * to others). */
typedef int (*locus_mpi_flow_fn)(void *user, const struct locus_mpi_flow_task *task, char *why,
				 size_t why_size);

#define LOCUS_MPI_FLOW_OPTIONS_VERSION 1

struct locus_mpi_flow_options {
	/* LOCUS_MPI_FLOW_OPTIONS_VERSION, set by locus_mpi_flow_options_init with the other
	 * defaults; 0 (a struct zeroed by hand) reads as version 1 (docs/formats.md). */
	int version;
	const struct locus_graph *graph; /* the workflow (every rank the same) */
	/* The shared directory (required): locked while the run goes (another
	 * run in it is an error, or waited for with `wait`), and swept of what
	 * killed runs left there. */
	const char *shared;
	/* Where node storage goes; NULL: /dev/shm. Not empty; made when
	 * missing if its parent exists (and removed at the end, when empty). */
	const char *local;
	const char *policy;	 /* NULL: "amfs" */
	const char *policy_opts; /* "key=value,..." or NULL */
	size_t dispatchers;	 /* scheduler ranks; 0: one per 63 worker nodes */
	size_t emulate_nodes;	 /* > 0: worker rank r on node (r - D) mod K */
	uint64_t seed;
	int retries;	 /* more attempts of a failed task */
	int keep;	 /* 1: leave the nodes' directories in place */
	double stand_in; /* > 0: each task, instead of its command, reads its
			  * inputs, sleeps its runtime x stand_in and writes
			  * outputs of their recorded sizes */
	/* Non-NULL: every task is a call of fn(user, ...) in the worker
	 * rank's process (a program linking liblocus), with no working
	 * directory, command or process of its own; the graph needs no
	 * commands. */
	locus_mpi_flow_fn fn;
	void *user;
	double max_idle_sleep; /* longest sleep of an idle rank, s; 0: 1e-3 */
	volatile int *cancel;  /* set non-zero to stop */
	/* A file recording each finished task and where its outputs are
	 * (their sizes, and checksums with `checksum`), or NULL. A run
	 * given the journal of an interrupted one runs only what is left:
	 * the outputs a later task reads are taken from the nodes that kept
	 * them (checked by size and checksum); a task whose outputs are
	 * lost or damaged runs again, and so do the producers of its own
	 * lost inputs. The nodes' storage of a run that fails is kept for
	 * that. Locked while the run goes: another run on it is an error.
	 * A file that is not a journal (or another workflow's, or a file the
	 * workflow writes) is refused and left as it was. */
	const char *journal;
	int checksum;
	/* 1: wait for another run holding the journal or the shared
	 * directory to end (or for `cancel`), then go; 0: refuse at once
	 * (LOCUS_EEXIST, naming its pid where the system says it). */
	int wait;
	/* Rank 0 only, may be NULL: about every 1 % of the tasks. */
	void (*progress)(void *user, size_t done, size_t total, double seconds);
	void *progress_user;
	/* The process group this rank's commands run in (a process that
	 * kills it when the rank dies: the CLI's keeper), or 0: the rank's. */
	int process_group;
	/* Seconds an attempt of a task's command (or stand-in) may run; a
	 * task's own limit (locus_command.wall_time, a Makeflow's WALL_TIME)
	 * comes first; 0: none. An attempt over it is ended, the command's
	 * whole process group (SIGTERM, then SIGKILL 2 s later), and fails
	 * ("timed out after N s", with its stderr), retried as any failure.
	 * A command with a limit runs in a process group of its own. */
	double timeout;
	/* Rank 0 keeps this file up to date while the run goes (at most
	 * twice a second when something changed, every 5 s anyway, and at
	 * the end): tasks waiting, running and done, failed
	 * attempts and bytes, in all and per stage, rewritten atomically
	 * (locus_flow_status_write); NULL: none. */
	const char *status;
	/* > 0: a descriptor (the keeper's pipe) told of each such group: its
	 * id as 4 bytes (int32) when the command starts and its negation
	 * when it has ended, so that whoever reads it can end the groups
	 * left when the rank dies. */
	int group_fd;
	/* A policy of the program's own (not in the registry), run instead
	 * of `policy`; NULL: `policy`. The same on every rank. */
	const struct locus_policy *policy_def;
	/* 1: call fn on the rank's own thread even where MPI allows one of
	 * its own (a function of microseconds: the hand-off would cost more
	 * than it saves). */
	int inline_tasks;
	/* Bytes of memory each worker node's tasks may take at once (their
	 * demands, struct locus_demand); 0: the machine's (MemTotal) over
	 * the nodes it plays. */
	double node_memory;
	/* Bytes of disk each worker node's tasks may declare at once (their
	 * DISK, struct locus_demand): a task starts only where the declared
	 * disk of those running beside it leaves room for its own; 0: the
	 * space free where the node's storage is (statvfs) when the run
	 * starts, over the nodes this machine plays. Declared, not measured:
	 * what a command writes is not limited. */
	double node_disk;
};

/* The current version and the defaults: every member 0 or NULL but
 * retries, 1 (what locus flow run does). */
void locus_mpi_flow_options_init(struct locus_mpi_flow_options *o);

struct locus_mpi_flow_report {
	/* Rank 0 only (NULL elsewhere): the run in the schema of
	 * locus_sim_run (engine "mpi"), per task, stage and transfer. */
	struct locus_result *result;
	struct locus_platform *platform; /* rank 0: the run's nodes */
	/* Rank 0: the part of the workflow the result describes when a
	 * journal or a lost file made the run skip tasks done before (the
	 * result's tasks and stages are its own); NULL: options.graph. */
	struct locus_graph *graph;
	uint64_t pieces; /* data messages this rank sent */
	/* Sleeps of this rank that a peer's doorbell ended (docs/mpi.md,
	 * "How the ranks wait"). */
	uint64_t rings;
	/* Rank 0, with a journal: tasks it said were done (skipped), and
	 * of those, the ones run again because their files were lost. */
	size_t skipped, rerun;
	/* Rank 0: files found lost while the run went (each ended a round:
	 * the next made it again), and the rounds (1 when none was lost).
	 * The result describes the last round. */
	size_t lost, rounds;
	/* Rank 0: tasks that ran again because a policy reading a monitor of
	 * every task (GTP) moved them as they ended, its news a message late
	 * (the result keeps each task's first run). */
	size_t repeated;
	/* Rank 0, for a replay in the simulator (locus flow run --measured):
	 * each task's seconds in its command or function, by options.graph's
	 * task (-1: not run by this run), and the rates the run's copies
	 * achieved, bytes/s (0: none moved): between nodes, bytes over the
	 * time each rank had a copy coming in; with the shared directory, its
	 * bytes over the time any rank had a copy with it under way. */
	double *work;
	double net_bw, fs_bw;
	/* Rank 0: what runs killed before this one left and this one swept
	 * (docs/mpi.md, "Ending"): temporaries in the shared directory
	 * (NAME.locus-tmp-RANK-PID), and run directories under
	 * options.local that no live run held (a journal's are kept for its
	 * resume, until that journal is deleted: swept_journal_dirs of
	 * swept_dirs are such). */
	size_t swept_files, swept_dirs, swept_journal_dirs;
};

/* Runs every task of opt->graph exactly once (retries aside), as
 * opt->policy decides. Collective. Returns 0 when every task finished, or
 * a negative LOCUS_E* code, the same on every rank, with the first
 * error's message in `err` (a bad option or name, an input missing from
 * the shared directory, a task that failed on every attempt, a policy
 * asking what the engine cannot do). Free the report with
 * locus_mpi_flow_report_fini. */
int locus_mpi_flow_run(MPI_Comm comm, const struct locus_mpi_flow_options *opt,
		       struct locus_mpi_flow_report *report, struct locus_error *err);
void locus_mpi_flow_report_fini(struct locus_mpi_flow_report *report);

/* What the nodes of comm can do, measured (collective; every rank calls
 * it): the slowest node's local storage reading back a 64 MiB file it
 * has just written in `dir` (NULL: /dev/shm), and MPI moving 64 MiB from
 * the first worker rank (rank 1 when there are more than 2) to the last.
 * Rank 0 gets both rates in bytes/s (0: not measured); the other ranks'
 * are undefined. `locus flow run --measured` writes them into a platform
 * file for the simulator. */
void locus_mpi_probe(MPI_Comm comm, const char *dir, double *disk_bw, double *net_bw);

#ifdef __cplusplus
}
#endif
#endif
