/*
 * The MPI engine for workflows (locus_mpi_flow_run, docs/mpi.md,
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
 * pieces in flight, so a file is never whole in memory) into a temporary
 * that becomes the file by rename; a copy from or to the shared directory
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
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
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

#define NONE	  UINT32_MAX
#define UNKNOWN	  UINT64_MAX /* a file's size not known */
#define PIECE	  ((size_t)256 << 10)
#define OUT_MAX	  8  /* pieces in flight from one rank */
#define SERVE_MAX 4  /* streams one rank serves at once */
#define RECV_MAX  64 /* messages taken per turn of the loop */
#define WHY_MAX	  1024

enum {
	F_POLICY = 1, /* a policy message (struct fwire) */
	F_REPL,	      /* replica updates (struct repl[]) */
	F_COPY,	      /* -> a rank of the copy's node: carry it out (struct copyreq + objects) */
	F_COPIED,     /* executor -> requester: how it went (struct copied) */
	F_FETCH,      /* puller -> server: send me a file (struct fetchreq) */
	F_HEAD,	      /* server -> puller: status and length (struct head) */
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
	F_BATCH	   /* several of the above, each a struct bhead + its bytes */
};

/* A message in a batch: its tag and length, then its bytes, padded to 8. */
struct bhead {
	uint32_t tag, len;
};

/* Messages this long or shorter wait in their destination's batch until
 * the end of the rank's turn: one MPI message per destination and turn. */
#define BATCH_MAX 4096

struct fwire {
	uint32_t type, from, to, bytes, n_args;
	uint32_t aseq;	  /* an assignment's number among its task's, by its sender's rank */
	uint32_t attempt; /* an assignment: its task's attempts so far, as its sender knows */
	uint32_t pad;
	double value;
	int64_t arg[LOCUS_MSG_ARGS];
};

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

/* A finished task, as rank 0 records it. */
struct rec {
	uint32_t task, worker, node, attempts, n_out, pad;
	double assigned, start, read_end, compute_end, end;
	/* then n_out struct outrec, in the task's output order */
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
};

/* A round's end code (never a LOCUS_E* code, never returned): a file was
 * lost, the next round makes it again. */
#define ROUND_AGAIN 1
/* Rounds a run may take before it gives up on files that keep being
 * lost. */
#define MAX_ROUNDS 8

struct flow {
	struct state *st;
	MPI_Comm comm;
	int rank, size;
	const struct locus_mpi_flow_options *opt;
	struct locus_error *err;
	double t0;
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
	size_t D, K; /* scheduler ranks, worker nodes */
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
	int *dests, *tested; /* each send's destination; MPI_Testsome's indices */
	size_t n_out, out_cap;
	struct locus__buf *batch; /* by rank: messages not sent yet */
	unsigned char *urgent;	  /* by rank: its batch holds one to ring for */
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
	pid_t pidfd_of;
	int bell;		 /* this rank's doorbell (bell_open), or -1 */
	uint64_t rings;		 /* sleeps a ring ended */
	double idle_since, wait; /* idle from; the mean of the last idle spells */
	MPI_Comm host;		 /* the ranks of this machine, or MPI_COMM_NULL */
	MPI_Win bell_win;	 /* their sleep flags, or MPI_WIN_NULL */
	int **asleep;		 /* by rank: its flag, NULL on another machine */
	int standin;		 /* cur is a stand-in sleeping until standin_end */
	double standin_end;
	int attempt;
	double start, read_end, compute_end;
	char work[PATH_MAX];
	/* Task functions (opt->fn) run on a thread of their own when MPI
	 * allows it (MPI_THREAD_FUNNELED), so that the rank serves files
	 * and messages while one runs; they never call MPI. */
	int fn_threaded, fn_busy, fn_go, fn_quit, fn_rc;
	int fn_done; /* atomic: the call ended */
	int fn_evfd; /* written when it has (an idle rank's sleep ends) */
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
	int jfd; /* the journal, or -1 */
	struct rec *recs;
	uint8_t *done;
	size_t n_done, next_progress;

	int failed, finishing, end_code;
	char end_msg[sizeof(((struct locus_error *)0)->message)];
	double last_busy;
};

/* snprintf, truncating silently: paths past PATH_MAX fail when used. */
static int fmt(char *buf, size_t size, const char *f, ...) __attribute__((format(printf, 3, 4)));

static int fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int n = vsnprintf(buf, size, f, ap);
	va_end(ap);
	return n;
}

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now_of(const struct flow *f)
{
	return mono() - f->t0;
}

static const char *task_name(const struct flow *f, uint32_t t, char *buf, size_t size)
{
	return locus_graph_task_name(f->g, t, buf, size);
}

static const char *obj_name(const struct flow *f, uint32_t o)
{
	return f->g->objects[o].name ? f->g->objects[o].name : "?";
}

/* ---- sending and failing -------------------------------------------------------- */

static void local_fail(struct flow *f, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void bell_ring(struct flow *f, int dest);

/* Whether a message with this tag rings rank dest's doorbell: all but
 * file pieces (their destination is pulling: it never sleeps) and replica
 * updates to workers (sent to every rank for every file made, they would
 * wake every idle worker; one learns of them when it next wakes, and one
 * whose next task waits for its inputs wakes every millisecond). */
static int rings_for(const struct flow *f, int tag, int dest)
{
	return tag != F_DATA && (tag != F_REPL || (size_t)dest < f->D);
}

/* Sends `len` bytes of `buf` now (the engine owns buf from then on),
 * ringing dest when `ring`. */
static void send_now(struct flow *f, int dest, int tag, void *buf, size_t len, int ring)
{
	if (f->n_out == f->out_cap) {
		size_t cap = f->out_cap ? 2 * f->out_cap : 64;
		MPI_Request *req = realloc(f->req, cap * sizeof *req);
		if (req)
			f->req = req;
		void **bufs = req ? realloc(f->bufs, cap * sizeof *bufs) : NULL;
		if (bufs)
			f->bufs = bufs;
		int *dests = bufs ? realloc(f->dests, cap * sizeof *dests) : NULL;
		if (dests)
			f->dests = dests;
		int *tested = dests ? realloc(f->tested, cap * sizeof *tested) : NULL;
		if (tested)
			f->tested = tested;
		if (!req || !bufs || !dests || !tested) {
			free(buf);
			local_fail(f, LOCUS_ENOMEM, "out of memory");
			return;
		}
		f->out_cap = cap;
	}
	MPI_Isend(buf, (int)len, MPI_BYTE, dest, tag, f->comm, &f->req[f->n_out]);
	f->dests[f->n_out] = ring ? dest : -1;
	f->bufs[f->n_out++] = buf;
	f->sent[dest]++;
	if (ring)
		bell_ring(f, dest);
}

/* A buffer for a piece to send, or NULL (no memory). */
static char *piece_take(struct flow *f)
{
	for (size_t i = 0; i < OUT_MAX; i++)
		if (!f->piece_used[i]) {
			if (!f->piece_buf[i])
				f->piece_buf[i] = malloc(sizeof(struct piece) + PIECE);
			if (!f->piece_buf[i])
				return NULL;
			f->piece_used[i] = 1;
			return f->piece_buf[i];
		}
	return malloc(sizeof(struct piece) + PIECE);
}

/* A sent message's buffer: back to the pieces, or freed. */
static void release(struct flow *f, void *buf)
{
	for (size_t i = 0; i < OUT_MAX; i++)
		if (buf == f->piece_buf[i]) {
			f->piece_used[i] = 0;
			return;
		}
	free(buf);
}

/* Sends what waits for rank `dest`. */
static void flush_batch(struct flow *f, int dest)
{
	struct locus__buf *b = &f->batch[dest];
	if (!b->len)
		return;
	char *data = b->data;
	size_t len = b->len;
	*b = (struct locus__buf){0};
	int ring = f->urgent ? f->urgent[dest] : 1;
	if (f->urgent)
		f->urgent[dest] = 0;
	send_now(f, dest, F_BATCH, data, len, ring);
}

static void flush_batches(struct flow *f)
{
	for (int r = 0; f->batch && r < f->size; r++)
		flush_batch(f, r);
}

/* Sends a copy of p[0 .. len): into dest's batch when short, else at
 * once after that batch, so that a rank receives another's messages in
 * the order they were posted. */
static void post_copy(struct flow *f, int dest, int tag, const void *p, size_t len)
{
	if (len <= BATCH_MAX && f->batch) {
		static const char pad[8];
		struct locus__buf *b = &f->batch[dest];
		struct bhead h = {(uint32_t)tag, (uint32_t)len};
		if (locus__buf_append(b, (const char *)&h, sizeof h) ||
		    locus__buf_append(b, p, len) || locus__buf_append(b, pad, (8 - len % 8) % 8))
			local_fail(f, LOCUS_ENOMEM, "out of memory");
		if (f->urgent)
			f->urgent[dest] |= (unsigned char)rings_for(f, tag, dest);
		return;
	}
	void *q = malloc(len ? len : 1);
	if (!q) {
		local_fail(f, LOCUS_ENOMEM, "out of memory");
		return;
	}
	memcpy(q, p, len);
	flush_batch(f, dest);
	send_now(f, dest, tag, q, len, rings_for(f, tag, dest));
}

/* The same with `buf`, which the engine owns from then on. */
static void post(struct flow *f, int dest, int tag, void *buf, size_t len)
{
	if (len <= BATCH_MAX && f->batch) {
		post_copy(f, dest, tag, buf, len);
		release(f, buf);
		return;
	}
	flush_batch(f, dest);
	send_now(f, dest, tag, buf, len, rings_for(f, tag, dest));
}

/* The sends that completed: their buffers back, their destinations rung
 * again (MPI may have held a message back when it was posted and rung). */
static int outbox_progress(struct flow *f)
{
	if (!f->n_out)
		return 0;
	int n = 0;
	MPI_Testsome((int)f->n_out, f->req, &n, f->tested, MPI_STATUSES_IGNORE);
	if (n <= 0 || n == MPI_UNDEFINED)
		return 0;
	int last = -1;
	for (int i = 0; i < n; i++) {
		int k = f->tested[i];
		release(f, f->bufs[k]);
		if (f->dests[k] >= 0 && f->dests[k] != last)
			bell_ring(f, f->dests[k]);
		last = f->dests[k];
	}
	size_t k = 0;
	for (size_t i = 0; i < f->n_out; i++) {
		if (f->req[i] == MPI_REQUEST_NULL)
			continue;
		f->req[k] = f->req[i];
		f->dests[k] = f->dests[i];
		f->bufs[k++] = f->bufs[i];
	}
	f->n_out = k;
	return 1;
}

/* Rank 0 ends the run, telling every rank (with the error, if any). */
static void finish(struct flow *f, int code, const char *message)
{
	if (f->finishing)
		return;
	f->finishing = 1;
	f->end_code = code;
	fmt(f->end_msg, sizeof f->end_msg, "%s", message ? message : "");
	struct endmsg m = {.code = code};
	fmt(m.message, sizeof m.message, "%s", f->end_msg);
	for (int r = 1; r < f->size; r++)
		post_copy(f, r, F_FINISH, &m, sizeof m);
}

static void local_fail(struct flow *f, int code, const char *fmt, ...)
{
	if (f->failed || f->finishing)
		return;
	f->failed = code;
	struct endmsg m = {.code = code};
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m.message, sizeof m.message, fmt, ap);
	va_end(ap);
	if (f->rank == 0)
		finish(f, code, m.message);
	else
		post_copy(f, 0, F_ERROR, &m, sizeof m);
}

/* ---- where files are ------------------------------------------------------------- */

/* A node's copy of file o is named by the caller's id of the file, so
 * that a later round or run finds it under the same name. */
static void store_path(const struct flow *f, uint32_t o, char *buf, size_t size)
{
	fmt(buf, size, "%s/store/o%" PRIu32, f->node_dir, f->obj_full ? f->obj_full[o] : o);
}

static void shared_path(const struct flow *f, uint32_t o, char *buf, size_t size)
{
	fmt(buf, size, "%s/%s", f->shared, obj_name(f, o));
}

/* Where task t's partial result keyed by its input `key` lies on this
 * node (named by the round, so that nothing an interrupted run left is
 * taken for this one's); what it covers is in the same name + ".cov". */
static void partial_path(const struct flow *f, uint32_t t, uint32_t key, char *buf, size_t size)
{
	fmt(buf, size, "%s/reduce/%016" PRIx64 ".%" PRIu32 ".%" PRIu32, f->node_dir, f->nonce, t,
	    key);
}

/* Task t's partial result keyed `key` goes from this node (a reduction
 * step used it, or it was sent on): the result and its cover. */
static void partial_gone(const struct flow *f, uint32_t t, uint32_t key)
{
	char p[PATH_MAX + 8];
	partial_path(f, t, key, p, PATH_MAX);
	unlink(p);
	strcat(p, ".cov");
	unlink(p);
}

/* Copy (o, place) is new to this rank's view: the executor hears of it
 * at the loop's next turn. */
static void fresh_copy(struct flow *f, uint32_t o, uint32_t place)
{
	if (locus__grow(&f->fresh, &f->fresh_cap, f->n_fresh + 1, sizeof *f->fresh)) {
		local_fail(f, LOCUS_ENOMEM, "out of memory");
		return;
	}
	f->fresh[f->n_fresh++] = (struct fresh){o, place};
}

/* Changes this rank's view (place: a node, or LOCUS_FS): file o is there
 * now (add), or no longer; the other ranks hear of it with the next
 * flush, the executor at the loop's next turn unless `told` (it made the
 * change itself). */
static void note_as(struct flow *f, uint32_t o, uint32_t place, int add, int told)
{
	int fresh = 0;
	if (place == LOCUS_FS) {
		fresh = add && !f->on_fs[o];
		f->on_fs[o] = (uint8_t)add;
	} else if (add) {
		int r = locus_replicas_add(f->rep, o, place);
		if (r < 0)
			local_fail(f, LOCUS_ENOMEM, "out of memory");
		fresh = r > 0;
	} else {
		locus_replicas_remove(f->rep, o, place);
	}
	if (fresh && !told)
		fresh_copy(f, o, place);
	if (locus__grow(&f->ups, &f->ups_cap, f->n_ups + 1, sizeof *f->ups)) {
		local_fail(f, LOCUS_ENOMEM, "out of memory");
		return;
	}
	f->ups[f->n_ups++] =
	    (struct repl){o, place, (uint32_t)add, 0, f->obj_bytes[o], f->obj_sum[o]};
}

static void note(struct flow *f, uint32_t o, uint32_t place, int add)
{
	note_as(f, o, place, add, 0);
}

static void flush_updates(struct flow *f)
{
	if (!f->n_ups)
		return;
	size_t len = f->n_ups * sizeof *f->ups;
	for (int r = 0; r < f->size; r++)
		if (r != f->rank)
			post_copy(f, r, F_REPL, f->ups, len);
	f->n_ups = 0;
}

static void apply_updates(struct flow *f, const struct repl *u, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t o = u[i].object, place = u[i].place;
		if (o >= f->g->n_objects)
			continue;
		if (u[i].add && u[i].bytes != UNKNOWN) {
			f->obj_bytes[o] = u[i].bytes;
			f->obj_sum[o] = u[i].sum;
		}
		int fresh = 0;
		if (place == LOCUS_FS) {
			fresh = u[i].add && !f->on_fs[o];
			f->on_fs[o] = (uint8_t)u[i].add;
		} else if (place < f->plat->n_nodes) {
			if (u[i].add)
				fresh = locus_replicas_add(f->rep, o, place) > 0;
			else
				locus_replicas_remove(f->rep, o, place);
		}
		if (fresh)
			fresh_copy(f, o, place);
	}
}

/* The executor hears of the copies new to this rank's view that are still
 * there. Returns whether that set something going (an attempt, a copy):
 * replica updates alone leave an idle rank asleep. */
static int drain_fresh(struct flow *f)
{
	uint64_t gen = f->gen, id = f->next_id;
	for (size_t i = 0; i < f->n_fresh && !f->failed && !f->finishing; i++) {
		uint32_t o = f->fresh[i].object, place = f->fresh[i].place;
		if (place == LOCUS_FS ? f->on_fs[o] : locus_replicas_has(f->rep, o, place))
			locus__exec_appeared(&f->x, o, place, now_of(f));
	}
	f->n_fresh = 0;
	return gen != f->gen || id != f->next_id;
}

/* The rank of node n that serves or receives file o (spread by file). */
static int rank_of_node(const struct flow *f, uint32_t n, uint32_t o)
{
	size_t c = f->node_at[n + 1] - f->node_at[n];
	return f->node_rank[f->node_at[n] + (o % c)];
}

/* ---- files ------------------------------------------------------------------------ */

/* Makes the directories of `path` (not its last part). */
static int parent_dirs(const char *path)
{
	char buf[PATH_MAX];
	fmt(buf, sizeof buf, "%s", path);
	char *slash = strrchr(buf, '/');
	if (!slash || slash == buf)
		return 0;
	*slash = 0;
	struct stat st;
	if (!stat(buf, &st))
		return S_ISDIR(st.st_mode) ? 0 : -1;
	struct locus_error e = {0};
	return locus__mkdirs(buf, &e) ? -1 : 0;
}

/* Copies file `from` to `to` through a temporary renamed at the end, so
 * that `to` is whole or absent. 0 or an errno value; *bytes gets the
 * size. */
static int copy_file(const char *from, const char *to, uint64_t *bytes, int rank)
{
	char tmp[PATH_MAX + 64];
	int n = fmt(tmp, sizeof tmp, "%s.locus-tmp-%d-%ld", to, rank, (long)getpid());
	if (n < 0 || (size_t)n >= sizeof tmp)
		return ENAMETOOLONG;
	if (parent_dirs(to))
		return errno ? errno : EIO;
	int in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return errno;
	int out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		int e = errno;
		close(in);
		return e;
	}
	static char buf[1 << 20];
	uint64_t total = 0;
	int rc = 0;
	for (;;) {
		ssize_t r = read(in, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = errno;
			break;
		}
		if (r == 0)
			break;
		for (ssize_t w = 0; w < r;) {
			ssize_t k = write(out, buf + w, (size_t)(r - w));
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0) {
				rc = errno;
				break;
			}
			w += k;
		}
		if (rc)
			break;
		total += (uint64_t)r;
	}
	close(in);
	if (close(out) && !rc)
		rc = errno;
	if (!rc && rename(tmp, to))
		rc = errno;
	if (rc)
		unlink(tmp);
	*bytes = total;
	return rc;
}

/* Whether name is one a task may use: relative, without "..", non-empty. */
/* copy_file to or from the shared directory, timed. */
static int fs_copy(struct flow *f, const char *from, const char *to, uint64_t *bytes)
{
	double t = now_of(f);
	int rc = copy_file(from, to, bytes, f->rank);
	if (!rc) {
		f->fs_bytes += *bytes;
		if (!locus__grow(&f->fs_span, &f->fs_span_cap, f->n_fs_span + 2,
				 sizeof *f->fs_span)) {
			f->fs_span[f->n_fs_span++] = t;
			f->fs_span[f->n_fs_span++] = now_of(f);
		}
	}
	return rc;
}

static int safe_name(const char *s)
{
	if (!s || !*s || *s == '/')
		return 0;
	for (const char *p = s; *p;) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if ((n == 2 && p[0] == '.' && p[1] == '.') || (n == 1 && p[0] == '.' && !e))
			return 0;
		p += n + (e != NULL);
	}
	return 1;
}

/* ---- the policy ------------------------------------------------------------------ */

static void deliver(struct flow *f, struct locus_event *ev)
{
	if (f->failed || f->finishing || !f->pstate)
		return;
	ev->now = now_of(f);
	struct locus_actions *act = locus__actions_at(&f->acts, f->depth);
	if (!act) {
		local_fail(f, LOCUS_ENOMEM, "out of memory");
		return;
	}
	locus__actions_reset(act);
	f->pol->on_event(f->pstate, ev, act);
	if (act->oom) {
		local_fail(f, LOCUS_ENOMEM, "out of memory");
		return;
	}
	/* What this rank knows goes out before anything the policy says. */
	flush_updates(f);
	f->depth++;
	locus__exec_apply(&f->x, act, ev->proc, now_of(f));
	f->depth--;
	flush_updates(f);
}

/* A message for process w->to, which this rank hosts: an assignment
 * places its task on this rank's worker (the executor), then the process
 * hears of it. */
static void take_message(struct flow *f, const struct fwire *w)
{
	struct locus_msg m = {.type = w->type,
			      .from = w->from,
			      .to = w->to,
			      .bytes = w->bytes,
			      .n_args = w->n_args,
			      .value = w->value};
	memcpy(m.arg, w->arg, sizeof m.arg);
	int assign = w->type == LOCUS_MSG_ASSIGN || w->type == LOCUS_MSG_ASSIGN_FLOW;
	if (assign) {
		if (w->to != f->worker) {
			local_fail(f, LOCUS_EINCOMPLETE,
				   "policy %s assigned a task to process %" PRIu32
				   ", which is no worker",
				   f->pol->name, w->to);
			return;
		}
		/* Attempts that failed elsewhere count here too. */
		if (m.arg[0] >= 0 && (uint64_t)m.arg[0] < f->g->n_tasks &&
		    w->attempt > f->x.tattempt[m.arg[0]])
			f->x.tattempt[m.arg[0]] = w->attempt;
		if (locus__exec_assign(&f->x, f->worker, &m, now_of(f)))
			return;
	}
	struct locus_event ev = {.kind = LOCUS_EV_MESSAGE, .proc = w->to, .msg = &m};
	deliver(f, &ev);
	/* A task the policy brings inputs to may start once it has heard. */
	if (assign && !f->failed)
		locus__exec_try_start(&f->x, f->worker, now_of(f));
}

static void start_copy(struct flow *f, uint32_t proc, const uint32_t *objs, uint32_t n,
		       uint32_t from, uint32_t to, uint64_t tag, uint32_t task);
static void drop_here(struct flow *f, uint32_t o);
static void start_reduce(struct flow *f, uint32_t proc, const struct locus__action *a,
			 const uint32_t *own);

/* ---- the executor's operations: messages, timers, copies -------------------------- */

static void op_tell(void *eng, uint32_t proc, const struct locus_event *ev, double now)
{
	struct flow *f = eng;
	(void)now;
	if (proc >= f->n_procs || f->proc_rank[proc] != f->rank) {
		local_fail(f, LOCUS_EINCOMPLETE, "an event for process %" PRIu32 " reached rank %d",
			   proc, f->rank);
		return;
	}
	struct locus_event e = *ev;
	e.proc = proc;
	if (ev->kind == LOCUS_EV_FAILED) {
		/* Whichever rank runs it next counts this attempt: every rank
		 * hears of it before the policy does (and so before whatever
		 * the policy then says). */
		struct retry q = {ev->failed.task, ev->failed.attempt + 1, 0, 0};
		for (int r = 0; r < f->size; r++)
			if (r != f->rank)
				post_copy(f, r, F_ATTEMPT, &q, sizeof q);
	}
	deliver(f, &e);
}

static void op_send(void *eng, const struct locus_msg *m, uint32_t aseq, double now)
{
	struct flow *f = eng;
	(void)now;
	struct fwire w = {.type = m->type,
			  .from = m->from,
			  .to = m->to,
			  .bytes = m->bytes,
			  .n_args = m->n_args,
			  .aseq = aseq,
			  .value = m->value};
	if (aseq)
		w.attempt = f->x.tattempt[m->arg[0]];
	memcpy(w.arg, m->arg, sizeof w.arg);
	int dest = f->proc_rank[m->to];
	if (dest != f->rank) {
		post_copy(f, dest, F_POLICY, &w, sizeof w);
		return;
	}
	if (locus__grow(&f->inbox, &f->in_cap, f->in_head + f->in_len + 1, sizeof *f->inbox)) {
		local_fail(f, LOCUS_ENOMEM, "out of memory");
		return;
	}
	f->inbox[f->in_head + f->in_len++] = w;
}

static void op_timer(void *eng, uint32_t proc, double delay, uint64_t tag, double now)
{
	struct flow *f = eng;
	(void)now;
	struct timer t = {
	    .due = now_of(f) + delay, .seq = f->timer_seq++, .tag = tag, .proc = proc};
	if (locus_heap_push(&f->timers, &t))
		local_fail(f, LOCUS_ENOMEM, "out of memory");
}

static void op_transfer(void *eng, uint32_t proc, uint32_t o, uint32_t from, uint32_t to,
			double now)
{
	(void)now;
	start_copy(eng, proc, &o, 1, from, to, 0, LOCUS_NONE);
}

static void op_copy(void *eng, uint32_t proc, const struct locus__action *a, const uint32_t *objs,
		    const uint32_t *reduced, double now)
{
	struct flow *f = eng;
	(void)now;
	if (a->reduce && a->r_n && !f->opt->fn) {
		start_reduce(f, proc, a, reduced);
		return;
	}
	start_copy(f, proc, objs, a->n, a->from, a->to, a->tag, a->task);
}

static void op_drop(void *eng, uint32_t o, uint32_t place, double now)
{
	struct flow *f = eng;
	(void)now;
	if (place == LOCUS_FS) {
		/* Only an intermediate file: never an input of the workflow nor
		 * one of its results. */
		const struct locus_object *ob = &f->g->objects[o];
		if (ob->producer != LOCUS_NONE && ob->n_cons && f->on_fs[o]) {
			char p[PATH_MAX];
			shared_path(f, o, p, sizeof p);
			unlink(p);
			note(f, o, LOCUS_FS, 0);
		}
	} else if (place < f->K) {
		if (place == f->node && f->worker != NONE) {
			drop_here(f, o);
		} else {
			struct repl d = {o, place, 0, 0, 0, 0};
			post_copy(f, rank_of_node(f, place, o), F_DROP, &d, sizeof d);
		}
	}
}

/* The task is withdrawn wherever it is placed: every other worker rank
 * is told (a cancel is rare; whoever has it placed withdraws it). */
static void op_cancel(void *eng, uint32_t t, double now)
{
	struct flow *f = eng;
	(void)now;
	struct retry q = {t, 0, 0, 0};
	for (int r = (int)f->D; r < f->size; r++)
		if (r != f->rank)
			post_copy(f, r, F_CANCEL, &q, sizeof q);
}

static void op_halt(void *eng, const char *why)
{
	local_fail(eng, LOCUS_EINCOMPLETE, "%s", why);
}

static void op_fail(void *eng, int code, const char *why)
{
	local_fail(eng, code, "%s", why);
}

/* ---- copies ------------------------------------------------------------------------- */

static void copy_told(struct flow *f, int req_rank, uint32_t req_proc, uint64_t id, uint32_t first,
		      uint32_t n, uint32_t from, uint32_t to, uint64_t tag, int ok);
static void job_step(struct flow *f, uint32_t j);

/* Carries out locus_act_copy (and _transfer) for process `proc`. */
static void start_copy(struct flow *f, uint32_t proc, const uint32_t *objs, uint32_t n,
		       uint32_t from, uint32_t to, uint64_t tag, uint32_t task)
{
	uint32_t first = n ? objs[0] : LOCUS_NONE;
	for (uint32_t k = 0; k < n; k++)
		if (objs[k] >= f->g->n_objects) {
			local_fail(f, LOCUS_EINCOMPLETE,
				   "policy %s copies object %" PRIu32 " of %zu", f->pol->name,
				   objs[k], f->g->n_objects);
			return;
		}
	if (from == LOCUS_NONE && n) {
		uint32_t c = locus_replicas_count(f->rep, first);
		from = c ? locus_source_pick(f->plat, locus_replicas_nodes(f->rep, first), c,
					     to == LOCUS_FS ? 0 : to, first)
			 : LOCUS_FS;
	}
	int bad_from = from != LOCUS_FS && from >= f->K, bad_to = to != LOCUS_FS && to >= f->K;
	if (!n || bad_from || bad_to || from == to) {
		/* Bytes that are no file (a partial reduction the model moves),
		 * a node without storage, or nowhere to go: nothing to carry. */
		copy_told(f, f->rank, proc, 0, first, n, from, to, tag, !bad_from && !bad_to);
		return;
	}
	size_t len = sizeof(struct copyreq) + n * sizeof(uint32_t);
	struct copyreq *q = malloc(len);
	if (!q) {
		local_fail(f, LOCUS_ENOMEM, "out of memory");
		return;
	}
	*q = (struct copyreq){.id = f->next_id++,
			      .tag = tag,
			      .req_proc = proc,
			      .from = from,
			      .to = to,
			      .n = n,
			      .task = task};
	memcpy(q + 1, objs, n * sizeof *objs);
	/* A rank of the receiving node carries it out; one of the sending
	 * node when it goes to the shared directory. */
	int dest = rank_of_node(f, to == LOCUS_FS ? from : to, first);
	post(f, dest, F_COPY, q, len);
}

static uint32_t new_job(struct flow *f)
{
	for (uint32_t j = 0; j < f->n_jobs; j++)
		if (!f->jobs[j].used)
			return j;
	size_t cap = f->n_jobs;
	if (locus__grow(&f->jobs, &cap, f->n_jobs + 1, sizeof *f->jobs)) {
		local_fail(f, LOCUS_ENOMEM, "out of memory");
		return NONE;
	}
	f->jobs[f->n_jobs] = (struct job){0};
	return (uint32_t)f->n_jobs++;
}

static void stage_add(struct flow *f, uint32_t task, int kind, uint64_t bytes)
{
	if (task == LOCUS_NONE || task >= f->g->n_tasks || !f->g->task_stage)
		return;
	uint32_t s = f->g->task_stage[task];
	if (s != LOCUS_NONE)
		f->stage_bytes[4 * (size_t)s + (size_t)kind] += bytes;
}

/* A copy request reached this rank (from `src`), or this rank's worker
 * pulls for its task (src -1). */
static uint32_t take_copy(struct flow *f, int src, const struct copyreq *q, const uint32_t *objs)
{
	uint32_t j = new_job(f);
	if (j == NONE)
		return NONE;
	struct job *jb = &f->jobs[j];
	int partial = (q->flags & CP_PARTIAL) != 0;
	if (partial && (q->n < 1 || q->task >= f->g->n_tasks)) {
		local_fail(f, LOCUS_EINCOMPLETE,
			   "a partial result's copy reached rank %d with %" PRIu32
			   " objects for task %" PRIu32,
			   f->rank, q->n, q->task);
		return NONE;
	}
	*jb = (struct job){.id = q->id,
			   .tag = q->tag,
			   .req_rank = partial ? q->req_rank : src,
			   .partial = partial,
			   .req_proc = q->req_proc,
			   .from = q->from,
			   .to = q->to,
			   .n = q->n,
			   .task = q->task,
			   .ok = 1,
			   .used = 1,
			   .read = (q->flags & CP_READ) != 0,
			   .asked = now_of(f)};
	jb->objs = malloc(q->n * sizeof *jb->objs);
	if (!jb->objs) {
		jb->used = 0;
		local_fail(f, LOCUS_ENOMEM, "out of memory");
		return NONE;
	}
	memcpy(jb->objs, objs, q->n * sizeof *objs);
	job_step(f, j);
	return j;
}

static uint32_t new_pull(struct flow *f)
{
	for (uint32_t p = 0; p < f->n_pulls; p++)
		if (!f->pulls[p].used)
			return p;
	size_t cap = f->n_pulls;
	if (locus__grow(&f->pulls, &cap, f->n_pulls + 1, sizeof *f->pulls)) {
		local_fail(f, LOCUS_ENOMEM, "out of memory");
		return NONE;
	}
	return (uint32_t)f->n_pulls++;
}

static void job_over(struct flow *f, uint32_t j);
static void lost(struct flow *f, uint32_t o);

/* Job j pulls object o (partial 0), or task partial - 1's partial result
 * keyed o, from its source node: asks a rank there for it. 0 when out of
 * memory (said). */
static int start_pull(struct flow *f, uint32_t j, uint32_t o, uint32_t partial)
{
	uint32_t p = new_pull(f);
	if (p == NONE)
		return 0;
	struct pull *pl = &f->pulls[p];
	*pl = (struct pull){.stream = (uint64_t)f->rank << 40 | f->next_id++,
			    .job = j,
			    .object = o,
			    .partial = partial,
			    .fd = -1,
			    .used = 1};
	struct fetchreq fr = {pl->stream, o, partial};
	post_copy(f, rank_of_node(f, f->jobs[j].from, o), F_FETCH, &fr, sizeof fr);
	return 1;
}

/* Starts what job j has to do: local copies at once, pulls by MPI. */
static void job_step(struct flow *f, uint32_t j)
{
	struct job *jb = &f->jobs[j];
	char a[PATH_MAX], b[PATH_MAX];
	jb->left = 0;
	if (jb->partial) {
		/* A reduction's partial result: pulled from the node that made
		 * it, under the name of its key. */
		if (start_pull(f, j, jb->objs[0], jb->task + 1))
			f->jobs[j].left = 1;
		return;
	}
	for (uint32_t k = 0; k < jb->n && !f->failed; k++) {
		uint32_t o = jb->objs[k];
		uint64_t bytes = 0;
		int rc;
		if (jb->to == LOCUS_FS) {
			/* From this node to the shared directory. */
			if (f->on_fs[o])
				continue;
			store_path(f, o, a, sizeof a);
			shared_path(f, o, b, sizeof b);
			if ((rc = fs_copy(f, a, b, &bytes))) {
				jb->ok = 0;
				if (rc == ENOENT)
					lost(f, o);
				continue;
			}
			f->bytes_fs_written += bytes;
			stage_add(f, jb->task, 2, bytes);
			note(f, o, LOCUS_FS, 1);
			jb->moved += bytes;
			continue;
		}
		if (locus_replicas_has(f->rep, o, f->node))
			continue;
		if (jb->from == LOCUS_FS) {
			shared_path(f, o, a, sizeof a);
			store_path(f, o, b, sizeof b);
			if ((rc = fs_copy(f, a, b, &bytes))) {
				jb->ok = 0;
				continue;
			}
			f->bytes_fs_read += bytes;
			stage_add(f, jb->task, 1, bytes);
			note(f, o, f->node, 1);
			jb->moved += bytes;
			continue;
		}
		/* From a peer: pulled. */
		if (!start_pull(f, j, o, 0))
			return;
		jb = &f->jobs[j];
		jb->left++;
	}
	if (!jb->left)
		job_over(f, j);
}

static void read_over(struct flow *f, uint64_t gen, int ok);

/* Job j has ended: its copies, made, are listed; its requester hears how. */
static void job_over(struct flow *f, uint32_t j)
{
	struct job *jb = &f->jobs[j];
	jb->used = 0;
	flush_updates(f);
	/* One record a copy that moved something (named by its first
	 * object), as the simulator lists its moves. */
	if (jb->ok && jb->moved && !jb->read && !jb->partial) {
		if (locus__grow(&f->xfers, &f->xfers_cap, f->n_xfers + 1, sizeof *f->xfers)) {
			local_fail(f, LOCUS_ENOMEM, "out of memory");
		} else {
			f->xfers[f->n_xfers++] = (struct locus_transfer_result){
			    .object = jb->objs[0],
			    .from = jb->from == LOCUS_FS ? UINT32_MAX : jb->from,
			    .to = jb->to == LOCUS_FS ? UINT32_MAX : jb->to,
			    .task = jb->task,
			    .start = jb->asked,
			    .end = now_of(f),
			    .bytes = jb->moved};
		}
	}
	if (jb->req_proc == NONE) {
		/* This rank's worker's: a read of its attempt, or a gather. A
		 * place that failed it (a node, the shared directory) no longer
		 * counts as holding the file here (it would be asked again, at
		 * once); the file is asked of another, or waited for. */
		uint32_t *objs = jb->objs, n = jb->n, from = jb->from, to = jb->to;
		int ok = jb->ok, read = jb->read;
		uint64_t gen = jb->id;
		jb->objs = NULL;
		for (uint32_t k = 0; !ok && k < n; k++) {
			if (locus_replicas_has(f->rep, objs[k], to))
				continue;
			if (from == LOCUS_FS)
				f->on_fs[objs[k]] = 0;
			else
				locus_replicas_remove(f->rep, objs[k], from);
		}
		if (read)
			read_over(f, gen, ok);
		else
			for (uint32_t k = 0; !ok && k < n; k++)
				locus__exec_want(&f->x, objs[k], to, now_of(f));
		free(objs);
		return;
	}
	/* A partial result's copy is told as the policy asked for it: no
	 * files. */
	copy_told(f, jb->req_rank, jb->req_proc, jb->id, jb->partial ? LOCUS_NONE : jb->objs[0],
		  jb->partial ? 0 : jb->n, jb->from, jb->to, jb->tag, jb->ok);
	free(jb->objs);
	jb->objs = NULL;
}

static void copy_told(struct flow *f, int req_rank, uint32_t req_proc, uint64_t id, uint32_t first,
		      uint32_t n, uint32_t from, uint32_t to, uint64_t tag, int ok)
{
	if (req_rank != f->rank) {
		struct copied c = {id, tag, req_proc, first, n, from, to, ok};
		post_copy(f, req_rank, F_COPIED, &c, sizeof c);
		return;
	}
	struct locus_event ev = {
	    .kind = LOCUS_EV_TRANSFER,
	    .proc = req_proc,
	    .transfer = {.object = first, .from = from, .to = to, .ok = ok, .tag = tag, .n = n}};
	deliver(f, &ev);
}

static int write_cover(const struct flow *f, uint32_t t, uint32_t key, const uint32_t *list,
		       uint32_t n);

static void pull_end(struct flow *f, uint32_t p, int ok)
{
	struct pull *pl = &f->pulls[p];
	uint32_t j = pl->job, o = pl->object;
	if (pl->headed && !--f->pulls_active)
		f->pull_secs += mono() - f->pull_since;
	if (pl->fd >= 0)
		close(pl->fd);
	pl->fd = -1;
	struct job *jb = &f->jobs[j];
	if (ok) {
		char path[PATH_MAX];
		if (pl->partial) {
			/* What it covers first: a reader that finds the
			 * result finds its cover. */
			partial_path(f, pl->partial - 1, o, path, sizeof path);
			ok = !write_cover(f, pl->partial - 1, o, jb->objs + 1, jb->n - 1);
		} else {
			store_path(f, o, path, sizeof path);
		}
		if (ok && rename(pl->tmp, path))
			ok = 0;
	}
	if (!ok && pl->tmp[0])
		unlink(pl->tmp);
	pl->used = 0;
	if (ok) {
		f->bytes_peer += pl->got;
		f->transfers++;
		stage_add(f, jb->task, 0, pl->got);
		jb->moved += pl->got;
		if (!pl->partial)
			note(f, o, f->node, 1);
	} else {
		jb->ok = 0;
	}
	if (--jb->left == 0)
		job_over(f, j);
}

static uint32_t find_pull(const struct flow *f, uint64_t stream)
{
	for (uint32_t p = 0; p < f->n_pulls; p++)
		if (f->pulls[p].used && f->pulls[p].stream == stream)
			return p;
	return NONE;
}

static void take_head(struct flow *f, const struct head *h)
{
	uint32_t p = find_pull(f, h->stream);
	if (p == NONE)
		return;
	struct pull *pl = &f->pulls[p];
	if (h->status) {
		pull_end(f, p, 0);
		return;
	}
	pl->length = h->length;
	pl->headed = 1;
	if (!f->pulls_active++)
		f->pull_since = mono();
	fmt(pl->tmp, sizeof pl->tmp, "%s/store/.o%" PRIu32 ".%" PRIx64, f->node_dir, pl->object,
	    pl->stream);
	pl->fd = open(pl->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (pl->fd < 0) {
		local_fail(f, LOCUS_EIO, "cannot write %s: %s", pl->tmp, strerror(errno));
		return;
	}
	if (!pl->length)
		pull_end(f, p, 1);
}

static void take_piece(struct flow *f, const struct piece *pc, const char *data, size_t n)
{
	uint32_t p = find_pull(f, pc->stream);
	if (p == NONE)
		return;
	struct pull *pl = &f->pulls[p];
	for (size_t w = 0; w < n;) {
		ssize_t k = pwrite(pl->fd, data + w, n - w, (off_t)(pc->offset + w));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			local_fail(f, LOCUS_EIO, "cannot write %s: %s", pl->tmp, strerror(errno));
			return;
		}
		w += (size_t)k;
	}
	pl->got += n;
	if (pl->got >= pl->length)
		pull_end(f, p, pl->got == pl->length);
}

/* A peer asks for file o: its head now, its pieces as the outbox allows. */
static void take_fetch(struct flow *f, int src, const struct fetchreq *fr)
{
	char path[PATH_MAX];
	struct head h = {.stream = fr->stream};
	int fd = -1;
	struct stat st;
	/* A partial result (of task fr->task - 1) has no size to check. */
	int partial = fr->task != 0;
	if (partial ? fr->task - 1 < f->g->n_tasks : fr->object < f->g->n_objects) {
		if (partial)
			partial_path(f, fr->task - 1, fr->object, path, sizeof path);
		else
			store_path(f, fr->object, path, sizeof path);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0 || fstat(fd, &st) ||
	    (!partial && f->obj_bytes[fr->object] != UNKNOWN &&
	     (uint64_t)st.st_size != f->obj_bytes[fr->object])) {
		h.status = LOCUS_ENOENT;
		if (fd >= 0)
			close(fd);
		post_copy(f, src, F_HEAD, &h, sizeof h);
		if (!partial && fr->object < f->g->n_objects)
			lost(f, fr->object);
		return;
	}
	h.length = (uint64_t)st.st_size;
	post_copy(f, src, F_HEAD, &h, sizeof h);
	if (!h.length) {
		close(fd);
		if (partial)
			partial_gone(f, fr->task - 1, fr->object);
		return;
	}
	uint32_t s = NONE;
	for (uint32_t i = 0; i < f->n_serves && s == NONE; i++)
		if (!f->serves[i].used)
			s = i;
	if (s == NONE) {
		size_t cap = f->n_serves;
		if (locus__grow(&f->serves, &cap, f->n_serves + 1, sizeof *f->serves)) {
			close(fd);
			local_fail(f, LOCUS_ENOMEM, "out of memory");
			return;
		}
		s = (uint32_t)f->n_serves++;
	}
	f->serves[s] = (struct serve){.stream = fr->stream,
				      .to_rank = src,
				      .fd = fd,
				      .used = 1,
				      .object = fr->object,
				      .partial = fr->task,
				      .length = h.length};
}

/* Sends the next pieces of the files being served: SERVE_MAX files at
 * once, in the order asked, while fewer than OUT_MAX sends are in flight. */
static int serve_step(struct flow *f)
{
	int did = 0;
	size_t active = 0;
	for (uint32_t s = 0; s < f->n_serves; s++)
		active += f->serves[s].used && f->serves[s].active;
	for (uint32_t s = 0; s < f->n_serves && active < SERVE_MAX; s++)
		if (f->serves[s].used && !f->serves[s].active) {
			f->serves[s].active = 1;
			active++;
		}
	for (uint32_t s = 0; s < f->n_serves && !f->failed; s++) {
		struct serve *sv = &f->serves[s];
		while (sv->used && sv->active && f->n_out < OUT_MAX) {
			uint64_t left = sv->length - sv->off;
			size_t n = left < PIECE ? (size_t)left : PIECE;
			char *buf = piece_take(f);
			if (!buf) {
				local_fail(f, LOCUS_ENOMEM, "out of memory");
				return did;
			}
			struct piece pc = {sv->stream, sv->off};
			memcpy(buf, &pc, sizeof pc);
			size_t got = 0;
			while (got < n) {
				ssize_t k = pread(sv->fd, buf + sizeof pc + got, n - got,
						  (off_t)(sv->off + got));
				if (k < 0 && errno == EINTR)
					continue;
				if (k <= 0)
					break;
				got += (size_t)k;
			}
			if (got < n) {
				/* The file shrank or failed: the puller sees a
				 * short file (it waits for bytes that never come),
				 * so the run stops here, saying which. */
				free(buf);
				local_fail(f, LOCUS_EIO, "cannot read %s's copy on this node",
					   obj_name(f, sv->object));
				return did;
			}
			post(f, sv->to_rank, F_DATA, buf, sizeof pc + n);
			f->pieces++;
			sv->off += n;
			did = 1;
			if (sv->off == sv->length) {
				close(sv->fd);
				sv->used = sv->active = 0;
				/* A partial result is used once, where it goes. */
				if (sv->partial)
					partial_gone(f, sv->partial - 1, sv->object);
			}
		}
	}
	return did;
}

/* Deletes this node's copy of file o. */
static void drop_here(struct flow *f, uint32_t o)
{
	if (!locus_replicas_has(f->rep, o, f->node) || f->opt->keep)
		return;
	/* Not while a task of this rank reads it. */
	char p[PATH_MAX];
	store_path(f, o, p, sizeof p);
	unlink(p);
	note(f, o, f->node, 0);
}

static int file_sum(const char *path, uint64_t *bytes, uint64_t *sum);

/* This node was to keep file o and does not (deleted, or not as it was
 * made): it forgets it, and rank 0 ends the round so that the next makes
 * it again (resume). */
static void lost(struct flow *f, uint32_t o)
{
	if (!locus_replicas_has(f->rep, o, f->node))
		return;
	note(f, o, f->node, 0);
	flush_updates(f);
	struct repl l = {o, f->node, 0, 0, 0, 0};
	post_copy(f, 0, F_LOST, &l, sizeof l);
}

/* Whether this node's copy of file o is as it was made: its size, and
 * its checksum with opt->checksum. */
static int intact(struct flow *f, uint32_t o)
{
	char p[PATH_MAX];
	store_path(f, o, p, sizeof p);
	uint64_t b = 0, h = 0;
	int sum = f->opt->checksum && f->obj_sum[o];
	if (file_sum(p, &b, sum ? &h : NULL))
		return 0;
	return (f->obj_bytes[o] == UNKNOWN || b == f->obj_bytes[o]) && (!sum || h == f->obj_sum[o]);
}

/* ---- the worker ------------------------------------------------------------------- */
static void journal_task(struct flow *f, const struct rec *r);
static int agree(struct flow *f, int rc);

/* ---- the worker: the executor's operations --------------------------------------- */

static int reduce_inputs(struct flow *f, uint32_t t, const uint32_t *own, uint32_t n_own,
			 uint8_t *keep, uint32_t **cover, uint32_t *n_cover);
static void launch(struct flow *f);
static void end_attempt(struct flow *f);
static void out_path(const struct flow *f, uint32_t k, char *buf, size_t size);
static const char *out_name(const struct flow *f, uint32_t t, uint32_t k);
static void attempt_failed(struct flow *f, const char *why);
static void task_computed(struct flow *f);
static void fn_over(struct flow *f);
static void fn_wait(struct flow *f);

/* The index of object o among task t's outputs. */
static uint32_t out_index(const struct flow *f, uint32_t t, uint32_t o)
{
	const struct locus_task *tk = &f->g->tasks[t];
	for (uint32_t k = 0; k < tk->n_out; k++)
		if (f->g->outputs[tk->out_at + k] == o)
			return k;
	return 0;
}

static int op_underway(void *eng, uint32_t o, uint32_t node)
{
	const struct flow *f = eng;
	for (size_t j = 0; j < f->n_jobs; j++) {
		const struct job *jb = &f->jobs[j];
		if (!jb->used || jb->partial || jb->to != node)
			continue;
		for (uint32_t k = 0; k < jb->n; k++)
			if (jb->objs[k] == o)
				return 1;
	}
	return 0;
}

/* Brings file o to this node from `from` (a node, or LOCUS_FS) for task
 * t: a gather the executor asked for, or (read) a read of the attempt
 * running now. */
static void bring(struct flow *f, uint32_t o, uint32_t from, uint32_t t, int read)
{
	struct copyreq q = {.id = read ? f->gen : 0,
			    .req_proc = NONE,
			    .from = from,
			    .to = f->node,
			    .n = 1,
			    .task = t,
			    .flags = read ? CP_READ : 0};
	if (read)
		f->reads_left++;
	take_copy(f, -1, &q, &o);
}

static void op_fetch(void *eng, uint32_t o, uint32_t source, uint32_t node, uint32_t task,
		     double now)
{
	struct flow *f = eng;
	(void)now;
	(void)node; /* this rank's worker's */
	bring(f, o, source, task, 0);
}

static void op_placed(void *eng, uint32_t w, uint32_t t, int from_policy, double now)
{
	struct flow *f = eng;
	(void)w;
	if (from_policy)
		f->tassigned[t] = now;
}

/* Task t starts on this rank's worker: the inputs it reads as it starts
 * come (the executor's plan), then it runs (launch). */
static void op_start(void *eng, uint32_t w, uint32_t t, double now)
{
	struct flow *f = eng;
	const struct locus_task *tk = &f->g->tasks[t];
	(void)w;
	f->cur = t;
	f->gen++;
	f->attempt = (int)f->x.tattempt[t];
	f->start = now;
	f->read_failed = 0;
	free(f->r_keep);
	f->r_keep = NULL;
	uint8_t gather = f->x.tgather[t];
	if (gather == LOCUS_GATHER_NONE && !f->opt->fn) {
		/* A reduction's task: what partial results here cover is not
		 * brought (its tree reduced it elsewhere). */
		uint8_t *keep = malloc(tk->n_in ? tk->n_in : 1);
		uint32_t *cover = NULL, n_cover = 0;
		int found = keep ? reduce_inputs(f, t, NULL, 0, keep, &cover, &n_cover) : -1;
		free(cover);
		if (found > 0)
			f->r_keep = keep;
		else
			free(keep);
		if (found < 0) {
			local_fail(f, LOCUS_EIO, "cannot read task %" PRIu32 "'s partial results",
				   t);
			return;
		}
	}
	if (locus__grow(&f->reads, &f->reads_cap, tk->n_in + 1, sizeof *f->reads)) {
		local_fail(f, LOCUS_ENOMEM, "out of memory");
		return;
	}
	struct locus__read_plan plan;
	long n = locus__exec_reads(&f->x, t, f->node, f->reads, &plan);
	if (n < 0) {
		/* An input is held nowhere now (lost: the round ends, and the
		 * next makes it again): it waits at the head of the queue. */
		locus__exec_requeue(&f->x, f->worker, now);
		return;
	}
	f->reads_left = 1; /* held while the reads are asked for */
	for (long k = 0; k < n && !f->failed; k++) {
		uint32_t o = f->reads[k].object, src = f->reads[k].source;
		/* The workflow's own inputs are read in place, from the shared
		 * directory. */
		if (f->g->objects[o].producer == LOCUS_NONE && src == LOCUS_FS)
			continue;
		if (src != f->node)
			bring(f, o, src, t, 1);
	}
	/* Without commands a reduction's task reads all its inputs (the
	 * policy's model reduced them); with them, those its partial results
	 * leave. */
	for (uint32_t k = 0; gather == LOCUS_GATHER_NONE && k < tk->n_in && !f->failed; k++) {
		uint32_t o = f->g->inputs[tk->in_at + k];
		if (f->g->objects[o].producer == LOCUS_NONE ||
		    locus_replicas_has(f->rep, o, f->node) || (f->r_keep && f->r_keep[k] != R_SELF))
			continue;
		int local;
		bring(f, o, locus__exec_source(&f->x, t, o, f->node, -1, &local), t, 1);
	}
	read_over(f, f->gen, 1);
}

/* A read of attempt `gen` has ended (or the reads were all asked for):
 * the task runs when none is left; a read that failed (its holder had
 * lost the file) sends it back to gather again, not as an attempt. */
static void read_over(struct flow *f, uint64_t gen, int ok)
{
	if (gen != f->gen || f->cur == NONE)
		return; /* an attempt given up */
	if (!ok)
		f->read_failed = 1;
	if (--f->reads_left)
		return;
	if (f->read_failed) {
		f->read_failed = 0;
		locus__exec_requeue(&f->x, f->worker, now_of(f));
		return;
	}
	launch(f);
}

/* The attempt stops where it is: its command killed, its reads
 * forgotten, its working directory gone. */
static void op_abort(void *eng, uint32_t w, uint32_t t, int state, double now)
{
	struct flow *f = eng;
	(void)w;
	(void)t;
	(void)state;
	(void)now;
	if (f->pid > 0) {
		kill(f->pid, SIGKILL);
		waitpid(f->pid, NULL, 0);
		f->pid = 0;
	}
	fn_wait(f);
	f->standin = 0;
	f->gen++;
	end_attempt(f);
	f->cur = NONE;
}

/* This node keeps output o of the task that has computed: renamed (or
 * copied, a link) from its working directory into the node's storage,
 * unless a function wrote it there or it came home. */
static int op_keep(void *eng, uint32_t o, uint32_t node, double now)
{
	struct flow *f = eng;
	uint32_t t = f->x.w[f->worker].task;
	char why[WHY_MAX], src[PATH_MAX * 2], dst[PATH_MAX];
	(void)now;
	if (node != f->node || locus_replicas_has(f->rep, o, node))
		return 0; /* it came home */
	uint32_t k = out_index(f, t, o);
	out_path(f, k, src, sizeof src);
	store_path(f, o, dst, sizeof dst);
	uint64_t bytes = 0;
	struct stat st;
	int link = !lstat(src, &st) && S_ISLNK(st.st_mode);
	if (!f->opt->fn && (link ? copy_file(src, dst, &bytes, f->rank) : rename(src, dst))) {
		fmt(why, sizeof why, "cannot keep %s: %s", out_name(f, t, k), strerror(errno));
		local_fail(f, LOCUS_EIO, "task %" PRIu32 ": %s", t, why);
		return -1;
	}
	/* Its checksum, with which every reader checks its copy. */
	if (f->opt->checksum && file_sum(dst, &bytes, &f->obj_sum[o])) {
		local_fail(f, LOCUS_EIO, "cannot read %s back: %s", out_name(f, t, k),
			   strerror(errno));
		return -1;
	}
	note_as(f, o, node, 1, 1);
	return 1;
}

/* Output o of the task that has computed goes to the shared directory:
 * from the node's storage when kept there, else from its working
 * directory. */
static void op_write(void *eng, uint32_t w, uint32_t o, double now)
{
	struct flow *f = eng;
	uint32_t t = f->x.w[w].task;
	char src[PATH_MAX * 2], sp[PATH_MAX];
	int kept = locus_replicas_has(f->rep, o, f->node);
	if (kept)
		store_path(f, o, src, sizeof src);
	else
		out_path(f, out_index(f, t, o), src, sizeof src);
	shared_path(f, o, sp, sizeof sp);
	uint64_t bytes = 0;
	int rc = fs_copy(f, src, sp, &bytes);
	if (rc) {
		local_fail(f, LOCUS_EIO, "cannot write %s to the shared directory: %s", sp,
			   strerror(rc));
		return;
	}
	if (!kept && f->opt->fn)
		unlink(src); /* a function wrote it in the node's storage */
	f->bytes_fs_written += bytes;
	stage_add(f, t, 2, bytes);
	note(f, o, LOCUS_FS, 1);
	locus__exec_written(&f->x, w, o, now);
}

/* The task has ended (here, or elsewhere and come home): rank 0 records
 * it, with where its outputs are, and the executor tells the policy. */
static void op_ended(void *eng, uint32_t w, uint32_t t, struct locus_event *done, double now)
{
	struct flow *f = eng;
	const struct locus_task *tk = &f->g->tasks[t];
	int home = f->x.tran_by[t] != w;
	const struct ran here = {f->node, w, f->start, f->read_end, f->compute_end};
	const struct ran *rn = home ? &f->ran[t] : &here;
	/* A reduction's task: the partial results it read are spent. */
	for (uint32_t k = 0; !home && f->r_keep && k < tk->n_in; k++)
		if (f->r_keep[k] == R_PARTIAL)
			partial_gone(f, t, f->g->inputs[tk->in_at + k]);
	end_attempt(f);
	f->cur = NONE;
	size_t len = sizeof(struct rec) + tk->n_out * sizeof(struct outrec);
	struct rec *r = calloc(1, len);
	if (!r) {
		local_fail(f, LOCUS_ENOMEM, "out of memory");
		return;
	}
	*r = (struct rec){.task = t,
			  .worker = rn->worker,
			  .node = rn->node,
			  .attempts = f->x.tattempt[t] + 1,
			  .n_out = tk->n_out,
			  .assigned = f->tassigned[t],
			  .start = rn->start,
			  .read_end = rn->read_end,
			  .compute_end = rn->compute_end,
			  .end = now};
	struct outrec *orec = (struct outrec *)(void *)(r + 1);
	for (uint32_t k = 0; k < tk->n_out; k++) {
		uint32_t o = f->g->outputs[tk->out_at + k];
		orec[k].where =
		    (uint32_t)(locus_replicas_has(f->rep, o, r->node) | (f->on_fs[o] << 1));
		orec[k].bytes = f->obj_bytes[o];
		orec[k].sum = f->obj_sum[o];
	}
	done->done.duration = now - rn->start;
	done->done.compute = rn->compute_end - rn->read_end;
	done->done.remote = 0;
	flush_updates(f);
	post(f, 0, F_REPORT, r, len);
}

/* This worker has run an attempt of another worker's task (a retry): that
 * worker hears how it went, with its outputs' places sent before. */
static void op_ran(void *eng, uint32_t by, uint32_t home, uint32_t t, uint32_t attempt, int ok,
		   const char *why, double now)
{
	struct flow *f = eng;
	(void)now;
	struct retried r = {.task = t,
			    .attempt = attempt,
			    .worker = by,
			    .node = f->node,
			    .ok = ok,
			    .start = f->start,
			    .read_end = f->read_end,
			    .compute_end = ok ? f->compute_end : 0};
	fmt(r.why, sizeof r.why, "%s", why ? why : "");
	if (ok) {
		end_attempt(f);
		f->cur = NONE;
	}
	flush_updates(f);
	post_copy(f, f->proc_rank[home], F_RETRIED, &r, sizeof r);
}

static void op_retry_away(void *eng, uint32_t home, uint32_t w, uint32_t t, uint32_t attempt,
			  double now)
{
	struct flow *f = eng;
	(void)now;
	struct retry q = {t, attempt, home, 0};
	post_copy(f, f->proc_rank[w], F_RETRY, &q, sizeof q);
}

static const struct locus__exec_ops mpi_ops = {
    .tell = op_tell,
    .send = op_send,
    .timer = op_timer,
    .transfer = op_transfer,
    .copy = op_copy,
    .drop = op_drop,
    .underway = op_underway,
    .fetch = op_fetch,
    .placed = op_placed,
    .start = op_start,
    .abort = op_abort,
    .keep = op_keep,
    .write = op_write,
    .ended = op_ended,
    .halt = op_halt,
    .fail = op_fail,
    .cancel = op_cancel,
    .ran = op_ran,
    .retry_away = op_retry_away,
};

/* The name input k of task t has in its working directory. */
static const char *in_name(const struct flow *f, uint32_t t, uint32_t k)
{
	const struct locus_task *tk = &f->g->tasks[t];
	const char *as = f->g->input_as ? f->g->input_as[tk->in_at + k] : NULL;
	return as ? as : obj_name(f, f->g->inputs[tk->in_at + k]);
}

/* The name output k of task t has in its working directory. */
static const char *out_name(const struct flow *f, uint32_t t, uint32_t k)
{
	const struct locus_task *tk = &f->g->tasks[t];
	const char *as = f->g->output_as ? f->g->output_as[tk->out_at + k] : NULL;
	return as ? as : obj_name(f, f->g->outputs[tk->out_at + k]);
}

/* Links task t's inputs into directory `work` under their names: all,
 * or for a reduction those keep[] says, a partial result under the name
 * of the input keying it. The task's own run (count) counts what it
 * reads. */
static int link_inputs(struct flow *f, uint32_t t, const char *work, const uint8_t *keep, int count,
		       char *why, size_t size)
{
	const struct locus_task *tk = &f->g->tasks[t];
	char src[PATH_MAX], dst[PATH_MAX * 2];
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = f->g->inputs[tk->in_at + k];
		const char *as = in_name(f, t, k);
		if (keep && keep[k] == R_OUT)
			continue;
		/* On this node: a partial result, a file this rank knows is
		 * here, or one a reduction reduces here (another rank of the
		 * node may have made it and not told this one yet). */
		int partial = keep && keep[k] == R_PARTIAL,
		    here = partial || locus_replicas_has(f->rep, o, f->node) ||
			   (keep && keep[k] == R_SELF && f->g->objects[o].producer != LOCUS_NONE);
		if (partial)
			partial_path(f, t, o, src, sizeof src);
		else if (here)
			store_path(f, o, src, sizeof src);
		else
			shared_path(f, o, src, sizeof src);
		fmt(dst, sizeof dst, "%s/%s", work, as);
		if (parent_dirs(dst) || (symlink(src, dst) && errno != EEXIST)) {
			fmt(why, size, "cannot link %s into its working directory: %s", as,
			    strerror(errno));
			return -1;
		}
		/* What it reads: on its node, or from the shared directory. */
		struct stat st;
		if (!count || stat(src, &st))
			continue;
		if (!here)
			f->bytes_fs_read += (uint64_t)st.st_size;
		stage_add(f, t, here ? 3 : 1, (uint64_t)st.st_size);
	}
	return 0;
}

/* The directories task t's outputs go in, made in its working directory
 * `work` (as the inputs' are), so that "dir/out" can be written. */
static int output_dirs(struct flow *f, uint32_t t, const char *work, char *why, size_t size)
{
	const struct locus_task *tk = &f->g->tasks[t];
	char dst[PATH_MAX * 2];
	for (uint32_t k = 0; k < tk->n_out; k++) {
		const char *as = out_name(f, t, k);
		fmt(dst, sizeof dst, "%s/%s", work, as);
		if (parent_dirs(dst)) {
			fmt(why, size, "cannot make the directory of %s: %s", as, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* What /bin/sh runs itself (keywords and built-ins), or could: a line
 * starting with one of these goes to the shell. */
static const char *const SHELL_OWN[] = {
    ".",       "[",	   ":",	      "alias",	  "bg",	    "break",  "case", "cd",
    "command", "continue", "do",      "done",	  "echo",   "elif",   "else", "esac",
    "eval",    "exec",	   "exit",    "export",	  "false",  "fc",     "fg",   "fi",
    "for",     "function", "getopts", "hash",	  "if",	    "jobs",   "kill", "local",
    "printf",  "pwd",	   "read",    "readonly", "return", "select", "set",  "shift",
    "test",    "then",	   "time",    "times",	  "trap",   "true",   "type", "typeset",
    "ulimit",  "umask",	   "unalias", "unset",	  "until",  "wait",   "while"};

/* Splits a command line into argv when /bin/sh would run it as plain
 * words: letters, digits and _-./:,+=@%^ separated by blanks (nothing
 * quoted, expanded, redirected or combined), the first word neither an
 * assignment nor one of SHELL_OWN. Such a line runs without the shell,
 * as GNU make does: one program started a task instead of two. Returns
 * the word count, or 0 when the line needs the shell. */
static size_t plain_words(const char *line, char *buf, size_t size, char **argv, size_t max)
{
	size_t len = strlen(line), n = 0;
	if (len >= size)
		return 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      (c && strchr("_-./:,+=@%^ \t", c))))
			return 0;
	}
	memcpy(buf, line, len + 1);
	for (char *p = buf; *p;) {
		while (*p == ' ' || *p == '\t')
			*p++ = 0;
		if (!*p)
			break;
		if (n + 1 >= max)
			return 0;
		argv[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	argv[n] = NULL;
	if (!n || strchr(argv[0], '='))
		return 0;
	for (size_t i = 0; i < sizeof SHELL_OWN / sizeof *SHELL_OWN; i++)
		if (!strcmp(argv[0], SHELL_OWN[i]))
			return 0;
	return n;
}

/* Starts command c in directory `work`, its stdout and stderr to errp:
 * c's own, or for a reduction step `line` (a Makeflow line's words
 * rewritten) or `argv` (NULL-terminated) in its place. 0 or an errno
 * value. */
static int spawn_in(struct flow *f, const struct locus_command *c, const char *line,
		    char *const *argv, const char *work, const char *errp, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	posix_spawn_file_actions_addchdir_np(&fa, work);
	posix_spawnattr_t attr, *ap = NULL;
	if (f->opt->process_group > 0) {
		/* In the group whose keeper kills it if this rank dies. */
		posix_spawnattr_init(&attr);
		posix_spawnattr_setpgroup(&attr, f->opt->process_group);
		posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
		ap = &attr;
	}
	/* Its environment: this rank's, and the workflow's variables. */
	size_t ne = 0;
	while (environ[ne])
		ne++;
	char **envp = calloc(ne + c->n_env + 1, sizeof *envp);
	if (!envp) {
		posix_spawn_file_actions_destroy(&fa);
		if (ap)
			posix_spawnattr_destroy(ap);
		return ENOMEM;
	}
	size_t k = 0;
	for (uint32_t i = 0; i < c->n_env; i++)
		envp[k++] = (char *)c->env[i];
	for (size_t i = 0; i < ne; i++)
		envp[k++] = environ[i];
	int rc = ENOENT;
	if (!line && !argv)
		line = c->line;
again:
	if (line) {
		/* Plain words run without the shell, unless the workflow sets
		 * the PATH they are looked up in (posix_spawnp reads this
		 * process's); a program not found goes to the shell too, for
		 * its message and status. */
		char words[1024], *wv[64];
		int own_path = 0;
		for (uint32_t i = 0; i < c->n_env; i++)
			own_path |= !strncmp(c->env[i], "PATH=", 5);
		if (!own_path && plain_words(line, words, sizeof words, wv, 64))
			rc = posix_spawnp(pid, wv[0], &fa, ap, wv, envp);
		if (rc == ENOENT) {
			char *sh[] = {"sh", "-c", (char *)line, NULL};
			rc = posix_spawn(pid, "/bin/sh", &fa, ap, sh, envp);
		}
	} else if (argv) {
		rc = posix_spawnp(pid, argv[0], &fa, ap, argv, envp);
	} else {
		char **av = calloc(c->argc + 1, sizeof *av);
		if (av) {
			for (uint32_t i = 0; i < c->argc; i++)
				av[i] = (char *)c->argv[i];
			rc = posix_spawnp(pid, av[0], &fa, ap, av, envp);
			free(av);
		} else {
			rc = ENOMEM;
		}
	}
	if (rc == EPERM && ap) {
		/* The group's keeper is gone (killed from outside). */
		posix_spawnattr_destroy(ap);
		ap = NULL;
		rc = ENOENT;
		goto again;
	}
	free(envp);
	posix_spawn_file_actions_destroy(&fa);
	if (ap)
		posix_spawnattr_destroy(ap);
	return rc;
}

/* Where output k of the current task is written: its working directory,
 * or the node's storage when a function runs it. */
static void out_path(const struct flow *f, uint32_t k, char *buf, size_t size)
{
	const struct locus_task *tk = &f->g->tasks[f->cur];
	uint32_t o = f->g->outputs[tk->out_at + k];
	if (f->opt->fn) {
		store_path(f, o, buf, size);
		return;
	}
	fmt(buf, size, "%s/%s", f->work, out_name(f, f->cur, k));
}

/* Runs the current task as a call of opt->fn: its inputs where they are,
 * its outputs straight into the node's storage. */
static void call_fn(struct flow *f)
{
	uint32_t t = f->cur;
	/* Files in the order of the task in the caller's workflow (a resumed
	 * run's has other ids, so perhaps another order). */
	const struct locus_graph *full = f->opt->graph;
	uint32_t id = f->task_full ? f->task_full[t] : t;
	const struct locus_task *tk = &full->tasks[id];
	size_t n = (size_t)tk->n_in + tk->n_out;
	if (n > f->fn_cap) {
		char *paths = realloc(f->fn_paths, n * PATH_MAX);
		const char **ptrs = paths ? realloc(f->fn_ptrs, n * sizeof *ptrs) : NULL;
		if (paths)
			f->fn_paths = paths;
		if (!ptrs) {
			local_fail(f, LOCUS_ENOMEM, "out of memory");
			return;
		}
		f->fn_ptrs = ptrs;
		f->fn_cap = n;
	}
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = full->inputs[tk->in_at + k];
		o = f->obj_round ? f->obj_round[o] : o;
		char *p = f->fn_paths + (size_t)k * PATH_MAX;
		int here = locus_replicas_has(f->rep, o, f->node);
		if (here)
			store_path(f, o, p, PATH_MAX);
		else
			shared_path(f, o, p, PATH_MAX);
		f->fn_ptrs[k] = p;
		uint64_t bytes = f->g->objects[o].bytes;
		if (!here)
			f->bytes_fs_read += bytes;
		stage_add(f, t, here ? 3 : 1, bytes);
	}
	for (uint32_t k = 0; k < tk->n_out; k++) {
		uint32_t o = full->outputs[tk->out_at + k];
		char *p = f->fn_paths + ((size_t)tk->n_in + k) * PATH_MAX;
		store_path(f, f->obj_round ? f->obj_round[o] : o, p, PATH_MAX);
		f->fn_ptrs[tk->n_in + k] = p;
	}
	f->fn_task = (struct locus_mpi_flow_task){.task = id,
						  .name = tk->name,
						  .n_in = tk->n_in,
						  .n_out = tk->n_out,
						  .in = f->fn_ptrs,
						  .out = f->fn_ptrs + tk->n_in,
						  .attempt = f->attempt,
						  .rank = f->rank,
						  .node = f->plat->nodes[f->node].name};
	f->fn_why[0] = 0;
	if (f->fn_threaded) {
		pthread_mutex_lock(&f->fn_mu);
		f->fn_busy = f->fn_go = 1;
		pthread_cond_broadcast(&f->fn_cv);
		pthread_mutex_unlock(&f->fn_mu);
		return; /* the worker's turn sees it end (fn_over) */
	}
	f->fn_rc = f->opt->fn(f->opt->user, &f->fn_task, f->fn_why, sizeof f->fn_why);
	fn_over(f);
}

/* The task function's call has ended (fn_rc, fn_why). */
static void fn_over(struct flow *f)
{
	const struct locus_mpi_flow_task *task = &f->fn_task;
	if (f->fn_rc) {
		for (uint32_t k = 0; k < task->n_out; k++)
			unlink(task->out[k]);
		if (!f->fn_why[0])
			fmt(f->fn_why, sizeof f->fn_why, "its function failed");
		char why[WHY_MAX];
		fmt(why, sizeof why, "%s", f->fn_why);
		attempt_failed(f, why);
		return;
	}
	task_computed(f);
}

static void *fn_main(void *arg)
{
	struct flow *f = arg;
	pthread_mutex_lock(&f->fn_mu);
	for (;;) {
		while (!f->fn_go && !f->fn_quit)
			pthread_cond_wait(&f->fn_cv, &f->fn_mu);
		if (f->fn_quit)
			break;
		f->fn_go = 0;
		pthread_mutex_unlock(&f->fn_mu);
		char why[WHY_MAX] = "";
		int rc = f->opt->fn(f->opt->user, &f->fn_task, why, sizeof why);
		pthread_mutex_lock(&f->fn_mu);
		f->fn_rc = rc;
		memcpy(f->fn_why, why, sizeof why);
		__atomic_store_n(&f->fn_done, 1, __ATOMIC_RELEASE);
		pthread_cond_broadcast(&f->fn_cv);
		uint64_t one = 1;
		if (write(f->fn_evfd, &one, sizeof one) < 0) {
			/* a full counter: it has been written already */
		}
	}
	pthread_mutex_unlock(&f->fn_mu);
	return NULL;
}

/* Waits for the function's call under way to end (a run's end, an
 * attempt withdrawn: a thread is not killed) and forgets it. */
static void fn_wait(struct flow *f)
{
	if (!f->fn_busy)
		return;
	pthread_mutex_lock(&f->fn_mu);
	while (!__atomic_load_n(&f->fn_done, __ATOMIC_ACQUIRE))
		pthread_cond_wait(&f->fn_cv, &f->fn_mu);
	pthread_mutex_unlock(&f->fn_mu);
	uint64_t v;
	if (read(f->fn_evfd, &v, sizeof v) < 0) {
		/* nothing written: nothing to take */
	}
	f->fn_busy = f->fn_done = 0;
	for (uint32_t k = 0; k < f->fn_task.n_out; k++)
		unlink(f->fn_task.out[k]);
}

/* ---- reductions ------------------------------------------------------------------ */
/*
 * A reduction (the AME paper's reduce, locus_act_reduce) runs the reduced
 * task's own command at every node of the policy's tree: over the task's
 * inputs that node holds and the partial results its children sent, in
 * place of the task's full list of inputs. The command is rewritten for
 * that: its words naming inputs the node does not read are left out, a
 * partial result lies under the name of the input that keys it (one its
 * child reduced, absent here), and its output is the partial result. So
 * the command must take its inputs as a list of words (`sort -n a b c |
 * head -1 > min`, or WfCommons arguments) and accept its own output among
 * them, as the paper's reduce function must. The workflow's own inputs
 * (parameters) are given to every step.
 */

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Writes what task t's partial result keyed `key` covers (n input ids),
 * whole or not at all. 0, or -1. */
static int write_cover(const struct flow *f, uint32_t t, uint32_t key, const uint32_t *list,
		       uint32_t n)
{
	char p[PATH_MAX + 8], tmp[PATH_MAX + 16];
	partial_path(f, t, key, p, PATH_MAX);
	strcat(p, ".cov");
	fmt(tmp, sizeof tmp, "%s.%d", p, f->rank);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	size_t len = (size_t)n * sizeof *list, at = 0;
	while (at < len) {
		ssize_t k = write(fd, (const char *)list + at, len - at);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		at += (size_t)k;
	}
	if (close(fd) || at < len || rename(tmp, p)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* Appends what task t's partial result keyed `key` covers to *list. */
static int read_cover(const struct flow *f, uint32_t t, uint32_t key, uint32_t **list, size_t *n,
		      size_t *cap)
{
	char p[PATH_MAX + 8];
	partial_path(f, t, key, p, PATH_MAX);
	strcat(p, ".cov");
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) || st.st_size % (off_t)sizeof **list) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	size_t m = (size_t)st.st_size / sizeof **list;
	if (locus__grow(list, cap, *n + m, sizeof **list)) {
		close(fd);
		return -1;
	}
	size_t len = m * sizeof **list, at = 0;
	while (at < len) {
		ssize_t k = pread(fd, (char *)(*list + *n) + at, len - at, (off_t)at);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		at += (size_t)k;
	}
	close(fd);
	if (at < len)
		return -1;
	*n += m;
	return 0;
}

/* How task t's reduction here treats each of its inputs, into keep[]:
 * the workflow's own inputs as themselves; a produced one as itself when
 * this node reduces it (a step: `own`, the policy's list; the task's own
 * run, own NULL: when no partial result here covers it), as the partial
 * result it keys when one lies here, else not at all. *cover gets the
 * inputs this node's result stands for (a step's: own and its partial
 * results'). Returns how many partial results lie here, or -1. */
static int reduce_inputs(struct flow *f, uint32_t t, const uint32_t *own, uint32_t n_own,
			 uint8_t *keep, uint32_t **cover, uint32_t *n_cover)
{
	const struct locus_task *tk = &f->g->tasks[t];
	uint32_t *cv = NULL, *mine = NULL;
	size_t n = 0, cap = 0;
	int found = 0;
	char p[PATH_MAX];
	if (n_own) {
		mine = malloc(n_own * sizeof *mine);
		if (!mine)
			return -1;
		memcpy(mine, own, n_own * sizeof *mine);
		qsort(mine, n_own, sizeof *mine, u32_cmp);
	}
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = f->g->inputs[tk->in_at + k];
		keep[k] = R_OUT;
		if (f->g->objects[o].producer == LOCUS_NONE ||
		    (mine && bsearch(&o, mine, n_own, sizeof *mine, u32_cmp))) {
			keep[k] = R_SELF;
			continue;
		}
		partial_path(f, t, o, p, sizeof p);
		if (access(p, F_OK))
			continue;
		keep[k] = R_PARTIAL;
		found++;
		if (read_cover(f, t, o, &cv, &n, &cap))
			goto fail;
	}
	if (own) {
		if (locus__grow(&cv, &cap, n + n_own, sizeof *cv))
			goto fail;
		memcpy(cv + n, own, n_own * sizeof *cv);
		n += n_own;
	} else if (found) {
		/* The task's own run: what no partial result covers is its. */
		qsort(cv, n, sizeof *cv, u32_cmp);
		for (uint32_t k = 0; k < tk->n_in; k++) {
			uint32_t o = f->g->inputs[tk->in_at + k];
			if (keep[k] == R_OUT && !bsearch(&o, cv, n, sizeof *cv, u32_cmp))
				keep[k] = R_SELF;
		}
	}
	free(mine);
	*cover = cv;
	*n_cover = (uint32_t)n;
	return found;
fail:
	free(mine);
	free(cv);
	return -1;
}

/* The input of task t to be left out (keep[] R_OUT) that the word w
 * (len bytes) names, or NONE. */
static uint32_t left_out(const struct flow *f, uint32_t t, const uint8_t *keep, const char *w,
			 size_t len)
{
	const struct locus_task *tk = &f->g->tasks[t];
	for (uint32_t k = 0; k < tk->n_in; k++) {
		const char *nm = in_name(f, t, k);
		if (keep[k] == R_OUT && strlen(nm) == len && !memcmp(nm, w, len))
			return k;
	}
	return NONE;
}

/* Task t's command for a reduction: its words (WfCommons arguments, or
 * the unquoted blank-separated words of a Makeflow line) that name an
 * input keep[] leaves out are left out, the rest kept as they are. *line
 * (when line is not NULL: a Makeflow line) or *argv gets a malloc'ed
 * command. -1, saying why, when an input to leave out is no whole word
 * of the command: then it cannot run over part of its inputs. */
static int reduce_command(const struct flow *f, uint32_t t, const uint8_t *keep, char **line,
			  char ***argv, char *why, size_t size)
{
	const struct locus_task *tk = &f->g->tasks[t];
	const struct locus_command *c = &f->g->commands[t];
	uint32_t *hits = calloc(tk->n_in ? tk->n_in : 1, sizeof *hits);
	if (!hits) {
		fmt(why, size, "out of memory");
		return -1;
	}
	if (line) {
		const char *l = c->line;
		size_t len = strlen(l), w = 0;
		char *out = malloc(len + 1), q = 0;
		if (!out) {
			free(hits);
			fmt(why, size, "out of memory");
			return -1;
		}
		for (size_t i = 0; i < len;) {
			char ch = l[i];
			if (q) {
				/* Inside quotes: copied; "..." keeps \" inside. */
				out[w++] = ch;
				if (ch == q)
					q = 0;
				else if (q == '"' && ch == '\\' && i + 1 < len)
					out[w++] = l[++i];
				i++;
				continue;
			}
			if (ch == '\'' || ch == '"' || ch == '\\') {
				q = ch == '\\' ? 0 : ch;
				out[w++] = ch;
				if (ch == '\\' && i + 1 < len)
					out[w++] = l[++i];
				i++;
				continue;
			}
			if (ch == ' ' || ch == '\t') {
				out[w++] = ch;
				i++;
				continue;
			}
			size_t j = i;
			while (j < len && !strchr(" \t'\"\\", l[j]))
				j++;
			/* A whole word: blanks (or the line's ends) on both sides. */
			int whole = (i == 0 || l[i - 1] == ' ' || l[i - 1] == '\t') &&
				    (j == len || l[j] == ' ' || l[j] == '\t');
			uint32_t k = whole ? left_out(f, t, keep, l + i, j - i) : NONE;
			if (k != NONE) {
				hits[k]++;
				if (w && (out[w - 1] == ' ' || out[w - 1] == '\t'))
					w--;
			} else {
				memcpy(out + w, l + i, j - i);
				w += j - i;
			}
			i = j;
		}
		out[w] = 0;
		*line = out;
	} else {
		char **av = calloc(c->argc + 1, sizeof *av);
		if (!av) {
			free(hits);
			fmt(why, size, "out of memory");
			return -1;
		}
		uint32_t m = 0;
		for (uint32_t i = 0; i < c->argc; i++) {
			uint32_t k = left_out(f, t, keep, c->argv[i], strlen(c->argv[i]));
			if (k != NONE && i)
				hits[k]++;
			else
				av[m++] = (char *)c->argv[i];
		}
		av[m] = NULL;
		*argv = av;
	}
	for (uint32_t k = 0; k < tk->n_in; k++)
		if (keep[k] == R_OUT && !hits[k]) {
			fmt(why, size,
			    "its command does not name its input %s as a word of its own, so it "
			    "cannot run over part of its inputs as a reduce stage's must",
			    in_name(f, t, k));
			free(hits);
			if (line) {
				free(*line);
				*line = NULL;
			} else {
				free(*argv);
				*argv = NULL;
			}
			return -1;
		}
	free(hits);
	return 0;
}

static int standin_output(struct flow *f, const char *path, uint64_t bytes);
static void stderr_tail_of(const char *work, char *why, size_t size);

/* The policy asks node a->from to reduce (a reduction step): a rank of
 * that node runs it. */
static void start_reduce(struct flow *f, uint32_t proc, const struct locus__action *a,
			 const uint32_t *own)
{
	int bad = !own || a->task >= f->g->n_tasks || a->from >= f->K || a->to >= f->K ||
		  a->from == a->to;
	for (uint32_t i = 0; i < a->r_n && !bad; i++)
		bad = own[i] >= f->g->n_objects;
	if (bad) {
		local_fail(f, LOCUS_EINCOMPLETE,
			   "policy %s asked for a reduction step of task %" PRIu32
			   " from node %" PRIu32 " to node %" PRIu32 ": no such task or nodes",
			   f->pol->name, a->task, a->from, a->to);
		return;
	}
	size_t len = sizeof(struct reducereq) + a->r_n * sizeof(uint32_t);
	struct reducereq *q = malloc(len);
	if (!q) {
		local_fail(f, LOCUS_ENOMEM, "out of memory");
		return;
	}
	*q = (struct reducereq){.id = f->next_id++,
				.tag = a->tag,
				.req_rank = f->rank,
				.req_proc = proc,
				.from = a->from,
				.to = a->to,
				.task = a->task,
				.n = a->r_n};
	memcpy(q + 1, own, a->r_n * sizeof *own);
	post(f, rank_of_node(f, a->from, own[0]), F_REDUCE, q, len);
}

static void reduce_over(struct flow *f, struct rstep *r, const char *failed);

/* This rank runs a reduction step for its node. */
static void take_reduce(struct flow *f, const struct reducereq *q, const uint32_t *own)
{
	char why[WHY_MAX], nb[64];
	if (q->task >= f->g->n_tasks || !q->n || q->from != f->node || f->worker == NONE) {
		local_fail(f, LOCUS_EINCOMPLETE,
			   "a reduction step of task %" PRIu32 " reached rank %d", q->task,
			   f->rank);
		return;
	}
	uint32_t t = q->task;
	const struct locus_task *tk = &f->g->tasks[t];
	if (tk->n_out != 1) {
		local_fail(f, LOCUS_EINVAL,
			   "task %s is in a reduce stage but writes %" PRIu32
			   " files: a reduction's result is one file",
			   task_name(f, t, nb, sizeof nb), tk->n_out);
		return;
	}
	/* The files are asked of the node, not of this rank's view of
	 * where files are: another rank of the node that made one may not
	 * have told this one yet. */
	char p[PATH_MAX];
	for (uint32_t i = 0; i < q->n; i++)
		if (own[i] >= f->g->n_objects ||
		    (store_path(f, own[i], p, sizeof p), access(p, F_OK))) {
			local_fail(f, LOCUS_EINCOMPLETE,
				   "the reduction of task %s's inputs: node %s does not hold %s",
				   task_name(f, t, nb, sizeof nb), f->plat->nodes[f->node].name,
				   own[i] < f->g->n_objects ? obj_name(f, own[i]) : "?");
			return;
		}
	size_t i = 0;
	while (i < f->n_rsteps && f->rsteps[i].used)
		i++;
	if (i == f->n_rsteps) {
		size_t cap = f->n_rsteps;
		if (locus__grow(&f->rsteps, &cap, f->n_rsteps + 1, sizeof *f->rsteps)) {
			local_fail(f, LOCUS_ENOMEM, "out of memory");
			return;
		}
		f->n_rsteps++;
	}
	struct rstep *r = &f->rsteps[i];
	*r = (struct rstep){.id = q->id,
			    .tag = q->tag,
			    .req_rank = q->req_rank,
			    .used = 1,
			    .req_proc = q->req_proc,
			    .to = q->to,
			    .task = t,
			    .key = own[0]};
	r->keep = malloc(tk->n_in ? tk->n_in : 1);
	if (!r->keep || reduce_inputs(f, t, own, q->n, r->keep, &r->cover, &r->n_cover) < 0) {
		reduce_over(f, r, "its partial results cannot be read");
		return;
	}
	fmt(r->work, sizeof r->work, "%s/work/r%" PRIu32 ".%" PRIu32, f->node_dir, t, r->key);
	locus__rmtree(r->work);
	struct locus_error e = {0};
	if (locus__mkdirs(r->work, &e)) {
		fmt(why, sizeof why, "cannot make its working directory: %s", e.message);
		reduce_over(f, r, why);
		return;
	}
	if (link_inputs(f, t, r->work, r->keep, 0, why, sizeof why) ||
	    output_dirs(f, t, r->work, why, sizeof why)) {
		reduce_over(f, r, why);
		return;
	}
	const struct locus_command *c = f->g->commands ? &f->g->commands[t] : NULL;
	if (f->opt->stand_in > 0 || !c || (!c->line && !c->argv)) {
		/* A stand-in's (or a task without a command's) result: its
		 * output's recorded size. */
		char out[PATH_MAX * 2];
		fmt(out, sizeof out, "%s/%s", r->work, out_name(f, t, 0));
		if (standin_output(f, out, f->g->objects[f->g->outputs[tk->out_at]].bytes)) {
			fmt(why, sizeof why, "cannot write %s: %s", out, strerror(errno));
			reduce_over(f, r, why);
			return;
		}
		reduce_over(f, r, NULL);
		return;
	}
	char *line = NULL, **argv = NULL;
	if (reduce_command(f, t, r->keep, c->line ? &line : NULL, &argv, why, sizeof why)) {
		reduce_over(f, r, why);
		return;
	}
	char errp[PATH_MAX + 8];
	fmt(errp, sizeof errp, "%s.err", r->work);
	int rc = spawn_in(f, c, line, argv, r->work, errp, &r->pid);
	free(line);
	free(argv);
	if (rc) {
		r->pid = 0;
		fmt(why, sizeof why, "cannot start its command: %s", strerror(rc));
		reduce_over(f, r, why);
	}
}

/* Step r ended (failed: why, else NULL): its result goes to the next
 * node up, which tells the policy; or the run ends saying why. */
static void reduce_over(struct flow *f, struct rstep *r, const char *failed)
{
	char why[WHY_MAX], nb[64], out[PATH_MAX * 2], dst[PATH_MAX];
	uint32_t t = r->task;
	const struct locus_task *tk = &f->g->tasks[t];
	why[0] = 0;
	if (failed) {
		fmt(why, sizeof why, "%s", failed);
	} else {
		struct stat st;
		fmt(out, sizeof out, "%s/%s", r->work, out_name(f, t, 0));
		partial_path(f, t, r->key, dst, sizeof dst);
		uint64_t bytes = 0;
		if (stat(out, &st) || !S_ISREG(st.st_mode))
			fmt(why, sizeof why, "its command did not write %s", out_name(f, t, 0));
		else if ((!lstat(out, &st) && S_ISLNK(st.st_mode))
			     ? copy_file(out, dst, &bytes, f->rank)
			     : rename(out, dst))
			fmt(why, sizeof why, "cannot keep its result: %s", strerror(errno));
	}
	if (why[0]) {
		if (r->work[0])
			stderr_tail_of(r->work, why, sizeof why);
		local_fail(f, LOCUS_EINCOMPLETE,
			   "the reduction of task %s's inputs on node %s failed: %s",
			   task_name(f, t, nb, sizeof nb), f->plat->nodes[f->node].name, why);
	} else {
		/* The partial results it used are spent. */
		for (uint32_t k = 0; k < tk->n_in; k++)
			if (r->keep[k] == R_PARTIAL)
				partial_gone(f, t, f->g->inputs[tk->in_at + k]);
		size_t len = sizeof(struct copyreq) + (1 + (size_t)r->n_cover) * sizeof(uint32_t);
		struct copyreq *q = malloc(len);
		if (!q) {
			local_fail(f, LOCUS_ENOMEM, "out of memory");
		} else {
			*q = (struct copyreq){.id = r->id,
					      .tag = r->tag,
					      .req_proc = r->req_proc,
					      .from = f->node,
					      .to = r->to,
					      .n = 1 + r->n_cover,
					      .task = t,
					      .flags = CP_PARTIAL,
					      .req_rank = r->req_rank};
			uint32_t *objs = (uint32_t *)(void *)(q + 1);
			objs[0] = r->key;
			memcpy(objs + 1, r->cover, r->n_cover * sizeof *objs);
			post(f, rank_of_node(f, r->to, r->key), F_COPY, q, len);
		}
	}
	if (r->work[0] && !f->opt->keep) {
		char errp[PATH_MAX + 8];
		fmt(errp, sizeof errp, "%s.err", r->work);
		unlink(errp);
		locus__rmtree(r->work);
	}
	free(r->keep);
	free(r->cover);
	*r = (struct rstep){0};
}

/* The reduction steps' commands that ended. */
static int reduce_poll(struct flow *f)
{
	int did = 0;
	for (size_t i = 0; i < f->n_rsteps && !f->failed; i++) {
		struct rstep *r = &f->rsteps[i];
		int st;
		if (!r->used || r->pid <= 0 || waitpid(r->pid, &st, WNOHANG) != r->pid)
			continue;
		r->pid = 0;
		did = 1;
		char why[WHY_MAX];
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			reduce_over(f, r, NULL);
			continue;
		}
		if (WIFEXITED(st))
			fmt(why, sizeof why, "its command exited with %d", WEXITSTATUS(st));
		else
			fmt(why, sizeof why, "its command was killed by signal %d", WTERMSIG(st));
		reduce_over(f, r, why);
	}
	return did;
}

/* Runs the current task: its function, its command, or its stand-in. */
static void launch(struct flow *f)
{
	char why[WHY_MAX];
	uint32_t t = f->cur;
	f->read_end = now_of(f);
	/* The inputs this node keeps must be as they were made; when one is
	 * not (lost: the round ends), the task goes back to gather it again
	 * from elsewhere, or wait for it at the head of the queue. */
	const struct locus_task *in = &f->g->tasks[t];
	int whole = 1;
	for (uint32_t k = 0; k < in->n_in; k++) {
		uint32_t o = f->g->inputs[in->in_at + k];
		if (locus_replicas_has(f->rep, o, f->node) && !intact(f, o)) {
			lost(f, o);
			whole = 0;
		}
	}
	if (!whole) {
		locus__exec_requeue(&f->x, f->worker, now_of(f));
		return;
	}
	if (f->opt->fn) {
		call_fn(f);
		return;
	}
	fmt(f->work, sizeof f->work, "%s/work/t%" PRIu32 ".%d", f->node_dir, t, f->attempt);
	locus__rmtree(f->work);
	struct locus_error e = {0};
	if (locus__mkdirs(f->work, &e)) {
		fmt(why, sizeof why, "cannot make its working directory: %s", e.message);
		attempt_failed(f, why);
		return;
	}
	if (link_inputs(f, t, f->work, f->r_keep, 1, why, sizeof why) ||
	    output_dirs(f, t, f->work, why, sizeof why)) {
		attempt_failed(f, why);
		return;
	}
	if (f->opt->stand_in > 0) {
		/* Reads every input whole, then sleeps its runtime. */
		const struct locus_task *tk = &f->g->tasks[t];
		static char buf[1 << 16];
		for (uint32_t k = 0; k < tk->n_in; k++) {
			if (f->r_keep && f->r_keep[k] == R_OUT)
				continue; /* a partial result here covers it */
			const char *as = in_name(f, t, k);
			char p[PATH_MAX * 2];
			fmt(p, sizeof p, "%s/%s", f->work, as);
			int fd = open(p, O_RDONLY | O_CLOEXEC);
			if (fd < 0) {
				fmt(why, sizeof why, "cannot read %s: %s", as, strerror(errno));
				attempt_failed(f, why);
				return;
			}
			while (read(fd, buf, sizeof buf) > 0)
				;
			close(fd);
		}
		f->standin = 1;
		f->standin_end = now_of(f) + tk->work * f->opt->stand_in;
		return;
	}
	const struct locus_command *c = f->g->commands ? &f->g->commands[t] : NULL;
	if (!c || (!c->line && !c->argv)) {
		/* Nothing to run: its outputs must be there already (none). */
		f->pid = 0;
		f->standin = 1;
		f->standin_end = now_of(f);
		return;
	}
	char *line = NULL, **argv = NULL;
	if (f->r_keep &&
	    reduce_command(f, t, f->r_keep, c->line ? &line : NULL, &argv, why, sizeof why)) {
		attempt_failed(f, why);
		return;
	}
	char errp[PATH_MAX + 8];
	fmt(errp, sizeof errp, "%s.err", f->work);
	pid_t pid;
	int rc = spawn_in(f, c, line, argv, f->work, errp, &pid);
	free(line);
	free(argv);
	if (rc == ENOMEM) {
		local_fail(f, LOCUS_ENOMEM, "out of memory");
		return;
	}
	if (rc) {
		fmt(why, sizeof why, "cannot start its command: %s", strerror(rc));
		attempt_failed(f, why);
		return;
	}
	f->pid = pid;
}

/* The last lines of the attempt's stderr, quoted in `why`. */
static void stderr_tail_of(const char *work, char *why, size_t size);
static void stderr_tail(const struct flow *f, char *why, size_t size)
{
	if (f->work[0]) /* a function's has no stderr of its own */
		stderr_tail_of(f->work, why, size);
}

/* The last lines of the stderr of the command run in `work`. */
static void stderr_tail_of(const char *work, char *why, size_t size)
{
	char errp[PATH_MAX + 8];
	fmt(errp, sizeof errp, "%s.err", work);
	int fd = open(errp, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	struct stat st;
	char buf[512];
	ssize_t n = 0;
	if (!fstat(fd, &st)) {
		off_t at =
		    st.st_size > (off_t)sizeof buf - 1 ? st.st_size - (off_t)sizeof buf + 1 : 0;
		n = pread(fd, buf, sizeof buf - 1, at);
	}
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	size_t len = strlen(why);
	fmt(why + len, size - len, "; its stderr ends: %s", buf);
}

/* The attempt is over: its working directory goes. */
static void end_attempt(struct flow *f)
{
	free(f->r_keep);
	f->r_keep = NULL;
	if (!f->opt->keep && f->work[0]) {
		char errp[PATH_MAX + 8];
		fmt(errp, sizeof errp, "%s.err", f->work);
		unlink(errp);
		locus__rmtree(f->work);
	}
	f->work[0] = 0;
}

/* Writes stand-in output o of the recorded size into the working dir. */
static int standin_output(struct flow *f, const char *path, uint64_t bytes)
{
	if (parent_dirs(path))
		return -1;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	static char zeros[1 << 16];
	int rc = 0;
	for (uint64_t left = bytes; left && !rc;) {
		size_t n = left < sizeof zeros ? (size_t)left : sizeof zeros;
		ssize_t k = write(fd, zeros, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			rc = -1;
		else
			left -= (uint64_t)k;
	}
	if (close(fd))
		rc = -1;
	return rc;
}

/* The attempt failed: the executor decides (again, elsewhere, or the end). */
static void attempt_failed(struct flow *f, const char *why)
{
	locus__exec_failed(&f->x, f->worker, LOCUS_FAIL_ERROR, why, now_of(f));
}

/* The command (or function, or stand-in) succeeded: every output must be
 * there; then the executor places them as the assignment says. */
static void task_computed(struct flow *f)
{
	uint32_t t = f->cur;
	const struct locus_task *tk = &f->g->tasks[t];
	char why[WHY_MAX], src[PATH_MAX * 2];
	f->compute_end = now_of(f);
	for (uint32_t k = 0; k < tk->n_out; k++) {
		uint32_t o = f->g->outputs[tk->out_at + k];
		const char *as = out_name(f, t, k);
		out_path(f, k, src, sizeof src);
		if (f->opt->stand_in > 0 && standin_output(f, src, f->g->objects[o].bytes)) {
			fmt(why, sizeof why, "cannot write %s: %s", as, strerror(errno));
			attempt_failed(f, why);
			return;
		}
		struct stat st;
		if (stat(src, &st) || !S_ISREG(st.st_mode)) {
			fmt(why, sizeof why, "its %s did not write %s",
			    f->opt->fn ? "function" : "command", as);
			stderr_tail(f, why, sizeof why);
			attempt_failed(f, why);
			return;
		}
		f->obj_bytes[o] = (uint64_t)st.st_size;
	}
	locus__exec_computed(&f->x, f->worker, f->compute_end);
}

/* The worker's turn: has its command (function, stand-in) ended? */
static int worker_step(struct flow *f)
{
	if (f->fn_busy && __atomic_load_n(&f->fn_done, __ATOMIC_ACQUIRE)) {
		uint64_t v;
		if (read(f->fn_evfd, &v, sizeof v) < 0) {
			/* taken already */
		}
		f->fn_busy = f->fn_done = 0;
		fn_over(f);
		return 1;
	}
	if (f->cur == NONE)
		return 0;
	if (f->pid > 0) {
		int st;
		if (waitpid(f->pid, &st, WNOHANG) != f->pid)
			return 0;
		f->pid = 0;
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			task_computed(f);
			return 1;
		}
		char why[WHY_MAX];
		if (WIFEXITED(st))
			fmt(why, sizeof why, "its command exited with %d", WEXITSTATUS(st));
		else
			fmt(why, sizeof why, "its command was killed by signal %d", WTERMSIG(st));
		stderr_tail(f, why, sizeof why);
		attempt_failed(f, why);
		return 1;
	}
	if (f->standin && now_of(f) >= f->standin_end) {
		f->standin = 0;
		task_computed(f);
		return 1;
	}
	return 0;
}

/* ---- rank 0: outcomes --------------------------------------------------------------- */

static void take_report(struct flow *f, const struct rec *r)
{
	if (r->task >= f->g->n_tasks)
		return;
	if (f->done[r->task]) {
		char nb[64];
		local_fail(f, LOCUS_EINCOMPLETE, "task %s ran twice (policy %s)",
			   task_name(f, r->task, nb, sizeof nb), f->pol->name);
		return;
	}
	f->done[r->task] = 1;
	f->recs[r->task] = *r;
	/* What a later round needs: the task is done, its files where they
	 * were kept. */
	struct state *st = f->st;
	const struct locus_task *tk = &f->g->tasks[r->task];
	const struct outrec *orec = (const struct outrec *)(const void *)(r + 1);
	st->claimed[f->task_full ? f->task_full[r->task] : r->task] = 1;
	st->work[f->task_full ? f->task_full[r->task] : r->task] = r->compute_end - r->read_end;
	for (uint32_t k = 0; k < tk->n_out && k < r->n_out; k++) {
		uint32_t o = f->g->outputs[tk->out_at + k], full = f->obj_full ? f->obj_full[o] : o;
		st->place[full] = orec[k].where & 2   ? -2
				  : orec[k].where & 1 ? (int32_t)r->node
						      : -1;
		st->bytes[full] = orec[k].bytes;
		st->sum[full] = orec[k].sum;
	}
	journal_task(f, r);
	f->n_done++;
	if (f->opt->progress && (f->n_done >= f->next_progress || f->n_done == f->g->n_tasks)) {
		f->opt->progress(f->opt->progress_user, f->n_done, f->g->n_tasks, now_of(f));
		f->next_progress = f->n_done + (f->g->n_tasks + 99) / 100;
	}
	if (f->n_done == f->g->n_tasks)
		finish(f, 0, NULL);
}

/* ---- the loop --------------------------------------------------------------------- */

/* Message `tag` of n bytes from rank src. Returns 0 when it was replica
 * updates alone. */
static int handle(struct flow *f, int src, int tag, const char *buf, size_t n)
{
	int quiet = f->failed || f->finishing, work = tag != F_REPL;
	switch (tag) {
	case F_POLICY:
		if (!quiet && n == sizeof(struct fwire))
			take_message(f, (const struct fwire *)(const void *)buf);
		break;
	case F_REPL:
		apply_updates(f, (const struct repl *)(const void *)buf, n / sizeof(struct repl));
		break;
	case F_COPY: {
		const struct copyreq *q = (const void *)buf;
		if (!quiet && n >= sizeof *q && n == sizeof *q + q->n * sizeof(uint32_t))
			take_copy(f, src, q, (const uint32_t *)(const void *)(q + 1));
		break;
	}
	case F_COPIED: {
		const struct copied *c = (const void *)buf;
		if (!quiet && n == sizeof *c) {
			struct locus_event ev = {.kind = LOCUS_EV_TRANSFER,
						 .proc = c->req_proc,
						 .transfer = {.object = c->first,
							      .from = c->from,
							      .to = c->to,
							      .ok = c->ok,
							      .tag = c->tag,
							      .n = c->n}};
			deliver(f, &ev);
		}
		break;
	}
	case F_FETCH:
		if (!quiet && n == sizeof(struct fetchreq))
			take_fetch(f, src, (const struct fetchreq *)(const void *)buf);
		break;
	case F_HEAD:
		if (!quiet && n == sizeof(struct head))
			take_head(f, (const struct head *)(const void *)buf);
		break;
	case F_DATA:
		if (!quiet && n >= sizeof(struct piece))
			take_piece(f, (const struct piece *)(const void *)buf,
				   buf + sizeof(struct piece), n - sizeof(struct piece));
		break;
	case F_DROP: {
		const struct repl *d = (const void *)buf;
		if (!quiet && n == sizeof *d && d->object < f->g->n_objects)
			drop_here(f, d->object);
		break;
	}
	case F_REPORT: {
		const struct rec *r = (const void *)buf;
		if (!quiet && f->rank == 0 && n >= sizeof *r &&
		    n == sizeof *r + r->n_out * sizeof(struct outrec))
			take_report(f, r);
		break;
	}
	case F_ERROR:
		if (f->rank == 0 && n == sizeof(struct endmsg)) {
			const struct endmsg *m = (const void *)buf;
			finish(f, m->code, m->message);
		}
		break;
	case F_FINISH:
		if (n == sizeof(struct endmsg)) {
			const struct endmsg *m = (const void *)buf;
			f->finishing = 1;
			f->end_code = m->code;
			fmt(f->end_msg, sizeof f->end_msg, "%s", m->message);
		}
		break;
	case F_LOST: {
		const struct repl *l = (const void *)buf;
		if (f->rank == 0 && n == sizeof *l && l->object < f->g->n_objects &&
		    l->place < f->plat->n_nodes && !f->finishing) {
			char msg[sizeof f->end_msg];
			fmt(msg, sizeof msg,
			    "file %s was lost from node %s (gone, or not as it was made)",
			    obj_name(f, l->object), f->plat->nodes[l->place].name);
			f->st->lost++;
			finish(f, ROUND_AGAIN, msg);
		}
		break;
	}
	case F_RETRY: {
		const struct retry *q = (const void *)buf;
		if (!quiet && n == sizeof *q && f->worker != NONE && q->task < f->g->n_tasks &&
		    q->home < f->n_workers)
			locus__exec_retry_here(&f->x, f->worker, q->task, q->attempt, q->home,
					       now_of(f));
		break;
	}
	case F_RETRIED: {
		const struct retried *r = (const void *)buf;
		if (quiet || n != sizeof *r || f->worker == NONE || r->task >= f->g->n_tasks ||
		    r->worker >= f->n_workers || r->node >= f->plat->n_nodes)
			break;
		f->ran[r->task] =
		    (struct ran){r->node, r->worker, r->start, r->read_end, r->compute_end};
		char why[WHY_MAX];
		fmt(why, sizeof why, "%.*s", (int)sizeof r->why, r->why);
		locus__exec_came_back(&f->x, f->worker, r->task, r->attempt, r->worker, r->ok, why,
				      now_of(f));
		break;
	}
	case F_CANCEL: {
		const struct retry *q = (const void *)buf;
		if (!quiet && n == sizeof *q && q->task < f->g->n_tasks)
			locus__exec_cancel(&f->x, q->task, now_of(f));
		break;
	}
	case F_ATTEMPT: {
		const struct retry *q = (const void *)buf;
		if (n == sizeof *q && q->task < f->g->n_tasks &&
		    q->attempt > f->x.tattempt[q->task])
			f->x.tattempt[q->task] = q->attempt;
		break;
	}
	case F_REDUCE: {
		const struct reducereq *q = (const void *)buf;
		if (!quiet && n >= sizeof *q && n == sizeof *q + q->n * sizeof(uint32_t))
			take_reduce(f, q, (const uint32_t *)(const void *)(q + 1));
		break;
	}
	case F_BATCH:
		work = 0;
		for (size_t at = 0; at + sizeof(struct bhead) <= n;) {
			const struct bhead *h = (const void *)(buf + at);
			at += sizeof *h;
			if (h->tag == F_BATCH || h->len > n - at)
				break;
			work |= handle(f, src, (int)h->tag, buf + at, h->len);
			at += h->len + (8 - h->len % 8) % 8;
		}
		break;
	}
	return work;
}

static int receive(struct flow *f)
{
	int did = 0;
	for (int k = 0; k < RECV_MAX; k++) {
		int flag = 0;
		MPI_Status st;
		MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, f->comm, &flag, &st);
		if (!flag)
			break;
		int count = 0;
		MPI_Get_count(&st, MPI_BYTE, &count);
		if ((size_t)count > f->rcap) {
			char *b = realloc(f->rbuf, (size_t)count);
			if (!b) {
				local_fail(f, LOCUS_ENOMEM, "out of memory");
				return did;
			}
			f->rbuf = b;
			f->rcap = (size_t)count;
		}
		MPI_Recv(f->rbuf, count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, f->comm,
			 MPI_STATUS_IGNORE);
		f->recvd[st.MPI_SOURCE]++;
		/* Replica updates alone give this rank nothing to do (when
		 * they do, its worker's turn says so): it sleeps on. */
		did |= handle(f, st.MPI_SOURCE, st.MPI_TAG, f->rbuf, (size_t)count);
	}
	return did;
}

static int timer_cmp(const void *a, const void *b)
{
	const struct timer *x = a, *y = b;
	if (x->due != y->due)
		return x->due < y->due ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int fire_timer(struct flow *f)
{
	const struct timer *top = locus_heap_peek(&f->timers);
	if (!top || top->due > now_of(f))
		return 0;
	struct timer t;
	locus_heap_pop(&f->timers, &t);
	struct locus_event ev = {.kind = LOCUS_EV_TIMER, .proc = t.proc, .tag = t.tag};
	deliver(f, &ev);
	return 1;
}

static int local_messages(struct flow *f)
{
	int did = 0;
	while (f->in_len && !f->failed && !f->finishing) {
		struct fwire w = f->inbox[f->in_head++];
		f->in_len--;
		if (!f->in_len)
			f->in_head = 0;
		take_message(f, &w);
		did = 1;
	}
	return did;
}

/* Whether bytes are moving through this rank: sends in flight, or
 * files coming in. MPI moves a large message only while both ends call
 * into it, so such a rank never sleeps. */
static int moving(const struct flow *f)
{
	if (f->n_out)
		return 1;
	for (size_t p = 0; p < f->n_pulls; p++)
		if (f->pulls[p].used)
			return 1;
	return 0;
}

/* ---- the doorbell ------------------------------------------------------------------ */

/* An idle rank sleeps until a message comes. MPI offers nothing to wait
 * on, so a rank that sends another a message also sends it a byte on a
 * datagram socket the other sleeps on, named by the run, the round's
 * nonce (two runs resuming one journal share the run's name) and the rank
 * in Linux's abstract namespace (nothing on disk; gone with the process).
 * Only when the other sleeps: the ranks of a machine share a flag each
 * (an MPI shared-memory window), set by a rank before it looks for
 * messages a last time and sleeps, cleared by the one ringing it (a
 * system call a message would cost task functions a fifth of their
 * rate). A rank on another machine has no doorbell here: its messages
 * are seen when the sleep ends (max_idle_sleep). Doorbells are used
 * when every rank has one (f->asleep), else none is. */
static socklen_t bell_name(const struct flow *f, int rank, struct sockaddr_un *a)
{
	memset(a, 0, sizeof *a);
	a->sun_family = AF_UNIX;
	int n = snprintf(a->sun_path + 1, sizeof a->sun_path - 1, "locus-flow/%s/%" PRIx64 "/%d",
			 f->st->job, f->nonce, rank);
	if (n < 0 || (size_t)n >= sizeof a->sun_path - 1)
		return 0;
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

/* The doorbells and the flags, collectively: all or none (then every rank
 * sleeps as it did before them). */
static void bell_open(struct flow *f)
{
	struct sockaddr_un a;
	socklen_t len = bell_name(f, f->rank, &a);
	f->bell = len ? socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0) : -1;
	if (f->bell >= 0 && bind(f->bell, (const struct sockaddr *)&a, len)) {
		close(f->bell);
		f->bell = -1;
	}
	int hs = 0;
	MPI_Comm_split_type(f->comm, MPI_COMM_TYPE_SHARED, f->rank, MPI_INFO_NULL, &f->host);
	MPI_Comm_size(f->host, &hs);
	int *in = malloc((size_t)hs * sizeof *in), *out = malloc((size_t)hs * sizeof *out);
	f->asleep = calloc((size_t)f->size, sizeof *f->asleep);
	int ok = f->bell >= 0 && in && out && f->asleep, all = 0;
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, f->comm);
	if (all) {
		int *mine = NULL;
		MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, f->host, &mine, &f->bell_win);
		*mine = 0;
		MPI_Group hg, wg;
		MPI_Comm_group(f->host, &hg);
		MPI_Comm_group(f->comm, &wg);
		for (int i = 0; i < hs; i++)
			in[i] = i;
		MPI_Group_translate_ranks(hg, hs, in, wg, out);
		for (int i = 0; i < hs; i++) {
			MPI_Aint size = 0;
			int unit = 0;
			int *p = NULL;
			MPI_Win_shared_query(f->bell_win, i, &size, &unit, &p);
			if (out[i] >= 0 && out[i] < f->size)
				f->asleep[out[i]] = p;
		}
		MPI_Group_free(&hg);
		MPI_Group_free(&wg);
	} else {
		free(f->asleep);
		f->asleep = NULL;
		if (f->bell >= 0)
			close(f->bell);
		f->bell = -1;
	}
	free(in);
	free(out);
}

/* Rings dest if it sleeps: after the message (posted, or complete), the
 * flag; one ringer a sleep. */
static void bell_ring(struct flow *f, int dest)
{
	int *p = f->asleep && dest != f->rank ? f->asleep[dest] : NULL;
	if (!p)
		return;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_load_n(p, __ATOMIC_RELAXED) || !__atomic_exchange_n(p, 0, __ATOMIC_SEQ_CST))
		return;
	struct sockaddr_un a;
	socklen_t len = bell_name(f, dest, &a);
	/* A full queue has rung already. */
	sendto(f->bell, "", 1, MSG_DONTWAIT, (const struct sockaddr *)&a, len);
}

/* Takes the rings that came: their messages are the loop's to find. */
static void bell_drain(struct flow *f)
{
	char b[64];
	while (recv(f->bell, b, sizeof b, MSG_DONTWAIT) > 0)
		;
}

/* Collective: every rank that opened calls it. */
static void bell_close(struct flow *f)
{
	if (f->bell >= 0)
		close(f->bell);
	f->bell = -1;
	free(f->asleep);
	f->asleep = NULL;
	if (f->bell_win != MPI_WIN_NULL)
		MPI_Win_free(&f->bell_win);
	if (f->host != MPI_COMM_NULL)
		MPI_Comm_free(&f->host);
}

/* Idle turns of the loop: the first SPIN_TURNS spin (a reply to a
 * message just sent often comes within them), then the rank sleeps until
 * a ring, its command's end, or max_idle_sleep. A rank whose idle spells
 * have been short (QUICK_WAIT on average: task functions answering each
 * other) yields SPIN_TURNS turns more first: waking takes longer. While
 * bytes move it only yields (MPI moves them only while both ends call
 * into it). A worker whose command runs sleeps at once: spinning would
 * take the core the command needs. Without a doorbell the sleep is cut
 * short: it yields SPIN_TURNS turns more, then sleeps 20 us, doubling to
 * max_idle_sleep. */
#define SPIN_TURNS 200
#define QUICK_WAIT 300e-6
static void idle_wait(struct flow *f, unsigned *idle)
{
	unsigned n = (*idle)++;
	int cmd = f->pid > 0;
	/* A task function running on its thread: the rank sleeps at once,
	 * and wakes when the call ends. */
	int fn = f->fn_busy;
	if (fn && __atomic_load_n(&f->fn_done, __ATOMIC_ACQUIRE))
		return;
	if (moving(f)) {
		/* A send MPI has not completed may wait for its
		 * destination to call into MPI: rung again now and then. */
		if (n % SPIN_TURNS == SPIN_TURNS - 1)
			for (size_t i = 0; i < f->n_out; i++)
				if (f->dests[i] >= 0 && (!i || f->dests[i] != f->dests[i - 1]))
					bell_ring(f, f->dests[i]);
		if (n >= SPIN_TURNS)
			sched_yield();
		return;
	}
	if (n < SPIN_TURNS && !cmd && !fn)
		return;
	if (n < 2 * SPIN_TURNS && !cmd && !fn && f->asleep && f->wait < QUICK_WAIT) {
		sched_yield();
		return;
	}
	/* While its command runs, the worker wakes when it exits. */
	if (cmd && f->pidfd_of != f->pid) {
		if (f->pidfd >= 0)
			close(f->pidfd);
		f->pidfd = (int)syscall(SYS_pidfd_open, f->pid, 0);
		f->pidfd_of = f->pid;
	}
	cmd &= f->pidfd >= 0;
	double max = f->opt->max_idle_sleep > 0 ? f->opt->max_idle_sleep : 1e-3;
	/* Not past the next timer, or a stand-in's end. */
	const struct timer *top = locus_heap_peek(&f->timers);
	double t = now_of(f);
	if (top && top->due - t < max)
		max = top->due > t ? top->due - t : 0;
	if (f->cur != NONE && f->standin && f->standin_end - t < max)
		max = f->standin_end > t ? f->standin_end - t : 0;
	/* A worker whose next task waits for its inputs learns that they
	 * were made from replica updates, which do not ring. */
	if (f->cur == NONE && f->worker != NONE && f->x.w[f->worker].head != NONE && max > 1e-3)
		max = 1e-3;
	double s = max;
	if (!f->asleep && !cmd && !fn) {
		if (n < 2 * SPIN_TURNS) {
			sched_yield();
			return;
		}
		unsigned k = n - 2 * SPIN_TURNS;
		s = 20e-6 * (double)(1u << (k < 10 ? k : 10));
		if (s > max)
			s = max;
	}
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	struct pollfd pfd[3];
	nfds_t np = 0;
	if (f->asleep)
		pfd[np++] = (struct pollfd){.fd = f->bell, .events = POLLIN};
	if (cmd)
		pfd[np++] = (struct pollfd){.fd = f->pidfd, .events = POLLIN};
	if (fn)
		pfd[np++] = (struct pollfd){.fd = f->fn_evfd, .events = POLLIN};
	if (!np) {
		nanosleep(&ts, NULL);
		return;
	}
	int *mine = f->asleep ? f->asleep[f->rank] : NULL;
	if (mine) {
		/* Asleep from now: a message sent before this is found here,
		 * one sent after rings. */
		int flag = 0;
		__atomic_store_n(mine, 1, __ATOMIC_SEQ_CST);
		MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, f->comm, &flag, MPI_STATUS_IGNORE);
		if (flag) {
			__atomic_store_n(mine, 0, __ATOMIC_SEQ_CST);
			return;
		}
	}
	if (ppoll(pfd, np, &ts, NULL) > 0 && mine && (pfd[0].revents & POLLIN)) {
		bell_drain(f);
		f->rings++;
	}
	if (mine)
		__atomic_store_n(mine, 0, __ATOMIC_SEQ_CST);
}

/* What this rank waits for (LOCUS_FLOW_DEBUG, on a cancel). */
static void dump(const struct flow *f)
{
	const struct locus__xworker *xw = f->worker != NONE ? &f->x.w[f->worker] : NULL;
	fprintf(stderr,
		"rank %d node %u worker %u: running %d reads_left %u pid %d, away %u, jobs %zu "
		"pulls %zu serves %zu\n",
		f->rank, f->node, f->worker, (int)f->cur, f->reads_left, (int)f->pid,
		xw ? xw->away : 0, f->n_jobs, f->n_pulls, f->n_serves);
	uint32_t t = xw ? xw->head : NONE;
	for (int i = 0; t != NONE && i < 3; i++, t = f->x.anext[t]) {
		const struct locus_task *tk = &f->g->tasks[t];
		fprintf(stderr, "  queued t%u gather %d missing %u:", t, f->x.tgather[t],
			f->x.tmissing[t]);
		for (uint32_t k = 0; k < tk->n_in; k++) {
			uint32_t o = f->g->inputs[tk->in_at + k];
			fprintf(stderr, " %s[here %d fs %d n %u]", obj_name(f, o),
				locus_replicas_has(f->rep, o, f->node), f->on_fs[o],
				locus_replicas_count(f->rep, o));
		}
		fprintf(stderr, "\n");
	}
	for (size_t j = 0; j < f->n_jobs; j++)
		if (f->jobs[j].used)
			fprintf(stderr, "  job %zu: %u objects from %u to %u, %u left\n", j,
				f->jobs[j].n, f->jobs[j].from, f->jobs[j].to, f->jobs[j].left);
	for (size_t p = 0; p < f->n_pulls; p++)
		if (f->pulls[p].used)
			fprintf(stderr, "  pull %zu: %s headed %d got %lu of %lu\n", p,
				obj_name(f, f->pulls[p].object), f->pulls[p].headed,
				(unsigned long)f->pulls[p].got, (unsigned long)f->pulls[p].length);
}

static void loop(struct flow *f)
{
	unsigned idle = 0;
	while (!f->finishing) {
		int did = receive(f);
		did |= local_messages(f);
		did |= fire_timer(f);
		did |= drain_fresh(f);
		if (f->worker != NONE && !f->failed)
			did |= worker_step(f) | reduce_poll(f);
		did |= serve_step(f);
		flush_updates(f);
		flush_batches(f);
		did |= outbox_progress(f);
		if (f->opt->cancel && *f->opt->cancel && !f->failed) {
			if (getenv("LOCUS_FLOW_DEBUG"))
				dump(f);
			local_fail(f, LOCUS_EINCOMPLETE, "cancelled (a signal)");
		}
		if (did) {
			if (idle)
				f->wait += (mono() - f->idle_since - f->wait) / 8;
			idle = 0;
		} else {
			if (!idle)
				f->idle_since = mono();
			idle_wait(f, &idle);
		}
	}
	/* Nothing runs on after the end. */
	if (f->pid > 0) {
		kill(f->pid, SIGKILL);
		waitpid(f->pid, NULL, 0);
		f->pid = 0;
	}
	fn_wait(f);
	for (size_t i = 0; i < f->n_rsteps; i++)
		if (f->rsteps[i].used && f->rsteps[i].pid > 0) {
			kill(f->rsteps[i].pid, SIGKILL);
			waitpid(f->rsteps[i].pid, NULL, 0);
			f->rsteps[i].pid = 0;
		}
	flush_updates(f);
	flush_batches(f);
	/* Every message sent is received before the ranks part. */
	uint64_t *expect = calloc((size_t)f->size, sizeof *expect);
	if (expect)
		MPI_Alltoall(f->sent, 1, MPI_UINT64_T, expect, 1, MPI_UINT64_T, f->comm);
	for (;;) {
		int all = 1;
		for (int r = 0; expect && r < f->size; r++)
			all &= f->recvd[r] >= expect[r];
		if (all || !expect)
			break;
		int flag = 0;
		MPI_Status st;
		MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, f->comm, &flag, &st);
		if (!flag) {
			outbox_progress(f);
			continue;
		}
		int count = 0;
		MPI_Get_count(&st, MPI_BYTE, &count);
		char *buf = malloc(count ? (size_t)count : 1);
		MPI_Recv(buf, count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, f->comm,
			 MPI_STATUS_IGNORE);
		f->recvd[st.MPI_SOURCE]++;
		free(buf);
	}
	free(expect);
	if (f->n_out)
		MPI_Waitall((int)f->n_out, f->req, MPI_STATUSES_IGNORE);
	for (size_t i = 0; i < f->n_out; i++)
		release(f, f->bufs[i]);
	f->n_out = 0;
}

/* ---- the journal ------------------------------------------------------------------ */

/* FNV-1a, 64 bits. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}
#define FNV_START 14695981039346656037ULL

/* The size of file `path`, and with `sum` its checksum. -1 when it cannot
 * be read. */
static int file_sum(const char *path, uint64_t *bytes, uint64_t *sum)
{
	struct stat st;
	*bytes = 0;
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return -1;
	*bytes = (uint64_t)st.st_size;
	if (!sum)
		return 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	static char buf[1 << 16];
	uint64_t h = FNV_START;
	ssize_t k;
	while ((k = read(fd, buf, sizeof buf)) > 0)
		h = fnv(h, buf, (size_t)k);
	close(fd);
	*sum = h;
	return k < 0 ? -1 : 0;
}

/* A name in a journal line: tab, newline and backslash escaped. */
static void jput(struct locus__buf *b, const char *s)
{
	for (; s && *s; s++) {
		const char *e = *s == '\t'   ? "\\t"
				: *s == '\n' ? "\\n"
				: *s == '\\' ? "\\\\"
					     : NULL;
		if (e)
			locus__buf_append(b, e, 2);
		else
			locus__buf_append(b, s, 1);
	}
}

/* Rank 0: task r finished; its files, then it (a task line means its files
 * are all written above it), in one write, synced before the run goes on:
 * a killed run loses no finished task, and leaves at most a torn last
 * line, which the next run cuts off. */
static void journal_task(struct flow *f, const struct rec *r)
{
	if (f->jfd < 0)
		return;
	const struct locus_task *tk = &f->g->tasks[r->task];
	const struct outrec *orec = (const struct outrec *)(const void *)(r + 1);
	struct locus__buf b = {0};
	char num[96];
	for (uint32_t k = 0; k < tk->n_out; k++) {
		uint32_t o = f->g->outputs[tk->out_at + k];
		locus__buf_append(&b, "file\t", 5);
		jput(&b, obj_name(f, o));
		fmt(num, sizeof num, "\t%" PRIu64 "\t", orec[k].bytes);
		locus__buf_append(&b, num, strlen(num));
		if (f->opt->checksum)
			fmt(num, sizeof num, "%016" PRIx64 "\t", orec[k].sum);
		else
			fmt(num, sizeof num, "-\t");
		locus__buf_append(&b, num, strlen(num));
		/* The shared directory when it is there (it outlives nodes). */
		if (orec[k].where & 2)
			locus__buf_append(&b, ":shared", 7);
		else
			jput(&b, f->plat->nodes[r->node].name);
		locus__buf_append(&b, "\n", 1);
	}
	char nb[64];
	locus__buf_append(&b, "task\t", 5);
	jput(&b, task_name(f, r->task, nb, sizeof nb));
	locus__buf_append(&b, "\t", 1);
	jput(&b, f->plat->nodes[r->node].name);
	locus__buf_append(&b, "\n", 1);
	if (!b.data || write(f->jfd, b.data, b.len) != (ssize_t)b.len || fdatasync(f->jfd))
		local_fail(f, LOCUS_EIO, "cannot write the journal %s: %s", f->opt->journal,
			   strerror(errno));
	locus__buf_fini(&b);
}

/* What the journal says of the full workflow g: claimed[t] for each task
 * line, and for each file its place (-2 the shared directory, a node of
 * the run, -1 none), size and checksum (0: none). Rank 0. */
static int journal_read(struct flow *f, const struct locus_graph *g, const char *text, size_t len,
			unsigned char *claimed, int32_t *place, uint64_t *bytes, uint64_t *sum)
{
	struct locus_flow_journal j;
	int rc = locus_flow_journal_parse(&j, g, text, len, f->opt->journal, f->err);
	if (rc)
		return rc;
	memcpy(claimed, j.done, g->n_tasks);
	for (size_t o = 0; o < g->n_objects; o++) {
		place[o] = -1;
		bytes[o] = j.bytes[o];
		sum[o] = j.sum[o];
		if (!j.place[o])
			continue;
		if (!strcmp(j.place[o], ":shared"))
			place[o] = -2;
		for (uint32_t k = 0; k < f->K && place[o] == -1; k++)
			if (!strcmp(f->plat->nodes[k].name, j.place[o]))
				place[o] = (int32_t)k;
	}
	locus_flow_journal_fini(&j);
	return 0;
}

/* Opens (and locks) the journal on rank 0, then agrees on what is done:
 * the files of the tasks it names are checked where they were kept (each
 * node's first rank checks its own) and copied to the shared directory;
 * a task whose needed files are gone is run again, and the producers of
 * its lost inputs too. f->g becomes the workflow left. Collective. */
/* A run given a journal, or a later round: what is done and where its
 * files are (the journal's lines, or the rounds before), the files still
 * there put in the shared directory, and the workflow left to run. A
 * task stays done unless an output of it that a task left to run reads
 * (or a final output) is gone, to a fixed point. */
static int resume(struct flow *f)
{
	struct state *st = f->st;
	const struct locus_graph *g = f->opt->graph;
	size_t nt = g->n_tasks, no = g->n_objects;
	unsigned char *done = calloc(nt + 1, 1);
	unsigned char *avail = calloc(no + 1, 1), *avail_all = calloc(no + 1, 1);
	int rc = done && avail && avail_all
		     ? 0
		     : locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	if (!rc && f->rank == 0 && f->opt->journal) {
		f->jfd = open(f->opt->journal, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (f->jfd < 0)
			rc = locus__err(f->err, LOCUS_EIO, f->opt->journal, 0, 0,
					"cannot open the journal: %s", strerror(errno));
		else if (flock(f->jfd, LOCK_EX | LOCK_NB))
			rc = locus__err(f->err, LOCUS_EEXIST, f->opt->journal, 0, 0,
					"another run is using this journal");
		char *text = NULL;
		size_t len = 0;
		if (!rc)
			rc = locus__read_file(&text, &len, f->opt->journal, f->err);
		/* A last line a kill cut short goes: the next is appended
		 * after the last whole one. */
		while (!rc && len && text[len - 1] != '\n')
			len--;
		if (!rc && ftruncate(f->jfd, (off_t)len))
			rc = locus__err(f->err, LOCUS_EIO, f->opt->journal, 0, 0,
					"cannot cut its torn last line: %s", strerror(errno));
		/* Later rounds know what the journal says and more. */
		if (!rc && len && st->round == 0)
			rc = journal_read(f, g, text, len, st->claimed, st->place, st->bytes,
					  st->sum);
		if (!rc && !len) {
			char head[128];
			int n = fmt(head, sizeof head, "locus-flow-journal 1\t%zu\t%zu\n", nt, no);
			if (write(f->jfd, head, (size_t)n) != n)
				rc = locus__err(f->err, LOCUS_EIO, f->opt->journal, 0, 0,
						"cannot write: %s", strerror(errno));
		}
		free(text);
	}
	if ((rc = agree(f, rc)))
		goto out;
	MPI_Bcast(st->claimed, (int)nt, MPI_UNSIGNED_CHAR, 0, f->comm);
	MPI_Bcast(st->place, (int)no, MPI_INT32_T, 0, f->comm);
	MPI_Bcast(st->bytes, (int)no, MPI_UINT64_T, 0, f->comm);
	MPI_Bcast(st->sum, (int)no, MPI_UINT64_T, 0, f->comm);
	/* Each file where it was kept, whole: a node's first rank copies its
	 * node's to the shared directory (the run left reads them there);
	 * then rank 0 looks in the shared directory for the others (put
	 * there when they were made, or by an earlier resume). */
	int leader = f->rank >= (int)f->D && f->node_rank[f->node_at[f->node]] == f->rank;
	for (uint32_t o = 0; o < no; o++) {
		if (st->place[o] < 0 || g->objects[o].producer == LOCUS_NONE ||
		    !st->claimed[g->objects[o].producer] || !leader ||
		    (uint32_t)st->place[o] != f->node)
			continue;
		char from[PATH_MAX], to[PATH_MAX];
		uint64_t b = 0, h = 0;
		fmt(to, sizeof to, "%s/%s", f->shared, g->objects[o].name);
		fmt(from, sizeof from, "%s/store/o%" PRIu32, f->node_dir, o);
		if (file_sum(from, &b, st->sum[o] ? &h : NULL) || b != st->bytes[o] ||
		    h != st->sum[o] || copy_file(from, to, &b, f->rank))
			continue;
		avail[o] = 1;
		if (!locus__grow(&st->copied, &st->copied_cap, st->n_copied + 1,
				 sizeof *st->copied))
			st->copied[st->n_copied++] = o;
	}
	MPI_Reduce(avail, avail_all, (int)no, MPI_UNSIGNED_CHAR, MPI_MAX, 0, f->comm);
	if (f->rank == 0) {
		struct locus__buf jl = {0};
		for (uint32_t o = 0; o < no; o++) {
			if (st->place[o] == -1 || g->objects[o].producer == LOCUS_NONE ||
			    !st->claimed[g->objects[o].producer])
				continue;
			if (avail_all[o]) {
				/* In the shared directory now: the journal says so,
				 * for a run after this one. */
				st->place[o] = -2;
				if (f->jfd >= 0) {
					char num[64];
					locus__buf_append(&jl, "file\t", 5);
					jput(&jl, g->objects[o].name);
					fmt(num, sizeof num, "\t%" PRIu64 "\t", st->bytes[o]);
					locus__buf_append(&jl, num, strlen(num));
					if (st->sum[o])
						fmt(num, sizeof num, "%016" PRIx64 "\t:shared\n",
						    st->sum[o]);
					else
						fmt(num, sizeof num, "-\t:shared\n");
					locus__buf_append(&jl, num, strlen(num));
				}
				continue;
			}
			char to[PATH_MAX];
			uint64_t b = 0, h = 0;
			fmt(to, sizeof to, "%s/%s", f->shared, g->objects[o].name);
			avail_all[o] = !file_sum(to, &b, st->sum[o] ? &h : NULL) &&
				       b == st->bytes[o] && h == st->sum[o];
			/* An intermediate file an earlier resume put there
			 * goes when this run succeeds. */
			if (avail_all[o] && st->place[o] >= 0 && g->objects[o].n_cons &&
			    !locus__grow(&st->copied, &st->copied_cap, st->n_copied + 1,
					 sizeof *st->copied))
				st->copied[st->n_copied++] = o;
			if (avail_all[o])
				st->place[o] = -2;
		}
		if (jl.len &&
		    (write(f->jfd, jl.data, jl.len) != (ssize_t)jl.len || fdatasync(f->jfd)))
			rc = locus__err(f->err, LOCUS_EIO, f->opt->journal, 0, 0,
					"cannot write: %s", strerror(errno));
		locus__buf_fini(&jl);
	}
	if ((rc = agree(f, rc)))
		goto out;
	MPI_Bcast(avail_all, (int)no, MPI_UNSIGNED_CHAR, 0, f->comm);
	memcpy(done, st->claimed, nt);
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint32_t t = 0; t < nt; t++) {
			const struct locus_task *tk = &g->tasks[t];
			if (done[t]) {
				for (uint32_t k = 0; k < tk->n_out && done[t]; k++) {
					uint32_t o = g->outputs[tk->out_at + k];
					if (!g->objects[o].n_cons && !avail_all[o])
						done[t] = 0, changed = 1;
				}
				continue;
			}
			for (uint32_t k = 0; k < tk->n_in; k++) {
				uint32_t o = g->inputs[tk->in_at + k], p = g->objects[o].producer;
				if (p != LOCUS_NONE && done[p] && !avail_all[o])
					done[p] = 0, changed = 1;
			}
		}
	}
	/* What is not done is not claimed: a later round knows it from
	 * what this one does. */
	for (size_t t = 0; t < nt; t++) {
		f->skipped += done[t];
		f->rerun += st->claimed[t] && !done[t];
		st->claimed[t] = done[t];
	}
	/* The nodes' old files are in the shared directory now (or lost). */
	if (leader) {
		char p[PATH_MAX + 16];
		fmt(p, sizeof p, "%s/store", f->node_dir);
		locus__rmtree(p);
		struct locus_error e = {0};
		locus__mkdirs(p, &e);
	}
	rc = f->skipped ? locus_flow_remaining(&f->own_g, g, done, f->err) : 0;
	if (!rc && f->own_g) {
		f->g = f->own_g;
		f->task_full = malloc((f->g->n_tasks + 1) * sizeof *f->task_full);
		f->obj_full = malloc((f->g->n_objects + 1) * sizeof *f->obj_full);
		f->obj_round = malloc((g->n_objects + 1) * sizeof *f->obj_round);
		if (!f->task_full || !f->obj_full || !f->obj_round)
			rc = locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		/* locus_flow_remaining keeps the tasks not done in id order, and
		 * the names of the files it keeps. */
		for (uint32_t t = 0, k = 0; !rc && t < g->n_tasks; t++)
			if (!done[t])
				f->task_full[k++] = t;
		for (uint32_t o = 0; !rc && o < g->n_objects; o++) {
			long r = locus_graph_find_object(f->g, g->objects[o].name);
			f->obj_round[o] = r < 0 ? NONE : (uint32_t)r;
			if (r >= 0)
				f->obj_full[r] = o;
		}
	}
	rc = agree(f, rc);
out:
	free(done);
	free(avail);
	free(avail_all);
	return rc;
}

/* ---- set-up ------------------------------------------------------------------------ */

/* The same outcome on every rank: the first failing rank's error. */
static int agree(struct flow *f, int rc)
{
	int mine = rc ? f->rank : f->size, first = f->size;
	MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, f->comm);
	if (first == f->size)
		return 0;
	struct endmsg m = {.code = rc};
	if (f->rank == first)
		fmt(m.message, sizeof m.message, "%s", f->err->message);
	MPI_Bcast(&m, sizeof m, MPI_BYTE, first, f->comm);
	if (f->rank != first) {
		f->err->code = m.code;
		fmt(f->err->message, sizeof f->err->message, "%s", m.message);
	}
	return m.code;
}

static uint32_t mon_placed(const struct locus_monitor *m, uint32_t t, double *computed)
{
	const struct flow *f = m->engine;
	if (computed)
		*computed = 0;
	/* This rank's worker's tasks (queued or running) alone. */
	if (t < f->g->n_tasks && f->worker != NONE && f->x.tworker[t] == f->worker &&
	    f->x.tstate[t] != LOCUS__T_NEW && f->x.tstate[t] != LOCUS__T_DONE)
		return f->worker;
	return LOCUS_NONE;
}

static double mon_moved(const struct locus_monitor *m, uint32_t o, uint32_t node)
{
	const struct flow *f = m->engine;
	return locus_replicas_has(f->rep, o, node) ? 1 : 0;
}

static double mon_one(const struct locus_monitor *m, uint32_t node)
{
	(void)m;
	(void)node;
	return 1;
}

static double mon_pair_bw(const struct locus_monitor *m, uint32_t a, uint32_t b)
{
	const struct flow *f = m->engine;
	double x = f->plat->nodes[a].net_bw, y = f->plat->nodes[b].net_bw;
	return x < y ? x : y;
}

static int check_names(struct flow *f)
{
	const struct locus_graph *g = f->g;
	char nb[64];
	for (uint32_t o = 0; o < g->n_objects; o++)
		if (!safe_name(g->objects[o].name))
			return locus__err(
			    f->err, LOCUS_EINVAL, NULL, 0, 0,
			    "file \"%s\" cannot be used: a workflow's file names must "
			    "be relative, without \"..\"",
			    g->objects[o].name ? g->objects[o].name : "");
	for (uint32_t t = 0; t < g->n_tasks; t++) {
		const struct locus_task *tk = &g->tasks[t];
		for (uint32_t k = 0; k < tk->n_in; k++)
			if (g->input_as && g->input_as[tk->in_at + k] &&
			    !safe_name(g->input_as[tk->in_at + k]))
				return locus__err(f->err, LOCUS_EINVAL, NULL, 0, 0,
						  "task %s names an input \"%s\": names must be "
						  "relative, without \"..\"",
						  task_name(f, t, nb, sizeof nb),
						  g->input_as[tk->in_at + k]);
		for (uint32_t k = 0; k < tk->n_out; k++)
			if (g->output_as && g->output_as[tk->out_at + k] &&
			    !safe_name(g->output_as[tk->out_at + k]))
				return locus__err(f->err, LOCUS_EINVAL, NULL, 0, 0,
						  "task %s names an output \"%s\": names must be "
						  "relative, without \"..\"",
						  task_name(f, t, nb, sizeof nb),
						  g->output_as[tk->out_at + k]);
	}
	return 0;
}

/* Nodes and roles: K worker nodes (emulated, or the ranks' hosts), then D
 * nodes of the scheduler ranks, without cores. */
static int layout(struct flow *f)
{
	const struct locus_mpi_flow_options *o = f->opt;
	size_t D = o->dispatchers ? o->dispatchers : 1;
	if ((size_t)f->size < D + 1)
		return locus__err(f->err, LOCUS_EINVAL, NULL, 0, 0,
				  "%d ranks cannot run %zu scheduler rank%s and a worker", f->size,
				  D, D == 1 ? "" : "s");
	char host[MPI_MAX_PROCESSOR_NAME] = {0};
	int len = 0;
	MPI_Get_processor_name(host, &len);
	char *hosts = calloc((size_t)f->size, MPI_MAX_PROCESSOR_NAME);
	uint32_t *rank_node = calloc((size_t)f->size, sizeof *rank_node);
	if (!hosts || !rank_node) {
		free(hosts);
		free(rank_node);
		return locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	MPI_Allgather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME,
		      MPI_CHAR, f->comm);
	f->one_host = 1;
	for (size_t r = 1; r < (size_t)f->size; r++)
		f->one_host &= !strcmp(hosts, hosts + r * MPI_MAX_PROCESSOR_NAME);
	size_t W = (size_t)f->size - D, K = 0;
	if (o->emulate_nodes) {
		K = o->emulate_nodes < W ? o->emulate_nodes : W;
		for (size_t r = D; r < (size_t)f->size; r++)
			rank_node[r] = (uint32_t)((r - D) % K);
	} else {
		for (size_t r = D; r < (size_t)f->size; r++) {
			size_t k = 0;
			while (k < K &&
			       strcmp(hosts + (size_t)f->node_rank[k] * MPI_MAX_PROCESSOR_NAME,
				      hosts + r * MPI_MAX_PROCESSOR_NAME))
				k++;
			if (k == K) {
				int *nr = realloc(f->node_rank, (K + 1) * sizeof *nr);
				if (!nr) {
					free(hosts);
					free(rank_node);
					return locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0,
							  "out of memory");
				}
				f->node_rank = nr;
				nr[K++] = (int)r; /* the node's first rank, for its name */
			}
			rank_node[r] = (uint32_t)k;
		}
	}
	f->D = D;
	f->K = K;
	size_t n = K + D;
	char **names = calloc(n, sizeof *names);
	int *cores = calloc(n, sizeof *cores);
	int rc = names && cores ? 0 : LOCUS_ENOMEM;
	for (size_t r = D; r < (size_t)f->size && !rc; r++)
		cores[rank_node[r]]++;
	for (size_t i = 0; i < n && !rc; i++) {
		char buf[MPI_MAX_PROCESSOR_NAME + 16];
		if (i >= K)
			fmt(buf, sizeof buf, "dispatcher%zu", i - K);
		else if (o->emulate_nodes)
			fmt(buf, sizeof buf, "node%03zu", i);
		else
			fmt(buf, sizeof buf, "%s",
			    hosts + (size_t)f->node_rank[i] * MPI_MAX_PROCESSOR_NAME);
		if (!(names[i] = strdup(buf)))
			rc = LOCUS_ENOMEM;
	}
	free(hosts);
	if (!rc)
		rc = locus_platform_create(&f->plat, (const char *const *)names, cores, n, f->err);
	else
		locus__err(f->err, rc, NULL, 0, 0, "out of memory");
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	free(cores);
	/* Each worker node's ranks, in rank order. */
	free(f->node_rank);
	f->node_rank = malloc((size_t)f->size * sizeof *f->node_rank);
	f->node_at = calloc(K + 1, sizeof *f->node_at);
	if (!rc && (!f->node_rank || !f->node_at))
		rc = locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	if (!rc) {
		for (size_t r = D; r < (size_t)f->size; r++)
			f->node_at[rank_node[r] + 1]++;
		for (size_t k = 0; k < K; k++)
			f->node_at[k + 1] += f->node_at[k];
		size_t *fill = calloc(K, sizeof *fill);
		if (!fill)
			rc = locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		for (size_t r = D; fill && r < (size_t)f->size; r++) {
			uint32_t k = rank_node[r];
			f->node_rank[f->node_at[k] + fill[k]++] = (int)r;
		}
		free(fill);
	}
	if (!rc)
		f->node = f->rank < (int)D ? (uint32_t)(K + (size_t)f->rank) : rank_node[f->rank];
	free(rank_node);
	return rc;
}

/* The policy's processes on the ranks: workers in node order on the
 * node's ranks, schedulers on the rank of the node the policy puts them
 * on (or spread over the scheduler ranks). */
static int roles(struct flow *f)
{
	int amfs = !strcmp(f->pol->name, "amfs");
	f->n_workers = f->wl->n_workers;
	f->n_scheds = f->pol->schedulers(f->n_workers, amfs ? 1 + 2 * f->D : 0);
	f->n_procs = f->n_workers + f->n_scheds;
	f->proc_rank = malloc(f->n_procs * sizeof *f->proc_rank);
	if (!f->proc_rank)
		return locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	f->worker = NONE;
	size_t *fill = calloc(f->K, sizeof *fill);
	if (!fill)
		return locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	for (size_t w = 0; w < f->n_workers; w++) {
		uint32_t n = f->wl->worker_node[w];
		int r = f->node_rank[f->node_at[n] + fill[n]++];
		f->proc_rank[w] = r;
		if (r == f->rank)
			f->worker = (uint32_t)w;
	}
	free(fill);
	for (size_t s = 0; s < f->n_scheds; s++) {
		uint32_t n = f->pol->version >= 3 && f->pol->scheduler_node
				 ? f->pol->scheduler_node(f->wl, f->n_scheds, s)
				 : NONE;
		f->proc_rank[f->n_workers + s] =
		    n != NONE && n >= f->K && n < f->K + f->D ? (int)(n - f->K) : (int)(s % f->D);
	}
	return 0;
}

/* The run's directory under `local`, named by rank 0; this node's in it. */
static int directories(struct flow *f)
{
	const char *local = f->opt->local ? f->opt->local : "/dev/shm";
	char name[64] = {0};
	if (f->st->job[0]) {
		/* A later round: the same place. */
		fmt(name, sizeof name, "%s", f->st->job);
	} else if (f->rank == 0) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		fmt(name, sizeof name, "locus-flow-%ld-%lx", (long)getpid(),
		    (unsigned long)ts.tv_nsec);
		/* With a journal, the same place every time: a resumed run
		 * finds the files the interrupted one kept. */
		if (f->opt->journal) {
			/* Named by the journal's absolute path (its directory's
			 * real path: the journal itself may not exist yet). */
			char dir[PATH_MAX], real[PATH_MAX];
			fmt(dir, sizeof dir, "%s", f->opt->journal);
			char *slash = strrchr(dir, '/');
			const char *base = slash ? slash + 1 : dir;
			if (slash == dir)
				fmt(real, sizeof real, "/");
			else if (!realpath(slash ? (*slash = 0, dir) : ".", real))
				fmt(real, sizeof real, "?");
			uint64_t h = fnv(FNV_START, real, strlen(real));
			h = fnv(h, "/", 1);
			h = fnv(h, base, strlen(base));
			fmt(name, sizeof name, "locus-flow-j%016" PRIx64, h);
		}
	}
	MPI_Bcast(name, sizeof name, MPI_CHAR, 0, f->comm);
	fmt(f->st->job, sizeof f->st->job, "%s", name);
	/* The round's name for partial results (reductions). */
	uint64_t nonce = 0;
	if (f->rank == 0) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		nonce = fnv(FNV_START, &ts, sizeof ts);
		nonce = fnv(nonce, &f->st->round, sizeof f->st->round);
	}
	MPI_Bcast(&nonce, 1, MPI_UINT64_T, 0, f->comm);
	f->nonce = nonce;
	int n = fmt(f->job_dir, sizeof f->job_dir, "%s/%s", local, name);
	if (n < 0 || (size_t)n >= sizeof f->job_dir)
		return locus__err(f->err, LOCUS_EINVAL, NULL, 0, 0, "--local %s: too long", local);
	if (f->rank < (int)f->D)
		return 0;
	fmt(f->node_dir, sizeof f->node_dir, "%s/%s", f->job_dir, f->plat->nodes[f->node].name);
	char p[PATH_MAX + 16];
	fmt(p, sizeof p, "%s/store", f->node_dir);
	struct locus_error e = {0};
	if (locus__mkdirs(p, &e))
		return locus__err(f->err, e.code, NULL, 0, 0, "node storage %s: %s", p, e.message);
	fmt(p, sizeof p, "%s/work", f->node_dir);
	if (locus__mkdirs(p, &e))
		return locus__err(f->err, e.code, NULL, 0, 0, "node storage %s: %s", p, e.message);
	fmt(p, sizeof p, "%s/reduce", f->node_dir);
	if (locus__mkdirs(p, &e))
		return locus__err(f->err, e.code, NULL, 0, 0, "node storage %s: %s", p, e.message);
	return 0;
}

/* Rank 0: every input of the workflow is in the shared directory (made,
 * of its recorded size, for stand-ins). */
static int check_inputs(struct flow *f)
{
	char p[PATH_MAX], nb[64];
	for (uint32_t o = 0; o < f->g->n_objects; o++) {
		const struct locus_object *ob = &f->g->objects[o];
		if (ob->producer != LOCUS_NONE || !ob->n_cons)
			continue;
		shared_path(f, o, p, sizeof p);
		struct stat st;
		/* Stand-ins read inputs of the recorded sizes: made when absent. */
		if (f->opt->stand_in > 0 && stat(p, &st) && errno == ENOENT &&
		    standin_output(f, p, ob->bytes))
			return locus__err(f->err, LOCUS_EIO, NULL, 0, 0, "cannot make %s: %s", p,
					  strerror(errno));
		if (stat(p, &st) || !S_ISREG(st.st_mode))
			return locus__err(
			    f->err, LOCUS_ENOENT, NULL, 0, 0,
			    "%s, an input of task %s, is not in the shared directory %s",
			    obj_name(f, o),
			    task_name(f, f->g->consumers[ob->cons_at], nb, sizeof nb), f->shared);
	}
	return 0;
}

static int setup(struct flow *f)
{
	const struct locus_mpi_flow_options *o = f->opt;
	int rc = 0;
	if (!o->graph || !o->shared)
		rc = locus__err(f->err, LOCUS_EINVAL, NULL, 0, 0,
				"a workflow and a shared directory are required");
	if (!rc && !realpath(o->shared, f->shared))
		rc = locus__err(f->err, LOCUS_ENOENT, NULL, 0, 0, "shared directory %s: %s",
				o->shared, strerror(errno));
	f->g = o->graph;
	if (!rc && !(f->pol = o->policy_def ? o->policy_def
					    : locus_policy_find(o->policy ? o->policy : "amfs")))
		rc = locus__err(f->err, LOCUS_EINVAL, NULL, 0, 0, "no policy \"%s\"", o->policy);
	if (!rc)
		rc = locus_policy_check(f->pol, LOCUS_POLICY_VERSION, LOCUS_MPI_FLOW_OFFERS,
					"the MPI runtime", f->err);
	if (!rc && f->pol->version >= 2 && !(f->pol->flags & LOCUS_POLICY_GRAPHS) &&
	    locus_graph_has_edges(f->g))
		rc = locus__err(f->err, LOCUS_EINVAL, NULL, 0, 0,
				"policy %s schedules independent tasks, not a workflow",
				f->pol->name);
	if (!rc && o->fn && o->stand_in > 0)
		rc = locus__err(f->err, LOCUS_EINVAL, NULL, 0, 0,
				"a run has task functions or stand-ins, not both");
	if (!rc)
		rc = check_names(f);
	if ((rc = agree(f, rc)))
		return rc;
	rc = layout(f);
	if (!rc)
		rc = directories(f);
	bell_open(f);
	if ((rc = agree(f, rc)))
		return rc;
	if ((o->journal || f->st->round) && (rc = resume(f)))
		return rc;
	rc = locus_workload_from_graph(&f->wl, f->plat, f->g, NULL, f->err);
	if (!rc)
		rc = roles(f);
	if (!rc && f->rank == 0)
		rc = check_inputs(f);
	if (!rc && locus_replicas_create(&f->rep, f->g->n_objects, f->plat->n_nodes))
		rc = locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	f->on_fs = calloc(f->g->n_objects + 1, 1);
	f->obj_bytes = malloc((f->g->n_objects + 1) * sizeof *f->obj_bytes);
	f->obj_sum = calloc(f->g->n_objects + 1, sizeof *f->obj_sum);
	for (size_t k = 0; f->obj_bytes && k < f->g->n_objects; k++)
		f->obj_bytes[k] = UNKNOWN;
	f->tassigned = calloc(f->g->n_tasks + 1, sizeof *f->tassigned);
	f->ran = calloc(f->g->n_tasks + 1, sizeof *f->ran);
	f->hosted = calloc(f->n_workers + 1, 1);
	f->sent = calloc((size_t)f->size, sizeof *f->sent);
	f->recvd = calloc((size_t)f->size, sizeof *f->recvd);
	f->batch = calloc((size_t)f->size, sizeof *f->batch);
	f->urgent = calloc((size_t)f->size, 1);
	f->stage_bytes = calloc(4 * f->g->n_stages + 1, sizeof *f->stage_bytes);
	if (!rc &&
	    (!f->on_fs || !f->obj_bytes || !f->obj_sum || !f->tassigned || !f->ran || !f->hosted ||
	     !f->sent || !f->recvd || !f->batch || !f->urgent || !f->stage_bytes))
		rc = locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	if (!rc && f->rank == 0) {
		f->recs = calloc(f->g->n_tasks + 1, sizeof *f->recs);
		f->done = calloc(f->g->n_tasks + 1, 1);
		if (!f->recs || !f->done)
			rc = locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	for (uint32_t k = 0; !rc && k < f->g->n_objects; k++)
		f->on_fs[k] = f->g->objects[k].producer == LOCUS_NONE;
	if (!rc && locus_heap_init(&f->timers, sizeof(struct timer), timer_cmp))
		rc = locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	if (!rc) {
		/* The executor of this rank's worker (and of the processes it
		 * hosts): final outputs go to the shared directory, whatever
		 * the assignment says, as a run's results must. */
		if (f->worker != NONE)
			f->hosted[f->worker] = 1;
		struct locus__exec_config xc = {.wl = f->wl,
						.policy = f->pol,
						.n_schedulers = f->n_scheds,
						.rep = f->rep,
						.on_fs = f->on_fs,
						.ops = &mpi_ops,
						.eng = f,
						.engine = "the MPI runtime",
						.hosted = f->hosted,
						.retries = (uint32_t)o->retries,
						.finals_to_fs = 1};
		if (locus__exec_init(&f->x, &xc))
			rc = locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		f->x_on = !rc;
	}
	f->cur = NONE;
	/* A task function's own thread, when MPI allows one. */
	int level = MPI_THREAD_SINGLE;
	MPI_Query_thread(&level);
	if (!rc && o->fn && !o->inline_tasks && f->worker != NONE && level >= MPI_THREAD_FUNNELED) {
		f->fn_evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (f->fn_evfd < 0 || pthread_mutex_init(&f->fn_mu, NULL))
			rc = locus__err(f->err, LOCUS_EIO, NULL, 0, 0,
					"cannot set up the function's thread");
		else if (pthread_cond_init(&f->fn_cv, NULL)) {
			pthread_mutex_destroy(&f->fn_mu);
			rc = locus__err(f->err, LOCUS_EIO, NULL, 0, 0,
					"cannot set up the function's thread");
		} else if (pthread_create(&f->fn_thread, NULL, fn_main, f)) {
			pthread_cond_destroy(&f->fn_cv);
			pthread_mutex_destroy(&f->fn_mu);
			rc = locus__err(f->err, LOCUS_EIO, NULL, 0, 0,
					"cannot start the function's thread");
		} else {
			f->fn_threaded = 1;
		}
	}
	if ((rc = agree(f, rc)))
		return rc;
	f->mon = (struct locus_monitor){.engine = f,
					.replicas = f->rep,
					.placed = mon_placed,
					.moved = mon_moved,
					.avail = mon_one,
					.bandwidth = mon_one,
					.pair_bw = mon_pair_bw};
	rc = locus_kv_parse(&f->kv, o->policy_opts, f->err);
	if (!rc && f->g->n_tasks) {
		struct locus_policy_ctx ctx = {.wl = f->wl,
					       .n_workers = f->n_workers,
					       .n_schedulers = f->n_scheds,
					       .seed = o->seed,
					       .opts = &f->kv,
					       .monitor = &f->mon};
		rc = f->pol->create(&f->pstate, &ctx, f->err);
		if (!rc && locus_kv_unused(&f->kv))
			rc = locus__err(f->err, LOCUS_EINVAL, NULL, 0, 0,
					"policy %s has no option \"%s\"", f->pol->name,
					locus_kv_unused(&f->kv));
	}
	return agree(f, rc);
}

/* ---- the result ------------------------------------------------------------------ */

static int span_cmp(const void *a, const void *b)
{
	const double *x = a, *y = b;
	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Rank 0: the length of the union of every rank's fs_span (0 elsewhere). */
static double fs_busy(struct flow *f)
{
	int mine = (int)f->n_fs_span, *counts = NULL, *at = NULL;
	if (f->rank == 0) {
		counts = calloc((size_t)f->size, sizeof *counts);
		at = calloc((size_t)f->size, sizeof *at);
	}
	MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, f->comm);
	size_t total = 0;
	for (int r = 0; counts && at && r < f->size; r++) {
		at[r] = (int)total;
		total += (size_t)counts[r];
	}
	double *all = f->rank == 0 ? malloc((total + 2) * sizeof *all) : NULL;
	MPI_Gatherv(f->fs_span, mine, MPI_DOUBLE, all, counts, at, MPI_DOUBLE, 0, f->comm);
	double busy = 0;
	if (all) {
		qsort(all, total / 2, 2 * sizeof *all, span_cmp);
		double end = -1;
		for (size_t i = 0; i + 1 < total; i += 2) {
			double a = all[i] > end ? all[i] : end;
			if (all[i + 1] > a)
				busy += all[i + 1] - a;
			if (all[i + 1] > end)
				end = all[i + 1];
		}
	}
	free(all);
	free(counts);
	free(at);
	return busy;
}

static int xfer_cmp(const void *a, const void *b)
{
	const struct locus_transfer_result *x = a, *y = b;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x->object > y->object) - (x->object < y->object);
}

static int results(struct flow *f, struct locus_mpi_flow_report *rep)
{
	size_t ns = f->g->n_stages;
	uint64_t mine[5] = {f->bytes_peer, f->bytes_fs_read, f->bytes_fs_written, f->transfers,
			    f->pieces},
		 all[5] = {0};
	MPI_Reduce(mine, all, 5, MPI_UINT64_T, MPI_SUM, 0, f->comm);
	/* Rates: every rank's bytes over every rank's time moving them. */
	double rates[4] = {(double)f->bytes_peer, f->pull_secs, (double)f->fs_bytes, 0},
	       rates_all[4] = {0};
	MPI_Reduce(rates, rates_all, 4, MPI_DOUBLE, MPI_SUM, 0, f->comm);
	/* The shared directory is one resource: its bytes over the time any
	 * rank had a copy with it under way (the union of all ranks'). */
	rates_all[3] = fs_busy(f);
	f->st->peer_bytes += rates_all[0];
	f->st->peer_secs += rates_all[1];
	f->st->fs_bytes += rates_all[2];
	f->st->fs_secs += rates_all[3];
	uint64_t *sb = f->rank == 0 ? calloc(4 * ns + 1, sizeof *sb) : NULL;
	MPI_Reduce(f->stage_bytes, sb, (int)(4 * ns), MPI_UINT64_T, MPI_SUM, 0, f->comm);
	/* The policy's statistics: summed over the ranks that host it. */
	struct locus_result tmp = {0};
	struct locus_stage_result *st = calloc(ns + 1, sizeof *st);
	uint64_t *colls = calloc(ns + 1, sizeof *colls), *csum = NULL;
	uint64_t cnt[8] = {0}, cnt_all[8] = {0};
	if (st && colls && f->pstate && f->pol->stats) {
		for (size_t s = 0; s < ns; s++)
			st[s].patterns = -1;
		tmp.pstats.stages = st;
		tmp.pstats.n_stages = ns;
		f->pol->stats(f->pstate, &tmp.pstats);
		for (size_t s = 0; s < ns; s++)
			colls[s] = st[s].collectives;
		memcpy(cnt, tmp.pstats.counters, sizeof cnt);
	}
	if (f->rank == 0)
		csum = calloc(ns + 1, sizeof *csum);
	MPI_Reduce(colls ? colls : cnt, csum, colls ? (int)ns : 0, MPI_UINT64_T, MPI_SUM, 0,
		   f->comm);
	MPI_Reduce(cnt, cnt_all, 8, MPI_UINT64_T, MPI_SUM, 0, f->comm);
	/* Every rank's copies, at rank 0, in the order they ended. */
	struct locus_transfer_result *xf = NULL;
	size_t n_xf = 0;
	{
		int mine_n = (int)(f->n_xfers * sizeof *f->xfers), *cnts = NULL, *at = NULL;
		if (f->rank == 0) {
			cnts = calloc((size_t)f->size, sizeof *cnts);
			at = calloc((size_t)f->size, sizeof *at);
		}
		MPI_Gather(&mine_n, 1, MPI_INT, cnts, 1, MPI_INT, 0, f->comm);
		size_t total = 0;
		for (int r = 0; cnts && at && r < f->size; r++) {
			at[r] = (int)total;
			total += (size_t)cnts[r];
		}
		if (f->rank == 0)
			xf = malloc(total + sizeof *xf);
		MPI_Gatherv(f->xfers, mine_n, MPI_BYTE, xf, cnts, at, MPI_BYTE, 0, f->comm);
		n_xf = xf ? total / sizeof *xf : 0;
		if (n_xf)
			qsort(xf, n_xf, sizeof *xf, xfer_cmp);
		free(cnts);
		free(at);
	}
	int rc = 0;
	if (f->rank == 0) {
		struct locus_result *r = calloc(1, sizeof *r);
		size_t nt = f->g->n_tasks;
		if (r) {
			r->tasks = calloc(nt + 1, sizeof *r->tasks);
			r->workers = calloc(f->n_workers + 1, sizeof *r->workers);
			r->scheds = calloc(f->n_scheds + 1, sizeof *r->scheds);
			r->stages = ns ? calloc(ns, sizeof *r->stages) : NULL;
		}
		if (!r || !r->tasks || !r->workers || !r->scheds || (ns && !r->stages) || !sb ||
		    !st || !csum) {
			locus_result_destroy(r);
			rc = locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		} else {
			fmt(r->engine, sizeof r->engine, "mpi");
			fmt(r->policy, sizeof r->policy, "%s", f->pol->name);
			r->policy_options =
			    f->opt->policy_opts ? locus__strdup(f->opt->policy_opts) : NULL;
			r->seed = f->opt->seed;
			r->n_tasks = nt;
			r->n_workers = f->n_workers;
			r->n_schedulers = f->n_scheds;
			r->n_nodes = f->plat->n_nodes;
			r->flow = 1;
			r->dag = 1;
			r->graph = f->g;
			r->tasks_done = f->n_done;
			r->bytes_moved = all[0];
			r->fs_bytes_read = all[1];
			r->fs_bytes_written = all[2];
			r->transfers = all[3];
			r->wall_seconds = now_of(f);
			memcpy(r->pstats.counters, cnt_all, sizeof cnt_all);
			memcpy(r->pstats.counter_names, tmp.pstats.counter_names,
			       sizeof r->pstats.counter_names);
			for (size_t w = 0; w < f->n_workers; w++)
				r->workers[w].node = f->wl->worker_node[w];
			for (size_t s = 0; s < ns; s++) {
				r->stages[s].patterns = st[s].patterns;
				r->stages[s].collectives = csum[s];
				r->stages[s].bytes_peer = sb[4 * s];
				r->stages[s].bytes_fs_read = sb[4 * s + 1];
				r->stages[s].bytes_fs_written = sb[4 * s + 2];
				r->stages[s].bytes_local = sb[4 * s + 3];
			}
			for (uint32_t t = 0; t < nt; t++) {
				const struct rec *c = &f->recs[t];
				struct locus_task_result *tr = &r->tasks[t];
				if (!f->done[t])
					continue;
				*tr = (struct locus_task_result){.worker = c->worker,
								 .node = c->node,
								 .source = c->node,
								 .local = 1,
								 .idle_since = c->assigned,
								 .assigned = c->assigned,
								 .read_end = c->read_end,
								 .end = c->end,
								 .start = c->start,
								 .attempts = c->attempts};
				if (c->end > r->makespan)
					r->makespan = c->end;
				struct locus_worker_result *wr = &r->workers[c->worker];
				wr->tasks++;
				wr->local_tasks++;
				wr->busy += c->end - c->start;
				r->local_tasks++;
				uint32_t s = f->g->task_stage ? f->g->task_stage[t] : LOCUS_NONE;
				if (s == LOCUS_NONE)
					continue;
				struct locus_stage_result *sr = &r->stages[s];
				if (!sr->tasks || c->start < sr->first_start)
					sr->first_start = c->start;
				if (c->end > sr->last_end)
					sr->last_end = c->end;
				sr->tasks++;
				sr->read += c->read_end - c->start;
				sr->compute += c->compute_end - c->read_end;
				sr->write += c->end - c->compute_end;
				sr->input_wait += c->start - c->assigned;
			}
			r->xfers = xf;
			r->n_xfers = n_xf;
			xf = NULL;
			rep->result = r;
			rep->platform = f->plat;
			f->plat = NULL;
		}
	}
	free(xf);
	free(sb);
	free(st);
	free(colls);
	free(csum);
	return rc;
}

/* One round: the workflow, or what st says is left of it. */
static int run_round(MPI_Comm comm, const struct locus_mpi_flow_options *opt, struct state *st,
		     struct locus_mpi_flow_report *report, struct locus_error *err)
{
	memset(report, 0, sizeof *report);
	struct flow *f = calloc(1, sizeof *f);
	int ok = f != NULL, all = 0;
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
	if (!all) {
		free(f);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	MPI_Comm_dup(comm, &f->comm);
	MPI_Comm_rank(f->comm, &f->rank);
	MPI_Comm_size(f->comm, &f->size);
	f->opt = opt;
	f->st = st;
	f->err = err;
	f->pid = 0;
	f->pidfd = -1;
	f->fn_evfd = -1;
	f->bell = -1;
	f->host = MPI_COMM_NULL;
	f->bell_win = MPI_WIN_NULL;
	f->jfd = -1;
	int rc = setup(f);
	if (!rc) {
		MPI_Barrier(f->comm);
		f->t0 = mono();
		/* On one machine every rank reads the same monotonic clock:
		 * with rank 0's origin, the times of all ranks compare. */
		if (f->one_host)
			MPI_Bcast(&f->t0, 1, MPI_DOUBLE, 0, f->comm);
		if (f->rank == 0 && !f->g->n_tasks)
			finish(f, 0, NULL);
		/* Every process starts. */
		for (size_t p = 0; p < f->n_procs && f->g->n_tasks > 0; p++)
			if (f->proc_rank[p] == f->rank) {
				struct locus_event ev = {.kind = LOCUS_EV_START,
							 .proc = (uint32_t)p};
				deliver(f, &ev);
			}
		loop(f);
		rc = f->end_code;
		if (rc)
			locus__err(err, rc, NULL, 0, 0, "%s", f->end_msg);
		int r2 = results(f, report);
		rc = agree(f, rc ? rc : r2);
		report->pieces = f->pieces;
		report->rings = f->rings;
	}
	if (st->round == 0) {
		st->skipped = f->skipped;
		st->rerun = f->rerun;
	}
	/* Each node's directory goes, unless kept (or a next round, or a
	 * run given the journal, may take files from it); then the run's.
	 * The files a resumed run or a later round took from the nodes leave
	 * the shared directory once it has succeeded. */
	int keep = opt->keep || (opt->journal && rc) || rc == ROUND_AGAIN;
	if (f->node_dir[0] && !keep)
		locus__rmtree(f->node_dir);
	for (size_t i = 0; !rc && !opt->keep && i < st->n_copied; i++) {
		char p[PATH_MAX];
		fmt(p, sizeof p, "%s/%s", f->shared, opt->graph->objects[st->copied[i]].name);
		unlink(p);
	}
	bell_close(f);
	MPI_Barrier(f->comm);
	if (f->rank == 0 && f->job_dir[0] && !keep)
		rmdir(f->job_dir);
	if (f->jfd >= 0)
		close(f->jfd);
	if (f->pidfd >= 0)
		close(f->pidfd);
	if (f->fn_threaded) {
		fn_wait(f);
		pthread_mutex_lock(&f->fn_mu);
		f->fn_quit = 1;
		pthread_cond_broadcast(&f->fn_cv);
		pthread_mutex_unlock(&f->fn_mu);
		pthread_join(f->fn_thread, NULL);
		pthread_cond_destroy(&f->fn_cv);
		pthread_mutex_destroy(&f->fn_mu);
	}
	if (f->fn_evfd >= 0)
		close(f->fn_evfd);
	if (f->pstate)
		f->pol->destroy(f->pstate);
	locus_kv_fini(&f->kv);
	if (f->x_on)
		locus__exec_fini(&f->x);
	locus__action_stack_fini(&f->acts);
	locus_heap_fini(&f->timers);
	locus_replicas_destroy(f->rep);
	locus_workload_destroy(f->wl);
	locus_platform_destroy(f->plat);
	for (size_t j = 0; j < f->n_jobs; j++)
		free(f->jobs[j].objs);
	for (size_t p = 0; p < f->n_pulls; p++)
		if (f->pulls[p].used && f->pulls[p].fd >= 0) {
			close(f->pulls[p].fd);
			unlink(f->pulls[p].tmp);
		}
	for (size_t s = 0; s < f->n_serves; s++)
		if (f->serves[s].used)
			close(f->serves[s].fd);
	free(f->jobs);
	free(f->pulls);
	free(f->serves);
	free(f->req);
	free(f->bufs);
	free(f->dests);
	free(f->tested);
	free(f->sent);
	free(f->recvd);
	for (int r = 0; f->batch && r < f->size; r++)
		locus__buf_fini(&f->batch[r]);
	free(f->batch);
	free(f->urgent);
	for (size_t i = 0; i < OUT_MAX; i++)
		free(f->piece_buf[i]);
	free(f->rbuf);
	free(f->inbox);
	free(f->ups);
	free(f->tassigned);
	free(f->ran);
	free(f->hosted);
	free(f->fresh);
	free(f->reads);
	free(f->on_fs);
	free(f->stage_bytes);
	free(f->recs);
	free(f->done);
	free(f->proc_rank);
	free(f->node_rank);
	free(f->node_at);
	free(f->obj_bytes);
	free(f->fs_span);
	free(f->xfers);
	free(f->obj_sum);
	free(f->fn_paths);
	for (size_t i = 0; i < f->n_rsteps; i++) {
		free(f->rsteps[i].keep);
		free(f->rsteps[i].cover);
	}
	free(f->rsteps);
	free(f->r_keep);
	free(f->fn_ptrs);
	free(f->task_full);
	free(f->obj_full);
	free(f->obj_round);
	/* The result names the tasks of what this round ran. */
	if (report->result && f->own_g) {
		report->graph = f->own_g;
		f->own_g = NULL;
	}
	locus_graph_destroy(f->own_g);
	MPI_Comm_free(&f->comm);
	free(f);
	return rc;
}

int locus_mpi_flow_run(MPI_Comm comm, const struct locus_mpi_flow_options *opt,
		       struct locus_mpi_flow_report *report, struct locus_error *err)
{
	struct locus_error dummy = {0};
	if (!err)
		err = &dummy;
	memset(report, 0, sizeof *report);
	struct state st = {0};
	size_t nt = opt->graph ? opt->graph->n_tasks : 0,
	       no = opt->graph ? opt->graph->n_objects : 0;
	st.claimed = calloc(nt + 1, 1);
	st.place = malloc((no + 1) * sizeof *st.place);
	st.bytes = calloc(no + 1, sizeof *st.bytes);
	st.sum = calloc(no + 1, sizeof *st.sum);
	st.work = malloc((nt + 1) * sizeof *st.work);
	int ok = st.claimed && st.place && st.bytes && st.sum && st.work, all = 0;
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
	int rc = all ? 0 : locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	for (size_t o = 0; st.place && o < no; o++)
		st.place[o] = -1;
	for (size_t t = 0; st.work && t < nt; t++)
		st.work[t] = -1;
	/* A round that lost a file ends, and the next runs what is left. */
	while (!rc) {
		rc = run_round(comm, opt, &st, report, err);
		if (rc != ROUND_AGAIN)
			break;
		if (++st.round == MAX_ROUNDS) {
			rc = locus__err(
			    err, LOCUS_EINCOMPLETE, NULL, 0, 0,
			    "files were lost in each of %d rounds (the last: %s): giving "
			    "up",
			    MAX_ROUNDS, err->message);
			break;
		}
		locus_mpi_flow_report_fini(report);
		rc = 0;
	}
	report->skipped = st.skipped;
	report->rerun = st.rerun;
	report->rounds = st.round + 1;
	report->lost = st.lost;
	report->net_bw = st.peer_secs > 0 ? st.peer_bytes / st.peer_secs : 0;
	report->fs_bw = st.fs_secs > 0 ? st.fs_bytes / st.fs_secs : 0;
	report->work = st.work;
	st.work = NULL;
	free(st.claimed);
	free(st.place);
	free(st.bytes);
	free(st.sum);
	free(st.copied);
	free(st.work);
	return rc;
}

void locus_mpi_flow_report_fini(struct locus_mpi_flow_report *report)
{
	if (!report)
		return;
	locus_result_destroy(report->result);
	locus_platform_destroy(report->platform);
	locus_graph_destroy(report->graph);
	free(report->work);
	memset(report, 0, sizeof *report);
}
