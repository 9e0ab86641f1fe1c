/*
 * locus_mpi_run: the chunks of a node-local store run by the workflow
 * runtime (runtime.h) as a graph without edges (chunks.h). The runtime
 * reads a chunk in place where the rank's node holds it and copies it
 * from a node that does otherwise (deleted once its task has ended); this
 * file turns the store into that graph, calls the caller's function on
 * each chunk, keeps rank 0's journal and failures, and turns the
 * runtime's result into the report of a chunk run.
 */
#define _GNU_SOURCE
#include "mpi/chunks.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/journal.h"
#include "locality/store.h"
#include "locus/bounds.h"
#include "locus/place.h"
#include "locus/policy.h"
#include "locus/workload.h"
#include "mpi/journal.h"
#include "mpi/runtime.h"

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int skip_done(void *user, size_t ds, size_t chunk)
{
	const struct chunks *c = user;
	return c->skip[c->first[ds] + chunk];
}

/* ---- the run's shape -------------------------------------------------------------- */

/* The policy's schedulers: the number s of ranks for which the policy,
 * given the P - s others as workers (and the caller's wish), asks s. */
static int schedulers(struct chunks *c, const struct locus_policy *pol)
{
	size_t P = (size_t)c->size;
	for (size_t s = 1; s < P && !c->schedulers; s++)
		if (pol->schedulers(P - s, c->opt->schedulers) == s)
			c->schedulers = s;
	if (c->schedulers)
		return 0;
	if (c->opt->schedulers)
		return locus__err(c->err, LOCUS_EINVAL, NULL, 0, 0,
				  "policy %s cannot run %zu scheduler%s on %zu ranks (it needs at "
				  "least one worker rank, and its own number of schedulers)",
				  pol->name, c->opt->schedulers, c->opt->schedulers == 1 ? "" : "s",
				  P);
	return locus__err(c->err, LOCUS_EINVAL, NULL, 0, 0,
			  "policy %s finds no number of schedulers for %zu ranks", pol->name, P);
}

/* The first chunk left that no worker rank's node holds, as an error. */
static int check_reachable(struct chunks *c)
{
	unsigned char *worked = locus__calloc(c->n_nodes + 1, 1);
	if (!worked)
		return locus__err(c->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	/* A node's worker ranks read its chunks, or (without one) its
	 * scheduler ranks serve them. */
	for (size_t r = 0; r < (size_t)c->size; r++)
		worked[c->rank_node[r]] = 1;
	int rc = 0;
	for (uint32_t t = 0; t < c->g->n_tasks && !rc; t++) {
		const struct locus_task *tk = &c->g->tasks[t];
		const struct locus_dataset *ds = &c->cat->datasets[tk->dataset];
		const struct locus_chunk *ch = &ds->chunks[tk->chunk];
		int held = 0;
		for (size_t k = 0; k < ch->n_replicas && !held; k++)
			for (size_t n = 0; n < c->n_nodes && !held; n++)
				held = worked[n] && c->node_dir[n] &&
				       locus_host_match(c->node_dir[n],
							c->cat->hosts[ch->replicas[k]].name);
		if (!held)
			rc = locus__err(c->err, LOCUS_EINCOMPLETE, c->opt->store, 0, 0,
					"chunk %u of \"%s\" is on no node that runs a rank "
					"(%s)%s",
					tk->chunk, ds->name,
					ch->n_replicas ? "its replicas are on nodes without ranks"
						       : "no node of the store holds it",
					c->opt->emulate_nodes ? "; raise --emulate-nodes or -np"
							      : "");
	}
	free(worked);
	return rc;
}

/* ---- on the ranks ----------------------------------------------------------------- */

/* The path of chunk object o in node `node`'s directory of the store. */
static void chunk_path(void *user, uint32_t node, uint32_t o, char *buf, size_t size)
{
	const struct chunks *c = user;
	const struct locus_object *ob = &c->g->objects[o];
	const struct locus_dataset *ds = &c->cat->datasets[ob->dataset];
	char name[64];
	locus_store_chunk_name(name, sizeof name, ob->chunk, ds->chunks[ob->chunk].offset);
	const char *parts[] = {c->opt->store,
			       "/",
			       node < c->n_nodes && c->node_dir[node] ? c->node_dir[node] : "?",
			       "/",
			       ds->name,
			       "/",
			       name};
	locus__join(buf, size, parts, sizeof parts / sizeof *parts);
}

/* Reads all of `path` (len bytes) into a new buffer. */
static int read_whole(const char *path, uint64_t len, void **data, char *why, size_t size)
{
	*data = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf = fd >= 0 ? malloc(len ? len : 1) : NULL;
	uint64_t got = 0;
	while (buf && got < len) {
		ssize_t k = read(fd, buf + got, len - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (uint64_t)k;
	}
	int er = errno;
	if (fd >= 0)
		close(fd);
	if (!buf || got < len) {
		snprintf(why, size, "cannot read %s: %s", path,
			 fd < 0 || !buf ? strerror(er) : "shorter than the chunk");
		free(buf);
		return -1;
	}
	*data = buf;
	return 0;
}

/* A task of the runtime: the caller's function on its chunk. */
static int call(void *user, const struct locus_mpi_flow_task *task, char *why, size_t size)
{
	struct chunks *c = user;
	const struct locus_task *tk = &c->g->tasks[task->task];
	const struct locus_dataset *ds = &c->cat->datasets[tk->dataset];
	const char *path = task->in[0];
	uint32_t o = c->g->inputs[tk->in_at];
	/* The runtime reads a chunk this node holds in the store, in place
	 * (at the path chunk_path gives it); a copy from another node lies in
	 * the node's storage. */
	int local = c->here && c->here[o];
	uint64_t len = c->g->objects[o].bytes;
	void *data = NULL;
	double t0 = mono();
	if (c->opt->want_bytes && read_whole(path, len, &data, why, size)) {
		c->self.tasks++;
		c->self.failed++;
		return -1;
	}
	free(c->out);
	c->out = NULL;
	c->out_len = 0;
	struct locus_mpi_chunk ch = {.dataset = ds->name,
				     .index = tk->chunk,
				     .offset = ds->chunks[tk->chunk].offset,
				     .length = len,
				     .path = path,
				     .data = data,
				     .local = local,
				     .task = task->task,
				     .attempt = task->attempt,
				     .rank = task->rank,
				     .node = task->node,
				     .output = c->opt->output ? &c->out : NULL,
				     .output_len = c->opt->output ? &c->out_len : NULL};
	int rc = c->fn(c->user, &ch, why, size);
	free(data);
	if (!rc && c->out && c->out_len > (size_t)INT32_MAX) {
		snprintf(why, size, "the chunk's output is larger than 2 GiB (write it to a file)");
		rc = -1;
	}
	if (rc) {
		free(c->out);
		c->out = NULL;
	}
	c->self.tasks++;
	c->self.local_tasks += local;
	c->self.failed += rc != 0;
	c->self.retried += task->attempt > 0;
	c->self.bytes_local += local ? len : 0;
	c->self.busy += mono() - t0;
	return rc;
}

static void take_output(void *user, char **buf, size_t *len)
{
	struct chunks *c = user;
	*buf = c->out;
	*len = c->out_len;
	c->out = NULL;
	c->out_len = 0;
}

/* ---- rank 0 ----------------------------------------------------------------------- */

static void output(void *user, const char *buf, size_t len)
{
	struct chunks *c = user;
	c->opt->output(c->opt->output_user, buf, len);
}

static void add_failure(struct chunks *c, const struct rec *r, const char *why)
{
	const struct locus_task *tk = &c->g->tasks[r->task];
	if (locus__grow(&c->failures, &c->failures_cap, c->n_failures + 1, sizeof *c->failures))
		return; /* counted in the result's tasks all the same */
	struct locus_mpi_failure *x = &c->failures[c->n_failures];
	x->dataset = locus__strdup(c->cat->datasets[tk->dataset].name);
	x->why = locus__strdup(why);
	if (!x->dataset || !x->why) {
		free(x->dataset);
		free(x->why);
		return;
	}
	x->index = tk->chunk;
	x->task = r->task;
	x->attempts = (int)r->attempts;
	x->rank = -1; /* the runtime names the worker: its rank is below */
	c->n_failures++;
}

/* A task settled: the journal records a chunk done; a failure is kept. */
static void settled(void *user, const struct rec *r, const char *why)
{
	struct chunks *c = user;
	const struct locus_task *tk = &c->g->tasks[r->task];
	if (r->failed) {
		add_failure(c, r, why);
	} else if (c->journal_fd >= 0) {
		/* Written and synced at the end of the loop's turn (tick). */
		const struct locus_dataset *ds = &c->cat->datasets[tk->dataset];
		if (locus__journal_format(&c->journal_buf, ds->name, tk->chunk,
					  ds->chunks[tk->chunk].offset,
					  c->g->objects[c->g->inputs[tk->in_at]].bytes))
			c->journal_failed = LOCUS_ENOMEM;
	}
	size_t n = c->g->n_tasks, settled = ++c->n_done;
	if (c->opt->progress && (settled >= c->next_progress || settled == n)) {
		c->opt->progress(c->opt->progress_user, settled - c->n_failures, c->n_failures, n,
				 mono() - c->t0);
		c->next_progress = settled + (n + 99) / 100;
	}
}

/* Rank 0, at the end of each turn of its loop: the journal's new lines,
 * written and synced at once. Non-zero ends the run with err's message. */
static int tick(void *user, struct locus_error *err)
{
	struct chunks *c = user;
	if (c->journal_failed)
		return locus__err(err, c->journal_failed, NULL, 0, 0, "out of memory");
	if (!c->journal_buf.len)
		return 0;
	int rc = locus__journal_append(c->journal_fd, c->opt->journal, c->journal_buf.data,
				       c->journal_buf.len, err);
	c->journal_buf.len = 0;
	return rc;
}

/* ---- the report ------------------------------------------------------------------- */

/* Every rank's figures, at rank 0. Collective. */
static int gather_ranks(struct chunks *c, const struct locus_mpi_rank *mine,
			struct locus_mpi_report *rep)
{
	if (c->rank == 0) {
		rep->ranks = locus__calloc((size_t)c->size, sizeof *rep->ranks);
		rep->n_ranks = rep->ranks ? (size_t)c->size : 0;
	}
	int ok = c->rank != 0 || rep->ranks;
	int rc = locus__chunks_agree(
	    c, ok ? 0 : locus__err(c->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory"));
	if (rc)
		return rc;
	MPI_Gather(mine, (int)sizeof *mine, MPI_BYTE, rep->ranks, (int)sizeof *mine, MPI_BYTE, 0,
		   c->comm);
	return 0;
}

static int start_cmp(const void *a, const void *b, void *tasks)
{
	const struct locus_task_result *by_start = tasks;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	double sx = by_start[x].start, sy = by_start[y].start;
	if (sx != sy)
		return sx < sy ? -1 : 1;
	return (x > y) - (x < y);
}

/* Rank 0: the runtime's result as a chunk run's (bytes read where they
 * were or fetched, waits, bounds, the store's problems), the rates the
 * run achieved, and the platform for a replay. */
static int chunk_result(struct chunks *c, struct locus_mpi_flow_report *fr,
			struct locus_mpi_report *rep)
{
	struct locus_result *r = fr->result;
	size_t n = c->g->n_tasks, nw = r->n_workers;
	rep->result = r;
	rep->platform = fr->platform;
	rep->work = fr->work;
	fr->result = NULL;
	fr->platform = NULL;
	fr->work = NULL;
	r->flow = 0;
	r->dag = 0;
	r->graph = NULL;
	r->n_nodes = c->n_nodes;
	r->opt_local = -1;
	/* Each worker's wait for its next chunk: from the end of its last
	 * (or the start) to the chunk's assignment. */
	uint32_t *order = locus__calloc(n + 1, sizeof *order);
	double *free_at = locus__calloc(nw + 1, sizeof *free_at), *waits = NULL;
	size_t n_waits = 0;
	if (order && free_at)
		waits = locus__calloc(n + 1, sizeof *waits);
	if (!order || !free_at || !waits) {
		free(order);
		free(free_at);
		return locus__err(c->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	for (size_t t = 0; t < n; t++)
		order[t] = (uint32_t)t;
	/* By start, ties by task. */
	qsort_r(order, n, sizeof *order, start_cmp, r->tasks);
	double best = INFINITY;
	for (size_t i = 0; i < n; i++) {
		struct locus_task_result *tr = &r->tasks[order[i]];
		uint64_t bytes = c->g->objects[c->g->inputs[c->g->tasks[order[i]].in_at]].bytes;
		if (tr->local)
			r->bytes_local += bytes;
		else
			r->bytes_remote += bytes;
		if (tr->worker >= nw)
			continue;
		tr->idle_since = free_at[tr->worker];
		double w = tr->assigned > tr->idle_since ? tr->assigned - tr->idle_since : 0;
		waits[n_waits++] = w;
		struct locus_worker_result *wr = &r->workers[tr->worker];
		wr->idle += w;
		r->worker_idle_total += w;
		if (w > wr->max_wait)
			wr->max_wait = w;
		if (w > 0 && w < best)
			best = w;
		if (tr->end > free_at[tr->worker])
			free_at[tr->worker] = tr->end;
	}
	locus_result_set_waits(r, waits, n_waits);
	free(waits);
	free(order);
	free(free_at);
	double fetched = 0, fetch_s = 0, served = 0, read_s = 0;
	for (size_t i = 0; i < rep->n_ranks; i++) {
		const struct locus_mpi_rank *k = &rep->ranks[i];
		fetched += (double)k->bytes_fetched;
		fetch_s += k->fetch_seconds;
		served += (double)k->bytes_served;
		read_s += k->serve_read_seconds;
		r->events += k->events;
		r->messages += k->msgs_sent;
	}
	rep->net_bw = fetch_s > 0 ? fetched / fetch_s : 0;
	rep->disk_bw = read_s > 0 ? served / read_s : 0;
	rep->latency = isfinite(best) ? best / 2 : 0;
	if (locus_result_set_problems(r, c->cat, c->opt->dataset))
		return locus__err(c->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	/* The bounds count each task's measured time only (the function
	 * reads its chunk, or not: no I/O part is claimed). */
	struct locus_workload *wl = NULL;
	int rc = locus_workload_from_graph(&wl, rep->platform, c->g, c->cat, c->err);
	if (!rc) {
		struct locus_bound_env env = {.work = rep->work, .free_io = 1};
		struct locus_makespan_bound mb;
		r->lb_makespan = locus_bound_makespan(wl, &env, &mb);
		r->lb_work = mb.work;
		r->lb_io = mb.io;
		r->lb_serial = mb.serial;
		r->lb_longest = mb.longest;
		long opt = -1;
		if (locus_bound_locality(wl, NULL, &opt, NULL, c->err) == 0)
			r->opt_local = opt;
		locus_error_clear(c->err);
	}
	locus_workload_destroy(wl);
	/* The platform for a replay: the rates measured here. */
	struct locus_platform *p = rep->platform;
	for (size_t k = 0; k < p->n_nodes; k++) {
		p->nodes[k].net_bw = rep->net_bw > 0
					 ? fmin(fmax(rep->net_bw, LOCUS_BW_MIN), LOCUS_BW_MAX)
					 : LOCUS_DEFAULT_NET_BW;
		p->nodes[k].disk_bw = rep->disk_bw > 0
					  ? fmin(fmax(rep->disk_bw, LOCUS_BW_MIN), LOCUS_BW_MAX)
					  : LOCUS_DEFAULT_DISK_BW;
	}
	if (rep->latency > 0)
		p->latency = fmin(rep->latency, LOCUS_LATENCY_MAX);
	r->wall_seconds = r->makespan;
	return rc;
}

/* ---- the run ---------------------------------------------------------------------- */

/* The options every rank checks alike; the policy's definition. */
static int check_options(struct chunks *c, const struct locus_policy **pol)
{
	const struct locus_mpi_options *o = c->opt;
	if (!o || !o->store)
		return locus__err(c->err, LOCUS_EINVAL, NULL, 0, 0, "no store given");
	if (locus__check_version(o->version, LOCUS_MPI_OPTIONS_VERSION, "locus_mpi_options",
				 c->err))
		return LOCUS_EINVAL;
	if (!(*pol = locus_policy_find(o->policy ? o->policy : "scal")))
		return locus__err(c->err, LOCUS_EINVAL, NULL, 0, 0, "no policy \"%s\"", o->policy);
	if (o->retries < 0 || o->emulate_net_bw < 0 || o->max_idle_sleep < 0)
		return locus__err(c->err, LOCUS_EINVAL, NULL, 0, 0,
				  "retries, emulate_net_bw and max_idle_sleep must be >= 0");
	if (c->size < 2)
		return locus__err(c->err, LOCUS_EINVAL, NULL, 0, 0,
				  "a run needs at least 2 ranks: a scheduler and a worker");
	return locus_policy_check(*pol, LOCUS_POLICY_VERSION, LOCUS_MPI_OFFERS,
				  "the MPI runtime for chunks", c->err);
}

/* Where the nodes keep the chunks they fetch: the option, else $TMPDIR,
 * else memory (/dev/shm). */
static const char *scratch(const struct locus_mpi_options *o)
{
	const char *base = o->scratch;
	if (!base || !*base)
		base = getenv("TMPDIR");
	return base && *base ? base : NULL;
}

static void chunks_fini(struct chunks *c)
{
	locus_catalog_destroy(c->cat);
	for (size_t k = 0; k < c->n_nodes; k++) {
		free(c->names ? c->names[k] : NULL);
		free(c->node_dir ? c->node_dir[k] : NULL);
	}
	free(c->names);
	free(c->node_dir);
	free(c->rank_node);
	free(c->skip);
	free(c->first);
	free(c->out);
	locus_graph_destroy(c->g);
	if (c->journal_fd >= 0) {
		struct locus_error e = {0};
		if (c->journal_buf.len) /* a run that failed: what it did stays done */
			locus__journal_append(c->journal_fd, c->opt->journal, c->journal_buf.data,
					      c->journal_buf.len, &e);
		close(c->journal_fd);
	}
	locus__buf_fini(&c->journal_buf);
}

void locus_mpi_options_init(struct locus_mpi_options *o)
{
	*o = (struct locus_mpi_options){.version = LOCUS_MPI_OPTIONS_VERSION, .retries = 1};
}

int locus_mpi_run(MPI_Comm comm, const struct locus_mpi_options *opt, locus_mpi_chunk_fn fn,
		  void *user, struct locus_mpi_report *report, struct locus_error *err)
{
	struct locus_error dummy = {0};
	if (!err)
		err = &dummy;
	memset(report, 0, sizeof *report);
	struct chunks c = {.opt = opt, .fn = fn, .user = user, .err = err, .journal_fd = -1};
	MPI_Comm_dup(comm, &c.comm);
	MPI_Comm_rank(c.comm, &c.rank);
	MPI_Comm_size(c.comm, &c.size);
	const struct locus_policy *pol = NULL;
	int rc = locus__chunks_agree(&c, check_options(&c, &pol));
	if (!rc)
		rc = locus__chunks_setup(&c);
	if (!rc) {
		struct locus_work_spec none = {.dist = LOCUS_WORK_FIXED, .mean = 0};
		rc = locus__chunk_graph(&c.g, c.cat, opt->dataset, &none, opt->seed, skip_done, &c,
					err);
		if (!rc)
			rc = schedulers(&c, pol);
		if (!rc)
			rc = check_reachable(&c);
		long only = opt->dataset ? locus_catalog_find_dataset(c.cat, opt->dataset) : -1;
		for (size_t d = 0; !rc && d < c.cat->n_datasets; d++)
			if (only < 0 || (size_t)only == d)
				c.total += c.cat->datasets[d].n_chunks;
		c.skipped = c.g ? c.total - c.g->n_tasks : 0;
		rc = locus__chunks_agree(&c, rc);
	}
	struct locus_mpi_flow_report fr = {0};
	if (!rc) {
		struct locus_mpi_flow_options fo = {.graph = c.g,
						    .local = scratch(opt),
						    .policy = pol->name,
						    .policy_opts = opt->policy_opts,
						    .seed = opt->seed,
						    .retries = opt->retries,
						    .fn = call,
						    .user = &c,
						    .max_idle_sleep = opt->max_idle_sleep,
						    .cancel = opt->cancel,
						    .inline_tasks = opt->inline_tasks};
		struct locus__rt_chunks ck = {.node_names = c.names,
					      .n_nodes = c.n_nodes,
					      .rank_node = c.rank_node,
					      .schedulers = c.schedulers,
					      .sched_wish = opt->schedulers,
					      .cat = c.cat,
					      .path = chunk_path,
					      .pace_bw = opt->emulate_net_bw,
					      .settled = settled,
					      .tick = tick,
					      .take_output = opt->output ? take_output : NULL,
					      .output = opt->output ? output : NULL,
					      .user = &c,
					      .self = &report->self,
					      .here = &c.here};
		c.t0 = mono();
		rc = locus__rt_run(c.comm, &fo, &ck, &fr, err);
		/* The runtime's figures of this rank, and the function's. */
		struct locus_mpi_rank *me = &report->self;
		me->rank = c.rank;
		me->role = (size_t)c.rank < c.schedulers;
		me->node = c.rank_node[c.rank];
		me->proc = me->role ? (uint32_t)(c.size - (int)c.schedulers + c.rank)
				    : (uint32_t)(c.rank - (int)c.schedulers);
		me->tasks = c.self.tasks;
		me->local_tasks = c.self.local_tasks;
		me->failed = c.self.failed;
		me->retried = c.self.retried;
		me->bytes_local = c.self.bytes_local;
		me->busy = c.self.busy;
		int r2 = gather_ranks(&c, me, report);
		rc = rc ? rc : r2;
		if (!rc && c.rank == 0)
			rc = chunk_result(&c, &fr, report);
		rc = locus__chunks_agree(&c, rc);
	}
	locus_mpi_flow_report_fini(&fr);
	if (c.rank == 0) {
		report->failures = c.failures;
		report->n_failures = c.n_failures;
		c.failures = NULL;
		c.n_failures = 0;
	}
	report->skipped = c.skipped;
	report->total = c.total;
	for (size_t i = 0; i < c.n_failures; i++) {
		free(c.failures[i].dataset);
		free(c.failures[i].why);
	}
	free(c.failures);
	chunks_fini(&c);
	MPI_Comm_free(&c.comm);
	return rc;
}

void locus_mpi_report_fini(struct locus_mpi_report *report)
{
	if (!report)
		return;
	locus_result_destroy(report->result);
	free(report->ranks);
	for (size_t i = 0; i < report->n_failures; i++) {
		free(report->failures[i].dataset);
		free(report->failures[i].why);
	}
	free(report->failures);
	locus_platform_destroy(report->platform);
	free(report->work);
	memset(report, 0, sizeof *report);
}
