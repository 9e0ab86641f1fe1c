/*
 * Rank 0's outcome of a round: each task's report, the journal (written
 * as tasks finish, read by a run that resumes), and the result gathered
 * from every rank.
 */
#define _GNU_SOURCE
#include "core/journal.h"
#include "mpi/runtime.h"

static void journal_task(struct flow *f, const struct rec *r);

/* ---- rank 0: outcomes --------------------------------------------------------------- */

void locus__rt_undone(struct flow *f, uint32_t t)
{
	if (t >= f->g->n_tasks || !f->done[t])
		return;
	if (f->st->began)
		f->st->began[f->task_full ? f->task_full[t] : t] = 0;
	f->st->status_dirty = 1;
	f->done[t] = 0;
	f->n_done--;
	f->st->claimed[f->task_full ? f->task_full[t] : t] = 0;
}

void locus__rt_take_report(struct flow *f, const struct rec *r, size_t len)
{
	if (r->task >= f->g->n_tasks)
		return;
	if (f->done[r->task]) {
		/* A policy that reads a monitor of every task decides from what
		 * its ranks knew a message ago: it may move a task that has
		 * just ended, which then runs again (counted). Another policy
		 * that runs a task twice has made a mistake. */
		if (f->monitor_all) {
			f->reruns++;
			return;
		}
		char nb[64];
		locus__rt_local_fail(f, LOCUS_EINCOMPLETE, "task %s ran twice (policy %s)",
				     locus__rt_task_name(f, r->task, nb, sizeof nb), f->pol->name);
		return;
	}
	f->done[r->task] = 1;
	f->recs[r->task] = *r;
	if (f->ck) {
		/* A run of chunks: the caller keeps its journal and failures. */
		char why[WHY_MAX];
		size_t wl = r->failed ? len - sizeof *r : 0;
		wl = wl < sizeof why - 1 ? wl : sizeof why - 1;
		memcpy(why, r + 1, wl);
		why[wl] = 0;
		f->ck->settled(f->ck->user, r, why);
	}
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
	if (f->st->fails && r->attempts > 0) {
		uint32_t full = f->task_full ? f->task_full[r->task] : r->task;
		if (f->st->fails[full] < r->attempts - 1)
			f->st->fails[full] = r->attempts - 1;
	}
	f->st->status_dirty = 1;
	f->n_done++;
	if (f->opt->progress && (f->n_done >= f->next_progress || f->n_done == f->g->n_tasks)) {
		f->opt->progress(f->opt->progress_user, f->n_done, f->g->n_tasks,
				 locus__rt_now_of(f));
		f->next_progress = f->n_done + (f->g->n_tasks + 99) / 100;
	}
	if (f->n_done == f->g->n_tasks)
		locus__rt_finish(f, 0, NULL);
}

/* Appends buf[0..len) to the journal, synced: 0, or the error (the
 * journal then cut back to where it was: no half-written line). */
static int journal_append(struct flow *f, const void *buf, size_t len)
{
	if (!buf)
		return locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	return locus__journal_append(f->jfd, f->opt->journal, buf, len, f->err);
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
		locus__journal_escape(&b, locus__rt_obj_name(f, o));
		locus__rt_fmt(num, sizeof num, "\t%" PRIu64 "\t", orec[k].bytes);
		locus__buf_append(&b, num, strlen(num));
		if (f->opt->checksum)
			locus__rt_fmt(num, sizeof num, "%016" PRIx64 "\t", orec[k].sum);
		else
			locus__rt_fmt(num, sizeof num, "-\t");
		locus__buf_append(&b, num, strlen(num));
		/* The shared directory when it is there (it outlives nodes). */
		if (orec[k].where & 2)
			locus__buf_append(&b, ":shared", 7);
		else
			locus__journal_escape(&b, f->plat->nodes[r->node].name);
		locus__buf_append(&b, "\n", 1);
	}
	char nb[64];
	locus__buf_append(&b, "task\t", 5);
	locus__journal_escape(&b, locus__rt_task_name(f, r->task, nb, sizeof nb));
	locus__buf_append(&b, "\t", 1);
	locus__journal_escape(&b, f->plat->nodes[r->node].name);
	locus__buf_append(&b, "\n", 1);
	if (journal_append(f, b.data, b.len))
		locus__rt_local_fail(f, LOCUS_EIO, "%s", f->err->message);
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

const char *locus__rt_journal_place(const struct flow *f, char *real, size_t size)
{
	char dir[PATH_MAX];
	locus__rt_fmt(dir, sizeof dir, "%s", f->opt->journal);
	char *slash = strrchr(dir, '/');
	const char *base = slash ? slash + 1 : dir;
	if (slash == dir)
		locus__rt_fmt(real, size, "/");
	else if (!realpath(slash ? (*slash = 0, dir) : ".", real))
		return NULL;
	return f->opt->journal + (base - dir);
}

/* Rank 0: whether the journal is a file the workflow writes (an output
 * of one of its tasks, in the shared directory): 0, or the error. */
static int journal_is_output(struct flow *f, const struct locus_graph *g)
{
	char real[PATH_MAX], jpath[PATH_MAX * 2], opath[PATH_MAX * 2];
	const char *base = locus__rt_journal_place(f, real, sizeof real);
	if (!base)
		return 0; /* its directory is missing: opening it says so */
	locus__rt_fmt(jpath, sizeof jpath, "%s/%s", real, base);
	for (uint32_t o = 0; o < g->n_objects; o++) {
		if (g->objects[o].producer == LOCUS_NONE)
			continue;
		/* The output's directory as the journal's: its real path. */
		char odir[PATH_MAX], oreal[PATH_MAX];
		locus__rt_fmt(odir, sizeof odir, "%s/%s", f->shared, g->objects[o].name);
		char *s2 = strrchr(odir, '/');
		*s2 = 0;
		if (strcmp(s2 + 1, base) || !realpath(odir, oreal))
			continue;
		locus__rt_fmt(opath, sizeof opath, "%s/%s", oreal, s2 + 1);
		if (!strcmp(opath, jpath)) {
			char nb[64];
			return locus__err(
			    f->err, LOCUS_EINVAL, f->opt->journal, 0, 0,
			    "the journal would be the workflow's file \"%s\", an "
			    "output of task %s: name another journal",
			    g->objects[o].name,
			    locus__rt_task_name(f, g->objects[o].producer, nb, sizeof nb));
		}
	}
	return 0;
}

/* Rank 0, before any node's directory is made: opens and locks the
 * journal, refuses a file that is not a journal (left as it was, byte for
 * byte) or one the workflow writes, reads what it says (the first round;
 * later rounds know it and more), then cuts a torn last line or writes
 * its head line. */
int locus__rt_journal_open(struct flow *f, const struct locus_graph *g)
{
	struct state *st = f->st;
	int rc = journal_is_output(f, g);
	if (rc)
		return rc;
	struct stat jst;
	f->jmade = stat(f->opt->journal, &jst) && errno == ENOENT;
	f->jfd = open(f->opt->journal, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (f->jfd < 0)
		return locus__err(f->err, LOCUS_EIO, f->opt->journal, 0, 0,
				  "cannot open the journal: %s", strerror(errno));
	if ((rc = locus__rt_lock(f, f->jfd, "journal", f->opt->journal)) < 0)
		return rc;
	char *text = NULL;
	size_t len = 0;
	rc = locus__journal_slurp(f->jfd, f->opt->journal, &text, &len, f->err);
	/* Its first line is the head, or (a run killed as it wrote it) a
	 * piece of the head and nothing else; anything else is not a
	 * journal and is not touched. */
	struct locus__buf head = {0};
	if (!rc &&
	    locus__journal_head_line(&head, LOCUS__JOURNAL_WORKFLOW, g->n_tasks, g->n_objects))
		rc = locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	const char *nl = !rc ? memchr(text, '\n', len) : NULL;
	int torn_head = !rc && !nl && len < head.len && !memcmp(text, head.data, len);
	if (!rc && len && !torn_head && (!nl || !locus__journal_looks_like(text, len)))
		rc = locus__err(f->err, LOCUS_EPARSE, f->opt->journal, 1, 1,
				"expected \"" LOCUS__JOURNAL_MAGIC " %d\": this file is not a "
				"journal of locus flow run (left as it is)",
				LOCUS__JOURNAL_VERSION);
	/* A last line a kill cut short goes: the next is appended after the
	 * last whole one. */
	size_t whole = !rc ? locus__journal_whole(text, len) : 0;
	/* Read before anything is cut, so that a journal refused (another
	 * workflow's) stays as it was. */
	if (!rc && whole && st->round == 0)
		rc = journal_read(f, g, text, whole, st->claimed, st->place, st->bytes, st->sum);
	if (!rc && whole < len && ftruncate(f->jfd, (off_t)whole))
		rc = locus__err(f->err, LOCUS_EIO, f->opt->journal, 0, 0,
				"cannot cut its torn last line: %s", strerror(errno));
	if (!rc && !whole)
		rc = journal_append(f, head.data, head.len);
	locus__buf_fini(&head);
	free(text);
	return rc;
}

/* This node's first rank (leader) copies the files its node kept, whole,
 * to the shared directory (the run left reads them there): avail[o]. */
static void kept_to_shared(struct flow *f, const struct locus_graph *g, int leader,
			   unsigned char *avail)
{
	struct state *st = f->st;
	for (uint32_t o = 0; leader && o < g->n_objects; o++) {
		if (st->place[o] < 0 || g->objects[o].producer == LOCUS_NONE ||
		    !st->claimed[g->objects[o].producer] || (uint32_t)st->place[o] != f->node)
			continue;
		char from[PATH_MAX], to[PATH_MAX];
		uint64_t b = 0, h = 0;
		locus__rt_fmt(to, sizeof to, "%s/%s", f->shared, g->objects[o].name);
		locus__rt_fmt(from, sizeof from, "%s/store/o%" PRIu32, f->node_dir, o);
		if (locus__rt_file_sum(from, &b, st->sum[o] ? &h : NULL) || b != st->bytes[o] ||
		    h != st->sum[o] || locus__rt_copy_file(from, to, &b, f->rank, NULL))
			continue;
		avail[o] = 1;
		if (!locus__grow(&st->copied, &st->copied_cap, st->n_copied + 1,
				 sizeof *st->copied))
			st->copied[st->n_copied++] = o;
	}
}

/* Rank 0: which of the files done tasks made are in the shared directory
 * now (avail: copied there by their nodes; the others looked for there,
 * put there when they were made or by an earlier resume); the journal
 * says so for a run after this one. */
static int shared_now(struct flow *f, const struct locus_graph *g, unsigned char *avail)
{
	struct state *st = f->st;
	struct locus__buf jl = {0};
	int rc = 0;
	for (uint32_t o = 0; o < g->n_objects; o++) {
		if (st->place[o] == -1 || g->objects[o].producer == LOCUS_NONE ||
		    !st->claimed[g->objects[o].producer])
			continue;
		if (avail[o]) {
			st->place[o] = -2;
			if (f->jfd < 0)
				continue;
			char num[64];
			locus__buf_append(&jl, "file\t", 5);
			locus__journal_escape(&jl, g->objects[o].name);
			locus__rt_fmt(num, sizeof num, "\t%" PRIu64 "\t", st->bytes[o]);
			locus__buf_append(&jl, num, strlen(num));
			if (st->sum[o])
				locus__rt_fmt(num, sizeof num, "%016" PRIx64 "\t:shared\n",
					      st->sum[o]);
			else
				locus__rt_fmt(num, sizeof num, "-\t:shared\n");
			locus__buf_append(&jl, num, strlen(num));
			continue;
		}
		char to[PATH_MAX];
		uint64_t b = 0, h = 0;
		locus__rt_fmt(to, sizeof to, "%s/%s", f->shared, g->objects[o].name);
		avail[o] = !locus__rt_file_sum(to, &b, st->sum[o] ? &h : NULL) &&
			   b == st->bytes[o] && h == st->sum[o];
		/* An intermediate file an earlier resume put there goes when
		 * this run succeeds. */
		if (avail[o] && st->place[o] >= 0 && g->objects[o].n_cons &&
		    !locus__grow(&st->copied, &st->copied_cap, st->n_copied + 1,
				 sizeof *st->copied))
			st->copied[st->n_copied++] = o;
		if (avail[o])
			st->place[o] = -2;
	}
	int wrc = jl.len ? journal_append(f, jl.data, jl.len) : 0;
	if (wrc)
		rc = wrc;
	locus__buf_fini(&jl);
	return rc;
}

/* A task stays done unless an output of it that a task left to run reads
 * (or a final output) is not available, to a fixed point. */
static void still_done(const struct locus_graph *g, unsigned char *done, const unsigned char *avail)
{
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint32_t t = 0; t < g->n_tasks; t++) {
			const struct locus_task *tk = &g->tasks[t];
			if (done[t]) {
				for (uint32_t k = 0; k < tk->n_out && done[t]; k++) {
					uint32_t o = g->outputs[tk->out_at + k];
					if (!g->objects[o].n_cons && !avail[o])
						done[t] = 0, changed = 1;
				}
				continue;
			}
			for (uint32_t k = 0; k < tk->n_in; k++) {
				uint32_t o = g->inputs[tk->in_at + k], p = g->objects[o].producer;
				if (p != LOCUS_NONE && done[p] && !avail[o])
					done[p] = 0, changed = 1;
			}
		}
	}
}

/* The workflow left (its tasks not done) as the round's graph, with the
 * maps between its ids and the caller's. */
static int round_graph(struct flow *f, const struct locus_graph *g, const unsigned char *done)
{
	int rc = locus_flow_remaining(&f->own_g, g, done, f->err);
	if (rc || !f->own_g)
		return rc;
	f->g = f->own_g;
	f->task_full = malloc((f->g->n_tasks + 1) * sizeof *f->task_full);
	f->obj_full = malloc((f->g->n_objects + 1) * sizeof *f->obj_full);
	f->obj_round = malloc((g->n_objects + 1) * sizeof *f->obj_round);
	if (!f->task_full || !f->obj_full || !f->obj_round)
		return locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	/* locus_flow_remaining keeps the tasks not done in id order, and the
	 * names of the files it keeps. */
	for (uint32_t t = 0, k = 0; t < g->n_tasks; t++)
		if (!done[t])
			f->task_full[k++] = t;
	for (uint32_t o = 0; o < g->n_objects; o++) {
		long r = locus_graph_find_object(f->g, g->objects[o].name);
		f->obj_round[o] = r < 0 ? NONE : (uint32_t)r;
		if (r >= 0)
			f->obj_full[r] = o;
	}
	return 0;
}

int locus__rt_resume(struct flow *f)
{
	struct state *st = f->st;
	const struct locus_graph *g = f->opt->graph;
	size_t nt = g->n_tasks, no = g->n_objects;
	unsigned char *done = calloc(nt + 1, 1);
	unsigned char *avail = calloc(no + 1, 1), *avail_all = calloc(no + 1, 1);
	int rc = done && avail && avail_all
		     ? 0
		     : locus__err(f->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	if ((rc = locus__rt_agree(f, rc)))
		goto out;
	MPI_Bcast(st->claimed, (int)nt, MPI_UNSIGNED_CHAR, 0, f->comm);
	MPI_Bcast(st->place, (int)no, MPI_INT32_T, 0, f->comm);
	MPI_Bcast(st->bytes, (int)no, MPI_UINT64_T, 0, f->comm);
	MPI_Bcast(st->sum, (int)no, MPI_UINT64_T, 0, f->comm);
	/* Each file where it was kept, whole, into the shared directory. */
	int leader = f->rank >= (int)f->D && f->node_rank[f->node_at[f->node]] == f->rank;
	kept_to_shared(f, g, leader, avail);
	MPI_Reduce(avail, avail_all, (int)no, MPI_UNSIGNED_CHAR, MPI_MAX, 0, f->comm);
	if (f->rank == 0)
		rc = shared_now(f, g, avail_all);
	if ((rc = locus__rt_agree(f, rc)))
		goto out;
	MPI_Bcast(avail_all, (int)no, MPI_UNSIGNED_CHAR, 0, f->comm);
	memcpy(done, st->claimed, nt);
	still_done(g, done, avail_all);
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
		locus__rt_fmt(p, sizeof p, "%s/store", f->node_dir);
		locus__rmtree(p);
		struct locus_error e = {0};
		locus__mkdirs(p, &e);
	}
	rc = f->skipped ? round_graph(f, g, done) : 0;
	rc = locus__rt_agree(f, rc);
out:
	free(done);
	free(avail);
	free(avail_all);
	return rc;
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

/* Task t, done, in result r (its worker's and stage's figures too), from
 * its report. */
static void task_result(const struct flow *f, struct locus_result *r, uint32_t t)
{
	const struct rec *c = &f->recs[t];
	/* A chunk's task read its chunk where it was, or a copy from
	 * c->source; a workflow's reads are in its stages' figures. */
	int local = !f->ck || c->source == c->node;
	r->tasks[t] = (struct locus_task_result){.worker = c->worker,
						 .node = c->node,
						 .source = f->ck ? c->source : c->node,
						 .local = local,
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
	wr->local_tasks += local;
	wr->busy += c->end - c->start;
	r->local_tasks += local;
	uint32_t s = f->g->task_stage ? f->g->task_stage[t] : LOCUS_NONE;
	if (s == LOCUS_NONE)
		return;
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

/* Every rank's copies, at rank 0 (*n of them), in the order they ended;
 * NULL elsewhere. Collective. */
static struct locus_transfer_result *copies(struct flow *f, size_t *n)
{
	struct locus_transfer_result *xf = NULL;
	int mine = (int)(f->n_xfers * sizeof *f->xfers), *cnts = NULL, *at = NULL;
	if (f->rank == 0) {
		cnts = calloc((size_t)f->size, sizeof *cnts);
		at = calloc((size_t)f->size, sizeof *at);
	}
	MPI_Gather(&mine, 1, MPI_INT, cnts, 1, MPI_INT, 0, f->comm);
	size_t total = 0;
	for (int r = 0; cnts && at && r < f->size; r++) {
		at[r] = (int)total;
		total += (size_t)cnts[r];
	}
	if (f->rank == 0)
		xf = malloc(total + sizeof *xf);
	MPI_Gatherv(f->xfers, mine, MPI_BYTE, xf, cnts, at, MPI_BYTE, 0, f->comm);
	*n = xf ? total / sizeof *xf : 0;
	if (*n)
		qsort(xf, *n, sizeof *xf, xfer_cmp);
	free(cnts);
	free(at);
	return xf;
}

int locus__rt_results(struct flow *f, struct locus_mpi_flow_report *rep)
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
	size_t n_xf = 0;
	struct locus_transfer_result *xf = copies(f, &n_xf);
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
			locus__rt_fmt(r->engine, sizeof r->engine, "mpi");
			locus__rt_fmt(r->policy, sizeof r->policy, "%s", f->pol->name);
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
			r->wall_seconds = locus__rt_now_of(f);
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
			for (uint32_t t = 0; t < nt; t++)
				if (f->done[t])
					task_result(f, r, t);
			r->xfers = n_xf ? xf : NULL;
			r->n_xfers = n_xf;
			if (n_xf)
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

/* ---- rank 0: the status file ----------------------------------------------------------- */

void locus__rt_status_began(struct flow *f, uint32_t t, uint32_t attempt)
{
	struct state *st = f->st;
	if (!st->began || t >= f->g->n_tasks)
		return;
	uint32_t full = f->task_full ? f->task_full[t] : t;
	st->began[full] = 1;
	if (st->fails[full] < attempt)
		st->fails[full] = attempt; /* the attempts before it failed */
	st->status_dirty = 1;
}

void locus__rt_status_tick(struct flow *f)
{
	struct state *st = f->st;
	/* At most twice a second when something changed, and every 5 s
	 * anyway (a reader sees the run is alive). */
	double now = locus__rt_mono();
	if (now < st->status_next || (!st->status_dirty && now < st->status_next + 4.5))
		return;
	st->status_next = now + 0.5;
	st->status_dirty = 0;
	st->status_live = 1;
	locus__rt_status_write(f->opt, st, "running", NULL);
}

/* Adds task t (of state `state`: 0 waiting, 1 running, 2 done) to c. */
static void count_task(struct locus_flow_status_count *c, const struct locus_graph *g,
		       const struct state *st, uint32_t t, int state)
{
	const struct locus_task *tk = &g->tasks[t];
	c->total++;
	*(state == 2 ? &c->done : state == 1 ? &c->running : &c->waiting) += 1;
	c->failed_attempts += st->fails[t];
	if (state != 2)
		return;
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = g->inputs[tk->in_at + k];
		c->bytes_read += g->objects[o].producer != LOCUS_NONE && st->place[o] != -1
				     ? st->bytes[o]
				     : g->objects[o].bytes;
	}
	for (uint32_t k = 0; k < tk->n_out; k++)
		c->bytes_written += st->bytes[g->outputs[tk->out_at + k]];
}

void locus__rt_status_write(const struct locus_mpi_flow_options *opt, struct state *st,
			    const char *state, const char *failure)
{
	const struct locus_graph *g = opt->graph;
	if (!opt->status || !st->began)
		return;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	char host[256] = "";
	gethostname(host, sizeof host - 1);
	struct locus_flow_status s = {.workflow = (char *)(g->name ? g->name : ""),
				      .state = (char *)state,
				      .failure = (char *)failure,
				      .host = host,
				      .pid = (long)getpid(),
				      .started = st->status_t0,
				      .updated = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec,
				      .n_stages = g->n_stages,
				      .stage_names = (char **)g->stage_names};
	s.stages = calloc(g->n_stages ? g->n_stages : 1, sizeof *s.stages);
	if (!s.stages)
		return;
	for (uint32_t t = 0; t < g->n_tasks; t++) {
		int ts_ = st->claimed[t] ? 2 : st->began[t] ? 1 : 0;
		count_task(&s.tasks, g, st, t, ts_);
		if (g->task_stage && g->task_stage[t] != LOCUS_NONE)
			count_task(&s.stages[g->task_stage[t]], g, st, t, ts_);
	}
	struct locus_error e = {0};
	if (locus_flow_status_write(&s, opt->status, &e) && !st->status_warned) {
		st->status_warned = 1; /* once: the run goes on without it */
		fprintf(stderr, "locus: %s\n", e.message);
	}
	free(s.stages);
}
