/*
 * The MPI engine's state, shared by its files:
 *   setup.c   - agreeing on the run: nodes, catalog, journal, roles
 *   engine.c  - the event loop: policy events, data service, retries, end
 *   task.c    - running the caller's function on a thread of its own
 *   results.c - gathering what every rank measured into one result
 * docs/mpi.md describes the protocol.
 */
#ifndef LOCUS_MPI_ENGINE_H
#define LOCUS_MPI_ENGINE_H

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>

#include "core/internal.h"
#include "locus/heap.h"
#include "locus/mpi.h"
#include "locus/policy.h"
#include "sched/actions.h"

/* Message tags of the engine's communicator. */
enum {
	TAG_POLICY = 1, /* a policy message (struct wire) */
	TAG_FETCH,	/* worker -> holder: send me task's chunk (struct fetch) */
	TAG_DATA_HEAD,	/* holder -> worker: status and length (struct data_head + why) */
	TAG_DATA,	/* holder -> worker: a piece of the chunk's bytes */
	TAG_RETRY,	/* worker -> worker: run this task again (struct retry) */
	TAG_REPORT,	/* worker -> rank 0: outcomes (struct report[]) */
	TAG_FAILURE,	/* worker -> rank 0: a chunk failed for good (struct retry + why) */
	TAG_ERROR,	/* any -> rank 0: the run cannot go on (code + message) */
	TAG_FINISH,	/* rank 0 -> all: stop (code + message) */
	TAG_OUTPUT	/* worker -> rank 0: a successful chunk's output (bytes) */
};

/* The bytes of a chunk travel in pieces of at most this many. */
#define DATA_PIECE ((size_t)64 << 20)

struct wire {
	uint32_t type, from, to, bytes, n_args, pad;
	double value;
	int64_t arg[LOCUS_MSG_ARGS];
};
#define WIRE_HEAD offsetof(struct wire, arg)

struct fetch {
	uint32_t task, attempt;
};

struct data_head {
	uint32_t task;
	int32_t status; /* 0 or a LOCUS_E* code, then a message */
	uint64_t length;
};

struct retry {
	uint32_t task, attempt;
	int32_t rank; /* where the failed attempt ran */
	uint32_t pad;
};

enum report_kind {
	REP_DONE = 1, /* task finished (attempt) */
	REP_RETRIED,  /* task failed here and went to another rank */
	REP_IDLE      /* the worker is stopped and has nothing to run */
};

struct report {
	uint32_t kind, task, attempt;
	int32_t rank;
};

/* A send in flight: its buffer lives until MPI is done with it. */
struct outbox {
	MPI_Request *req;
	void **buf;
	size_t n, cap;
};

struct timer {
	double due;
	uint64_t seq;
	uint64_t tag;
};

/* Something a worker will run: a policy's assignment or a retry. */
struct run_item {
	uint32_t task;
	int attempt;
	int from_policy;
	int32_t hint; /* the policy's source node, or -1 */
	double assigned;
};

/* A run's record, gathered at rank 0 into locus_result.tasks. */
struct task_rec {
	uint32_t task, worker, node, source;
	uint32_t local, attempt, ok, from_policy;
	double idle_since, assigned, read_end, end;
};

/* The job handed to the function's thread. */
struct job {
	struct locus_mpi_chunk chunk;
	char path[4096];
	void *data; /* remote bytes, or NULL */
	size_t length;
	int rc;
	char why[1024];
	char *output; /* the function's output (options.output), or NULL */
	size_t output_len;
	double read_end, end; /* engine times */
};

struct engine {
	MPI_Comm comm;
	int rank, size;
	const struct locus_mpi_options *opt;
	locus_mpi_chunk_fn fn;
	void *user;
	struct locus_error *err;
	double t0;

	/* The run, the same on every rank. */
	struct locus_catalog *cat;
	struct locus_platform *plat;
	struct locus_workload *wl;
	size_t n_nodes;
	char **node_dir; /* by node: its store directory, or NULL */
	size_t total_chunks, skipped;
	const struct locus_policy *pol;
	size_t n_workers, n_scheds, n_procs;
	int *proc_rank;	     /* by process */
	uint32_t *rank_proc; /* by rank */
	uint32_t *rank_node; /* by rank */
	int *servers;	     /* ranks that serve each node's data ... */
	size_t *server_at;   /* ... servers[server_at[n] .. server_at[n+1]) */

	/* This rank. */
	uint32_t proc, node;
	int is_worker;
	void *pstate;
	struct locus_kv kv;
	struct locus_actions act;
	struct outbox out;
	uint64_t *sent, *received; /* by peer rank: messages */
	struct locus_heap timers;
	uint64_t timer_seq;
	struct locus_mpi_rank self;
	int stopped; /* the policy stopped this worker */
	int idle_told;
	int finishing;
	int failed; /* a local error: events are no longer delivered */
	uint32_t qmax;
	uint64_t qsum, qlooks;
	uint64_t msg_bytes; /* policy messages' sizes, as the simulator counts them */
	uint64_t entries;   /* metadata entries the policy said it examined */
	double last_flush;

	/* Worker: what is queued and running. */
	struct run_item *queue;
	size_t q_head, q_len, q_cap;
	int busy; /* an item is being fetched or run */
	struct run_item cur;
	int fetching;	    /* waiting for the bytes of cur */
	uint32_t fetch_try; /* holder tried, counting from the first */
	int fetch_server;
	double fetch_start;
	uint64_t fetch_got;
	void *fetch_buf;
	double paced_until; /* emulate_net_bw: the bytes count as here then */
	int pacing;
	uint32_t cur_source;
	double idle_since;
	char scratch[4096]; /* this rank's scratch directory, "" when none */
	struct task_rec *recs;
	size_t n_recs, recs_cap;
	struct locus_worker_result wres;
	struct report *reps;
	size_t n_reps, reps_cap;

	/* The function's thread. */
	int threaded;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv_job, cv_main;
	int job_ready, job_done, thread_quit;
	struct job job;

	/* Rank 0: the outcome of every task. */
	unsigned char *outcome; /* 0 open, 1 done, 2 failed */
	size_t n_done, n_failed;
	long pending_retries;
	size_t idle_workers;
	unsigned char *worker_idle;
	struct locus_mpi_failure *failures;
	size_t n_failures, failures_cap;
	int journal_fd;
	struct locus__buf journal_buf;
	size_t next_progress;
	double best_rtt;
	int end_code;
	char end_msg[sizeof(((struct locus_error *)0)->message)];
};

/* setup.c: everything up to the first event. Collective. */
int locus__mpi_setup(struct engine *e);
/* The same error on every rank: `rc` is this rank's outcome; returns the
 * first failing rank's code (its message in e->err), or 0. Collective. */
int locus__mpi_agree(struct engine *e, int rc);

/* task.c */
int locus__task_start_thread(struct engine *e);
void locus__task_stop_thread(struct engine *e);
void locus__task_run(struct engine *e, struct job *j); /* on whichever thread */

/* results.c: gathers every rank's figures into report. Collective. */
int locus__mpi_results(struct engine *e, struct locus_mpi_report *report);

/* engine.c */
double locus__mpi_now(const struct engine *e);

#endif
