/*
 * Where files are and how they move: the rank's view of every file's
 * copies (and the updates the ranks send each other), the files of a
 * node's storage and of the shared directory, and the copies between them:
 * jobs, pulls of files in pieces, and the pieces a rank serves.
 */
#define _GNU_SOURCE
#include "mpi/runtime.h"

static void copy_told(struct flow *f, int req_rank, uint32_t req_proc, uint64_t id, uint32_t first,
		      uint32_t n, uint32_t from, uint32_t to, uint64_t tag, int ok);
static void job_step(struct flow *f, uint32_t j);
static void job_over(struct flow *f, uint32_t j);

/* ---- where files are ------------------------------------------------------------- */

/* A node's copy of file o is named by the caller's id of the file, so
 * that a later round or run finds it under the same name. */
void locus__rt_store_path(const struct flow *f, uint32_t o, char *buf, size_t size)
{
	if (f->ck_here && f->ck_here[o]) {
		/* A chunk this node holds: read in place, in the store. */
		f->ck->path(f->ck->user, f->serve_node, o, buf, size);
		return;
	}
	/* "%s/store/o%u", without printf: a file a task reads or writes is
	 * named several times. */
	char num[21];
	num[locus__put_u64(num, f->obj_full ? f->obj_full[o] : o, 1)] = 0;
	const char *parts[] = {f->node_dir, "/store/o", num};
	locus__join(buf, size, parts, 3);
}

void locus__rt_shared_path(const struct flow *f, uint32_t o, char *buf, size_t size)
{
	locus__rt_fmt(buf, size, "%s/%s", f->shared, locus__rt_obj_name(f, o));
}

/* Where task t's partial result keyed by its input `key` lies on this
 * node (named by the round, so that nothing an interrupted run left is
 * taken for this one's); what it covers is in the same name + ".cov". */
void locus__rt_partial_path(const struct flow *f, uint32_t t, uint32_t key, char *buf, size_t size)
{
	locus__rt_fmt(buf, size, "%s/reduce/%016" PRIx64 ".%" PRIu32 ".%" PRIu32, f->node_dir,
		      f->nonce, t, key);
}

/* Task t's partial result keyed `key` goes from this node (a reduction
 * step used it, or it was sent on): the result and its cover. */
void locus__rt_partial_gone(const struct flow *f, uint32_t t, uint32_t key)
{
	char p[PATH_MAX + 8];
	locus__rt_partial_path(f, t, key, p, PATH_MAX);
	unlink(p);
	strcat(p, ".cov");
	unlink(p);
}

/* Copy (o, place) is new to this rank's view: the executor hears of it
 * at the loop's next turn. */
static void fresh_copy(struct flow *f, uint32_t o, uint32_t place)
{
	if (locus__grow(&f->fresh, &f->fresh_cap, f->n_fresh + 1, sizeof *f->fresh)) {
		locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
		return;
	}
	uint32_t only = locus_replicas_count(f->rep, o) + f->on_fs[o] == 1;
	f->fresh[f->n_fresh++] = (struct fresh){o, place, only, 0};
}

/* Changes this rank's view (place: a node, or LOCUS_FS): file o is there
 * now (add), or no longer; the other ranks hear of it with the next
 * flush, the executor at the loop's next turn unless `told` (it made the
 * change itself). */
void locus__rt_note_as(struct flow *f, uint32_t o, uint32_t place, int add, int told)
{
	int fresh = 0;
	if (place == LOCUS_FS) {
		fresh = add && !f->on_fs[o];
		f->on_fs[o] = (uint8_t)add;
	} else if (add) {
		int r = locus_replicas_add(f->rep, o, place);
		if (r < 0)
			locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
		fresh = r > 0;
	} else {
		locus_replicas_remove(f->rep, o, place);
	}
	if (fresh && !told)
		fresh_copy(f, o, place);
	/* A run of chunks: a copy is its reader's alone (deleted when its
	 * task ends), as a simulated read makes no replica: no other rank
	 * hears of it. */
	if (f->ck)
		return;
	if (locus__grow(&f->ups, &f->ups_cap, f->n_ups + 1, sizeof *f->ups)) {
		locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
		return;
	}
	f->ups[f->n_ups++] =
	    (struct repl){o, place, (uint32_t)add, 0, f->obj_bytes[o], f->obj_sum[o]};
}

void locus__rt_note(struct flow *f, uint32_t o, uint32_t place, int add)
{
	locus__rt_note_as(f, o, place, add, 0);
}

void locus__rt_flush_updates(struct flow *f)
{
	if (!f->n_ups)
		return;
	size_t len = f->n_ups * sizeof *f->ups;
	for (int r = 0; r < f->size; r++)
		if (r != f->rank)
			locus__rt_post_copy(f, r, F_REPL, f->ups, len);
	f->n_ups = 0;
}

void locus__rt_apply_updates(struct flow *f, const struct repl *u, size_t n)
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
 * there, each as the only copy or not as it was when learnt (a batch may
 * bring a file's first copy and its second: told of the first only after
 * both, the executor would take it for a second, and a task elsewhere
 * waiting for the file would never ask for it). Returns whether that set
 * something going (an attempt, a copy): replica updates alone leave an
 * idle rank asleep. */
int locus__rt_drain_fresh(struct flow *f)
{
	uint64_t gen = f->gen, id = f->next_id;
	for (size_t i = 0; i < f->n_fresh && !f->failed && !f->finishing; i++) {
		uint32_t o = f->fresh[i].object, place = f->fresh[i].place;
		if (place == LOCUS_FS ? f->on_fs[o] : locus_replicas_has(f->rep, o, place))
			locus__exec_appeared_as(&f->x, o, place, (int)f->fresh[i].only,
						locus__rt_now_of(f));
	}
	f->n_fresh = 0;
	return gen != f->gen || id != f->next_id;
}

/* The rank of node n that serves or receives file o (spread by file). */
int locus__rt_rank_of_node(const struct flow *f, uint32_t n, uint32_t o)
{
	size_t c = f->node_at[n + 1] - f->node_at[n];
	return f->node_rank[f->node_at[n] + (o % c)];
}

/* ---- files ------------------------------------------------------------------------ */

/* Makes the directories of `path` (not its last part). */
int locus__rt_parent_dirs(const char *path)
{
	char buf[PATH_MAX];
	locus__rt_fmt(buf, sizeof buf, "%s", path);
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

int locus__rt_write_all(int fd, const void *buf, size_t len)
{
	for (size_t w = 0; w < len;) {
		ssize_t k = write(fd, (const char *)buf + w, len - w);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return errno;
		if (k == 0)
			return ENOSPC;
		/* A short write (a full file system) is followed by one that
		 * fails and says why. */
		w += (size_t)k;
	}
	return 0;
}

/* Copies file `from` to `to` through a temporary renamed at the end, so
 * that `to` is whole or absent. 0 or an errno value, and *writing (may
 * be NULL) says whether it was writing `to` that failed, not reading
 * `from`; *bytes gets the size. */
int locus__rt_copy_file(const char *from, const char *to, uint64_t *bytes, int rank, int *writing)
{
	char tmp[PATH_MAX + 64];
	int dummy;
	writing = writing ? writing : &dummy;
	*writing = 1;
	*bytes = 0;
	int n = locus__rt_fmt(tmp, sizeof tmp, "%s.locus-tmp-%d-%ld", to, rank, (long)getpid());
	if (n < 0 || (size_t)n >= sizeof tmp)
		return ENAMETOOLONG;
	if (locus__rt_parent_dirs(to))
		return errno ? errno : EIO;
	*writing = 0;
	int in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return errno;
	*writing = 1;
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
			*writing = 0;
			break;
		}
		if (r == 0)
			break;
		if ((rc = locus__rt_write_all(out, buf, (size_t)r)))
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
int locus__rt_fs_copy(struct flow *f, const char *from, const char *to, uint64_t *bytes,
		      int *writing)
{
	double t = locus__rt_now_of(f);
	int rc = locus__rt_copy_file(from, to, bytes, f->rank, writing);
	if (!rc) {
		f->fs_bytes += *bytes;
		if (!locus__grow(&f->fs_span, &f->fs_span_cap, f->n_fs_span + 2,
				 sizeof *f->fs_span)) {
			f->fs_span[f->n_fs_span++] = t;
			f->fs_span[f->n_fs_span++] = locus__rt_now_of(f);
		}
	}
	return rc;
}

int locus__rt_safe_name(const char *s)
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

/* ---- copies ------------------------------------------------------------------------- */

/* Carries out locus_act_copy (and _transfer) for process `proc`. */
void locus__rt_start_copy(struct flow *f, uint32_t proc, const uint32_t *objs, uint32_t n,
			  uint32_t from, uint32_t to, uint64_t tag, uint32_t task)
{
	uint32_t first = n ? objs[0] : LOCUS_NONE;
	for (uint32_t k = 0; k < n; k++)
		if (objs[k] >= f->g->n_objects) {
			locus__rt_local_fail(f, LOCUS_EINCOMPLETE,
					     "policy %s copies object %" PRIu32 " of %zu",
					     f->pol->name, objs[k], f->g->n_objects);
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
		locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
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
	int dest = locus__rt_rank_of_node(f, to == LOCUS_FS ? from : to, first);
	locus__rt_post(f, dest, F_COPY, q, len);
}

static uint32_t new_job(struct flow *f)
{
	for (uint32_t j = 0; j < f->n_jobs; j++)
		if (!f->jobs[j].used)
			return j;
	size_t cap = f->n_jobs;
	if (locus__grow(&f->jobs, &cap, f->n_jobs + 1, sizeof *f->jobs)) {
		locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
		return NONE;
	}
	f->jobs[f->n_jobs] = (struct job){0};
	return (uint32_t)f->n_jobs++;
}

void locus__rt_stage_add(struct flow *f, uint32_t task, int kind, uint64_t bytes)
{
	if (task == LOCUS_NONE || task >= f->g->n_tasks || !f->g->task_stage)
		return;
	uint32_t s = f->g->task_stage[task];
	if (s != LOCUS_NONE)
		f->stage_bytes[4 * (size_t)s + (size_t)kind] += bytes;
}

/* A copy request reached this rank (from `src`), or this rank's worker
 * pulls for its task (src -1). */
uint32_t locus__rt_take_copy(struct flow *f, int src, const struct copyreq *q, const uint32_t *objs)
{
	uint32_t j = new_job(f);
	if (j == NONE)
		return NONE;
	struct job *jb = &f->jobs[j];
	int partial = (q->flags & CP_PARTIAL) != 0;
	if (partial && (q->n < 1 || q->task >= f->g->n_tasks)) {
		locus__rt_local_fail(f, LOCUS_EINCOMPLETE,
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
			   .asked = locus__rt_now_of(f)};
	jb->objs = malloc(q->n * sizeof *jb->objs);
	if (!jb->objs) {
		jb->used = 0;
		locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
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
		locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
		return NONE;
	}
	return (uint32_t)f->n_pulls++;
}

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
	locus__rt_post_copy(f, locus__rt_rank_of_node(f, f->jobs[j].from, o), F_FETCH, &fr,
			    sizeof fr);
	return 1;
}

/* A local copy of job j (file o, with the shared directory) failed for
 * a reason asking again would not mend: the run ends, naming the file,
 * the task it was for and the reason. */
static void copy_failed(struct flow *f, const struct job *jb, uint32_t o, const char *path, int rc,
			int writing)
{
	char nb[64], task[96] = "";
	if (jb->task != LOCUS_NONE && jb->task < f->g->n_tasks)
		locus__rt_fmt(task, sizeof task, " (for task %s)",
			      locus__rt_task_name(f, jb->task, nb, sizeof nb));
	if (jb->to == LOCUS_FS)
		locus__rt_local_fail(f, LOCUS_EIO, "cannot write %s to the shared directory%s: %s",
				     path, task, strerror(rc));
	else if (writing)
		locus__rt_local_fail(f, LOCUS_EIO,
				     "cannot copy %s into node %s's storage, %s%s: %s",
				     locus__rt_obj_name(f, o), f->plat->nodes[f->node].name, path,
				     task, strerror(rc));
	else
		locus__rt_local_fail(f, LOCUS_EIO, "cannot read %s%s: %s", path, task,
				     strerror(rc));
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
		int rc, writing = 0;
		if (jb->to == LOCUS_FS) {
			/* From this node to the shared directory. */
			if (f->on_fs[o])
				continue;
			locus__rt_store_path(f, o, a, sizeof a);
			locus__rt_shared_path(f, o, b, sizeof b);
			if ((rc = locus__rt_fs_copy(f, a, b, &bytes, &writing))) {
				jb->ok = 0;
				if (rc == ENOENT && !writing)
					locus__rt_lost(f, o);
				else
					copy_failed(f, jb, o, b, rc, writing);
				continue;
			}
			f->bytes_fs_written += bytes;
			locus__rt_stage_add(f, jb->task, 2, bytes);
			locus__rt_note(f, o, LOCUS_FS, 1);
			jb->moved += bytes;
			continue;
		}
		if (locus_replicas_has(f->rep, o, f->node))
			continue;
		if (jb->from == LOCUS_FS) {
			locus__rt_shared_path(f, o, a, sizeof a);
			locus__rt_store_path(f, o, b, sizeof b);
			if ((rc = locus__rt_fs_copy(f, a, b, &bytes, &writing))) {
				jb->ok = 0;
				/* A produced file gone from the shared directory
				 * may be had elsewhere; anything else (an input
				 * that cannot be read, a full node) would be asked
				 * again and again: the run ends, saying why. */
				if (rc != ENOENT || writing ||
				    f->g->objects[o].producer == LOCUS_NONE)
					copy_failed(f, jb, o, writing ? b : a, rc, writing);
				continue;
			}
			f->bytes_fs_read += bytes;
			locus__rt_stage_add(f, jb->task, 1, bytes);
			locus__rt_note(f, o, f->node, 1);
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

/* Job j has ended: its copies, made, are listed; its requester hears how. */
static void job_over(struct flow *f, uint32_t j)
{
	struct job *jb = &f->jobs[j];
	jb->used = 0;
	locus__rt_flush_updates(f);
	/* One record a copy that moved something (named by its first
	 * object), as the simulator lists its moves. */
	if (jb->ok && jb->moved && !jb->read && !jb->partial) {
		if (locus__grow(&f->xfers, &f->xfers_cap, f->n_xfers + 1, sizeof *f->xfers)) {
			locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
		} else {
			f->xfers[f->n_xfers++] = (struct locus_transfer_result){
			    .object = jb->objs[0],
			    .from = jb->from == LOCUS_FS ? UINT32_MAX : jb->from,
			    .to = jb->to == LOCUS_FS ? UINT32_MAX : jb->to,
			    .task = jb->task,
			    .start = jb->asked,
			    .end = locus__rt_now_of(f),
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
			locus__rt_read_over(f, gen, ok);
		else
			for (uint32_t k = 0; !ok && k < n; k++)
				locus__exec_want(&f->x, objs[k], to, locus__rt_now_of(f));
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
		locus__rt_post_copy(f, req_rank, F_COPIED, &c, sizeof c);
		return;
	}
	struct locus_event ev = {
	    .kind = LOCUS_EV_TRANSFER,
	    .proc = req_proc,
	    .transfer = {.object = first, .from = from, .to = to, .ok = ok, .tag = tag, .n = n}};
	locus__rt_deliver(f, &ev);
}

static void pull_end(struct flow *f, uint32_t p, int ok)
{
	struct pull *pl = &f->pulls[p];
	uint32_t j = pl->job, o = pl->object;
	if (pl->headed && !--f->pulls_active)
		f->pull_secs += locus__rt_mono() - f->pull_since;
	if (!ok && pl->direct && pl->fd >= 0) {
		/* Not a half copy where the node's tasks read: unless another
		 * rank's whole one has been renamed over it since. */
		struct stat a, b;
		if (!fstat(pl->fd, &a) && !lstat(pl->tmp, &b) && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino)
			unlink(pl->tmp);
		pl->tmp[0] = 0;
	}
	if (pl->fd >= 0)
		close(pl->fd);
	pl->fd = -1;
	struct job *jb = &f->jobs[j];
	if (ok) {
		char path[PATH_MAX];
		if (pl->partial) {
			/* What it covers first: a reader that finds the
			 * result finds its cover. */
			locus__rt_partial_path(f, pl->partial - 1, o, path, sizeof path);
			ok = !locus__rt_write_cover(f, pl->partial - 1, o, jb->objs + 1, jb->n - 1);
		} else {
			locus__rt_store_path(f, o, path, sizeof path);
		}
		if (ok && !pl->direct && rename(pl->tmp, path))
			ok = 0;
	}
	if (!ok && pl->tmp[0])
		unlink(pl->tmp);
	pl->used = 0;
	if (ok) {
		f->bytes_peer += pl->got;
		f->transfers++;
		f->rk.fetches++;
		f->rk.bytes_fetched += pl->got;
		f->pace_bytes += pl->got;
		locus__rt_stage_add(f, jb->task, 0, pl->got);
		jb->moved += pl->got;
		if (!pl->partial)
			locus__rt_note(f, o, f->node, 1);
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

void locus__rt_take_head(struct flow *f, const struct head *h, const char *data, size_t n)
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
		f->pull_since = locus__rt_mono();
	/* "%s/store/.o%u.%llx" (object, stream), without printf. */
	char num[21], hex[17];
	num[locus__put_u64(num, pl->object, 1)] = 0;
	size_t nh = 0;
	for (int sh = 60; sh >= 0; sh -= 4)
		if (nh || (pl->stream >> sh) & 15 || !sh)
			hex[nh++] = "0123456789abcdef"[(pl->stream >> sh) & 15];
	hex[nh] = 0;
	const char *parts[] = {f->node_dir, "/store/.o", num, ".", hex};
	locus__join(pl->tmp, sizeof pl->tmp, parts, 5);
	/* A chunk run's copy serves one task and is deleted after it, and
	 * no later run reads it: it is written in its place (a rename less
	 * a chunk, 3-5 us on tmpfs), unless another rank of the node has
	 * the place (then as any file: a temporary, renamed). A rank reads
	 * it only once a copy is whole (the replica update that says so
	 * comes after). */
	pl->direct = 0;
	if (f->ck && !pl->partial) {
		char place[PATH_MAX];
		locus__rt_store_path(f, pl->object, place, sizeof place);
		int fd = open(place, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0) {
			memcpy(pl->tmp, place, strlen(place) + 1);
			pl->fd = fd;
			pl->direct = 1;
		}
	}
	if (!pl->direct)
		pl->fd = open(pl->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (pl->fd < 0) {
		locus__rt_local_fail(f, LOCUS_EIO, "cannot write %s: %s", pl->tmp, strerror(errno));
		return;
	}
	if (!pl->length) {
		pull_end(f, p, 1);
	} else if (n) {
		/* The whole file came with its head. */
		struct piece pc = {pl->stream, 0};
		locus__rt_take_piece(f, &pc, data, n);
	}
}

void locus__rt_take_piece(struct flow *f, const struct piece *pc, const char *data, size_t n)
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
			locus__rt_local_fail(f, LOCUS_EIO, "cannot write %s: %s", pl->tmp,
					     strerror(errno));
			return;
		}
		w += (size_t)k;
	}
	pl->got += n;
	if (pl->got >= pl->length)
		pull_end(f, p, pl->got == pl->length);
}

/* A short file (h->length bytes, open as fd) sent whole after its head,
 * in one message: a message and a turn less on each side than a head
 * and a piece. 0 when it could not be read (then sent as any file: the
 * piece's read says what failed). */
static int serve_with_head(struct flow *f, int src, int fd, const struct fetchreq *fr,
			   const struct head *h)
{
	char buf[sizeof *h + HEAD_BYTES];
	size_t len = (size_t)h->length, got = 0;
	double t0 = locus__rt_mono();
	while (got < len) {
		ssize_t k = pread(fd, buf + sizeof *h + got, len - got, (off_t)got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return 0;
		got += (size_t)k;
	}
	close(fd);
	memcpy(buf, h, sizeof *h);
	locus__rt_post_copy(f, src, F_HEAD, buf, sizeof *h + len);
	f->rk.serve_read_seconds += locus__rt_mono() - t0;
	f->rk.bytes_served += len;
	f->rk.serves++;
	f->pieces++;  /* the data message it is too */
	if (fr->task) /* a partial result is used once, where it goes */
		locus__rt_partial_gone(f, fr->task - 1, fr->object);
	return 1;
}

/* A peer asks for file o: its head now, its pieces as the outbox allows. */
void locus__rt_take_fetch(struct flow *f, int src, const struct fetchreq *fr)
{
	char path[PATH_MAX];
	struct head h = {.stream = fr->stream};
	int fd = -1;
	struct stat st;
	/* A partial result (of task fr->task - 1) has no size to check. */
	int partial = fr->task != 0;
	if (partial ? fr->task - 1 < f->g->n_tasks : fr->object < f->g->n_objects) {
		if (partial)
			locus__rt_partial_path(f, fr->task - 1, fr->object, path, sizeof path);
		else
			locus__rt_store_path(f, fr->object, path, sizeof path);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0 || fstat(fd, &st) ||
	    (!partial && f->obj_bytes[fr->object] != UNKNOWN &&
	     (uint64_t)st.st_size != f->obj_bytes[fr->object])) {
		h.status = LOCUS_ENOENT;
		if (fd >= 0)
			close(fd);
		locus__rt_post_copy(f, src, F_HEAD, &h, sizeof h);
		if (!partial && fr->object < f->g->n_objects)
			locus__rt_lost(f, fr->object);
		return;
	}
	h.length = (uint64_t)st.st_size;
	if (h.length && h.length <= HEAD_BYTES && serve_with_head(f, src, fd, fr, &h))
		return;
	locus__rt_post_copy(f, src, F_HEAD, &h, sizeof h);
	if (!h.length) {
		close(fd);
		if (partial)
			locus__rt_partial_gone(f, fr->task - 1, fr->object);
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
			locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
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
int locus__rt_serve_step(struct flow *f)
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
			char *buf = locus__rt_piece_take(f);
			if (!buf) {
				locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
				return did;
			}
			struct piece pc = {sv->stream, sv->off};
			memcpy(buf, &pc, sizeof pc);
			size_t got = 0;
			double t_read = locus__rt_mono();
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
				locus__rt_local_fail(f, LOCUS_EIO,
						     "cannot read %s's copy on this node",
						     locus__rt_obj_name(f, sv->object));
				return did;
			}
			f->rk.serve_read_seconds += locus__rt_mono() - t_read;
			f->rk.bytes_served += n;
			locus__rt_post(f, sv->to_rank, F_DATA, buf, sizeof pc + n);
			f->pieces++;
			sv->off += n;
			did = 1;
			if (sv->off == sv->length) {
				f->rk.serves++;
				close(sv->fd);
				sv->used = sv->active = 0;
				/* A partial result is used once, where it goes. */
				if (sv->partial)
					locus__rt_partial_gone(f, sv->partial - 1, sv->object);
			}
		}
	}
	return did;
}

/* Deletes this node's copy of file o. */
void locus__rt_drop_here(struct flow *f, uint32_t o)
{
	if (!locus_replicas_has(f->rep, o, f->node) || f->opt->keep)
		return;
	/* Not while a task of this rank reads it. */
	char p[PATH_MAX];
	locus__rt_store_path(f, o, p, sizeof p);
	if (!(f->ck_here && f->ck_here[o])) /* never the store's own */
		unlink(p);
	locus__rt_note(f, o, f->node, 0);
}

/* This node was to keep file o and does not (deleted, or not as it was
 * made): it forgets it, and rank 0 ends the round so that the next makes
 * it again (resume). */
void locus__rt_lost(struct flow *f, uint32_t o)
{
	if (!locus_replicas_has(f->rep, o, f->node))
		return;
	locus__rt_note(f, o, f->node, 0);
	locus__rt_flush_updates(f);
	struct repl l = {o, f->node, 0, 0, 0, 0};
	locus__rt_post_copy(f, 0, F_LOST, &l, sizeof l);
}

/* Whether this node's copy of file o is as it was made: its size, and
 * its checksum with opt->checksum. */
int locus__rt_intact(struct flow *f, uint32_t o)
{
	char p[PATH_MAX];
	locus__rt_store_path(f, o, p, sizeof p);
	uint64_t b = 0, h = 0;
	int sum = f->opt->checksum && f->obj_sum[o];
	if (locus__rt_file_sum(p, &b, sum ? &h : NULL))
		return 0;
	return (f->obj_bytes[o] == UNKNOWN || b == f->obj_bytes[o]) && (!sum || h == f->obj_sum[o]);
}

/* ---- the journal ------------------------------------------------------------------ */

/* FNV-1a, 64 bits. */
uint64_t locus__rt_fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

/* The size of file `path`, and with `sum` its checksum. -1 when it cannot
 * be read. */
int locus__rt_file_sum(const char *path, uint64_t *bytes, uint64_t *sum)
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
		h = locus__rt_fnv(h, buf, (size_t)k);
	close(fd);
	*sum = h;
	return k < 0 ? -1 : 0;
}
