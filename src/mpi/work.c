/*
 * A worker rank's tasks, as the executor runs them (its operations that
 * are a task's life): the inputs read as it starts, its working
 * directory, and its run by one of three backends - its command (a
 * process), a function of the program's (on a thread of its own), or a
 * stand-in that sleeps its runtime - then its outputs kept and written.
 */
#define _GNU_SOURCE
#include "mpi/runtime.h"

#include <sys/resource.h>

static void launch(struct flow *f);
static void end_attempt(struct flow *f);
static void out_path(const struct flow *f, uint32_t k, char *buf, size_t size);
static void fn_over(struct flow *f);
static void attempt_failed(struct flow *f, const char *why);
static void full_storage(const struct flow *f, char *why, size_t size);
static void task_computed(struct flow *f);
static void chunk_ended(struct flow *f, uint32_t t);

/* ---- the worker ------------------------------------------------------------------- */

/* ---- the worker: the executor's operations --------------------------------------- */

/* The index of object o among task t's outputs. */
static uint32_t out_index(const struct flow *f, uint32_t t, uint32_t o)
{
	const struct locus_task *tk = &f->g->tasks[t];
	for (uint32_t k = 0; k < tk->n_out; k++)
		if (f->g->outputs[tk->out_at + k] == o)
			return k;
	return 0;
}

int locus__rt_op_underway(void *eng, uint32_t o, uint32_t node)
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
	locus__rt_take_copy(f, -1, &q, &o);
}

void locus__rt_op_fetch(void *eng, uint32_t o, uint32_t source, uint32_t node, uint32_t task,
			double now)
{
	struct flow *f = eng;
	(void)now;
	(void)node; /* this rank's worker's */
	bring(f, o, source, task, 0);
}

void locus__rt_op_placed(void *eng, uint32_t w, uint32_t t, int from_policy, double now)
{
	struct flow *f = eng;
	(void)w;
	if (from_policy)
		f->tassigned[t] = now;
}

/* Task t starts on this rank's worker: the inputs it reads as it starts
 * come (the executor's plan), then it runs (launch). */
void locus__rt_op_start(void *eng, uint32_t w, uint32_t t, double now)
{
	struct flow *f = eng;
	const struct locus_task *tk = &f->g->tasks[t];
	(void)w;
	f->cur = t;
	f->gen++;
	f->attempt = (int)f->x.tattempt[t];
	f->start = now;
	if (f->opt->status) {
		/* Rank 0's status file counts it running. */
		struct retry m = {.task = t, .attempt = (uint32_t)f->attempt};
		locus__rt_post_copy(f, 0, F_STARTED, &m, sizeof m);
	}
	f->read_failed = 0;
	free(f->r_keep);
	f->r_keep = NULL;
	uint8_t gather = f->x.tgather[t];
	if (gather == LOCUS_GATHER_NONE && !f->opt->fn) {
		/* A reduction's task: what partial results here cover is not
		 * brought (its tree reduced it elsewhere). */
		uint8_t *keep = malloc(tk->n_in ? tk->n_in : 1);
		uint32_t *cover = NULL, n_cover = 0;
		int found =
		    keep ? locus__rt_reduce_inputs(f, t, NULL, 0, keep, &cover, &n_cover) : -1;
		free(cover);
		if (found > 0)
			f->r_keep = keep;
		else
			free(keep);
		if (found < 0) {
			locus__rt_local_fail(f, LOCUS_EIO,
					     "cannot read task %" PRIu32 "'s partial results", t);
			return;
		}
	}
	if (locus__grow(&f->reads, &f->reads_cap, tk->n_in + 1, sizeof *f->reads)) {
		locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
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
	f->src = f->node;
	f->pace_bytes = 0;
	for (long k = 0; k < n && !f->failed; k++) {
		uint32_t o = f->reads[k].object, src = f->reads[k].source;
		/* The workflow's own inputs are read in place, from the shared
		 * directory. */
		if (f->g->objects[o].producer == LOCUS_NONE && src == LOCUS_FS)
			continue;
		if (src != f->node) {
			f->src = src;
			bring(f, o, src, t, 1);
		}
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
	locus__rt_read_over(f, f->gen, 1);
}

/* A read of attempt `gen` has ended (or the reads were all asked for):
 * the task runs when none is left; a read that failed (its holder had
 * lost the file) sends it back to gather again, not as an attempt. */
void locus__rt_read_over(struct flow *f, uint64_t gen, int ok)
{
	if (gen != f->gen || f->cur == NONE)
		return; /* an attempt given up */
	if (!ok)
		f->read_failed = 1;
	if (--f->reads_left)
		return;
	if (f->read_failed) {
		f->read_failed = 0;
		locus__exec_requeue(&f->x, f->worker, locus__rt_now_of(f));
		return;
	}
	/* An emulated network: what was copied counts as here only once it
	 * would have crossed it. */
	if (f->ck && f->ck->pace_bw > 0 && f->pace_bytes) {
		double due = f->start + (double)f->pace_bytes / f->ck->pace_bw;
		if (due > locus__rt_now_of(f)) {
			f->paced_until = due;
			f->pacing = 1;
			return;
		}
	}
	launch(f);
}

/* The attempt stops where it is: its command killed, its reads
 * forgotten, its working directory gone. */
void locus__rt_op_abort(void *eng, uint32_t w, uint32_t t, int state, double now)
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
	locus__rt_group_over(f, 1);
	f->deadline = 0;
	locus__rt_fn_wait(f);
	f->standin = 0;
	f->pacing = 0;
	f->fn_inline_due = 0;
	f->gen++;
	end_attempt(f);
	f->cur = NONE;
}

/* This node keeps output o of the task that has computed: renamed (or
 * copied, a link) from its working directory into the node's storage,
 * unless a function wrote it there or it came home. */
int locus__rt_op_keep(void *eng, uint32_t o, uint32_t node, double now)
{
	struct flow *f = eng;
	uint32_t t = f->x.w[f->worker].task;
	char why[WHY_MAX], src[PATH_MAX * 2], dst[PATH_MAX];
	(void)now;
	if (node != f->node || locus_replicas_has(f->rep, o, node))
		return 0; /* it came home */
	uint32_t k = out_index(f, t, o);
	out_path(f, k, src, sizeof src);
	locus__rt_store_path(f, o, dst, sizeof dst);
	uint64_t bytes = 0;
	struct stat st;
	int link = !lstat(src, &st) && S_ISLNK(st.st_mode);
	if (!f->opt->fn && (link ? (errno = locus__rt_copy_file(src, dst, &bytes, f->rank, NULL))
				 : rename(src, dst))) {
		char nb[64];
		locus__rt_fmt(why, sizeof why, "cannot keep %s in node %s's storage: %s",
			      locus__rt_out_name(f, t, k), f->plat->nodes[f->node].name,
			      strerror(errno));
		locus__rt_local_fail(f, LOCUS_EIO, "task %s: %s",
				     locus__rt_task_name(f, t, nb, sizeof nb), why);
		return -1;
	}
	/* Its checksum, with which every reader checks its copy. */
	if (f->opt->checksum && locus__rt_file_sum(dst, &bytes, &f->obj_sum[o])) {
		locus__rt_local_fail(f, LOCUS_EIO, "cannot read %s back: %s",
				     locus__rt_out_name(f, t, k), strerror(errno));
		return -1;
	}
	locus__rt_note_as(f, o, node, 1, 1);
	return 1;
}

/* Output o of the task that has computed goes to the shared directory:
 * from the node's storage when kept there, else from its working
 * directory. */
void locus__rt_op_write(void *eng, uint32_t w, uint32_t o, double now)
{
	struct flow *f = eng;
	uint32_t t = f->x.w[w].task;
	char src[PATH_MAX * 2], sp[PATH_MAX];
	int kept = locus_replicas_has(f->rep, o, f->node);
	if (kept)
		locus__rt_store_path(f, o, src, sizeof src);
	else
		out_path(f, out_index(f, t, o), src, sizeof src);
	locus__rt_shared_path(f, o, sp, sizeof sp);
	uint64_t bytes = 0;
	int rc = locus__rt_fs_copy(f, src, sp, &bytes, NULL);
	if (rc) {
		char nb[64];
		locus__rt_local_fail(f, LOCUS_EIO,
				     "task %s: cannot write %s to the shared directory: %s",
				     locus__rt_task_name(f, t, nb, sizeof nb), sp, strerror(rc));
		return;
	}
	if (!kept && f->opt->fn)
		unlink(src); /* a function wrote it in the node's storage */
	f->bytes_fs_written += bytes;
	locus__rt_stage_add(f, t, 2, bytes);
	locus__rt_note(f, o, LOCUS_FS, 1);
	locus__exec_written(&f->x, w, o, now);
}

/* A run of chunks: task t has ended here; its output goes to rank 0
 * (ahead of its report), and a chunk copied here for it goes (no other
 * task reads it: the store keeps its own). */
static void chunk_ended(struct flow *f, uint32_t t)
{
	const struct locus_task *tk = &f->g->tasks[t];
	char *buf = NULL;
	size_t len = 0;
	if (f->ck->take_output)
		f->ck->take_output(f->ck->user, &buf, &len);
	if (buf) /* rank 0 schedules: never a worker's */
		locus__rt_post(f, 0, F_OUTPUT, buf, len);
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = f->g->inputs[tk->in_at + k];
		if (!f->ck_here[o])
			locus__rt_drop_here(f, o);
	}
}

/* A run of chunks: the last attempt of worker home's task t failed (on
 * worker `by`) and is given up: rank 0 records it with why. */
void locus__rt_op_gave_up(void *eng, uint32_t home, uint32_t by, uint32_t t, uint32_t attempts,
			  const char *why, double now)
{
	struct flow *f = eng;
	size_t wl = strlen(why);
	struct rec *r = calloc(1, sizeof *r + wl);
	if (!r) {
		locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
		return;
	}
	*r = (struct rec){.task = t,
			  .worker = by,
			  .node = f->wl->worker_node[by],
			  .attempts = attempts,
			  .source = f->src,
			  .failed = 1,
			  .assigned = f->tassigned[t],
			  .start = f->start,
			  .read_end = f->read_end,
			  .compute_end = now,
			  .end = now};
	(void)home;
	memcpy(r + 1, why, wl);
	locus__rt_flush_updates(f);
	locus__rt_post(f, 0, F_REPORT, r, sizeof *r + wl);
}

/* The task has ended (here, or elsewhere and come home): rank 0 records
 * it, with where its outputs are, and the executor tells the policy. */
void locus__rt_op_ended(void *eng, uint32_t w, uint32_t t, struct locus_event *done, double now)
{
	struct flow *f = eng;
	const struct locus_task *tk = &f->g->tasks[t];
	int home = f->x.tran_by[t] != w;
	const struct ran here = {f->node, w, f->start, f->read_end, f->compute_end};
	const struct ran *rn = home ? &f->ran[t] : &here;
	/* A reduction's task: the partial results it read are spent. */
	for (uint32_t k = 0; !home && f->r_keep && k < tk->n_in; k++)
		if (f->r_keep[k] == R_PARTIAL)
			locus__rt_partial_gone(f, t, f->g->inputs[tk->in_at + k]);
	end_attempt(f);
	f->cur = NONE;
	if (f->ck && !home)
		chunk_ended(f, t);
	/* The report, on the stack when its outputs are few (as a chunk's
	 * none): a report a task. */
	size_t len = sizeof(struct rec) + tk->n_out * sizeof(struct outrec);
	union {
		struct rec r;
		char bytes[sizeof(struct rec) + 4 * sizeof(struct outrec)];
	} small;
	struct rec *r = len <= sizeof small ? &small.r : calloc(1, len);
	if (!r) {
		locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
		return;
	}
	*r = (struct rec){.task = t,
			  .worker = rn->worker,
			  .node = rn->node,
			  .attempts = f->x.tattempt[t] + 1,
			  .n_out = tk->n_out,
			  .source = home ? rn->node : f->src,
			  .assigned = f->tassigned[t],
			  .start = rn->start,
			  .read_end = rn->read_end,
			  .compute_end = rn->compute_end,
			  .end = now};
	struct outrec *orec = (struct outrec *)(void *)(r + 1);
	for (uint32_t k = 0; k < tk->n_out; k++) {
		uint32_t o = f->g->outputs[tk->out_at + k];
		orec[k] =
		    (struct outrec){.where = (uint32_t)(locus_replicas_has(f->rep, o, r->node) |
							(f->on_fs[o] << 1)),
				    .bytes = f->obj_bytes[o],
				    .sum = f->obj_sum[o]};
	}
	done->done.duration = now - rn->start;
	done->done.compute = rn->compute_end - rn->read_end;
	done->done.remote = 0;
	locus__rt_flush_updates(f);
	if (r == &small.r)
		locus__rt_post_copy(f, 0, F_REPORT, r, len);
	else
		locus__rt_post(f, 0, F_REPORT, r, len);
}

/* This worker has run an attempt of another worker's task (a retry): that
 * worker hears how it went, with its outputs' places sent before. */
void locus__rt_op_ran(void *eng, uint32_t by, uint32_t home, uint32_t t, uint32_t attempt, int ok,
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
	locus__rt_fmt(r.why, sizeof r.why, "%s", why ? why : "");
	if (ok && f->ck)
		chunk_ended(f, t);
	if (ok) {
		end_attempt(f);
		f->cur = NONE;
	}
	locus__rt_flush_updates(f);
	locus__rt_post_copy(f, f->proc_rank[home], F_RETRIED, &r, sizeof r);
}

void locus__rt_op_retry_away(void *eng, uint32_t home, uint32_t w, uint32_t t, uint32_t attempt,
			     double now)
{
	struct flow *f = eng;
	(void)now;
	struct retry q = {t, attempt, home, 0};
	locus__rt_post_copy(f, f->proc_rank[w], F_RETRY, &q, sizeof q);
}

/* The name input k of task t has in its working directory. */
const char *locus__rt_in_name(const struct flow *f, uint32_t t, uint32_t k)
{
	const struct locus_task *tk = &f->g->tasks[t];
	const char *as = f->g->input_as ? f->g->input_as[tk->in_at + k] : NULL;
	return as ? as : locus__rt_obj_name(f, f->g->inputs[tk->in_at + k]);
}

/* The name output k of task t has in its working directory. */
const char *locus__rt_out_name(const struct flow *f, uint32_t t, uint32_t k)
{
	const struct locus_task *tk = &f->g->tasks[t];
	const char *as = f->g->output_as ? f->g->output_as[tk->out_at + k] : NULL;
	return as ? as : locus__rt_obj_name(f, f->g->outputs[tk->out_at + k]);
}

/* Links task t's inputs into directory `work` under their names: all,
 * or for a reduction those keep[] says, a partial result under the name
 * of the input keying it. The task's own run (count) counts what it
 * reads. */
int locus__rt_link_inputs(struct flow *f, uint32_t t, const char *work, const uint8_t *keep,
			  int count, char *why, size_t size)
{
	const struct locus_task *tk = &f->g->tasks[t];
	char src[PATH_MAX], dst[PATH_MAX * 2];
	for (uint32_t k = 0; k < tk->n_in; k++) {
		uint32_t o = f->g->inputs[tk->in_at + k];
		const char *as = locus__rt_in_name(f, t, k);
		if (keep && keep[k] == R_OUT)
			continue;
		/* On this node: a partial result, a file this rank knows is
		 * here, or one a reduction reduces here (another rank of the
		 * node may have made it and not told this one yet). */
		int partial = keep && keep[k] == R_PARTIAL,
		    here = partial || locus_replicas_has(f->rep, o, f->node) ||
			   (keep && keep[k] == R_SELF && f->g->objects[o].producer != LOCUS_NONE);
		if (partial)
			locus__rt_partial_path(f, t, o, src, sizeof src);
		else if (here)
			locus__rt_store_path(f, o, src, sizeof src);
		else
			locus__rt_shared_path(f, o, src, sizeof src);
		locus__rt_fmt(dst, sizeof dst, "%s/%s", work, as);
		if (locus__rt_parent_dirs(dst) || (symlink(src, dst) && errno != EEXIST)) {
			locus__rt_fmt(why, size, "cannot link %s into its working directory: %s",
				      as, strerror(errno));
			return -1;
		}
		/* What it reads: on its node, or from the shared directory. */
		struct stat st;
		if (!count || stat(src, &st))
			continue;
		if (!here)
			f->bytes_fs_read += (uint64_t)st.st_size;
		locus__rt_stage_add(f, t, here ? 3 : 1, (uint64_t)st.st_size);
	}
	return 0;
}

/* The directories task t's outputs go in, made in its working directory
 * `work` (as the inputs' are), so that "dir/out" can be written. */
int locus__rt_output_dirs(struct flow *f, uint32_t t, const char *work, char *why, size_t size)
{
	const struct locus_task *tk = &f->g->tasks[t];
	char dst[PATH_MAX * 2];
	for (uint32_t k = 0; k < tk->n_out; k++) {
		const char *as = locus__rt_out_name(f, t, k);
		locus__rt_fmt(dst, sizeof dst, "%s/%s", work, as);
		if (locus__rt_parent_dirs(dst)) {
			locus__rt_fmt(why, size, "cannot make the directory of %s: %s", as,
				      strerror(errno));
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
int locus__rt_spawn_in(struct flow *f, const struct locus_command *c, const char *line,
		       char *const *argv, const char *work, const char *errp, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	/* stdout beside stderr (WORK.out, WORK.err), kept apart. */
	char outp[PATH_MAX + 8];
	size_t el = strlen(errp);
	if (el > 4 && !strcmp(errp + el - 4, ".err") && el < sizeof outp) {
		memcpy(outp, errp, el - 4);
		memcpy(outp + el - 4, ".out", 5);
		posix_spawn_file_actions_addopen(&fa, 1, outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		posix_spawn_file_actions_addopen(&fa, 2, errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	} else {
		posix_spawn_file_actions_addopen(&fa, 1, errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		posix_spawn_file_actions_adddup2(&fa, 1, 2);
	}
	posix_spawn_file_actions_addchdir_np(&fa, work);
	posix_spawnattr_t attr, *ap = NULL;
	if (f->spawn_alone || f->opt->process_group > 0) {
		/* In a group of its own (a command with a time limit: ending
		 * it ends what it started), or in the group whose keeper kills
		 * it if this rank dies. */
		posix_spawnattr_init(&attr);
		posix_spawnattr_setpgroup(&attr, f->spawn_alone ? 0 : f->opt->process_group);
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
	if (rc == EPERM && ap && !f->spawn_alone) {
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
		locus__rt_store_path(f, o, buf, size);
		return;
	}
	locus__rt_fmt(buf, size, "%s/%s", f->work, locus__rt_out_name(f, f->cur, k));
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
			locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
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
			locus__rt_store_path(f, o, p, PATH_MAX);
		else
			locus__rt_shared_path(f, o, p, PATH_MAX);
		f->fn_ptrs[k] = p;
		uint64_t bytes = f->g->objects[o].bytes;
		if (!here)
			f->bytes_fs_read += bytes;
		locus__rt_stage_add(f, t, here ? 3 : 1, bytes);
	}
	for (uint32_t k = 0; k < tk->n_out; k++) {
		uint32_t o = full->outputs[tk->out_at + k];
		char *p = f->fn_paths + ((size_t)tk->n_in + k) * PATH_MAX;
		locus__rt_store_path(f, f->obj_round ? f->obj_round[o] : o, p, PATH_MAX);
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
	/* On the rank's own thread: at its next turn, not inside the
	 * executor's call that started the task (whose caller would then run
	 * on with the task already ended under it). */
	f->fn_inline_due = 1;
}

/* The task function's call has ended (fn_rc, fn_why). */
static void fn_over(struct flow *f)
{
	const struct locus_mpi_flow_task *task = &f->fn_task;
	if (f->fn_rc) {
		for (uint32_t k = 0; k < task->n_out; k++)
			unlink(task->out[k]);
		if (!f->fn_why[0])
			locus__rt_fmt(f->fn_why, sizeof f->fn_why, "its function failed");
		char why[WHY_MAX];
		locus__rt_fmt(why, sizeof why, "%s", f->fn_why);
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
		__atomic_store_n(&f->fn_done, 1, __ATOMIC_SEQ_CST);
		pthread_cond_broadcast(&f->fn_cv);
		/* The rank's thread is told only when it sleeps (it sets
		 * fn_sleeps, then looks at fn_done, before its sleep). */
		uint64_t one = 1;
		if (__atomic_load_n(&f->fn_sleeps, __ATOMIC_SEQ_CST) &&
		    write(f->fn_evfd, &one, sizeof one) < 0) {
			/* a full counter: it has been written already */
		}
	}
	pthread_mutex_unlock(&f->fn_mu);
	return NULL;
}

int locus__rt_fn_start(struct flow *f)
{
	int level = MPI_THREAD_SINGLE;
	MPI_Query_thread(&level);
	if (!f->opt->fn || f->opt->inline_tasks || f->worker == NONE || level < MPI_THREAD_FUNNELED)
		return 0;
	f->fn_evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (f->fn_evfd < 0 || pthread_mutex_init(&f->fn_mu, NULL))
		return locus__err(f->err, LOCUS_EIO, NULL, 0, 0,
				  "cannot set up the function's thread");
	if (pthread_cond_init(&f->fn_cv, NULL)) {
		pthread_mutex_destroy(&f->fn_mu);
		return locus__err(f->err, LOCUS_EIO, NULL, 0, 0,
				  "cannot set up the function's thread");
	}
	if (pthread_create(&f->fn_thread, NULL, fn_main, f)) {
		pthread_cond_destroy(&f->fn_cv);
		pthread_mutex_destroy(&f->fn_mu);
		return locus__err(f->err, LOCUS_EIO, NULL, 0, 0,
				  "cannot start the function's thread");
	}
	f->fn_threaded = 1;
	return 0;
}

void locus__rt_fn_stop(struct flow *f)
{
	if (f->fn_threaded) {
		locus__rt_fn_wait(f);
		pthread_mutex_lock(&f->fn_mu);
		f->fn_quit = 1;
		pthread_cond_broadcast(&f->fn_cv);
		pthread_mutex_unlock(&f->fn_mu);
		pthread_join(f->fn_thread, NULL);
		pthread_cond_destroy(&f->fn_cv);
		pthread_mutex_destroy(&f->fn_mu);
		f->fn_threaded = 0;
	}
	if (f->fn_evfd >= 0)
		close(f->fn_evfd);
	f->fn_evfd = -1;
}

/* Waits for the function's call under way to end (a run's end, an
 * attempt withdrawn: a thread is not killed) and forgets it. */
void locus__rt_fn_wait(struct flow *f)
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

/* Runs the current task: its function, its command, or its stand-in. */
static void launch(struct flow *f)
{
	char why[WHY_MAX];
	uint32_t t = f->cur;
	f->read_end = locus__rt_now_of(f);
	/* The inputs this node keeps must be as they were made; when one is
	 * not (lost: the round ends), the task goes back to gather it again
	 * from elsewhere, or wait for it at the head of the queue. */
	const struct locus_task *in = &f->g->tasks[t];
	int whole = 1;
	for (uint32_t k = 0; k < in->n_in; k++) {
		uint32_t o = f->g->inputs[in->in_at + k];
		/* (A chunk in the store is the run's input, read as it is.) */
		if (locus_replicas_has(f->rep, o, f->node) && !(f->ck_here && f->ck_here[o]) &&
		    !locus__rt_intact(f, o)) {
			locus__rt_lost(f, o);
			whole = 0;
		}
	}
	if (!whole) {
		locus__exec_requeue(&f->x, f->worker, locus__rt_now_of(f));
		return;
	}
	if (f->opt->fn) {
		call_fn(f);
		return;
	}
	/* Its time limit: its command's own, else the run's. */
	const struct locus_command *lc = f->g->commands ? &f->g->commands[t] : NULL;
	f->limit = lc && lc->wall_time > 0 ? lc->wall_time : f->opt->timeout;
	f->deadline = f->limit > 0 ? locus__rt_now_of(f) + f->limit : 0;
	f->timed_out = 0;
	locus__rt_fmt(f->work, sizeof f->work, "%s/work/t%" PRIu32 ".%d", f->node_dir, t,
		      f->attempt);
	locus__rmtree(f->work);
	struct locus_error e = {0};
	if (locus__mkdirs(f->work, &e)) {
		locus__rt_fmt(why, sizeof why, "cannot make its working directory: %s", e.message);
		attempt_failed(f, why);
		return;
	}
	if (locus__rt_link_inputs(f, t, f->work, f->r_keep, 1, why, sizeof why) ||
	    locus__rt_output_dirs(f, t, f->work, why, sizeof why)) {
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
			const char *as = locus__rt_in_name(f, t, k);
			char p[PATH_MAX * 2];
			locus__rt_fmt(p, sizeof p, "%s/%s", f->work, as);
			int fd = open(p, O_RDONLY | O_CLOEXEC);
			if (fd < 0) {
				locus__rt_fmt(why, sizeof why, "cannot read %s: %s", as,
					      strerror(errno));
				attempt_failed(f, why);
				return;
			}
			while (read(fd, buf, sizeof buf) > 0)
				;
			close(fd);
		}
		f->standin = 1;
		f->standin_end = locus__rt_now_of(f) + tk->work * f->opt->stand_in;
		return;
	}
	const struct locus_command *c = f->g->commands ? &f->g->commands[t] : NULL;
	if (!c || (!c->line && !c->argv)) {
		/* Nothing to run: its outputs must be there already (none). */
		f->pid = 0;
		f->standin = 1;
		f->standin_end = locus__rt_now_of(f);
		return;
	}
	char *line = NULL, **argv = NULL;
	if (f->r_keep && locus__rt_reduce_command(f, t, f->r_keep, c->line ? &line : NULL, &argv,
						  why, sizeof why)) {
		attempt_failed(f, why);
		return;
	}
	char errp[PATH_MAX + 8];
	locus__rt_fmt(errp, sizeof errp, "%s.err", f->work);
	pid_t pid;
	f->spawn_alone = f->limit > 0;
	int rc = locus__rt_spawn_in(f, c, line, argv, f->work, errp, &pid);
	f->spawn_alone = 0;
	/* A start takes a while (fork, exec). */
	locus__rt_clock_moved(f);
	if (rc && rc != ENOMEM)
		locus__rt_start_failed(c, argv, rc, why, sizeof why);
	free(line);
	free(argv);
	if (rc == ENOMEM) {
		locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
		return;
	}
	if (rc) {
		full_storage(f, why, sizeof why);
		attempt_failed(f, why);
		return;
	}
	f->pid = pid;
	if (f->limit > 0) {
		/* Its own group, made by the spawn: whoever keeps the rank's
		 * commands is told, to end it if the rank dies. */
		f->group = pid;
		int32_t id = (int32_t)pid;
		if (f->opt->group_fd > 0 && write(f->opt->group_fd, &id, sizeof id) != sizeof id) {
			/* No keeper to tell (it is gone): the rank still ends
			 * the group itself (locus__rt_group_over). */
		}
	}
}

void locus__rt_start_failed(const struct locus_command *c, char *const *argv, int rc, char *why,
			    size_t size)
{
	/* Which program (a Makeflow line runs under /bin/sh, or its first
	 * word without it), and why: not found, not executable, no process
	 * to be had (EAGAIN), its stderr file not made. */
	const char *prog = argv ? argv[0] : c->argv ? c->argv[0] : "/bin/sh";
	locus__rt_fmt(why, size, "cannot start its command (%s): %s%s", prog, strerror(rc),
		      rc == EAGAIN ? " (no process to be had: the limit of processes "
				     "or memory is reached)"
				   : "");
}

void locus__rt_group_over(struct flow *f, int kill_all)
{
	if (f->group <= 0)
		return;
	if (kill_all || f->timed_out)
		kill(-f->group, SIGKILL);
	int32_t id = -(int32_t)f->group;
	if (f->opt->group_fd > 0 && write(f->opt->group_fd, &id, sizeof id) != sizeof id) {
		/* The keeper is gone. */
	}
	f->group = 0;
}

/* Past the attempt's limit: its group is asked to end (SIGTERM), and
 * made to 2 s later (SIGKILL). A stand-in just fails. 1 when the
 * attempt is over. */
#define KILL_GRACE 2.0
static int over_time(struct flow *f, double now)
{
	if (f->deadline <= 0 || now < f->deadline)
		return 0;
	if (f->standin) {
		char why[WHY_MAX];
		if (f->standin_end <= f->deadline)
			return 0; /* it ends in time */
		f->standin = 0;
		locus__rt_fmt(why, sizeof why, "it timed out after %g s (a stand-in of %g s)",
			      f->limit, f->g->tasks[f->cur].work * f->opt->stand_in);
		f->deadline = 0;
		attempt_failed(f, why);
		return 1;
	}
	if (f->pid <= 0)
		return 0;
	if (!f->timed_out) {
		f->timed_out = 1;
		f->kill_at = now + KILL_GRACE;
		if (kill(f->group > 0 ? -f->group : f->pid, SIGTERM)) {
			/* Gone already: its exit is seen next. */
		}
	} else if (f->kill_at > 0 && now >= f->kill_at) {
		f->kill_at = 0;
		kill(f->group > 0 ? -f->group : f->pid, SIGKILL);
	}
	return 0;
}

/* The last lines of the attempt's stderr, quoted in `why`; when it has
 * none and the node's storage is full, that (its stderr could not be
 * written there either). */
static void stderr_tail(const struct flow *f, char *why, size_t size)
{
	size_t n = strlen(why);
	if (f->work[0]) /* a function's has no stderr of its own */
		locus__rt_stderr_tail_of(f->work, why, size);
	if (strlen(why) == n)
		full_storage(f, why, size);
}

/* Appends to `why` that the node's storage is full, when it is. */
static void full_storage(const struct flow *f, char *why, size_t size)
{
	struct statvfs sv;
	/* Root may write the blocks kept for it (f_bfree); others not. */
	if (!f->node_dir[0] || statvfs(f->node_dir, &sv) ||
	    (geteuid() == 0 ? sv.f_bfree : sv.f_bavail) > 0)
		return;
	size_t len = strlen(why);
	locus__rt_fmt(why + len, size - len, "; node %s's storage %s is full (%s)",
		      f->plat->nodes[f->node].name, f->node_dir, strerror(ENOSPC));
}

/* The last lines of the stderr of the command run in `work`; of its
 * stdout when it wrote nothing to stderr (a message on stdout). */
void locus__rt_stderr_tail_of(const char *work, char *why, size_t size)
{
	char errp[PATH_MAX + 8];
	struct stat es;
	locus__rt_fmt(errp, sizeof errp, "%s.err", work);
	int is_err = !stat(errp, &es) && es.st_size > 0;
	if (!is_err)
		locus__rt_fmt(errp, sizeof errp, "%s.out", work);
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
	locus__rt_fmt(why + len, size - len, "; its %s ends: %s", is_err ? "stderr" : "stdout",
		      buf);
}

/* The attempt is over: its working directory goes. */
static void end_attempt(struct flow *f)
{
	free(f->r_keep);
	f->r_keep = NULL;
	if (!f->opt->keep && f->work[0]) {
		char errp[PATH_MAX + 8];
		locus__rt_fmt(errp, sizeof errp, "%s.err", f->work);
		unlink(errp);
		locus__rt_fmt(errp, sizeof errp, "%s.out", f->work);
		unlink(errp);
		locus__rmtree(f->work);
	}
	f->work[0] = 0;
}

/* Writes stand-in output o of the recorded size into the working dir. */
int locus__rt_standin_output(struct flow *f, const char *path, uint64_t bytes)
{
	if (locus__rt_parent_dirs(path))
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

void locus__rt_exit_why(int status, char *why, size_t size)
{
	if (WIFEXITED(status))
		locus__rt_fmt(why, size, "its command exited with %d", WEXITSTATUS(status));
	else
		locus__rt_fmt(why, size, "its command was killed by signal %d", WTERMSIG(status));
}

/* The attempt failed: the executor decides (again, elsewhere, or the end). */
static void attempt_failed(struct flow *f, const char *why)
{
	locus__exec_failed(&f->x, f->worker, LOCUS_FAIL_ERROR, why, locus__rt_now_of(f));
}

/* The command (or function, or stand-in) succeeded: every output must be
 * there; then the executor places them as the assignment says. */
static void task_computed(struct flow *f)
{
	uint32_t t = f->cur;
	const struct locus_task *tk = &f->g->tasks[t];
	char why[WHY_MAX], src[PATH_MAX * 2];
	f->compute_end = locus__rt_now_of(f);
	for (uint32_t k = 0; k < tk->n_out; k++) {
		uint32_t o = f->g->outputs[tk->out_at + k];
		const char *as = locus__rt_out_name(f, t, k);
		out_path(f, k, src, sizeof src);
		if (f->opt->stand_in > 0 &&
		    locus__rt_standin_output(f, src, f->g->objects[o].bytes)) {
			locus__rt_fmt(why, sizeof why, "cannot write %s: %s", as, strerror(errno));
			attempt_failed(f, why);
			return;
		}
		struct stat st;
		if (stat(src, &st) || !S_ISREG(st.st_mode)) {
			locus__rt_fmt(why, sizeof why, "its %s did not write %s",
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
int locus__rt_worker_step(struct flow *f)
{
	if (f->fn_inline_due) {
		/* Calls that end quickly run one after the other in this turn,
		 * for INLINE_BURST: a turn of their own each would cost each an
		 * idle probe, in which an oversubscribed Open MPI yields the
		 * processor to the node's other ranks. */
		double t0 = locus__rt_now_of(f);
		do {
			f->fn_inline_due = 0;
			f->fn_rc =
			    f->opt->fn(f->opt->user, &f->fn_task, f->fn_why, sizeof f->fn_why);
			locus__rt_clock_moved(f);
			fn_over(f);
		} while (f->fn_inline_due && !f->failed && !f->finishing &&
			 locus__rt_now_of(f) - t0 < INLINE_BURST);
		return 1;
	}
	if (f->fn_busy && __atomic_load_n(&f->fn_done, __ATOMIC_ACQUIRE)) {
		f->fn_busy = f->fn_done = 0;
		fn_over(f);
		return 1;
	}
	if (f->cur == NONE)
		return 0;
	if (f->pid > 0) {
		int st;
		struct rusage ru;
		if (wait4(f->pid, &st, WNOHANG, &ru) != f->pid)
			return over_time(f, locus__rt_now_of(f));
		f->pid = 0;
		locus__rt_tasklog_keep(f, st, &ru, locus__rt_now_of(f) - f->read_end);
		int timed_out = f->timed_out;
		int killed = timed_out && !f->kill_at;
		locus__rt_group_over(f, 0);
		f->deadline = 0;
		f->timed_out = 0;
		if (!timed_out && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			task_computed(f);
			return 1;
		}
		char why[WHY_MAX];
		if (timed_out)
			locus__rt_fmt(
			    why, sizeof why,
			    "its command timed out after %g s (its process group ended by "
			    "%s)",
			    f->limit, killed ? "SIGKILL, 2 s after SIGTERM" : "SIGTERM");
		else
			locus__rt_exit_why(st, why, sizeof why);
		stderr_tail(f, why, sizeof why);
		attempt_failed(f, why);
		return 1;
	}
	if (f->standin && over_time(f, locus__rt_now_of(f)))
		return 1;
	if (f->pacing && locus__rt_now_of(f) >= f->paced_until) {
		f->pacing = 0;
		launch(f);
		return 1;
	}
	if (f->standin && locus__rt_now_of(f) >= f->standin_end) {
		f->standin = 0;
		task_computed(f);
		return 1;
	}
	return 0;
}
