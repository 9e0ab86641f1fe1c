/*
 * The MPI runtime for workflows (locus_mpi_flow_run, docs/mpi.md,
 * "Workflows"): a workflow policy's decisions carried out with real files,
 * real commands and real transfers.
 *
 * Every rank hosts processes of the policy: the first D ranks its
 * scheduler processes (grouped by the node the policy puts each on: amfs's
 * submitter, dispatchers and metadata servers), the others one worker
 * each. A rank keeps its own view of where every file is (a replica table
 * and the shared directory's files): it updates it from what it does and
 * from the updates every rank sends the others when a file appears on a
 * node or goes (F_REPL, sent before any policy message that could speak
 * of the file, so that no process hears of a file before its rank knows
 * where it is). That view is the monitor the policy reads.
 *
 * Files live in each node's storage directory as o<ID>; a copy to a node
 * is carried out by a rank of that node, which pulls each file from a rank
 * of the source node (F_FETCH, then a head and pieces of at most PIECE
 * bytes, at most SERVE_MAX streams served at once per rank and OUT_MAX
 * pieces in flight, so a file is never whole in memory; a file of at most
 * HEAD_BYTES comes whole with its head) into a temporary that becomes the
 * file by rename (a chunk run's copy, written where it goes when no other
 * rank of the node has the place); a copy from or to the shared directory
 * is a local copy made by a rank of the node, the shared file written as a
 * temporary and renamed. A task's working directory holds links to its
 * inputs under the workflow's names; its command runs by posix_spawn with
 * that directory as its working directory, and its outputs are renamed
 * into the node's storage when it exits with 0.
 *
 * Rank 0 also keeps the run's outcome: each worker reports each task it
 * finished (its times and where), and rank 0 tells every rank to finish
 * when every task is done, or with the error that stopped the run.
 */
/*
 * Its files (this header is what they share; names shared among them
 * start with locus__rt_):
 *   transport.c  messages, a rank's end and failures, timers, doorbells, the loop
 *   protocol.c   events delivered to the policy, actions through the executor
 *   data.c       where files are, the rank's view of them, copies and pulls
 *   work.c       a worker's tasks: reads, working directory, command, function
 *                or stand-in, outputs
 *   reduce.c     reductions run at the nodes of a policy's tree
 *   outcome.c    rank 0: reports, the journal, the result
 *   round.c      set-up, rounds, locus_mpi_flow_run
 */
#ifndef LOCUS_MPI_RUNTIME_H
#define LOCUS_MPI_RUNTIME_H

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"
#include "exec/exec.h"
#include "locus/flow.h"
#include "locus/heap.h"
#include "locus/mpi.h"
#include "locus/platform.h"
#include "locus/policy.h"
#include "locus/workload.h"
#include "sched/actions.h"

extern char **environ;

#define NONE	     UINT32_MAX
#define UNKNOWN	     UINT64_MAX /* a file's size not known */
#define PIECE	     ((size_t)256 << 10)
#define OUT_MAX	     8			/* pieces in flight from one rank */
#define SPARE_MAX    8			/* batch buffers kept for reuse (struct flow, spare) */
#define SPARE_CAP    ((size_t)64 << 10) /* the largest kept */
#define SERVE_MAX    4			/* streams one rank serves at once */
#define RECV_MAX     64			/* messages taken per turn of the loop */
#define INLINE_BURST 100e-6		/* s of quick task functions run in one turn (work.c) */
#define DECIDE_EVERY 8 /* one policy event timed in about this many (struct flow) */
/* FNV-1a 64 (locus__rt_fnv) starts from this. */
#define FNV_START 14695981039346656037ULL
#define WHY_MAX	  1024

enum {
	F_POLICY = 1, /* a policy message (struct fwire) */
	F_REPL,	      /* replica updates (struct repl[]) */
	F_COPY,	      /* -> a rank of the copy's node: carry it out (struct copyreq + objects) */
	F_COPIED,     /* executor -> requester: how it went (struct copied) */
	F_FETCH,      /* puller -> server: send me a file (struct fetchreq) */
	F_HEAD,	      /* server -> puller: status and length (struct head), then a
		       * file of at most HEAD_BYTES whole */
	F_DATA,	      /* server -> puller: struct piece + bytes */
	F_DROP,	      /* -> a rank of the node: delete a file (struct repl) */
	F_REPORT,     /* worker -> rank 0: a task finished (struct rec) */
	F_ERROR,      /* any -> rank 0: the run cannot go on (struct endmsg) */
	F_FINISH,     /* rank 0 -> all: stop (struct endmsg) */
	F_LOST,	      /* -> rank 0: a file this rank's node kept is gone (struct repl) */
	F_RETRY,      /* worker -> worker: run my failed task's next attempt (struct retry) */
	F_RETRIED,    /* -> the asking worker: how it went (struct retried) */
	F_REDUCE,  /* -> a rank of the node: a reduction step there (struct reducereq + objects) */
	F_CANCEL,  /* -> every worker rank: withdraw a task (struct retry: task) */
	F_ATTEMPT, /* -> every rank: a task's attempts so far (struct retry: task, attempt) */
	F_STATE,   /* worker -> scheduler ranks: a task's state for the monitor (struct tstate) */
	F_REWIND,  /* -> every rank: a task runs again (struct retry: task) */
	F_STARTED, /* worker -> rank 0, with a status file: an attempt began (struct retry) */
	F_OUTPUT,  /* worker -> rank 0: a chunk's output (bytes), before its report */
	F_BATCH	   /* several of the above, each a struct bhead + its bytes */
};

/* A message in a batch: its tag and length, then its bytes, padded to 8. */
struct bhead {
	uint32_t tag, len;
};

/* Messages this long or shorter wait in their destination's batch until
 * the end of the rank's turn: one MPI message per destination and turn. */
#define BATCH_MAX 4096
/* A file this short goes with its head, in one message (a batch's). */
#define HEAD_BYTES (BATCH_MAX - 64)

struct fwire {
	uint32_t type, from, to, bytes, n_args;
	uint32_t aseq;	  /* an assignment's number among its task's, by its sender's rank */
	uint32_t attempt; /* an assignment: its task's attempts so far, as its sender knows */
	uint32_t pad;
	double value;
	int64_t arg[LOCUS_MSG_ARGS];
};

/* The bytes of w that go on the wire: its arguments, not the unused. */
static inline size_t locus__rt_fwire_len(const struct fwire *w)
{
	size_t k = w->n_args < LOCUS_MSG_ARGS ? w->n_args : LOCUS_MSG_ARGS;
	return offsetof(struct fwire, arg) + k * sizeof w->arg[0];
}

struct repl {
	uint32_t object, place, add, pad; /* place: a node or LOCUS_FS */
	uint64_t bytes, sum;		  /* the file's, as made (add) */
};

struct copyreq {
	uint64_t id, tag;
	uint32_t req_proc, from, to, n, task, flags;
	int32_t req_rank, pad; /* CP_PARTIAL: the requester's rank */
			       /* then n uint32_t objects; CP_PARTIAL: the key of task's partial
				* result, then the inputs it covers */
};
#define CP_PARTIAL 1u /* a reduction's partial result, not files */
#define CP_READ	   2u /* (this rank's own) a read of its worker's attempt id */

/* A reduction step (locus_act_reduce): node `from` reduces the files
 * listed and the partial results of `task` it holds, and sends its own
 * to node `to`, which tells rank req_rank's process req_proc. */
struct reducereq {
	uint64_t id, tag;
	int32_t req_rank;
	uint32_t req_proc, from, to, task, n;
	/* then n uint32_t objects */
};

struct copied {
	uint64_t id, tag;
	uint32_t req_proc, first, n, from, to;
	int32_t ok;
};

struct fetchreq {
	uint64_t stream;
	uint32_t object;
	uint32_t task; /* 0: file `object`; t + 1: task t's partial result keyed `object` */
};

struct head {
	uint64_t stream;
	int32_t status, pad;
	uint64_t length;
};

struct piece {
	uint64_t stream, offset;
};

/* A failed task's next attempt, run by another node's worker for worker
 * `home` (which keeps it, and brings its outputs home when it succeeds);
 * F_CANCEL: task alone. */
struct retry {
	uint32_t task, attempt, home, pad;
};

struct retried {
	uint32_t task, attempt, worker, node;
	int32_t ok, pad;
	double start, read_end, compute_end;
	char why[WHY_MAX];
};

/* A task's state as a monitor sees it (enum locus__mon_state), on worker
 * `worker` since `since` (the run's clock). */
struct tstate {
	uint32_t task, worker, state, pad;
	double since;
};

/* A finished task, as rank 0 records it. */
struct rec {
	uint32_t task, worker, node, attempts, n_out;
	uint32_t source; /* where it read its input from (chunk runs), else node */
	uint32_t failed; /* given up (chunk runs): then its why, no outrec */
	uint32_t pad;
	double assigned, start, read_end, compute_end, end;
	/* then n_out struct outrec, in the task's output order; failed: the
	 * why, up to the message's end */
};

/* A run of chunks (locus_mpi_run, chunks.c): a graph without edges whose
 * files are the chunks of a node-local store, each read where a node
 * holds it (in the store, in place) or copied to the node for the task and
 * deleted after it. The same on every rank. */
struct locus__rt_chunks {
	/* The store's nodes, platform nodes 0 .. n_nodes - 1, and by rank
	 * each worker rank's (the first `schedulers` ranks schedule). */
	char *const *node_names;
	size_t n_nodes;
	const uint32_t *rank_node;
	size_t schedulers;		 /* ranks that schedule */
	size_t sched_wish;		 /* passed to the policy's schedulers() */
	const struct locus_catalog *cat; /* where each chunk is at the start */
	/* The path of chunk object o in this rank's node's part of the store
	 * (this node holds it), into buf. */
	void (*path)(void *user, uint32_t node, uint32_t o, char *buf, size_t size);
	double pace_bw; /* > 0: a copy counts as arrived bytes / pace_bw after it began */
	/* Rank 0: a task settled (r->failed: given up, `why` says why). */
	void (*settled)(void *user, const struct rec *r, const char *why);
	/* Rank 0, at the end of each turn of its loop (may be NULL): non-zero
	 * ends the run with the error it set. */
	int (*tick)(void *user, struct locus_error *err);
	/* The worker's rank, after its task succeeded: the output its
	 * function left (a malloc'ed buffer, or NULL), sent to rank 0. */
	void (*take_output)(void *user, char **buf, size_t *len);
	/* Rank 0: an output, in the order the tasks' reports come. */
	void (*output)(void *user, const char *buf, size_t len);
	void *user;
	/* Filled in at the run's end: this rank's figures. */
	struct locus_mpi_rank *self;
	/* Filled in at setup (may be NULL): by object, whether this rank's
	 * node holds it in the store, so that a task reads it in place (at
	 * `path`). Valid until the run returns. */
	const unsigned char **here;
};

/* Where a finished task's output is, for the journal. */
struct outrec {
	uint64_t bytes, sum; /* sum: FNV-1a 64 of its bytes (checksum), else 0 */
	uint32_t where, pad; /* 1: its node, 2: the shared directory */
};

struct endmsg {
	int32_t code;
	char message[sizeof(((struct locus_error *)0)->message)];
};

struct timer {
	double due;
	uint64_t seq, tag;
	uint32_t proc, pad;
};

/* A copy this rank carries out (to its node, or from it to the shared
 * directory), for a process of the policy or for its worker's task. */
struct job {
	uint64_t id, tag;
	int req_rank;
	uint32_t req_proc; /* NONE: for this rank's worker (a gather, or a read: CP_READ) */
	uint32_t *objs, n, from, to, task, left;
	int ok, used;
	int partial; /* CP_PARTIAL: objs[0] keys task's partial, the rest it covers */
	int read;    /* CP_READ: a read of the attempt numbered id */
	double asked;
	uint64_t moved; /* bytes of its objects copied (those there already were not) */
};

/* A file coming to this rank's node. */
struct pull {
	uint64_t stream;
	uint32_t job, object;
	uint32_t partial; /* 0, or the task + 1 whose partial result keyed object comes */
	int fd, used, headed;
	/* A chunk run's copy written where it goes (tmp is its place in
	 * the node's storage), not to a temporary renamed at the end. */
	int direct;
	uint64_t length, got;
	char tmp[PATH_MAX];
};

/* A file this rank sends. */
struct serve {
	uint64_t stream;
	int to_rank, fd, used, active;
	uint32_t object;
	uint32_t partial; /* as the pull's: the partial result is deleted once sent */
	uint64_t length, off;
};

/* A reduction step this rank runs for its node (F_REDUCE). */
struct rstep {
	uint64_t id, tag;
	int req_rank, used;
	uint32_t req_proc, to, task, key;
	uint32_t *cover; /* the inputs its result stands for */
	uint32_t n_cover;
	uint8_t *keep; /* by input of the task: R_* */
	pid_t pid;     /* its command, or 0 */
	char work[PATH_MAX];
};

/* How a reduction treats each input of its task (reduce_inputs). */
enum { R_OUT, R_SELF, R_PARTIAL };

/* Where and when an attempt ran on another node. */
struct ran {
	uint32_t node, worker;
	double start, read_end, compute_end;
};

/* A copy new to this rank's view, for the executor (at the loop's next
 * turn: where it is learnt, the view's users may be half-way). */
struct fresh {
	uint32_t object, place;
	uint32_t only, pad; /* it was the file's only copy when the rank learnt of it */
};

/* What outlives a round (locus_mpi_flow_run): a round ends early when a
 * file is lost, and the next runs what is left, as a run resumed from a
 * journal does. By the caller's task and file ids (opt->graph). */
struct state {
	size_t round;
	char job[64];		/* the run's directory under opt->local */
	unsigned char *claimed; /* by task: finished in an earlier round, or
				 * the journal says so (rank 0's until
				 * resume broadcasts it) */
	int32_t *place;		/* by file: the node that kept it, -2 the
				 * shared directory, -1 not made */
	uint64_t *bytes, *sum;	/* by file: as made (sum: 0 none) */
	uint32_t *copied;	/* files this rank copied to the shared
				 * directory for a later round: removed once
				 * the run has succeeded */
	size_t n_copied, copied_cap;
	size_t skipped, rerun; /* the first round's: the journal's tasks */
	size_t lost;	       /* files found lost, over the rounds */
	/* Rank 0, over the rounds: each task's time in its command or
	 * function (-1: not run), and what the transfers achieved. */
	double *work;
	double peer_bytes, peer_secs, fs_bytes, fs_secs;
	/* Held over the rounds (-1: none): rank 0's lock on the shared
	 * directory (one run at a time in it), and each worker rank's
	 * shared lock on the run's directory under opt->local (a run that
	 * sweeps what killed runs left takes only what no live rank holds). */
	int shared_fd, job_fd;
	int shared_locked; /* rank 0 holds shared_fd's lock (not all file
			    * systems lock directories) */
	int made_local;	   /* this rank made opt->local: removed at the end */
	/* What the first round swept: temporaries a killed run left in the
	 * shared directory (rank 0), killed runs' directories under
	 * opt->local (summed on rank 0), of which those of journals that
	 * were deleted. */
	size_t swept_files, swept_dirs, swept_journal_dirs;
	/* Rank 0, with opt->status, by task of opt->graph: whether an
	 * attempt of it has begun in this round, and its failed attempts;
	 * when the run began (Unix seconds) and the file is next written. */
	unsigned char *began;
	uint32_t *fails;
	double status_t0, status_next;
	int status_dirty, status_warned;
	int status_live; /* written once: the run holds its directory's lock */
};

/* A round's end code (never a LOCUS_E* code, never returned): a file was
 * lost, the next round makes it again. */
#define ROUND_AGAIN 1
/* Rounds a run may take before it gives up on files that keep being
 * lost. */
#define MAX_ROUNDS 8

struct flow {
	struct state *st;
	/* A run of chunks, or NULL (a workflow). */
	const struct locus__rt_chunks *ck;
	uint8_t *ck_here;    /* by file: this node holds it in the store */
	uint32_t serve_node; /* the store node whose chunks this rank serves, or NONE */
	uint32_t src;	     /* where the current attempt's input came from */
	uint64_t pace_bytes; /* bytes the current attempt's reads copied */
	double paced_until;  /* with ck->pace_bw: when the copies count as arrived */
	int pacing;
	struct locus_mpi_rank rk; /* this rank's figures (chunk runs) */
	MPI_Comm comm;
	int rank, size;
	const struct locus_mpi_flow_options *opt;
	struct locus_error *err;
	double t0;
	/* The run's clock as locus__rt_now_of gives it: read once a turn of
	 * the loop and once a message (all the events a message causes
	 * happen at one instant), and again after what takes time inside a
	 * turn (a task function's call, a command's start). A read costs
	 * about 30 ns on a virtual machine (kvm-clock), and a worker read
	 * it 14 times a task. */
	double now;
	int now_ok;
	/* The policy's time (rk.decide_seconds) is sampled: one event in
	 * about DECIDE_EVERY, chosen at random, is timed and stands for the
	 * events since the last one timed. */
	uint32_t decide_left, decide_gap;
	uint64_t decide_rng;
	int one_host; /* every rank on one machine: one clock */
	const struct locus_graph *g;
	struct locus_platform *plat;
	struct locus_workload *wl;
	const struct locus_policy *pol;
	void *pstate;
	struct locus_kv kv;
	struct locus__action_stack acts; /* by depth of delivery */
	size_t depth;
	struct locus_monitor mon;
	/* The executor (src/exec): this rank's worker's tasks, and the
	 * policy's actions carried out, as in the simulator. */
	struct locus__exec x;
	int x_on;
	uint8_t *hosted; /* by worker: this rank's */
	struct fresh *fresh;
	size_t n_fresh, fresh_cap;
	/* Scheduler ranks, for a policy that needs a monitor of every task
	 * (LOCUS_NEEDS_MONITOR): each task's state as its worker last said. */
	int monitor_all;
	uint32_t *mon_worker;
	uint8_t *mon_state;
	double *mon_since;
	size_t reruns; /* rank 0: a task reported again (a monitor's lag) */
	size_t D, K;   /* scheduler ranks, worker nodes */
	size_t n_workers, n_scheds, n_procs;
	int *proc_rank;
	int *node_rank;	 /* by worker node: its ranks node_rank[node_at[n] ..] */
	size_t *node_at; /* K + 1 */
	uint32_t node;	 /* this rank's node (a dispatcher node for scheduler ranks) */
	uint32_t worker; /* this rank's worker process, or NONE */
	char job_dir[PATH_MAX], node_dir[PATH_MAX], shared[PATH_MAX];
	struct locus_replicas *rep;
	uint8_t *on_fs;
	/* By file: its size and checksum as made (UNKNOWN, 0 until this
	 * rank hears of it; a workflow's input: its size at the start). */
	uint64_t *obj_bytes, *obj_sum;

	/* Messages. */
	MPI_Request *req;
	void **bufs;
	size_t *caps;	     /* a batch's buffer: its size, kept when sent (else 0) */
	int *dests, *tested; /* each send's destination; MPI_Testsome's indices */
	/* Batches' buffers sent and done with, for the next batches: a
	 * malloc and a free a message were about 240 of the 4,700
	 * instructions rank 0 spends on a task function's run (callgrind). */
	struct spare {
		char *data;
		size_t cap;
	} spare[SPARE_MAX];
	size_t n_spare;
	size_t n_out, out_cap;
	struct locus__buf *batch; /* by rank: messages not sent yet */
	/* By rank: tasks' states for the monitor not sent yet (F_STATE), which
	 * go ahead of the batch (monitor_all only). */
	struct locus__buf *sbatch;
	unsigned char *urgent; /* by rank: its batch holds one to ring for */
	/* The ranks whose batches hold messages, in the order they were
	 * first posted to (pend_in: by rank, whether it is in pend), so that
	 * a flush costs the batches written, not every rank. */
	int *pend;
	unsigned char *pend_in;
	size_t n_pend;
	/* Buffers kept from message to message: fresh memory costs a page
	 * fault a page when first written (20 us each on some virtual
	 * machines: a 4 MiB piece read into new memory took 20 ms), and
	 * small pieces stay in the caches (docs/mpi.md). */
	char *piece_buf[OUT_MAX]; /* pieces sent, each struct piece + PIECE */
	uint8_t piece_used[OUT_MAX];
	char *rbuf; /* messages received */
	size_t rcap;
	uint64_t *sent, *recvd; /* by rank */
	struct fwire *inbox;	/* messages to processes of this rank */
	size_t in_head, in_len, in_cap;
	struct repl *ups; /* updates not yet sent to the others */
	size_t n_ups, ups_cap;
	struct locus_heap timers;
	uint64_t timer_seq;

	/* Copies, pulls and serves. */
	struct job *jobs;
	size_t n_jobs;
	struct pull *pulls;
	size_t n_pulls;
	struct serve *serves;
	size_t n_serves;
	uint64_t next_id;
	uint64_t bytes_peer, bytes_fs_read, bytes_fs_written, transfers, pieces;
	/* What the transfers achieved (--measured): bytes pulled from peers
	 * over the time at least one pull ran, bytes copied to or from the
	 * shared directory over the time the copies took. */
	double pull_secs, pull_since;
	uint64_t fs_bytes;
	double *fs_span; /* this rank's copies with the shared directory:
			  * start, end, start, end... (run's clock) */
	size_t n_fs_span, fs_span_cap;
	size_t pulls_active;
	uint64_t *stage_bytes; /* by stage: peer, fs read, fs written, local */
	/* The copies this rank carried out (gathers and the policy's, not a
	 * running task's reads nor its writes: the simulator's list). */
	struct locus_transfer_result *xfers;
	size_t n_xfers, xfers_cap;

	/* The worker: the attempt it runs (the executor's x.w[worker].task),
	 * numbered by gen (reads of an earlier one are stale). */
	uint32_t cur;
	uint64_t gen;
	uint32_t reads_left; /* its reads under way */
	int read_failed;
	struct locus__read *reads; /* its plan (locus__exec_reads) */
	size_t reads_cap;
	double *tassigned; /* by task: when its assignment reached this worker */
	struct ran *ran;   /* by task: where its attempt away ran */
	pid_t pid;	   /* the command, or 0 */
	int pidfd;	   /* a descriptor of process pidfd_of, or -1 */
	int tlog_fd;	   /* this rank's attempts file (tasklog.c): -1 unopened, -2 failed */
	pid_t pidfd_of;
	int bell;		 /* this rank's doorbell (bell_open), or -1 */
	uint64_t rings;		 /* sleeps a ring ended */
	double idle_since, wait; /* idle from; the mean of the last idle spells */
	MPI_Comm host;		 /* the ranks of this machine, or MPI_COMM_NULL */
	MPI_Win bell_win;	 /* their sleep flags, or MPI_WIN_NULL */
	/* The worker nodes' ledgers (exec.h) when the workflow has demands:
	 * in memory the ranks of a machine share; else NULL. */
	MPI_Comm res_host;
	MPI_Win res_win;
	struct locus__ledger **ledgers;
	int **asleep; /* by rank: its flag, NULL on another machine */
	/* Whether each rank of this machine runs a command (this rank's
	 * first, at cmd_flags[0]), beside its flag: an idle rank does not
	 * spin while one does (idle_wait). NULL without doorbells. */
	int **cmd_flags;
	int n_cmd_flags;
	int standin; /* cur is a stand-in sleeping until standin_end */
	double standin_end;
	/* The current attempt's time limit (opt->timeout, or its command's
	 * wall_time): its length, when it is due, and once it has passed,
	 * when the group gets SIGKILL; the command's own process group. */
	double limit, deadline, kill_at;
	int timed_out;	 /* the limit passed: SIGTERM sent */
	int spawn_alone; /* locus__rt_spawn_in: in a process group of its own */
	pid_t group;	 /* that group, or 0 */
	int attempt;
	double start, read_end, compute_end;
	char work[PATH_MAX];
	/* Task functions (opt->fn) run on a thread of their own when MPI
	 * allows it (MPI_THREAD_FUNNELED), so that the rank serves files
	 * and messages while one runs; they never call MPI. */
	int fn_threaded, fn_busy, fn_go, fn_quit, fn_rc;
	int fn_inline_due; /* on the rank's thread: call fn at the next turn */
	int fn_done;	   /* atomic: the call ended */
	int fn_evfd;	   /* written when it has and the rank sleeps (fn_sleeps) */
	int fn_sleeps;	   /* atomic: the rank's thread sleeps on fn_evfd */
	pthread_t fn_thread;
	pthread_mutex_t fn_mu;
	pthread_cond_t fn_cv;
	struct locus_mpi_flow_task fn_task;
	char fn_why[WHY_MAX];
	char *fn_paths;	      /* opt->fn: the current task's paths */
	const char **fn_ptrs; /* into fn_paths: inputs, then outputs */
	size_t fn_cap;	      /* paths fn_paths holds */
	/* A round that runs what is left of the caller's workflow (opt->graph)
	 * numbers its own tasks and files: task_full and obj_full give the
	 * caller's ids, obj_round the round's file of a caller's (or NONE);
	 * all NULL when the round runs the whole workflow. */
	uint32_t *task_full, *obj_full, *obj_round;
	/* Reductions: this round's name for partial results, the steps this
	 * rank runs, and how the current task treats its inputs (NULL: as
	 * itself, every one). */
	uint64_t nonce;
	struct rstep *rsteps;
	size_t n_rsteps;
	uint8_t *r_keep;

	/* A resumed run or a later round: the workflow left (owned). */
	struct locus_graph *own_g;
	size_t skipped, rerun;

	/* Rank 0. */
	int jfd;   /* the journal, or -1 */
	int jmade; /* this round's open made the journal (removed if refused) */
	struct rec *recs;
	uint8_t *done;
	size_t n_done, next_progress;

	int failed, finishing, end_code;
	char end_msg[sizeof(((struct locus_error *)0)->message)];
	double last_busy;
};

/* transport.c */
int locus__rt_fmt(char *buf, size_t size, const char *f, ...) __attribute__((format(printf, 3, 4)));
double locus__rt_mono(void);
/* The run's clock (seconds since its start), as of this instant of the
 * loop (struct flow, now). */
double locus__rt_now_of(struct flow *f);
/* Time has moved inside a turn: the next locus__rt_now_of reads the
 * clock. */
static inline void locus__rt_clock_moved(struct flow *f)
{
	f->now_ok = 0;
}
const char *locus__rt_task_name(const struct flow *f, uint32_t t, char *buf, size_t size);
/* Where the run keeps each attempt's stdout, stderr and resources
 * (tasklog.c): STATUS.tasks. */
void locus__rt_tasklog_dir(const char *status, char *buf, size_t size);
/* The current attempt's command ended with `status` after `wall`
 * seconds, using *ru: its files and resources kept there (nothing when
 * the run has no status file; a failure to keep them is not the run's). */
struct rusage;
void locus__rt_tasklog_keep(struct flow *f, int status, const struct rusage *ru, double wall);
const char *locus__rt_obj_name(const struct flow *f, uint32_t o);
char *locus__rt_piece_take(struct flow *f);
void locus__rt_post_copy(struct flow *f, int dest, int tag, const void *p, size_t len);
void locus__rt_post(struct flow *f, int dest, int tag, void *buf, size_t len);
void locus__rt_finish(struct flow *f, int code, const char *message);
void locus__rt_local_fail(struct flow *f, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int locus__rt_timer_cmp(const void *a, const void *b);
int locus__rt_moving(const struct flow *f);
void locus__rt_bell_open(struct flow *f);
void locus__rt_bell_close(struct flow *f);
/* round.c: the ledgers, collectively (docs/flow.md, "Resources"). */
void locus__rt_ledgers_open(struct flow *f);
void locus__rt_ledgers_close(struct flow *f);
void locus__rt_loop(struct flow *f);

/* protocol.c */
void locus__rt_deliver(struct flow *f, struct locus_event *ev);
void locus__rt_take_message(struct flow *f, const struct fwire *w);
extern const struct locus__exec_ops locus__rt_mpi_ops;
int locus__rt_agree(struct flow *f, int rc);
/* A task's state as its worker said it (F_STATE), into the monitor. */
void locus__rt_take_state(struct flow *f, const struct tstate *m);
uint32_t locus__rt_mon_placed(const struct locus_monitor *m, uint32_t t, double *computed);
double locus__rt_mon_moved(const struct locus_monitor *m, uint32_t o, uint32_t node);
double locus__rt_mon_one(const struct locus_monitor *m, uint32_t node);
double locus__rt_mon_pair_bw(const struct locus_monitor *m, uint32_t a, uint32_t b);
int locus__rt_mon_room(const struct locus_monitor *m, uint32_t node, struct locus_demand *free);

/* data.c */
void locus__rt_store_path(const struct flow *f, uint32_t o, char *buf, size_t size);
void locus__rt_shared_path(const struct flow *f, uint32_t o, char *buf, size_t size);
void locus__rt_partial_path(const struct flow *f, uint32_t t, uint32_t key, char *buf, size_t size);
void locus__rt_partial_gone(const struct flow *f, uint32_t t, uint32_t key);
void locus__rt_note_as(struct flow *f, uint32_t o, uint32_t place, int add, int told);
void locus__rt_note(struct flow *f, uint32_t o, uint32_t place, int add);
void locus__rt_flush_updates(struct flow *f);
void locus__rt_apply_updates(struct flow *f, const struct repl *u, size_t n);
int locus__rt_drain_fresh(struct flow *f);
int locus__rt_rank_of_node(const struct flow *f, uint32_t n, uint32_t o);
int locus__rt_parent_dirs(const char *path);
int locus__rt_copy_file(const char *from, const char *to, uint64_t *bytes, int rank, int *writing);
int locus__rt_fs_copy(struct flow *f, const char *from, const char *to, uint64_t *bytes,
		      int *writing);
/* write(2) of all of buf[0..len) to fd: 0, or an errno value (ENOSPC for
 * a write that took nothing). */
int locus__rt_write_all(int fd, const void *buf, size_t len);
/* Rank 0, before the nodes' directories are made: the journal opened,
 * checked and locked (outcome.c). */
int locus__rt_journal_open(struct flow *f, const struct locus_graph *g);
/* Rank 0: takes the exclusive flock on `fd` (the journal, the shared
 * directory: `what`, at `path`), waiting for another run's with
 * opt->wait (until it ends or opt->cancel is set). 0: taken; 1: the file
 * system has no locks (the run goes unlocked); else an error in f->err,
 * LOCUS_EEXIST naming the other run's pid where /proc/locks says it, or
 * LOCUS_EINCOMPLETE when cancelled (round.c). */
int locus__rt_lock(struct flow *f, int fd, const char *what, const char *path);
int locus__rt_safe_name(const char *s);
void locus__rt_start_copy(struct flow *f, uint32_t proc, const uint32_t *objs, uint32_t n,
			  uint32_t from, uint32_t to, uint64_t tag, uint32_t task);
void locus__rt_stage_add(struct flow *f, uint32_t task, int kind, uint64_t bytes);
uint32_t locus__rt_take_copy(struct flow *f, int src, const struct copyreq *q,
			     const uint32_t *objs);
void locus__rt_take_head(struct flow *f, const struct head *h, const char *data, size_t n);
void locus__rt_take_piece(struct flow *f, const struct piece *pc, const char *data, size_t n);
void locus__rt_take_fetch(struct flow *f, int src, const struct fetchreq *fr);
int locus__rt_serve_step(struct flow *f);
void locus__rt_drop_here(struct flow *f, uint32_t o);
void locus__rt_lost(struct flow *f, uint32_t o);
int locus__rt_intact(struct flow *f, uint32_t o);
uint64_t locus__rt_fnv(uint64_t h, const void *p, size_t n);
int locus__rt_file_sum(const char *path, uint64_t *bytes, uint64_t *sum);

/* work.c */
int locus__rt_op_underway(void *eng, uint32_t o, uint32_t node);
void locus__rt_op_fetch(void *eng, uint32_t o, uint32_t source, uint32_t node, uint32_t task,
			double now);
void locus__rt_op_placed(void *eng, uint32_t w, uint32_t t, int from_policy, double now);
void locus__rt_op_start(void *eng, uint32_t w, uint32_t t, double now);
void locus__rt_read_over(struct flow *f, uint64_t gen, int ok);
void locus__rt_op_abort(void *eng, uint32_t w, uint32_t t, int state, double now);
int locus__rt_op_keep(void *eng, uint32_t o, uint32_t node, double now);
void locus__rt_op_write(void *eng, uint32_t w, uint32_t o, double now);
void locus__rt_op_ended(void *eng, uint32_t w, uint32_t t, struct locus_event *done, double now);
void locus__rt_op_ran(void *eng, uint32_t by, uint32_t home, uint32_t t, uint32_t attempt, int ok,
		      const char *why, double now);
void locus__rt_op_gave_up(void *eng, uint32_t home, uint32_t by, uint32_t t, uint32_t attempts,
			  const char *why, double now);
void locus__rt_op_retry_away(void *eng, uint32_t home, uint32_t w, uint32_t t, uint32_t attempt,
			     double now);
const char *locus__rt_in_name(const struct flow *f, uint32_t t, uint32_t k);
const char *locus__rt_out_name(const struct flow *f, uint32_t t, uint32_t k);
int locus__rt_link_inputs(struct flow *f, uint32_t t, const char *work, const uint8_t *keep,
			  int count, char *why, size_t size);
int locus__rt_output_dirs(struct flow *f, uint32_t t, const char *work, char *why, size_t size);
/* The current command's own process group (a command with a time limit)
 * is over: what is left of it is killed when kill_all or the command
 * timed out, and the keeper is told. */
void locus__rt_group_over(struct flow *f, int kill_all);
int locus__rt_spawn_in(struct flow *f, const struct locus_command *c, const char *line,
		       char *const *argv, const char *work, const char *errp, pid_t *pid);
/* Why command c (run with argv, when rewritten) could not start: which
 * program (a Makeflow line runs under /bin/sh) and the error rc. */
void locus__rt_start_failed(const struct locus_command *c, char *const *argv, int rc, char *why,
			    size_t size);
/* A task function's own thread (when MPI allows one and the options do
 * not keep functions inline), started and stopped. */
int locus__rt_fn_start(struct flow *f);
void locus__rt_fn_stop(struct flow *f);
void locus__rt_fn_wait(struct flow *f);
void locus__rt_stderr_tail_of(const char *work, char *why, size_t size);
int locus__rt_standin_output(struct flow *f, const char *path, uint64_t bytes);
int locus__rt_worker_step(struct flow *f);
/* Why a command that ended with wait status `status` failed, into why. */
void locus__rt_exit_why(int status, char *why, size_t size);

/* reduce.c */
int locus__rt_write_cover(const struct flow *f, uint32_t t, uint32_t key, const uint32_t *list,
			  uint32_t n);
int locus__rt_reduce_inputs(struct flow *f, uint32_t t, const uint32_t *own, uint32_t n_own,
			    uint8_t *keep, uint32_t **cover, uint32_t *n_cover);
int locus__rt_reduce_command(const struct flow *f, uint32_t t, const uint8_t *keep, char **line,
			     char ***argv, char *why, size_t size);
void locus__rt_start_reduce(struct flow *f, uint32_t proc, const struct locus__action *a,
			    const uint32_t *own);
void locus__rt_take_reduce(struct flow *f, const struct reducereq *q, const uint32_t *own);
int locus__rt_reduce_poll(struct flow *f);

/* outcome.c */
void locus__rt_take_report(struct flow *f, const struct rec *r, size_t len);
/* Rank 0: task t, rewound, is not done (any more). */
void locus__rt_undone(struct flow *f, uint32_t t);
/* Rank 0's status file (opt->status): an attempt of round task t began;
 * written now and then from the loop; written with the run's end. */
void locus__rt_status_began(struct flow *f, uint32_t t, uint32_t attempt);
void locus__rt_status_tick(struct flow *f);
void locus__rt_status_write(const struct locus_mpi_flow_options *opt, struct state *st,
			    const char *state, const char *failure);
int locus__rt_resume(struct flow *f);
/* The journal's place (opt->journal): its directory's real path into
 * real (the journal itself may not exist yet), and its name, a pointer
 * into opt->journal; NULL when the directory is missing. */
const char *locus__rt_journal_place(const struct flow *f, char *real, size_t size);
int locus__rt_results(struct flow *f, struct locus_mpi_flow_report *rep);

/* round.c */
int locus__rt_directories(struct flow *f);
/* locus_mpi_flow_run, or a run of chunks (ck non-NULL). */
int locus__rt_run(MPI_Comm comm, const struct locus_mpi_flow_options *opt,
		  const struct locus__rt_chunks *ck, struct locus_mpi_flow_report *report,
		  struct locus_error *err);

#endif
