/*
 * The runtime's transport and loop: messages batched and sent, a rank's end
 * and its failures, what it receives, its timers, the doorbells an idle
 * rank sleeps on, and the loop that turns until the run ends.
 */
#define _GNU_SOURCE
#include "mpi/runtime.h"

static void bell_ring(struct flow *f, int dest);

/* snprintf, truncating silently: paths past PATH_MAX fail when used. */

int locus__rt_fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int n = vsnprintf(buf, size, f, ap);
	va_end(ap);
	return n;
}

double locus__rt_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double locus__rt_now_of(struct flow *f)
{
	if (!f->now_ok) {
		f->now = locus__rt_mono() - f->t0;
		f->now_ok = 1;
	}
	return f->now;
}

const char *locus__rt_task_name(const struct flow *f, uint32_t t, char *buf, size_t size)
{
	return locus_graph_task_name(f->g, t, buf, size);
}

const char *locus__rt_obj_name(const struct flow *f, uint32_t o)
{
	return f->g->objects[o].name ? f->g->objects[o].name : "?";
}

/* ---- sending and failing -------------------------------------------------------- */

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
 * ringing dest when `ring`; `bcap` > 0: a batch's buffer of that size, to
 * be kept for another batch once sent. */
static void send_now(struct flow *f, int dest, int tag, void *buf, size_t len, size_t bcap,
		     int ring)
{
	if (f->n_out == f->out_cap) {
		size_t n = f->out_cap ? 2 * f->out_cap : 64;
		MPI_Request *req = realloc(f->req, n * sizeof *req);
		if (req)
			f->req = req;
		void **bufs = req ? realloc(f->bufs, n * sizeof *bufs) : NULL;
		if (bufs)
			f->bufs = bufs;
		int *dests = bufs ? realloc(f->dests, n * sizeof *dests) : NULL;
		if (dests)
			f->dests = dests;
		int *tested = dests ? realloc(f->tested, n * sizeof *tested) : NULL;
		if (tested)
			f->tested = tested;
		size_t *caps = tested ? realloc(f->caps, n * sizeof *caps) : NULL;
		if (caps)
			f->caps = caps;
		if (!req || !bufs || !dests || !tested || !caps) {
			free(buf);
			locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
			return;
		}
		f->out_cap = n;
	}
	MPI_Isend(buf, (int)len, MPI_BYTE, dest, tag, f->comm, &f->req[f->n_out]);
	f->dests[f->n_out] = ring ? dest : -1;
	f->caps[f->n_out] = bcap;
	f->bufs[f->n_out++] = buf;
	f->sent[dest]++;
	if (ring)
		bell_ring(f, dest);
}

/* A buffer for a piece to send, or NULL (no memory). */
char *locus__rt_piece_take(struct flow *f)
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

/* A sent message's buffer: back to the pieces or the spare batch
 * buffers (cap > 0: a batch's, of that size), or freed. */
static void release(struct flow *f, void *buf, size_t cap)
{
	if (cap && cap <= SPARE_CAP && f->n_spare < SPARE_MAX) {
		f->spare[f->n_spare++] = (struct spare){buf, cap};
		return;
	}
	for (size_t i = 0; i < OUT_MAX; i++)
		if (buf == f->piece_buf[i]) {
			f->piece_used[i] = 0;
			return;
		}
	free(buf);
}

/* Sends what waits for rank `dest`: tasks' states for its monitor
 * first. What a rank tells a scheduler at one time, a policy's message
 * included, is read with the monitor as fresh as the rank can make it
 * (a worker that reports a failed attempt has started its next task by
 * the time the message is sent; the simulator's monitor is exact). */
static void flush_batch(struct flow *f, int dest)
{
	struct locus__buf *b = &f->batch[dest];
	if (f->sbatch && f->sbatch[dest].len) {
		struct locus__buf *s = &f->sbatch[dest];
		if (b->len && locus__buf_append(s, b->data, b->len))
			locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
		locus__buf_fini(b);
		*b = *s;
		*s = (struct locus__buf){0};
	}
	if (!b->len)
		return;
	char *data = b->data;
	size_t len = b->len, cap = b->cap;
	*b = (struct locus__buf){0};
	int ring = f->urgent ? f->urgent[dest] : 1;
	if (f->urgent)
		f->urgent[dest] = 0;
	send_now(f, dest, F_BATCH, data, len, cap, ring);
}

static void flush_batches(struct flow *f)
{
	for (size_t i = 0; i < f->n_pend; i++) {
		int r = f->pend[i];
		f->pend_in[r] = 0;
		flush_batch(f, r);
	}
	f->n_pend = 0;
}

/* Sends a copy of p[0 .. len): into dest's batch when short, else at
 * once after that batch, so that a rank receives another's messages in
 * the order they were posted. */
void locus__rt_post_copy(struct flow *f, int dest, int tag, const void *p, size_t len)
{
	if (len <= BATCH_MAX && f->batch) {
		struct locus__buf *b =
		    tag == F_STATE && f->sbatch ? &f->sbatch[dest] : &f->batch[dest];
		struct bhead h = {(uint32_t)tag, (uint32_t)len};
		/* Header, message, zeros to the next 8 bytes: one growth and
		 * three copies (a message per task goes this way). */
		size_t pad = (8 - len % 8) % 8, n = sizeof h + len + pad;
		if (!b->data && f->n_spare) {
			const struct spare *sp = &f->spare[--f->n_spare];
			b->data = sp->data;
			b->cap = sp->cap;
		}
		if (locus__grow(&b->data, &b->cap, b->len + n + 1, 1)) {
			locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
			return;
		}
		char *at = b->data + b->len;
		memcpy(at, &h, sizeof h);
		memcpy(at + sizeof h, p, len);
		memset(at + sizeof h + len, 0, pad + 1);
		b->len += n;
		if (f->urgent)
			f->urgent[dest] |= (unsigned char)rings_for(f, tag, dest);
		if (!f->pend_in[dest]) {
			f->pend_in[dest] = 1;
			f->pend[f->n_pend++] = dest;
		}
		return;
	}
	void *q = malloc(len ? len : 1);
	if (!q) {
		locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
		return;
	}
	memcpy(q, p, len);
	flush_batch(f, dest);
	send_now(f, dest, tag, q, len, 0, rings_for(f, tag, dest));
}

/* The same with `buf`, which the engine owns from then on. */
void locus__rt_post(struct flow *f, int dest, int tag, void *buf, size_t len)
{
	if (len <= BATCH_MAX && f->batch) {
		locus__rt_post_copy(f, dest, tag, buf, len);
		release(f, buf, 0);
		return;
	}
	flush_batch(f, dest);
	send_now(f, dest, tag, buf, len, 0, rings_for(f, tag, dest));
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
		release(f, f->bufs[k], f->caps[k]);
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
		f->caps[k] = f->caps[i];
		f->bufs[k++] = f->bufs[i];
	}
	f->n_out = k;
	return 1;
}

/* Rank 0 ends the run, telling every rank (with the error, if any). */
void locus__rt_finish(struct flow *f, int code, const char *message)
{
	if (f->finishing)
		return;
	f->finishing = 1;
	f->end_code = code;
	locus__rt_fmt(f->end_msg, sizeof f->end_msg, "%s", message ? message : "");
	struct endmsg m = {.code = code};
	locus__rt_fmt(m.message, sizeof m.message, "%s", f->end_msg);
	for (int r = 1; r < f->size; r++)
		locus__rt_post_copy(f, r, F_FINISH, &m, sizeof m);
}

void locus__rt_local_fail(struct flow *f, int code, const char *fmt, ...)
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
		locus__rt_finish(f, code, m.message);
	else
		locus__rt_post_copy(f, 0, F_ERROR, &m, sizeof m);
}

/* ---- the loop --------------------------------------------------------------------- */

/* A copy's end, for the policy that asked it. */
static void take_copied(struct flow *f, const struct copied *c)
{
	struct locus_event ev = {.kind = LOCUS_EV_TRANSFER,
				 .proc = c->req_proc,
				 .transfer = {.object = c->first,
					      .from = c->from,
					      .to = c->to,
					      .ok = c->ok,
					      .tag = c->tag,
					      .n = c->n}};
	locus__rt_deliver(f, &ev);
}

/* At rank 0: a file a node held is gone; the run ends for another round. */
static void take_lost(struct flow *f, const struct repl *l)
{
	if (l->object >= f->g->n_objects || l->place >= f->plat->n_nodes)
		return;
	char msg[sizeof f->end_msg];
	locus__rt_fmt(msg, sizeof msg,
		      "file %s was lost from node %s (gone, or not as it was made)",
		      locus__rt_obj_name(f, l->object), f->plat->nodes[l->place].name);
	f->st->lost++;
	locus__rt_finish(f, ROUND_AGAIN, msg);
}

/* At a task's home worker: an attempt it sent elsewhere came back. */
static void take_retried(struct flow *f, const struct retried *r)
{
	if (f->worker == NONE || r->task >= f->g->n_tasks || r->worker >= f->n_workers ||
	    r->node >= f->plat->n_nodes)
		return;
	f->ran[r->task] = (struct ran){r->node, r->worker, r->start, r->read_end, r->compute_end};
	char why[WHY_MAX];
	locus__rt_fmt(why, sizeof why, "%.*s", (int)sizeof r->why, r->why);
	locus__exec_came_back(&f->x, f->worker, r->task, r->attempt, r->worker, r->ok, why,
			      locus__rt_now_of(f));
}

static int handle_batch(struct flow *f, int src, const char *buf, size_t n);

/* Message `tag` of n bytes from rank src. Returns 0 when it was replica
 * updates alone. */
static int handle(struct flow *f, int src, int tag, const char *buf, size_t n)
{
	int quiet = f->failed || f->finishing, work = tag != F_REPL;
	switch (tag) {
	case F_POLICY:
		if (!quiet && n >= offsetof(struct fwire, arg) && n <= sizeof(struct fwire)) {
			struct fwire w = {0};
			memcpy(&w, buf, n);
			if (n != locus__rt_fwire_len(&w))
				break;
			f->rk.msgs_received++;
			locus__rt_take_message(f, &w);
		}
		break;
	case F_REPL:
		locus__rt_apply_updates(f, (const struct repl *)(const void *)buf,
					n / sizeof(struct repl));
		break;
	case F_COPY: {
		const struct copyreq *q = (const void *)buf;
		if (!quiet && n >= sizeof *q && n == sizeof *q + q->n * sizeof(uint32_t))
			locus__rt_take_copy(f, src, q, (const uint32_t *)(const void *)(q + 1));
		break;
	}
	case F_COPIED:
		if (!quiet && n == sizeof(struct copied))
			take_copied(f, (const struct copied *)(const void *)buf);
		break;
	case F_FETCH:
		if (!quiet && n == sizeof(struct fetchreq))
			locus__rt_take_fetch(f, src, (const struct fetchreq *)(const void *)buf);
		break;
	case F_HEAD:
		if (!quiet && n >= sizeof(struct head))
			locus__rt_take_head(f, (const struct head *)(const void *)buf,
					    buf + sizeof(struct head), n - sizeof(struct head));
		break;
	case F_DATA:
		if (!quiet && n >= sizeof(struct piece))
			locus__rt_take_piece(f, (const struct piece *)(const void *)buf,
					     buf + sizeof(struct piece), n - sizeof(struct piece));
		break;
	case F_DROP: {
		const struct repl *d = (const void *)buf;
		if (!quiet && n == sizeof *d && d->object < f->g->n_objects)
			locus__rt_drop_here(f, d->object);
		break;
	}
	case F_REPORT: {
		const struct rec *r = (const void *)buf;
		if (!quiet && f->rank == 0 && n >= sizeof *r &&
		    (r->failed ? !r->n_out : n == sizeof *r + r->n_out * sizeof(struct outrec)))
			locus__rt_take_report(f, r, n);
		break;
	}
	case F_OUTPUT:
		if (!quiet && f->rank == 0 && f->ck && f->ck->output)
			f->ck->output(f->ck->user, buf, n);
		break;
	case F_ERROR:
		if (f->rank == 0 && n == sizeof(struct endmsg)) {
			const struct endmsg *m = (const void *)buf;
			locus__rt_finish(f, m->code, m->message);
		}
		break;
	case F_FINISH:
		if (n == sizeof(struct endmsg)) {
			const struct endmsg *m = (const void *)buf;
			f->finishing = 1;
			f->end_code = m->code;
			locus__rt_fmt(f->end_msg, sizeof f->end_msg, "%s", m->message);
		}
		break;
	case F_LOST:
		if (f->rank == 0 && n == sizeof(struct repl) && !f->finishing)
			take_lost(f, (const struct repl *)(const void *)buf);
		break;
	case F_RETRY: {
		const struct retry *q = (const void *)buf;
		if (!quiet && n == sizeof *q && f->worker != NONE && q->task < f->g->n_tasks &&
		    q->home < f->n_workers)
			locus__exec_retry_here(&f->x, f->worker, q->task, q->attempt, q->home,
					       locus__rt_now_of(f));
		break;
	}
	case F_RETRIED:
		if (!quiet && n == sizeof(struct retried))
			take_retried(f, (const struct retried *)(const void *)buf);
		break;
	case F_CANCEL: {
		const struct retry *q = (const void *)buf;
		if (!quiet && n == sizeof *q && q->task < f->g->n_tasks)
			locus__exec_cancel(&f->x, q->task, locus__rt_now_of(f));
		break;
	}
	case F_STATE:
		if (n == sizeof(struct tstate))
			locus__rt_take_state(f, (const struct tstate *)(const void *)buf);
		break;
	case F_STARTED: {
		const struct retry *q = (const void *)buf;
		if (!quiet && f->rank == 0 && n == sizeof *q)
			locus__rt_status_began(f, q->task, q->attempt);
		break;
	}
	case F_REWIND: {
		const struct retry *q = (const void *)buf;
		if (!quiet && n == sizeof *q && q->task < f->g->n_tasks) {
			locus__exec_rewind(&f->x, q->task, locus__rt_now_of(f));
			if (f->rank == 0)
				locus__rt_undone(f, q->task);
		}
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
			locus__rt_take_reduce(f, q, (const uint32_t *)(const void *)(q + 1));
		break;
	}
	case F_BATCH:
		work = handle_batch(f, src, buf, n);
		break;
	}
	return work;
}

/* A batch: messages each after its header, 8-byte aligned. */
static int handle_batch(struct flow *f, int src, const char *buf, size_t n)
{
	int work = 0;
	for (size_t at = 0; at + sizeof(struct bhead) <= n;) {
		const struct bhead *h = (const void *)(buf + at);
		at += sizeof *h;
		if (h->tag == F_BATCH || h->len > n - at)
			break;
		work |= handle(f, src, (int)h->tag, buf + at, h->len);
		at += h->len + (8 - h->len % 8) % 8;
	}
	return work;
}

/* Takes what has arrived, up to RECV_MAX messages. What the messages
 * taken so far asked for is done before MPI is asked for more: the
 * replies go out, the files asked for start to, and a task function due
 * on this worker runs (the rest waits for the next turn). An
 * oversubscribed Open MPI yields the processor in every probe that finds
 * nothing, so a reply or a task left behind a probe waits out the other
 * ranks' time slices: 35-40 us a round trip on 4 ranks of 2 cores
 * (docs/mpi.md). */
static int receive(struct flow *f)
{
	int did = 0;
	for (int k = 0; k < RECV_MAX; k++) {
		int flag = 0;
		MPI_Status st;
		if (k) {
			if (f->fn_inline_due)
				break;
			locus__rt_serve_step(f);
			flush_batches(f);
		}
		/* A matched probe: the receive takes that message, without
		 * matching it again. */
		MPI_Message msg;
		MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, f->comm, &flag, &msg, &st);
		if (!flag)
			break;
		int count = 0;
		MPI_Get_count(&st, MPI_BYTE, &count);
		if ((size_t)count > f->rcap) {
			char *b = realloc(f->rbuf, (size_t)count);
			if (!b) {
				/* The message is matched: no other receive finds
				 * it, so the end's count does not wait for it. */
				f->recvd[st.MPI_SOURCE]++;
				locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
				return did;
			}
			f->rbuf = b;
			f->rcap = (size_t)count;
		}
		MPI_Mrecv(f->rbuf, count, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
		f->recvd[st.MPI_SOURCE]++;
		locus__rt_clock_moved(f);
		/* Replica updates alone give this rank nothing to do (when
		 * they do, its worker's turn says so): it sleeps on. */
		did |= handle(f, st.MPI_SOURCE, st.MPI_TAG, f->rbuf, (size_t)count);
	}
	return did;
}

int locus__rt_timer_cmp(const void *a, const void *b)
{
	const struct timer *x = a, *y = b;
	if (x->due != y->due)
		return x->due < y->due ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int fire_timer(struct flow *f)
{
	const struct timer *top = locus_heap_peek(&f->timers);
	if (!top || top->due > locus__rt_now_of(f))
		return 0;
	struct timer t;
	locus_heap_pop(&f->timers, &t);
	struct locus_event ev = {.kind = LOCUS_EV_TIMER, .proc = t.proc, .tag = t.tag};
	locus__rt_deliver(f, &ev);
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
		locus__rt_take_message(f, &w);
		did = 1;
	}
	return did;
}

/* Whether bytes are moving through this rank: sends in flight, or
 * files coming in. MPI moves a large message only while both ends call
 * into it, so such a rank never sleeps. */
int locus__rt_moving(const struct flow *f)
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
void locus__rt_bell_open(struct flow *f)
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
	f->cmd_flags = calloc((size_t)hs, sizeof *f->cmd_flags);
	int ok = f->bell >= 0 && in && out && f->asleep && f->cmd_flags, all = 0;
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, f->comm);
	if (all) {
		int *mine = NULL;
		MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, f->host, &mine, &f->bell_win);
		mine[0] = mine[1] = 0;
		f->cmd_flags[f->n_cmd_flags++] = mine + 1;
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
			if (p && out[i] != f->rank)
				f->cmd_flags[f->n_cmd_flags++] = p + 1;
		}
		/* Every rank's segment written before any reads another's. */
		MPI_Barrier(f->host);
		MPI_Group_free(&hg);
		MPI_Group_free(&wg);
	} else {
		free(f->asleep);
		f->asleep = NULL;
		free(f->cmd_flags);
		f->cmd_flags = NULL;
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
void locus__rt_bell_close(struct flow *f)
{
	if (f->bell >= 0)
		close(f->bell);
	f->bell = -1;
	free(f->asleep);
	f->asleep = NULL;
	free(f->cmd_flags);
	f->cmd_flags = NULL;
	f->n_cmd_flags = 0;
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

/* Whether a rank of this machine runs a command (or a reduction step's),
 * having said so of this one first. */
static int commands_here(struct flow *f)
{
	if (!f->cmd_flags)
		return 0;
	int mine = f->pid > 0;
	for (size_t i = 0; i < f->n_rsteps && !mine; i++)
		mine = f->rsteps[i].used && f->rsteps[i].pid > 0;
	if (__atomic_load_n(f->cmd_flags[0], __ATOMIC_RELAXED) != mine)
		__atomic_store_n(f->cmd_flags[0], mine, __ATOMIC_RELAXED);
	for (int i = 0; i < f->n_cmd_flags; i++)
		if (__atomic_load_n(f->cmd_flags[i], __ATOMIC_RELAXED))
			return 1;
	return 0;
}

static void idle_wait(struct flow *f, unsigned *idle)
{
	unsigned n = (*idle)++;
	int cmd = f->pid > 0;
	/* A command on this machine: the spinning would take the processor
	 * from it (a rank spinning in an oversubscribed MPI's probe, which
	 * yields at every call, slowed a loop of commands on the other core
	 * by 38 %); a ring wakes the rank soon enough for a command. */
	int busy = commands_here(f);
	/* A task function running on its thread: the rank yields to it for
	 * a while (a short call ends without a sleep and a wake-up on each
	 * side), then sleeps, and wakes when the call ends. */
	int fn = f->fn_busy;
	if (fn && __atomic_load_n(&f->fn_done, __ATOMIC_ACQUIRE))
		return;
	if (fn && n < SPIN_TURNS && !locus__rt_moving(f)) {
		sched_yield();
		return;
	}
	if (locus__rt_moving(f)) {
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
	if (n < SPIN_TURNS && !cmd && !fn && !busy)
		return;
	if (n < 2 * SPIN_TURNS && !cmd && !fn && !busy && f->asleep && f->wait < QUICK_WAIT) {
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
	locus__rt_clock_moved(f);
	double t = locus__rt_now_of(f);
	if (top && top->due - t < max)
		max = top->due > t ? top->due - t : 0;
	if (f->cur != NONE && f->standin && f->standin_end - t < max)
		max = f->standin_end > t ? f->standin_end - t : 0;
	/* Nor past an attempt's time limit, or its SIGKILL. */
	double due = f->timed_out ? f->kill_at : f->deadline;
	if (f->cur != NONE && due > 0 && due - t < max)
		max = due > t ? due - t : 0;
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
	if (fn) {
		/* The call's end writes fn_evfd only while this flag is up. */
		__atomic_store_n(&f->fn_sleeps, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&f->fn_done, __ATOMIC_SEQ_CST)) {
			__atomic_store_n(&f->fn_sleeps, 0, __ATOMIC_SEQ_CST);
			if (mine)
				__atomic_store_n(mine, 0, __ATOMIC_SEQ_CST);
			return;
		}
	}
	if (ppoll(pfd, np, &ts, NULL) > 0 && mine && (pfd[0].revents & POLLIN)) {
		bell_drain(f);
		f->rings++;
	}
	if (fn) {
		__atomic_store_n(&f->fn_sleeps, 0, __ATOMIC_SEQ_CST);
		uint64_t v;
		if (read(f->fn_evfd, &v, sizeof v) < 0) {
			/* not written (EAGAIN) */
		}
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
			fprintf(stderr, " %s[here %d fs %d n %u]", locus__rt_obj_name(f, o),
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
				locus__rt_obj_name(f, f->pulls[p].object), f->pulls[p].headed,
				(unsigned long)f->pulls[p].got, (unsigned long)f->pulls[p].length);
}

/* The worker waits for room on its node (exec.h, struct locus__ledger):
 * the other ranks of the node free it without a word, so it looks again
 * each turn. Whether its task started. */
static int room_poll(struct flow *f)
{
	if (!f->x_on || !f->x.w[f->worker].waiting)
		return 0;
	locus__exec_try_start(&f->x, f->worker, locus__rt_now_of(f));
	return f->x.w[f->worker].task != NONE;
}

void locus__rt_loop(struct flow *f)
{
	unsigned idle = 0;
	while (!f->finishing) {
		locus__rt_clock_moved(f);
		int did = receive(f);
		did |= local_messages(f);
		did |= fire_timer(f);
		did |= locus__rt_drain_fresh(f);
		if (f->worker != NONE && !f->failed)
			did |= locus__rt_worker_step(f) | locus__rt_reduce_poll(f) | room_poll(f);
		did |= locus__rt_serve_step(f);
		if (f->ck && f->ck->tick && f->rank == 0 && !f->failed) {
			struct locus_error e = {0};
			if (f->ck->tick(f->ck->user, &e))
				locus__rt_local_fail(f, e.code, "%s", e.message);
		}
		locus__rt_flush_updates(f);
		flush_batches(f);
		did |= outbox_progress(f);
		if (f->rank == 0 && f->opt->status)
			locus__rt_status_tick(f);
		if (f->opt->cancel && *f->opt->cancel && !f->failed) {
			if (getenv("LOCUS_FLOW_DEBUG"))
				dump(f);
			locus__rt_local_fail(f, LOCUS_EINCOMPLETE, "cancelled (a signal)");
		}
		if (did) {
			if (idle)
				f->wait += (locus__rt_mono() - f->idle_since - f->wait) / 8;
			idle = 0;
		} else {
			if (!idle)
				f->idle_since = locus__rt_mono();
			idle_wait(f, &idle);
		}
	}
	/* Nothing runs on after the end. */
	if (f->pid > 0) {
		kill(f->pid, SIGKILL);
		waitpid(f->pid, NULL, 0);
		f->pid = 0;
	}
	locus__rt_group_over(f, 1);
	locus__rt_fn_wait(f);
	for (size_t i = 0; i < f->n_rsteps; i++)
		if (f->rsteps[i].used && f->rsteps[i].pid > 0) {
			kill(f->rsteps[i].pid, SIGKILL);
			waitpid(f->rsteps[i].pid, NULL, 0);
			f->rsteps[i].pid = 0;
		}
	locus__rt_flush_updates(f);
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
		MPI_Message msg;
		MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, f->comm, &flag, &msg, &st);
		if (!flag) {
			outbox_progress(f);
			continue;
		}
		int count = 0;
		MPI_Get_count(&st, MPI_BYTE, &count);
		char *buf = malloc(count ? (size_t)count : 1);
		MPI_Mrecv(buf, count, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
		f->recvd[st.MPI_SOURCE]++;
		free(buf);
	}
	free(expect);
	if (f->n_out)
		MPI_Waitall((int)f->n_out, f->req, MPI_STATUSES_IGNORE);
	for (size_t i = 0; i < f->n_out; i++)
		release(f, f->bufs[i], f->caps[i]);
	f->n_out = 0;
}
