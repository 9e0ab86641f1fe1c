/*
 * A divisible-load plan executed for real (locus_mpi_scatter, locus/mpi.h;
 * docs/mpi.md, "locus scatter").
 *
 * The plan decides; this file moves the bytes and keeps the time. Every
 * rank derives the same list of chunks from the plan and the input's size
 * (rank 0 broadcasts it): worker, round, group, units and byte extent, in
 * send order. Rank 0 serves the used groups one after the other, round
 * after round: it reads a group's chunks and sends them at once, and waits
 * for all of them before the next group, as the plan's model has it. A
 * worker receives its chunks in round order into two buffers: while the
 * function runs on one chunk (on a thread of its own when MPI allows), the
 * main thread keeps the receive of the next one moving.
 *
 * Ending: every worker sends the master exactly one end message
 * (TAG_END): at once when its function fails on a chunk, else when it has
 * computed all its chunks. The master looks for failures between groups
 * and sends no further group after one (or after it cannot read the
 * input); then it sends every worker exactly one final message
 * (TAG_FINAL): how many chunks it was sent, and whether the run failed. A
 * worker receives exactly the chunks it was told of, cancels a receive
 * posted beyond them, and computes no more once the run failed. Every
 * rank then agrees on the first failure (the earliest chunk in send
 * order, then the lowest rank) and the times are gathered on rank 0. So
 * no message is left unreceived and no rank waits for one that will not
 * come.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"
#include "locus/mpi.h"

enum { TAG_DATA = 1, TAG_END, TAG_FINAL, TAG_SYNC };

/* A chunk travels in pieces of at most this many bytes (an MPI count is an
 * int). LOCUS_SCATTER_PIECE (bytes, rank 0's value) makes them smaller, so
 * that tests exercise the pieces without gigabytes of input. */
#define PIECE_MAX ((size_t)1 << 30)

/* A worker polls for its next chunk this many times, yielding between
 * polls, before it sleeps between them, from SLEEP_FIRST doubling to
 * SLEEP_MAX seconds; while its function runs and a chunk is arriving, it
 * polls every SLEEP_MAX at most (the transfer moves only when it does). */
#define SPIN_POLLS  64
#define SLEEP_FIRST 10e-6
#define SLEEP_MAX   100e-6
/* Waiting for nothing but the end of the run (a worker for the master's
 * final message, the master for the workers' ends), a rank sleeps up to
 * this long between polls. */
#define SLEEP_IDLE 1e-3

/* One chunk of the run, in send order. */
struct chunk {
	uint32_t worker, round, group;
	double units;
	uint64_t offset, len;
};

/* Worker -> master, exactly one per worker: at its first failure, or when
 * it has received and computed everything. */
struct end_msg {
	uint64_t failed; /* the chunk that failed, or UINT64_MAX */
};

/* Master -> worker, exactly one per worker: how many chunks it was sent,
 * and whether the run failed (then it computes no more). */
struct final_msg {
	uint64_t limit;
	int32_t abort;
	int32_t pad;
};

/* What every rank knows of the run. */
struct run {
	MPI_Comm comm;
	int rank, size;
	const struct locus_divisible_plan *plan;
	struct locus_error *err;
	struct chunk *c;
	size_t n;	 /* chunks */
	size_t *mine;	 /* by worker: the chunk indices, in send order ... */
	size_t *mine_at; /* ... mine[mine_at[w] .. mine_at[w + 1]) */
	uint64_t file_size;
	size_t piece;
	double t0, m0;	   /* MPI_Wtime and the monotonic clock at the start,
			    * both on rank 0's clock (align_clocks) */
	uint64_t fail_key; /* this rank's failed chunk, or UINT64_MAX */
};

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now(const struct run *r)
{
	return MPI_Wtime() - r->t0;
}

/* The same error on every rank: `rc` is this rank's outcome; returns the
 * lowest failing rank's code, with its message in r->err, or 0. */
static int agree(struct run *r, int rc)
{
	int mine = rc ? r->rank : r->size, first;
	MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, r->comm);
	if (first == r->size)
		return 0;
	struct locus_error copy;
	memset(&copy, 0, sizeof copy);
	if (r->rank == first) {
		copy = *r->err;
		if (!copy.code) {
			copy.code = rc;
			snprintf(copy.message, sizeof copy.message, "%s", locus_strerror(rc));
		}
	}
	MPI_Bcast(&copy, (int)sizeof copy, MPI_BYTE, first, r->comm);
	*r->err = copy;
	return copy.code;
}

static size_t pieces(const struct run *r, uint64_t len)
{
	return len ? (size_t)((len + r->piece - 1) / r->piece) : 0;
}

/* Between polls: yields, then sleeps a little longer each time, up to
 * SLEEP_MAX while a chunk is arriving (it moves only when polled), up to
 * SLEEP_IDLE otherwise. */
static void backoff(int *spins, double *pause, int arriving)
{
	if (*spins < SPIN_POLLS) {
		(*spins)++;
		sched_yield();
		return;
	}
	double most = arriving ? SLEEP_MAX : SLEEP_IDLE;
	*pause = *pause > 0 ? *pause * 2 : SLEEP_FIRST;
	if (*pause > most)
		*pause = most;
	struct timespec ts = {0, (long)(*pause * 1e9)};
	nanosleep(&ts, NULL);
}

/* Round trips per worker when aligning clocks; the fastest counts. */
#define SYNC_TRIPS 4

/* The common start, on rank 0's clock: after a barrier, each worker in
 * turn asks rank 0 for its MPI_Wtime and takes the offset of the fastest
 * of SYNC_TRIPS round trips (Cristian's algorithm: rank 0's reading is
 * placed at the middle of the trip, so the error is at most half of it);
 * then rank 0 broadcasts its start, which every rank maps to its own
 * MPI_Wtime and monotonic clock. Collective. */
static void align_clocks(struct run *r)
{
	double offset = 0, best = INFINITY, t, start;
	MPI_Barrier(r->comm);
	if (r->rank == 0) {
		for (int w = 1; w < r->size; w++)
			for (int i = 0; i < SYNC_TRIPS; i++) {
				MPI_Recv(&t, 1, MPI_DOUBLE, w, TAG_SYNC, r->comm,
					 MPI_STATUS_IGNORE);
				t = MPI_Wtime();
				MPI_Send(&t, 1, MPI_DOUBLE, w, TAG_SYNC, r->comm);
			}
	} else {
		for (int i = 0; i < SYNC_TRIPS; i++) {
			double a = MPI_Wtime(), b;
			MPI_Send(&a, 1, MPI_DOUBLE, 0, TAG_SYNC, r->comm);
			MPI_Recv(&t, 1, MPI_DOUBLE, 0, TAG_SYNC, r->comm, MPI_STATUS_IGNORE);
			b = MPI_Wtime();
			if (b - a < best) {
				best = b - a;
				offset = t - (a + b) / 2; /* rank 0's clock - ours */
			}
		}
	}
	start = MPI_Wtime();
	MPI_Bcast(&start, 1, MPI_DOUBLE, 0, r->comm);
	double w = MPI_Wtime(), m = mono();
	r->t0 = start - offset;	 /* rank 0's start on our MPI_Wtime */
	r->m0 = m - (w - r->t0); /* ... and on our monotonic clock */
}

/* ---- the chunks ------------------------------------------------------------ */

/* FNV-1a over the chunk list: ranks holding different plans differ here. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/* The chunks in send order, their bytes, and each worker's list. */
static int build_chunks(struct run *r)
{
	const struct locus_divisible_plan *p = r->plan;
	size_t most = 0;
	for (size_t k = 0; k < p->n_used; k++)
		most += p->groups[k].count;
	if (most && p->rounds > SIZE_MAX / most)
		return locus__err(r->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	r->c = locus__calloc(p->rounds * most + 1, sizeof *r->c);
	r->mine_at = locus__calloc(p->n_workers + 1, sizeof *r->mine_at);
	if (!r->c || !r->mine_at)
		return locus__err(r->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	size_t n = 0;
	double total = 0;
	for (size_t j = 0; j < p->rounds; j++)
		for (size_t k = 0; k < p->n_used; k++) {
			const struct locus_divisible_group *g = &p->groups[k];
			for (size_t m = g->first; m < g->first + g->count; m++) {
				size_t i = p->order[m];
				double u = locus_divisible_worker_chunk(p, j, i);
				if (!(u > 0) || !isfinite(u))
					continue;
				r->c[n++] =
				    (struct chunk){(uint32_t)i, (uint32_t)j, (uint32_t)k, u, 0, 0};
				total += u;
			}
		}
	if (r->file_size && !(total > 0 && isfinite(total)))
		return locus__err(r->err, LOCUS_EINVAL, NULL, 0, 0,
				  "the plan gives no load to any worker (%zu rounds, W %g)",
				  p->rounds, p->W);
	/* Byte boundaries: floor(cumulative / total * size); the last is the
	 * size itself, so that rounding never loses the file's tail. */
	double cum = 0, size = (double)r->file_size;
	uint64_t prev = 0;
	size_t kept = 0;
	for (size_t q = 0; q < n; q++) {
		cum += r->c[q].units;
		uint64_t end = r->file_size;
		if (q + 1 < n) {
			double b = floor(cum / total * size);
			end = b <= 0 ? 0 : b >= size ? r->file_size : (uint64_t)b;
			if (end < prev)
				end = prev;
		}
		r->c[q].offset = prev;
		r->c[q].len = end - prev;
		prev = end;
		if (r->c[q].len)
			r->c[kept++] = r->c[q];
	}
	r->n = kept;
	for (size_t q = 0; q < r->n; q++)
		r->mine_at[r->c[q].worker + 1]++;
	for (size_t w = 0; w < p->n_workers; w++)
		r->mine_at[w + 1] += r->mine_at[w];
	r->mine = locus__calloc(r->n + 1, sizeof *r->mine);
	size_t *fill = locus__calloc(p->n_workers + 1, sizeof *fill);
	if (!r->mine || !fill) {
		free(fill);
		return locus__err(r->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	for (size_t q = 0; q < r->n; q++) {
		size_t w = r->c[q].worker;
		r->mine[r->mine_at[w] + fill[w]++] = q;
	}
	free(fill);
	return 0;
}

/* Whether every rank holds the same chunks (the same plan over the same
 * file): LOCUS_EINVAL when not. Collective. */
static int check_same(struct run *r)
{
	uint64_t h = 14695981039346656037ULL, lo, hi;
	h = fnv(h, &r->n, sizeof r->n);
	for (size_t q = 0; q < r->n; q++) {
		const struct chunk *c = &r->c[q];
		uint64_t v[5] = {c->worker, c->round, c->group, c->offset, c->len};
		h = fnv(h, v, sizeof v);
	}
	MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, r->comm);
	MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, r->comm);
	if (lo != hi)
		return locus__err(r->err, LOCUS_EINVAL, NULL, 0, 0,
				  "the ranks hold different plans: every rank must compute the "
				  "same plan (the same workers, options and W)");
	return 0;
}

/* ---- the master -------------------------------------------------------- */

static int read_at(int fd, char *buf, uint64_t len, uint64_t off, const char *path,
		   struct locus_error *err)
{
	for (uint64_t at = 0; at < len;) {
		size_t want = len - at > PIECE_MAX ? PIECE_MAX : (size_t)(len - at);
		ssize_t got = pread(fd, buf + at, want, (off_t)(off + at));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return locus__err(err, LOCUS_EIO, NULL, 0, 0,
					  "cannot read %s at offset %" PRIu64 ": %s", path,
					  off + at, strerror(errno));
		if (got == 0)
			return locus__err(err, LOCUS_EIO, NULL, 0, 0,
					  "%s ends at offset %" PRIu64 ", before the %" PRIu64
					  " bytes it had when the run began: it changed meanwhile",
					  path, off + at, off + len);
		at += (uint64_t)got;
	}
	return 0;
}

/* The master's buffers, allocated before the run. */
struct master_bufs {
	char *data;		 /* a group's chunks */
	MPI_Request *req;	 /* a group's pieces */
	uint64_t *sent;		 /* by worker: chunks sent */
	struct final_msg *final; /* by worker */
	MPI_Request *final_req;	 /* by worker */
	double *send_start;	 /* by chunk */
	double *send_end;	 /* by chunk: its group's sends had completed */
};

struct master {
	struct run *r;
	struct master_bufs *b;
	struct end_msg end;
	MPI_Request end_req;
	size_t ends;
	int abort, finals_sent;
};

/* Takes in a worker's end message; posts the receive of the next. */
static void master_end(struct master *m)
{
	size_t nw = m->r->plan->n_workers;
	m->ends++;
	if (m->end.failed != UINT64_MAX)
		m->abort = 1;
	m->end_req = MPI_REQUEST_NULL;
	if (m->ends < nw)
		MPI_Irecv(&m->end, (int)sizeof m->end, MPI_BYTE, MPI_ANY_SOURCE, TAG_END,
			  m->r->comm, &m->end_req);
}

/* Tells every worker how many chunks it was sent, and whether to stop. */
static void master_finals(struct master *m)
{
	struct run *r = m->r;
	for (size_t w = 0; w < r->plan->n_workers; w++) {
		m->b->final[w] = (struct final_msg){m->b->sent[w], m->abort, 0};
		MPI_Isend(&m->b->final[w], (int)sizeof m->b->final[w], MPI_BYTE, (int)w + 1,
			  TAG_FINAL, r->comm, &m->b->final_req[w]);
	}
	m->finals_sent = 1;
}

/* Serves the chunks group after group, each group's at once, until all
 * are sent or a worker failed; fills send_start. Returns 0, or the code
 * of a read error (r->fail_key is then its chunk). */
static int master(struct run *r, int fd, const char *input, struct master_bufs *b)
{
	size_t nw = r->plan->n_workers;
	struct master m = {.r = r, .b = b, .end_req = MPI_REQUEST_NULL};
	int rc = 0;
	if (nw)
		MPI_Irecv(&m.end, (int)sizeof m.end, MPI_BYTE, MPI_ANY_SOURCE, TAG_END, r->comm,
			  &m.end_req);
	for (size_t q = 0, g; q < r->n && !m.abort; q = g) {
		/* Failures reported meanwhile stop the run before this group. */
		int flag = 1;
		while (flag && m.end_req != MPI_REQUEST_NULL && !m.abort) {
			MPI_Test(&m.end_req, &flag, MPI_STATUS_IGNORE);
			if (flag)
				master_end(&m);
		}
		if (m.abort)
			break;
		size_t np = 0;
		char *at = b->data;
		for (g = q;
		     g < r->n && r->c[g].round == r->c[q].round && r->c[g].group == r->c[q].group;
		     g++) {
			const struct chunk *c = &r->c[g];
			if ((rc = read_at(fd, at, c->len, c->offset, input, r->err))) {
				r->fail_key = g;
				m.abort = 1;
				break;
			}
			b->send_start[g] = now(r);
			for (uint64_t off = 0; off < c->len; off += r->piece) {
				uint64_t part = c->len - off < r->piece ? c->len - off : r->piece;
				MPI_Isend(at + off, (int)part, MPI_BYTE, (int)c->worker + 1,
					  TAG_DATA, r->comm, &b->req[np++]);
			}
			b->sent[c->worker]++;
			at += c->len;
		}
		MPI_Waitall((int)np, b->req, MPI_STATUSES_IGNORE);
		double end = now(r);
		for (size_t k = q; k < g; k++)
			b->send_end[k] = end;
	}
	if (m.abort)
		master_finals(&m);
	/* Every worker's end; a failure now stops the others' computing. The
	 * master polls and sleeps rather than spin in MPI_Wait, leaving the
	 * cores to the workers. */
	int spins = 0, flag = 0;
	double pause = 0;
	while (m.ends < nw) {
		MPI_Test(&m.end_req, &flag, MPI_STATUS_IGNORE);
		if (!flag) {
			backoff(&spins, &pause, 0);
			continue;
		}
		master_end(&m);
		if (m.abort && !m.finals_sent)
			master_finals(&m);
	}
	if (!m.finals_sent)
		master_finals(&m);
	MPI_Waitall((int)nw, b->final_req, MPI_STATUSES_IGNORE);
	return rc;
}

/* ---- a worker ------------------------------------------------------------ */

/* The function's thread: runs one chunk at a time, never calls MPI. */
struct comp {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int threaded, job, done, quit;
	locus_mpi_scatter_fn fn;
	void *user;
	const void *data;
	size_t len;
	uint64_t offset;
	uint32_t round;
	int rc;
	double start, end; /* monotonic */
};

static void comp_run(struct comp *x)
{
	x->start = mono();
	x->rc = x->fn(x->data, x->len, x->offset, x->round, x->user);
	x->end = mono();
}

static void *comp_main(void *arg)
{
	struct comp *x = arg;
	pthread_mutex_lock(&x->mu);
	for (;;) {
		while (!x->job && !x->quit)
			pthread_cond_wait(&x->cv, &x->mu);
		if (x->quit)
			break;
		x->job = 0;
		pthread_mutex_unlock(&x->mu);
		comp_run(x);
		pthread_mutex_lock(&x->mu);
		x->done = 1;
		pthread_cond_broadcast(&x->cv);
	}
	pthread_mutex_unlock(&x->mu);
	return NULL;
}

/* A receive slot: one chunk's pieces. */
struct slot {
	size_t q; /* chunk (index into r->c), or SIZE_MAX when free */
	size_t k; /* position in this worker's list */
	char *buf;
	MPI_Request *req;
	size_t np;
	int complete;
	double recv_end;
};

struct worker {
	struct run *r;
	size_t w; /* plan worker */
	const size_t *mine;
	size_t n_mine, limit;
	struct slot slot[2];
	MPI_Request final_req, end_req;
	struct final_msg final;
	struct end_msg end;
	int finaled, aborting, failed;
	double *times; /* by position: recv_end, comp_start, comp_end */
	double pause;  /* the next sleep, s */
	int spins;
};

static void post(struct worker *k, struct slot *s, size_t pos)
{
	struct run *r = k->r;
	const struct chunk *c = &r->c[k->mine[pos]];
	s->q = k->mine[pos];
	s->k = pos;
	s->np = 0;
	s->complete = 0;
	for (uint64_t off = 0; off < c->len; off += r->piece) {
		uint64_t part = c->len - off < r->piece ? c->len - off : r->piece;
		MPI_Irecv(s->buf + off, (int)part, MPI_BYTE, 0, TAG_DATA, r->comm,
			  &s->req[s->np++]);
	}
}

/* Moves the receives and the final message along; records arrivals. */
static void progress(struct worker *k)
{
	for (int i = 0; i < 2; i++) {
		struct slot *s = &k->slot[i];
		if (s->q == SIZE_MAX || s->complete)
			continue;
		int flag = 0;
		MPI_Testall((int)s->np, s->req, &flag, MPI_STATUSES_IGNORE);
		if (flag) {
			s->complete = 1;
			s->recv_end = now(k->r);
			k->times[3 * s->k] = s->recv_end;
			k->pause = 0;
			k->spins = 0;
		}
	}
	if (!k->finaled) {
		int flag = 0;
		MPI_Test(&k->final_req, &flag, MPI_STATUS_IGNORE);
		if (flag) {
			k->finaled = 1;
			k->limit = k->final.limit < k->n_mine ? (size_t)k->final.limit : k->n_mine;
			if (k->final.abort)
				k->aborting = 1;
		}
	}
}

/* Whether anything MPI must move is outstanding. */
static int waiting(const struct worker *k)
{
	if (!k->finaled)
		return 1;
	for (int i = 0; i < 2; i++)
		if (k->slot[i].q != SIZE_MAX && !k->slot[i].complete && k->slot[i].k < k->limit)
			return 1;
	return 0;
}

static void idle(struct worker *k)
{
	int arriving = 0;
	for (int i = 0; i < 2; i++)
		arriving |=
		    k->slot[i].q != SIZE_MAX && !k->slot[i].complete && k->slot[i].k < k->limit;
	backoff(&k->spins, &k->pause, arriving);
}

/* Runs the function on the chunk in slot s, keeping the other receive
 * moving meanwhile. Returns the function's result. */
static int compute(struct worker *k, struct comp *x, struct slot *s)
{
	const struct chunk *c = &k->r->c[s->q];
	x->data = s->buf;
	x->len = (size_t)c->len;
	x->offset = c->offset;
	x->round = c->round;
	if (!x->threaded) {
		comp_run(x);
	} else {
		pthread_mutex_lock(&x->mu);
		x->done = 0;
		x->job = 1;
		pthread_cond_broadcast(&x->cv);
		while (!x->done) {
			if (waiting(k)) {
				pthread_mutex_unlock(&x->mu);
				progress(k);
				pthread_mutex_lock(&x->mu);
				if (x->done)
					break;
				/* Wait for the function, or until it is time to poll again. */
				k->pause = k->pause > 0 ? k->pause * 2 : SLEEP_FIRST;
				if (k->pause > SLEEP_MAX)
					k->pause = SLEEP_MAX;
				struct timespec ts;
				clock_gettime(CLOCK_REALTIME, &ts);
				long ns = ts.tv_nsec + (long)(k->pause * 1e9);
				ts.tv_sec += ns / 1000000000L;
				ts.tv_nsec = ns % 1000000000L;
				pthread_cond_timedwait(&x->cv, &x->mu, &ts);
			} else {
				pthread_cond_wait(&x->cv, &x->mu);
			}
		}
		pthread_mutex_unlock(&x->mu);
	}
	k->times[3 * s->k + 1] = x->start - k->r->m0;
	k->times[3 * s->k + 2] = x->end - k->r->m0;
	return x->rc;
}

static void cancel_slot(struct slot *s)
{
	for (size_t i = 0; i < s->np; i++)
		if (s->req[i] != MPI_REQUEST_NULL) {
			MPI_Cancel(&s->req[i]);
			MPI_Wait(&s->req[i], MPI_STATUS_IGNORE);
		}
	s->q = SIZE_MAX;
}

/* Tells the master this worker is done, or failed on chunk `failed`. */
static void worker_end(struct worker *k, uint64_t failed)
{
	k->end.failed = failed;
	MPI_Isend(&k->end, (int)sizeof k->end, MPI_BYTE, 0, TAG_END, k->r->comm, &k->end_req);
}

/* Receives and computes this worker's chunks. times (3 per own chunk)
 * gets recv_end, comp_start, comp_end. */
static void worker(struct run *r, struct comp *x, char *bufs, MPI_Request *reqs, size_t maxlen,
		   size_t maxp, double *times)
{
	struct worker k = {.r = r, .w = (size_t)r->rank - 1};
	k.mine = r->mine + r->mine_at[k.w];
	k.n_mine = r->mine_at[k.w + 1] - r->mine_at[k.w];
	k.limit = k.n_mine;
	k.times = times;
	k.end_req = MPI_REQUEST_NULL;
	for (int i = 0; i < 2; i++) {
		k.slot[i].q = SIZE_MAX;
		k.slot[i].buf = bufs + (size_t)i * maxlen;
		k.slot[i].req = reqs + (size_t)i * maxp;
	}
	MPI_Irecv(&k.final, (int)sizeof k.final, MPI_BYTE, 0, TAG_FINAL, r->comm, &k.final_req);
	if (k.n_mine)
		post(&k, &k.slot[0], 0);
	for (size_t pos = 0; pos < k.limit; pos++) {
		struct slot *s = &k.slot[pos & 1];
		while (!s->complete && pos < k.limit) {
			progress(&k);
			if (!s->complete && pos < k.limit)
				idle(&k);
		}
		if (pos >= k.limit)
			break;
		if (pos + 1 < k.limit)
			post(&k, &k.slot[(pos + 1) & 1], pos + 1);
		if (k.failed || k.aborting) {
			times[3 * pos + 1] = times[3 * pos + 2] = NAN;
		} else if (compute(&k, x, s)) {
			/* Said at once, so that the master sends no further group. */
			k.failed = 1;
			r->fail_key = s->q;
			worker_end(&k, s->q);
			const struct chunk *c = &r->c[s->q];
			locus__err(r->err, LOCUS_EINCOMPLETE, NULL, 0, 0,
				   "rank %d (plan worker %zu) failed on its chunk of round %" PRIu32
				   " at byte offset %" PRIu64 " (%" PRIu64 " bytes): the function "
				   "returned %d",
				   r->rank, k.w, c->round, c->offset, c->len, x->rc);
		}
		s->q = SIZE_MAX;
	}
	if (!k.failed)
		worker_end(&k, UINT64_MAX);
	while (!k.finaled) {
		progress(&k);
		if (!k.finaled)
			idle(&k);
	}
	/* A receive posted beyond what the master sent: nothing will match it. */
	for (int i = 0; i < 2; i++)
		if (k.slot[i].q != SIZE_MAX && !k.slot[i].complete)
			cancel_slot(&k.slot[i]);
	MPI_Wait(&k.end_req, MPI_STATUS_IGNORE);
}

/* ---- the run ------------------------------------------------------------- */

/* The first failure in send order (then the lowest rank) on every rank. */
static int agree_failure(struct run *r, int rc)
{
	uint64_t key = rc ? r->fail_key : UINT64_MAX, first;
	MPI_Allreduce(&key, &first, 1, MPI_UINT64_T, MPI_MIN, r->comm);
	if (first == UINT64_MAX)
		return agree(r, rc);
	return agree(r, key == first ? rc : 0);
}

static struct locus_divisible_run *assemble(struct run *r, const struct master_bufs *mb,
					    const double *all)
{
	struct locus_divisible_run *run = locus__calloc(1, sizeof *run);
	if (!run)
		return NULL;
	run->events = locus__calloc(r->n + 1, sizeof *run->events);
	if (!run->events) {
		free(run);
		return NULL;
	}
	run->n_events = r->n;
	for (size_t q = 0; q < r->n; q++) {
		const struct chunk *c = &r->c[q];
		run->events[q] = (struct locus_divisible_event){
		    .worker = c->worker,
		    .round = c->round,
		    .group = c->group,
		    .units = c->units,
		    .send_start = mb->send_start[q],
		    .send_end = mb->send_end[q],
		};
	}
	size_t at = 0;
	for (size_t w = 0; w < r->plan->n_workers; w++)
		for (size_t t = r->mine_at[w]; t < r->mine_at[w + 1]; t++, at += 3) {
			struct locus_divisible_event *e = &run->events[r->mine[t]];
			e->recv_end = all[at];
			e->comp_start = all[at + 1];
			e->comp_end = all[at + 2];
			if (e->comp_end > run->makespan)
				run->makespan = e->comp_end;
		}
	for (size_t q = 0, g; q < r->n; q = g) {
		double first = run->events[q].send_start, last = run->events[q].recv_end;
		for (g = q;
		     g < r->n && r->c[g].round == r->c[q].round && r->c[g].group == r->c[q].group;
		     g++) {
			if (run->events[g].send_start < first)
				first = run->events[g].send_start;
			if (run->events[g].recv_end > last)
				last = run->events[g].recv_end;
		}
		run->link_busy += last - first;
	}
	return run;
}

/* Rank 0 opens the input and learns its size (a regular file's); the
 * piece size comes from LOCUS_SCATTER_PIECE when it is in range. */
static int open_input(struct run *r, const char *input, int *fd)
{
	struct stat st;
	int rc = 0;
	if (!input)
		rc = locus__err(r->err, LOCUS_EINVAL, NULL, 0, 0, "no input file");
	else if ((*fd = open(input, O_RDONLY | O_CLOEXEC)) < 0)
		rc = locus__err(r->err, errno == ENOENT ? LOCUS_ENOENT : LOCUS_EIO, NULL, 0, 0,
				"cannot open %s: %s", input, strerror(errno));
	else if (fstat(*fd, &st) != 0)
		rc = locus__err(r->err, LOCUS_EIO, NULL, 0, 0, "cannot stat %s: %s", input,
				strerror(errno));
	else if (!S_ISREG(st.st_mode))
		rc = locus__err(r->err, LOCUS_EINVAL, NULL, 0, 0,
				"%s is not a regular file (its size must be known)", input);
	else
		r->file_size = (uint64_t)st.st_size;
	const char *env = getenv("LOCUS_SCATTER_PIECE");
	uint64_t v;
	r->piece = PIECE_MAX;
	if (env && !locus__parse_size(env, &v) && v > 0 && v < PIECE_MAX)
		r->piece = (size_t)v;
	return rc;
}

/* The master's buffers: the largest group's chunks and pieces, and what
 * it keeps by worker and by chunk (times: 3 a chunk, gathered). */
static int master_alloc(struct run *r, struct master_bufs *mb, double **all)
{
	size_t maxlen = 0, np = 0, nw = r->plan->n_workers;
	for (size_t q = 0, g; q < r->n; q = g) {
		uint64_t sum = 0;
		size_t n = 0;
		for (g = q;
		     g < r->n && r->c[g].round == r->c[q].round && r->c[g].group == r->c[q].group;
		     g++) {
			sum += r->c[g].len;
			n += pieces(r, r->c[g].len);
		}
		if (sum > maxlen)
			maxlen = (size_t)sum;
		if (n > np)
			np = n;
	}
	mb->data = malloc(maxlen ? maxlen : 1);
	mb->req = locus__calloc(np + 1, sizeof *mb->req);
	mb->sent = locus__calloc(nw + 1, sizeof *mb->sent);
	mb->final = locus__calloc(nw + 1, sizeof *mb->final);
	mb->final_req = locus__calloc(nw + 1, sizeof *mb->final_req);
	mb->send_start = locus__calloc(r->n + 1, sizeof *mb->send_start);
	mb->send_end = locus__calloc(r->n + 1, sizeof *mb->send_end);
	*all = locus__calloc(3 * r->n + 1, sizeof **all);
	if (!mb->data || !mb->req || !mb->sent || !mb->final || !mb->final_req || !mb->send_start ||
	    !mb->send_end || !*all)
		return locus__err(r->err, LOCUS_ENOMEM, NULL, 0, 0,
				  "out of memory for the input's largest group of chunks "
				  "(%zu bytes)",
				  maxlen);
	return 0;
}

static void master_free(struct master_bufs *mb)
{
	free(mb->data);
	free(mb->req);
	free(mb->sent);
	free(mb->final);
	free(mb->final_req);
	free(mb->send_start);
	free(mb->send_end);
}

/* A worker's buffers: two of its largest chunks (one arriving while the
 * other is computed) with their pieces' requests, and its times. */
struct worker_bufs {
	char *buf;
	MPI_Request *reqs;
	double *times;
	size_t maxlen, maxp, n_mine;
};

static int worker_alloc(struct run *r, struct worker_bufs *wb)
{
	size_t w = (size_t)r->rank - 1;
	wb->n_mine = r->mine_at[w + 1] - r->mine_at[w];
	for (size_t t = r->mine_at[w]; t < r->mine_at[w + 1]; t++) {
		if (r->c[r->mine[t]].len > wb->maxlen)
			wb->maxlen = (size_t)r->c[r->mine[t]].len;
		if (pieces(r, r->c[r->mine[t]].len) > wb->maxp)
			wb->maxp = pieces(r, r->c[r->mine[t]].len);
	}
	wb->buf = wb->maxlen > SIZE_MAX / 2 ? NULL : malloc(wb->maxlen ? 2 * wb->maxlen : 1);
	wb->reqs = locus__calloc(2 * wb->maxp + 1, sizeof *wb->reqs);
	wb->times = locus__calloc(3 * wb->n_mine + 1, sizeof *wb->times);
	if (!wb->buf || !wb->reqs || !wb->times)
		return locus__err(r->err, LOCUS_ENOMEM, NULL, 0, 0,
				  "out of memory for two chunks of %zu bytes on rank %d",
				  wb->maxlen, r->rank);
	return 0;
}

/* The computing thread, where MPI allows one (else chunks are computed
 * between receives, on the rank's own thread). */
static void comp_start(struct comp *x)
{
	int level = MPI_THREAD_SINGLE;
	MPI_Query_thread(&level);
	if (level < MPI_THREAD_FUNNELED)
		return;
	x->threaded = 1;
	if (pthread_mutex_init(&x->mu, NULL)) {
		x->threaded = 0;
	} else if (pthread_cond_init(&x->cv, NULL)) {
		pthread_mutex_destroy(&x->mu);
		x->threaded = 0;
	} else if (pthread_create(&x->th, NULL, comp_main, x)) {
		pthread_cond_destroy(&x->cv);
		pthread_mutex_destroy(&x->mu);
		x->threaded = 0;
	}
}

static void comp_stop(struct comp *x)
{
	if (!x->threaded)
		return;
	pthread_mutex_lock(&x->mu);
	x->quit = 1;
	pthread_cond_broadcast(&x->cv);
	pthread_mutex_unlock(&x->mu);
	pthread_join(x->th, NULL);
	pthread_cond_destroy(&x->cv);
	pthread_mutex_destroy(&x->mu);
}

/* Every rank's times to rank 0, in each worker's order (all: 3 a chunk). */
static int gather_times(struct run *r, const struct worker_bufs *wb, double *all)
{
	int *counts = NULL, *displs = NULL, rc = 0;
	if (r->rank == 0) {
		counts = locus__calloc((size_t)r->size, sizeof *counts);
		displs = locus__calloc((size_t)r->size, sizeof *displs);
		if (!counts || !displs)
			rc = locus__err(r->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		for (int k = 1; !rc && k < r->size; k++) {
			size_t w = (size_t)k - 1;
			counts[k] = (int)(3 * (r->mine_at[w + 1] - r->mine_at[w]));
			displs[k] = (int)(3 * r->mine_at[w]);
		}
	}
	if (!(rc = agree(r, rc)))
		MPI_Gatherv(wb->times, (int)(3 * wb->n_mine), MPI_DOUBLE, all, counts, displs,
			    MPI_DOUBLE, 0, r->comm);
	free(counts);
	free(displs);
	return rc;
}

/* The plan, the ranks and the function, checked on every rank alike. */
static int check_args(struct run *r, locus_mpi_scatter_fn fn)
{
	const struct locus_divisible_plan *plan = r->plan;
	if (!plan)
		return locus__err(r->err, LOCUS_EINVAL, NULL, 0, 0, "no plan");
	if (plan->n_workers != (size_t)r->size - 1)
		return locus__err(r->err, LOCUS_EINVAL, NULL, 0, 0,
				  "the plan has %zu worker%s but the job has %d rank%s: it needs "
				  "%zu (rank 0 is the master, rank i + 1 runs plan worker i)",
				  plan->n_workers, plan->n_workers == 1 ? "" : "s", r->size,
				  r->size == 1 ? "" : "s", plan->n_workers + 1);
	if (r->rank != 0 && !fn)
		return locus__err(r->err, LOCUS_EINVAL, NULL, 0, 0,
				  "no function to call on chunks");
	return 0;
}

int locus_mpi_scatter(MPI_Comm comm, const struct locus_divisible_plan *plan, const char *input,
		      locus_mpi_scatter_fn fn, void *user, struct locus_divisible_run **measured,
		      struct locus_error *err)
{
	struct locus_error local;
	struct run r = {
	    .comm = comm, .plan = plan, .err = err ? err : &local, .fail_key = UINT64_MAX};
	locus_error_clear(r.err);
	if (measured)
		*measured = NULL;
	MPI_Comm_rank(comm, &r.rank);
	MPI_Comm_size(comm, &r.size);
	int rc, fd = -1;
	double *all = NULL;
	struct master_bufs mb = {0};
	struct worker_bufs wb = {0};
	struct comp x = {.fn = fn, .user = user};

	if ((rc = agree(&r, check_args(&r, fn))))
		return rc;

	/* The input, on rank 0: its size for everyone. */
	if (r.rank == 0)
		rc = open_input(&r, input, &fd);
	uint64_t shared[2] = {r.file_size, r.piece};
	MPI_Bcast(shared, 2, MPI_UINT64_T, 0, comm);
	r.file_size = shared[0];
	r.piece = (size_t)shared[1];
	if ((rc = agree(&r, rc)))
		goto out;

	/* The chunks, the same everywhere. */
	rc = build_chunks(&r);
	if ((rc = agree(&r, rc)))
		goto out;
	if ((rc = check_same(&r)))
		goto out;
	if (r.n > (size_t)INT_MAX / 3) {
		rc = locus__err(r.err, LOCUS_ERANGE, NULL, 0, 0,
				"%zu chunks are more than this implementation gathers", r.n);
		goto out;
	}

	/* Buffers: the master a group's chunks, a worker two of its own. */
	if (r.rank == 0) {
		rc = master_alloc(&r, &mb, &all);
	} else {
		rc = worker_alloc(&r, &wb);
		if (!rc)
			comp_start(&x);
	}
	if ((rc = agree(&r, rc)))
		goto out;

	/* The run, from a common start. */
	align_clocks(&r);
	if (r.rank == 0)
		rc = master(&r, fd, input, &mb);
	else
		worker(&r, &x, wb.buf, wb.reqs, wb.maxlen, wb.maxp, wb.times);
	if (r.rank != 0 && r.fail_key != UINT64_MAX)
		rc = LOCUS_EINCOMPLETE;
	rc = agree_failure(&r, rc);

	int grc = gather_times(&r, &wb, all);
	if (!rc)
		rc = grc;
	if (!rc) {
		int mem = 0;
		if (r.rank == 0 && measured && !(*measured = assemble(&r, &mb, all)))
			mem = locus__err(r.err, LOCUS_ENOMEM, NULL, 0, 0,
					 "out of memory for the measured run");
		rc = agree(&r, mem);
	}

out:
	comp_stop(&x);
	if (fd >= 0)
		close(fd);
	free(wb.buf);
	free(wb.reqs);
	free(wb.times);
	master_free(&mb);
	free(all);
	free(r.c);
	free(r.mine);
	free(r.mine_at);
	return rc;
}
