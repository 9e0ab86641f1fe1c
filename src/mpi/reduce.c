/*
 * Reductions for real (locus_act_reduce): a reduce stage's own command
 * run at every node of the policy's tree over what that node holds and
 * its children's partial results.
 */
#define _GNU_SOURCE
#include "mpi/runtime.h"

static void reduce_over(struct flow *f, struct rstep *r, const char *failed);

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
int locus__rt_write_cover(const struct flow *f, uint32_t t, uint32_t key, const uint32_t *list,
			  uint32_t n)
{
	char p[PATH_MAX + 8], tmp[PATH_MAX + 16];
	locus__rt_partial_path(f, t, key, p, PATH_MAX);
	strcat(p, ".cov");
	locus__rt_fmt(tmp, sizeof tmp, "%s.%d", p, f->rank);
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
	locus__rt_partial_path(f, t, key, p, PATH_MAX);
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
int locus__rt_reduce_inputs(struct flow *f, uint32_t t, const uint32_t *own, uint32_t n_own,
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
		locus__rt_partial_path(f, t, o, p, sizeof p);
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
		const char *nm = locus__rt_in_name(f, t, k);
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
int locus__rt_reduce_command(const struct flow *f, uint32_t t, const uint8_t *keep, char **line,
			     char ***argv, char *why, size_t size)
{
	const struct locus_task *tk = &f->g->tasks[t];
	const struct locus_command *c = &f->g->commands[t];
	uint32_t *hits = calloc(tk->n_in ? tk->n_in : 1, sizeof *hits);
	if (!hits) {
		locus__rt_fmt(why, size, "out of memory");
		return -1;
	}
	if (line) {
		const char *l = c->line;
		size_t len = strlen(l), w = 0;
		char *out = malloc(len + 1), q = 0;
		if (!out) {
			free(hits);
			locus__rt_fmt(why, size, "out of memory");
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
			locus__rt_fmt(why, size, "out of memory");
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
			locus__rt_fmt(
			    why, size,
			    "its command does not name its input %s as a word of its own, so it "
			    "cannot run over part of its inputs as a reduce stage's must",
			    locus__rt_in_name(f, t, k));
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

/* The policy asks node a->from to reduce (a reduction step): a rank of
 * that node runs it. */
void locus__rt_start_reduce(struct flow *f, uint32_t proc, const struct locus__action *a,
			    const uint32_t *own)
{
	int bad = !own || a->task >= f->g->n_tasks || a->from >= f->K || a->to >= f->K ||
		  a->from == a->to;
	for (uint32_t i = 0; i < a->r_n && !bad; i++)
		bad = own[i] >= f->g->n_objects;
	if (bad) {
		locus__rt_local_fail(f, LOCUS_EINCOMPLETE,
				     "policy %s asked for a reduction step of task %" PRIu32
				     " from node %" PRIu32 " to node %" PRIu32
				     ": no such task or nodes",
				     f->pol->name, a->task, a->from, a->to);
		return;
	}
	size_t len = sizeof(struct reducereq) + a->r_n * sizeof(uint32_t);
	struct reducereq *q = malloc(len);
	if (!q) {
		locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
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
	locus__rt_post(f, locus__rt_rank_of_node(f, a->from, own[0]), F_REDUCE, q, len);
}

/* This rank runs a reduction step for its node. */
void locus__rt_take_reduce(struct flow *f, const struct reducereq *q, const uint32_t *own)
{
	char why[WHY_MAX], nb[64];
	if (q->task >= f->g->n_tasks || !q->n || q->from != f->node || f->worker == NONE) {
		locus__rt_local_fail(f, LOCUS_EINCOMPLETE,
				     "a reduction step of task %" PRIu32 " reached rank %d",
				     q->task, f->rank);
		return;
	}
	uint32_t t = q->task;
	const struct locus_task *tk = &f->g->tasks[t];
	if (tk->n_out != 1) {
		locus__rt_local_fail(f, LOCUS_EINVAL,
				     "task %s is in a reduce stage but writes %" PRIu32
				     " files: a reduction's result is one file",
				     locus__rt_task_name(f, t, nb, sizeof nb), tk->n_out);
		return;
	}
	/* The files are asked of the node, not of this rank's view of
	 * where files are: another rank of the node that made one may not
	 * have told this one yet. */
	char p[PATH_MAX];
	for (uint32_t i = 0; i < q->n; i++)
		if (own[i] >= f->g->n_objects ||
		    (locus__rt_store_path(f, own[i], p, sizeof p), access(p, F_OK))) {
			locus__rt_local_fail(
			    f, LOCUS_EINCOMPLETE,
			    "the reduction of task %s's inputs: node %s does not hold %s",
			    locus__rt_task_name(f, t, nb, sizeof nb), f->plat->nodes[f->node].name,
			    own[i] < f->g->n_objects ? locus__rt_obj_name(f, own[i]) : "?");
			return;
		}
	size_t i = 0;
	while (i < f->n_rsteps && f->rsteps[i].used)
		i++;
	if (i == f->n_rsteps) {
		size_t cap = f->n_rsteps;
		if (locus__grow(&f->rsteps, &cap, f->n_rsteps + 1, sizeof *f->rsteps)) {
			locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
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
	if (!r->keep ||
	    locus__rt_reduce_inputs(f, t, own, q->n, r->keep, &r->cover, &r->n_cover) < 0) {
		reduce_over(f, r, "its partial results cannot be read");
		return;
	}
	locus__rt_fmt(r->work, sizeof r->work, "%s/work/r%" PRIu32 ".%" PRIu32, f->node_dir, t,
		      r->key);
	locus__rmtree(r->work);
	struct locus_error e = {0};
	if (locus__mkdirs(r->work, &e)) {
		locus__rt_fmt(why, sizeof why, "cannot make its working directory: %s", e.message);
		reduce_over(f, r, why);
		return;
	}
	if (locus__rt_link_inputs(f, t, r->work, r->keep, 0, why, sizeof why) ||
	    locus__rt_output_dirs(f, t, r->work, why, sizeof why)) {
		reduce_over(f, r, why);
		return;
	}
	const struct locus_command *c = f->g->commands ? &f->g->commands[t] : NULL;
	if (f->opt->stand_in > 0 || !c || (!c->line && !c->argv)) {
		/* A stand-in's (or a task without a command's) result: its
		 * output's recorded size. */
		char out[PATH_MAX * 2];
		locus__rt_fmt(out, sizeof out, "%s/%s", r->work, locus__rt_out_name(f, t, 0));
		if (locus__rt_standin_output(f, out,
					     f->g->objects[f->g->outputs[tk->out_at]].bytes)) {
			locus__rt_fmt(why, sizeof why, "cannot write %s: %s", out, strerror(errno));
			reduce_over(f, r, why);
			return;
		}
		reduce_over(f, r, NULL);
		return;
	}
	char *line = NULL, **argv = NULL;
	if (locus__rt_reduce_command(f, t, r->keep, c->line ? &line : NULL, &argv, why,
				     sizeof why)) {
		reduce_over(f, r, why);
		return;
	}
	char errp[PATH_MAX + 8];
	locus__rt_fmt(errp, sizeof errp, "%s.err", r->work);
	int rc = locus__rt_spawn_in(f, c, line, argv, r->work, errp, &r->pid);
	if (rc)
		locus__rt_start_failed(c, argv, rc, why, sizeof why);
	free(line);
	free(argv);
	if (rc) {
		r->pid = 0;
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
		locus__rt_fmt(why, sizeof why, "%s", failed);
	} else {
		struct stat st;
		locus__rt_fmt(out, sizeof out, "%s/%s", r->work, locus__rt_out_name(f, t, 0));
		locus__rt_partial_path(f, t, r->key, dst, sizeof dst);
		uint64_t bytes = 0;
		if (stat(out, &st) || !S_ISREG(st.st_mode))
			locus__rt_fmt(why, sizeof why, "its command did not write %s",
				      locus__rt_out_name(f, t, 0));
		else if ((!lstat(out, &st) && S_ISLNK(st.st_mode))
			     ? (errno = locus__rt_copy_file(out, dst, &bytes, f->rank, NULL))
			     : rename(out, dst))
			locus__rt_fmt(why, sizeof why, "cannot keep its result: %s",
				      strerror(errno));
	}
	if (why[0]) {
		if (r->work[0])
			locus__rt_stderr_tail_of(r->work, why, sizeof why);
		locus__rt_local_fail(
		    f, LOCUS_EINCOMPLETE, "the reduction of task %s's inputs on node %s failed: %s",
		    locus__rt_task_name(f, t, nb, sizeof nb), f->plat->nodes[f->node].name, why);
	} else {
		/* The partial results it used are spent. */
		for (uint32_t k = 0; k < tk->n_in; k++)
			if (r->keep[k] == R_PARTIAL)
				locus__rt_partial_gone(f, t, f->g->inputs[tk->in_at + k]);
		size_t len = sizeof(struct copyreq) + (1 + (size_t)r->n_cover) * sizeof(uint32_t);
		struct copyreq *q = malloc(len);
		if (!q) {
			locus__rt_local_fail(f, LOCUS_ENOMEM, "out of memory");
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
			locus__rt_post(f, locus__rt_rank_of_node(f, r->to, r->key), F_COPY, q, len);
		}
	}
	if (r->work[0] && !f->opt->keep) {
		char errp[PATH_MAX + 8];
		locus__rt_fmt(errp, sizeof errp, "%s.err", r->work);
		unlink(errp);
		locus__rt_fmt(errp, sizeof errp, "%s.out", r->work);
		unlink(errp);
		locus__rmtree(r->work);
	}
	free(r->keep);
	free(r->cover);
	*r = (struct rstep){0};
}

/* The reduction steps' commands that ended. */
int locus__rt_reduce_poll(struct flow *f)
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
		locus__rt_exit_why(st, why, sizeof why);
		reduce_over(f, r, why);
	}
	return did;
}
