/* locus flow's operations beside a run (flow_cmd.h): the status a run
 * keeps, printed; a dry run; and clean, as makeflow -c. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "flow_cmd.h"

int flow_shared_dir(const struct flow_args *a, char *buf, size_t size)
{
	if (a->shared) {
		snprintf(buf, size, "%s", a->shared);
		return 0;
	}
	const char *w = a->workflow;
	static const char *const prefixes[] = {"makeflow:", "wfcommons:", "stg:", "text:"};
	for (size_t k = 0; k < CLI_ARRAY_LEN(prefixes); k++)
		if (!strncmp(w, prefixes[k], strlen(prefixes[k])))
			w += strlen(prefixes[k]);
	if (!strncmp(a->workflow, "gen:", 4) || !strchr(w, '/')) {
		snprintf(buf, size, ".");
		return 0;
	}
	snprintf(buf, size, "%s", w);
	char *slash = strrchr(buf, '/');
	if (slash == buf)
		slash[1] = 0;
	else
		*slash = 0;
	return 0;
}

/* The status file of a run: --status, else beside its journal, else in
 * its shared directory. */
void flow_status_path(const struct flow_args *a, const char *shared, char *buf, size_t size)
{
	if (a->status)
		snprintf(buf, size, "%s", a->status);
	else if (a->journal)
		snprintf(buf, size, "%s.status", a->journal);
	else
		snprintf(buf, size, "%s/.locus-flow-status", shared);
}

/* Prints one line of counts. */
static void print_count(const char *name, const struct locus_flow_status_count *c)
{
	printf("%-20s %7" PRIu64 " %8" PRIu64 " %8" PRIu64 " %7" PRIu64 " %7" PRIu64 " %13" PRIu64
	       " %13" PRIu64 "\n",
	       name, c->total, c->waiting, c->running, c->done, c->failed_attempts, c->bytes_read,
	       c->bytes_written);
}

/* locus flow status DIR|JOURNAL|FILE: what the run's status file says,
 * and whether the run was killed (its rank 0 gone while it said
 * "running"). 0 for a run going or complete, 1 for one that failed or
 * was killed, or no status file. */
/* Prints file `path` whole, each line indented, or "(empty)". */
static void print_indented(const char *path)
{
	FILE *fp = fopen(path, "r");
	char line[4096];
	int any = 0, bol = 1;
	while (fp && fgets(line, sizeof line, fp)) {
		printf("%s%s", bol ? "      " : "", line);
		bol = line[strlen(line) - 1] == '\n';
		any = 1;
	}
	if (any && !bol)
		printf("\n");
	if (!any)
		printf("      (%s)\n", fp ? "empty" : strerror(errno));
	if (fp)
		fclose(fp);
}

/* Every attempt kept in dir (STATUS.tasks), in the order of their tasks
 * and attempts: the lines of the ranks' attempts.RANK.jsonl (task logs
 * version 2; a line that does not parse, being written or cut, is
 * skipped) and the tINDEX.ATTEMPT.json files of runs before them
 * (version 1). *n of them; free with attempts_free. */
struct attempt {
	json_int_t index, attempt;
	size_t seen; /* the order read: ties keep it */
	json_t *doc;
};

static int by_attempt(const void *a, const void *b)
{
	const struct attempt *x = a, *y = b;
	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	if (x->attempt != y->attempt)
		return x->attempt < y->attempt ? -1 : 1;
	return x->seen < y->seen ? -1 : x->seen > y->seen;
}

static void attempt_add(struct attempt **a, size_t *n, size_t *cap, json_t *doc)
{
	if (!json_is_object(doc)) {
		json_decref(doc);
		return;
	}
	if (*n == *cap) {
		/* Doubling: a run's attempts may be hundreds of thousands. */
		size_t c = *cap ? 2 * *cap : 64;
		struct attempt *g = realloc(*a, c * sizeof *g);
		if (!g) {
			json_decref(doc);
			return;
		}
		*a = g;
		*cap = c;
	}
	struct attempt *g = *a;
	g[*n] = (struct attempt){json_integer_value(json_object_get(doc, "index")),
				 json_integer_value(json_object_get(doc, "attempt")), *n, doc};
	++*n;
}

static struct attempt *attempts_read(const char *dir, size_t *n)
{
	struct attempt *a = NULL;
	size_t room = 0;
	*n = 0;
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		char p[4600];
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		if (len > 6 && !strcmp(e->d_name + len - 6, ".jsonl")) {
			FILE *fp = fopen(p, "r");
			char *line = NULL;
			size_t cap = 0;
			while (fp && getline(&line, &cap, fp) > 0)
				attempt_add(&a, n, &room, json_loads(line, 0, NULL));
			free(line);
			if (fp)
				fclose(fp);
		} else if (len > 5 && !strcmp(e->d_name + len - 5, ".json")) {
			attempt_add(&a, n, &room, json_load_file(p, 0, NULL));
		}
	}
	if (d)
		closedir(d);
	if (*n)
		qsort(a, *n, sizeof *a, by_attempt);
	return a;
}

static void attempts_free(struct attempt *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_decref(a[i].doc);
	free(a);
}

/* The attempts of task `name` kept in dir (STATUS.tasks): what each
 * measured, and its stdout and stderr. The number printed. */
static size_t print_task(const char *dir, const char *name, int json)
{
	size_t all = 0, n = 0;
	struct attempt *a = attempts_read(dir, &all);
	for (size_t i = 0; i < all; i++) {
		const char *task = json_string_value(json_object_get(a[i].doc, "task"));
		if (task && !strcmp(task, name))
			a[n++] = a[i];
		else
			json_decref(a[i].doc);
	}
	if (json)
		printf("[");
	for (size_t i = 0; i < n; i++) {
		json_t *doc = a[i].doc;
		if (json) {
			char *text = json_dumps(doc, JSON_PRESERVE_ORDER);
			printf("%s%s", i ? ",\n " : "", text ? text : "null");
			free(text);
			continue;
		}
		json_t *ex = json_object_get(doc, "exit"), *sig = json_object_get(doc, "signal");
		printf("task %s, attempt %" JSON_INTEGER_FORMAT " on %s: ", name,
		       json_integer_value(json_object_get(doc, "attempt")),
		       json_string_value(json_object_get(doc, "node")));
		if (json_is_true(json_object_get(doc, "timed_out")))
			printf("timed out, ");
		if (ex)
			printf("exited with %" JSON_INTEGER_FORMAT, json_integer_value(ex));
		else if (sig)
			printf("killed by signal %" JSON_INTEGER_FORMAT, json_integer_value(sig));
		printf("\n  wall %.3f s, CPU %.3f s (user %.3f, system %.3f), peak memory "
		       "%" JSON_INTEGER_FORMAT " KiB (its rank's: %" JSON_INTEGER_FORMAT " KiB)\n",
		       json_number_value(json_object_get(doc, "wall")),
		       json_number_value(json_object_get(doc, "cpu")),
		       json_number_value(json_object_get(doc, "user")),
		       json_number_value(json_object_get(doc, "system")),
		       json_integer_value(json_object_get(doc, "max_rss_kb")),
		       json_integer_value(json_object_get(doc, "rank_rss_kb")));
		static const char *const which[] = {"stdout", "stderr"};
		for (size_t k = 0; k < 2; k++) {
			const char *leaf = json_string_value(json_object_get(doc, which[k]));
			char p[4600];
			if (!leaf) { /* nothing was written to it */
				printf("  %s: (empty)\n", which[k]);
				continue;
			}
			snprintf(p, sizeof p, "%s/%s", dir, leaf);
			printf("  %s (%s):\n", which[k], p);
			print_indented(p);
		}
	}
	if (json)
		printf("]\n");
	attempts_free(a, n);
	return n;
}

/* The last `max` bytes of file `path`, NUL-ended (malloc'd), or NULL. */
static char *file_tail(const char *path, size_t max)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		return NULL;
	char *buf = malloc(max + 1);
	long size = fseek(fp, 0, SEEK_END) == 0 ? ftell(fp) : -1;
	if (!buf || size < 0 || fseek(fp, size > (long)max ? size - (long)max : 0, SEEK_SET)) {
		free(buf);
		fclose(fp);
		return NULL;
	}
	size_t n = fread(buf, 1, max, fp);
	buf[n] = 0;
	fclose(fp);
	return buf;
}

void flow_failures_read(const char *status, struct flow_failures *ff)
{
	char dir[8300];
	snprintf(dir, sizeof dir, "%s.tasks", status);
	memset(ff, 0, sizeof *ff);
	size_t n = 0;
	struct attempt *a = attempts_read(dir, &n);
	for (size_t i = 0; i < n; i++) {
		json_t *doc = a[i].doc;
		json_t *ex = json_object_get(doc, "exit"), *sig = json_object_get(doc, "signal");
		int failed = (ex && json_integer_value(ex) != 0) || sig;
		struct locus_report_failure *f =
		    failed ? realloc(ff->f, (ff->n + 1) * sizeof *f) : NULL;
		if (!f)
			continue;
		ff->f = f;
		f = &ff->f[ff->n++];
		memset(f, 0, sizeof *f);
		char why[96], p[8600];
		if (json_is_true(json_object_get(doc, "timed_out")))
			snprintf(why, sizeof why, "timed out");
		else if (sig)
			snprintf(why, sizeof why, "killed by signal %" JSON_INTEGER_FORMAT,
				 json_integer_value(sig));
		else
			snprintf(why, sizeof why, "exited with %" JSON_INTEGER_FORMAT,
				 json_integer_value(ex));
		const char *task = json_string_value(json_object_get(doc, "task"));
		const char *node = json_string_value(json_object_get(doc, "node"));
		const char *leaf = json_string_value(json_object_get(doc, "stderr"));
		f->task = task ? strdup(task) : NULL;
		f->node = node ? strdup(node) : NULL;
		f->why = strdup(why);
		f->attempt = (int)json_integer_value(json_object_get(doc, "attempt"));
		snprintf(p, sizeof p, "%s/%s", dir, leaf ? leaf : "");
		f->stderr_text = leaf ? file_tail(p, 4096) : NULL;
	}
	attempts_free(a, n);
}

void flow_failures_fini(struct flow_failures *ff)
{
	for (size_t i = 0; i < ff->n; i++) {
		free((char *)ff->f[i].task);
		free((char *)ff->f[i].node);
		free((char *)ff->f[i].why);
		free((char *)ff->f[i].stderr_text);
	}
	free(ff->f);
	memset(ff, 0, sizeof *ff);
}

int flow_status(struct flow_args *a)
{
	const char *x = a->workflow;
	char path[4200];
	struct stat sb;
	if (!stat(x, &sb) && S_ISDIR(sb.st_mode)) {
		snprintf(path, sizeof path, "%s/.locus-flow-status", x);
	} else {
		snprintf(path, sizeof path, "%s.status", x);
		if (stat(path, &sb))
			snprintf(path, sizeof path, "%s", x);
	}
	if (stat(path, &sb)) {
		fprintf(stderr,
			"locus flow status: no status file at %s (%s): a run writes "
			"DIR/.locus-flow-status in its shared directory, or JOURNAL.status beside "
			"its --journal, once it has started\n",
			path, strerror(errno));
		return CLI_EXIT_FAIL;
	}
	struct locus_flow_status s;
	struct locus_error err = {0};
	int rc = locus_flow_status_read(&s, path, &err);
	if (rc)
		return cli_error("flow status", &err, rc);
	char host[256] = "";
	gethostname(host, sizeof host - 1);
	int running = !strcmp(s.state, "running");
	int killed = running && !strcmp(host, s.host) && !cli_pid_alive(s.pid);
	int status = killed || !strcmp(s.state, "failed") ? CLI_EXIT_FAIL : 0;
	char logs[4300];
	snprintf(logs, sizeof logs, "%s.tasks", path);
	if (a->task) {
		locus_flow_status_fini(&s);
		if (!print_task(logs, a->task, a->res.json)) {
			fprintf(
			    stderr,
			    "locus flow status: no attempt of task \"%s\" is kept in %s (a task is "
			    "named by its first output; only commands' attempts are kept)\n",
			    a->task, logs);
			return CLI_EXIT_FAIL;
		}
		return 0;
	}
	if (a->res.json) {
		FILE *fp = fopen(path, "r");
		char chunk[65536];
		size_t k;
		while (fp && (k = fread(chunk, 1, sizeof chunk, fp)) > 0)
			fwrite(chunk, 1, k, stdout);
		if (fp)
			fclose(fp);
		locus_flow_status_fini(&s);
		return status;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	double now = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
	printf("run of %s: ", s.workflow);
	if (killed)
		printf("killed: its rank 0 (pid %ld on %s) is gone; the counts below are the last "
		       "it wrote\n",
		       s.pid, s.host);
	else if (s.failure)
		printf("%s: %s\n", s.state, s.failure);
	else
		printf("%s%s\n", s.state,
		       running && strcmp(host, s.host)
			   ? " (as its rank 0 on another host last wrote)"
			   : "");
	printf("  status file %s, written %.1f s ago by rank 0 (pid %ld on %s)\n", path,
	       now - s.updated, s.pid, s.host);
	printf("  %s %.1f s ago; %s %.1f s\n", "started", now - s.started,
	       running && !killed ? "running for" : "ran", s.updated - s.started);
	printf("  tasks %" PRIu64 ": %" PRIu64 " waiting, %" PRIu64 " running, %" PRIu64
	       " done; %" PRIu64 " failed attempt%s\n",
	       s.tasks.total, s.tasks.waiting, s.tasks.running, s.tasks.done,
	       s.tasks.failed_attempts, s.tasks.failed_attempts == 1 ? "" : "s");
	printf("  the done tasks read %" PRIu64 " bytes and wrote %" PRIu64 "\n",
	       s.tasks.bytes_read, s.tasks.bytes_written);
	struct stat lb;
	if (!stat(logs, &lb) && S_ISDIR(lb.st_mode))
		printf("  each attempt's stdout, stderr and resources: %s (--task NAME shows "
		       "them)\n",
		       logs);
	printf("\n");
	printf("%-20s %7s %8s %8s %7s %7s %13s %13s\n", "stage", "tasks", "waiting", "running",
	       "done", "failed", "bytes read", "bytes written");
	for (size_t k = 0; k < s.n_stages; k++)
		print_count(s.stage_names[k], &s.stages[k]);
	print_count("(all)", &s.tasks);
	locus_flow_status_fini(&s);
	return status;
}

/* ---- run --dry-run, and clean -------------------------------------------------- */

/* Prints a task's command as it would run: the shell line, or the words. */
static void print_command(const struct locus_command *c)
{
	if (c && c->line) {
		printf("%s", c->line);
	} else if (c && c->argv) {
		for (uint32_t i = 0; i < c->argc; i++)
			printf("%s%s", i ? " " : "", c->argv[i]);
	} else {
		printf("(none: the task runs nothing)");
	}
	if (c && (c->flags & LOCUS_COMMAND_LOCAL))
		printf("   [LOCAL: where the workflow was started]");
	printf("\n");
}

/* A workflow file's path in the shared directory. */
static void shared_path(const char *shared, const char *name, char *buf, size_t size)
{
	if (name[0] == '/')
		snprintf(buf, size, "%s", name);
	else
		snprintf(buf, size, "%s/%s", shared, name);
}

/* Prints the list of the names of objects ids[0..n) on one line. */
static void print_names(const char *label, const struct locus_graph *g, const uint32_t *ids,
			uint32_t n, const char *const *as)
{
	if (!n)
		return;
	printf("       %-6s ", label);
	for (uint32_t k = 0; k < n; k++) {
		const char *name = g->objects[ids[k]].name;
		printf("%s%s", k ? ", " : "", name ? name : "(unnamed)");
		if (as && as[k])
			printf(" (as %s)", as[k]);
	}
	printf("\n");
}

/* The plan a static policy makes for the run (--dry-run): the policy run
 * in the simulator on the platform the MPI engine would build (K nodes
 * with the worker ranks spread round-robin, D dispatcher nodes without
 * cores, the default bandwidths; one machine without --emulate-nodes),
 * with the run's seed. *plan is NULL (and 0 returned) when the policy
 * makes no plan (it decides as the run goes) or the nodes are another
 * machine's (--hostfile). */
static int static_plan(struct locus_result **plan, struct locus_platform **platform,
		       const struct flow_args *a, const struct locus_graph *g, uint64_t np,
		       uint64_t D, const char *pname, struct locus_error *err)
{
	*plan = NULL;
	*platform = NULL;
	const struct locus_policy *pol = locus_policy_find(pname);
	if (!pol || a->mpi.hostfile || !strcmp(pname, "amfs") || !strcmp(pname, "taskvine") ||
	    !strcmp(pname, "dask"))
		return 0;
	size_t W = (size_t)(np - D), K = a->emulate ? (size_t)a->emulate : 1;
	if (K > W)
		K = W;
	size_t n = K + (size_t)D;
	char **names = cli_calloc(n, sizeof *names);
	int *cores = cli_calloc(n, sizeof *cores);
	int rc = names && cores ? 0 : cli_set_error(err, LOCUS_ENOMEM, NULL, "out of memory");
	char host[256] = "";
	gethostname(host, sizeof host - 1);
	for (size_t r = 0; !rc && r < W; r++)
		cores[r % K]++;
	for (size_t i = 0; !rc && i < n; i++) {
		char buf[300];
		if (i >= K)
			snprintf(buf, sizeof buf, "dispatcher%zu", i - K);
		else if (a->emulate)
			snprintf(buf, sizeof buf, "node%03zu", i);
		else
			snprintf(buf, sizeof buf, "%s", host);
		if (!(names[i] = strdup(buf)))
			rc = cli_set_error(err, LOCUS_ENOMEM, NULL, "out of memory");
	}
	if (!rc)
		rc = locus_platform_create(platform, (const char *const *)names, cores, n, err);
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	free(cores);
	struct locus_workload *wl = NULL;
	if (!rc)
		rc = locus_workload_from_graph(&wl, *platform, g, NULL, err);
	if (!rc) {
		struct locus_sim_config cfg = {.wl = wl,
					       .policy = pol,
					       .policy_opts = a->pol.opts,
					       .schedulers = (size_t)D,
					       .seed = a->seed,
					       .latency = -1,
					       .cost_per_msg = 5e-6,
					       .cost_per_entry = 1e-7,
					       .shared_fs_bw = 1.25e9,
					       .fs_ops = 2000};
		rc = locus_sim_run(plan, &cfg, err);
	}
	locus_workload_destroy(wl);
	if (!rc && *plan && !((*plan)->pstats.planned_makespan > 0 && (*plan)->tasks)) {
		locus_result_destroy(*plan);
		*plan = NULL;
	}
	return rc;
}

static int by_start(const void *x, const void *y, void *plan)
{
	const struct locus_result *p = plan;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	double sa = p->tasks[a].start, sb = p->tasks[b].start;
	return sa < sb ? -1 : sa > sb ? 1 : (a > b) - (a < b);
}

/* The journal at `path`, read and checked against g (never made nor
 * locked): *found 0 when there is none, else 1 (*j empty when the file
 * is). 0, or the error reading or parsing it. */
static int read_journal(const char *path, const struct locus_graph *g, struct locus_flow_journal *j,
			int *found, struct locus_error *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc = locus_read_file(&text, &len, path, err);
	*found = rc != LOCUS_ENOENT;
	if (rc == LOCUS_ENOENT) {
		locus_error_clear(err);
		return 0;
	}
	if (!rc && len)
		rc = locus_flow_journal_parse(j, g, text, len, path, err);
	free(text);
	return rc;
}

/* The journal a dry run is given: *state 0 when none is asked, 1 when it
 * is missing or empty, 2 when read into *j. */
static int dry_journal(const struct flow_args *a, const struct locus_graph *g,
		       struct locus_flow_journal *j, int *state, struct locus_error *err)
{
	int found = 0;
	*state = 0;
	if (!a->journal)
		return 0;
	int rc = read_journal(a->journal, g, j, &found, err);
	*state = !rc && found && j->done ? 2 : 1;
	return rc;
}

/* The dry run's list of tasks, in `order`, each on its planned node
 * (plan, may be NULL) and marked done by the journal (done, may be NULL). */
static void dry_tasks(const struct flow_args *a, const struct locus_graph *g, const uint32_t *order,
		      const struct locus_result *plan, const struct locus_platform *plat,
		      const unsigned char *done)
{
	printf("\ntasks, %s:\n",
	       plan ? "in the plan's order" : "in an order the run may start them");
	for (size_t i = 0; i < g->n_tasks; i++) {
		uint32_t t = order[i];
		const struct locus_task *tk = &g->tasks[t];
		printf("%5zu  %s", i + 1, tk->name ? tk->name : "(unnamed)");
		if (plan)
			printf("   on %s (simulated start %.3f s)",
			       plat->nodes[plan->tasks[t].node].name, plan->tasks[t].start);
		if (g->task_stage && g->task_stage[t] != LOCUS_NONE)
			printf("   stage %s", g->stage_names[g->task_stage[t]]);
		printf("   level %" PRIu32, g->level[t]);
		if (g->commands && g->commands[t].wall_time > 0)
			printf("   limit %g s (WALL_TIME)", g->commands[t].wall_time);
		if (done && done[t])
			printf("   done (journal)");
		printf("\n       run    ");
		if (a->stand_in > 0)
			printf("(stand-in: %g s)\n", tk->work * a->stand_in);
		else
			print_command(g->commands ? &g->commands[t] : NULL);
		print_names("reads", g, g->inputs + tk->in_at, tk->n_in,
			    g->input_as ? g->input_as + tk->in_at : NULL);
		print_names("writes", g, g->outputs + tk->out_at, tk->n_out,
			    g->output_as ? g->output_as + tk->out_at : NULL);
	}
}

/* locus flow run --dry-run: what the run would do, from the launching
 * process, making nothing (no rank starts, no file, directory, lock or
 * journal is made). 0, or 1 when the run would fail before any task
 * (a workflow that cannot be read, a journal that is not this
 * workflow's, inputs missing in the shared directory). */
int flow_dry_run(struct flow_args *a)
{
	const char *cmd = "flow run";
	struct locus_error err = {0};
	struct locus_graph *g = NULL;
	int rc;
	if ((rc = flow_load(&g, a, &err)) ||
	    (!a->stand_in && (rc = locus_flow_check_commands(g, a->workflow, &err)))) {
		locus_graph_destroy(g);
		return cli_error(cmd, &err, rc);
	}
	char shared[4096], path[8192];
	flow_shared_dir(a, shared, sizeof shared);
	/* What a journal says is done (read, never made nor locked). */
	struct locus_flow_journal j = {0};
	int journal_state = 0; /* 0 none asked, 1 missing or empty, 2 read */
	if ((rc = dry_journal(a, g, &j, &journal_state, &err))) {
		locus_graph_destroy(g);
		return cli_error(cmd, &err, rc);
	}
	const unsigned char *done = journal_state == 2 ? j.done : NULL;
	size_t n_done = 0;
	for (size_t t = 0; done && t < g->n_tasks; t++)
		n_done += done[t] != 0;
	size_t n_in = 0, n_out = 0, missing = 0;
	for (size_t o = 0; o < g->n_objects; o++) {
		n_in += g->objects[o].producer == LOCUS_NONE;
		n_out += g->objects[o].producer != LOCUS_NONE && !g->objects[o].n_cons;
	}
	uint64_t D = a->dispatchers ? a->dispatchers : 1, np = a->np;
	if (!np) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		np = a->emulate ? a->emulate + D : (uint64_t)(cores > 1 ? cores : 2);
	}
	const char *pname = a->pol.name ? a->pol.name : "amfs";
	struct locus_result *plan = NULL;
	struct locus_platform *plat = NULL;
	if (np > D && (rc = static_plan(&plan, &plat, a, g, np, D, pname, &err))) {
		locus_flow_journal_fini(&j);
		locus_graph_destroy(g);
		return cli_error(cmd, &err, rc);
	}
	uint32_t *order = cli_calloc(g->n_tasks, sizeof *order);
	if (!order) {
		locus_result_destroy(plan);
		locus_platform_destroy(plat);
		locus_flow_journal_fini(&j);
		locus_graph_destroy(g);
		return CLI_EXIT_FAIL;
	}
	for (size_t i = 0; i < g->n_tasks; i++)
		order[i] = g->topo[i];
	if (plan)
		qsort_r(order, g->n_tasks, sizeof *order, by_start, plan);
	printf("locus flow run --dry-run: nothing is run or made\n\n");
	printf("workflow   %s: %zu task%s, %zu stage%s, %zu file%s (%zu input%s, %zu final "
	       "output%s)\n",
	       a->workflow, g->n_tasks, g->n_tasks == 1 ? "" : "s", g->n_stages,
	       g->n_stages == 1 ? "" : "s", g->n_objects, g->n_objects == 1 ? "" : "s", n_in,
	       n_in == 1 ? "" : "s", n_out, n_out == 1 ? "" : "s");
	printf("shared     %s (inputs read there, final outputs written there)\n", shared);
	printf("ranks      %" PRIu64 ": %" PRIu64 " dispatcher%s, %" PRIu64 " worker%s", np, D,
	       D == 1 ? "" : "s", np > D ? np - D : 0, np - D == 1 ? "" : "s");
	if (a->emulate)
		printf(" on %" PRIu64 " emulated node%s", a->emulate, a->emulate == 1 ? "" : "s");
	else if (a->mpi.hostfile)
		printf(" on the hosts of %s", a->mpi.hostfile);
	printf("; node storage under %s\n", a->local ? a->local : "/dev/shm");
	printf("policy     %s", pname);
	if (!strcmp(pname, "amfs"))
		printf(" (config %s)", a->config ? a->config : "auto");
	if (plan)
		printf(": its plan, made before any task runs (here on the nodes the\n"
		       "           run builds, with its seed: planned makespan %.3f s); the tasks\n"
		       "           are listed in the plan's order, each with its node\n",
		       plan->pstats.planned_makespan);
	else
		printf(": it places each task on a worker as the run goes,\n"
		       "           so the tasks are listed in an order their dependencies allow,\n"
		       "           each to run on whichever worker the policy picks then\n");
	printf("attempts   %" PRIu64 " per task", a->retries + 1);
	if (a->timeout > 0)
		printf(", each ended after %g s", a->timeout);
	printf("\n");
	if (a->stand_in > 0)
		printf("commands   stand-ins: each reads its inputs and sleeps %g x its runtime\n",
		       a->stand_in);
	char status_file[4200];
	flow_status_path(a, shared, status_file, sizeof status_file);
	printf("status     %s (the run would keep it up to date)\n", status_file);
	if (journal_state == 1)
		printf("journal    %s: none yet, the run would make it\n", a->journal);
	else if (journal_state == 2)
		printf("journal    %s: %zu of %zu tasks done, skipped unless their files are "
		       "lost\n",
		       a->journal, n_done, g->n_tasks);
	printf("\ninputs of the workflow, in %s:\n", shared);
	for (size_t o = 0; o < g->n_objects; o++) {
		const struct locus_object *ob = &g->objects[o];
		if (ob->producer != LOCUS_NONE)
			continue;
		struct stat st;
		const char *name = ob->name ? ob->name : "(unnamed)";
		shared_path(shared, name, path, sizeof path);
		if (!stat(path, &st)) {
			printf("  %s (%jd bytes)\n", name, (intmax_t)st.st_size);
		} else if (a->stand_in > 0) {
			printf("  %s (missing: the stand-ins make it, %" PRIu64 " bytes)\n", name,
			       ob->bytes);
		} else {
			printf("  %s (MISSING: %s)\n", name, strerror(errno));
			missing++;
		}
	}
	dry_tasks(a, g, order, plan, plat, done);
	printf("\nfinal outputs, written to %s:", shared);
	for (size_t o = 0; o < g->n_objects; o++)
		if (g->objects[o].producer != LOCUS_NONE && !g->objects[o].n_cons)
			printf(" %s", g->objects[o].name ? g->objects[o].name : "(unnamed)");
	printf("\n");
	fflush(stdout);
	free(order);
	locus_result_destroy(plan);
	locus_platform_destroy(plat);
	locus_flow_journal_fini(&j);
	locus_graph_destroy(g);
	if (missing) {
		fprintf(stderr,
			"locus flow run: %zu input%s of the workflow %s missing in %s: the run "
			"would fail\n",
			missing, missing == 1 ? "" : "s", missing == 1 ? "is" : "are", shared);
		return CLI_EXIT_FAIL;
	}
	return 0;
}

/* Removes the task logs kept beside status file `status` (STATUS.tasks:
 * tINDEX.ATTEMPT.out, .err and .json, and attempts.RANK.jsonl, nothing
 * else), and the directory when that leaves it empty. */
static void remove_task_logs(const char *status)
{
	char dir[8300], p[8600];
	snprintf(dir, sizeof dir, "%s.tasks", status);
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		unsigned t, at, r;
		char ext[8];
		int n = 0, m = 0;
		int attempts =
		    sscanf(e->d_name, "attempts.%u.jsonl%n", &r, &m) == 1 && !e->d_name[m];
		if (attempts ||
		    (sscanf(e->d_name, "t%u.%u.%7[a-z]%n", &t, &at, ext, &n) == 3 &&
		     !e->d_name[n] &&
		     (!strcmp(ext, "out") || !strcmp(ext, "err") || !strcmp(ext, "json")))) {
			snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
			unlink(p);
		}
	}
	if (d) {
		closedir(d);
		rmdir(dir);
	}
}

/* locus flow clean: removes, from the shared directory, every file a
 * task of the workflow writes (its final outputs, and intermediates a
 * run left there), and the run's journal when --journal names one. It
 * checks everything first and removes nothing when it would remove what
 * the workflow does not make: a journal of another workflow (or not a
 * journal), a directory where the workflow writes a file, the workflow's
 * own file. Locks the shared directory as a run does, so it never cleans
 * under a run. */
int flow_clean(struct flow_args *a)
{
	const char *cmd = "flow clean";
	struct locus_error err = {0};
	struct locus_graph *g = NULL;
	int rc = flow_load(&g, a, &err);
	if (rc) {
		locus_graph_destroy(g);
		return cli_error(cmd, &err, rc);
	}
	char shared[4096], path[8192];
	flow_shared_dir(a, shared, sizeof shared);
	int status = 0;
	int dfd = open(shared, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		fprintf(stderr, "locus flow clean: cannot open the shared directory %s: %s\n",
			shared, strerror(errno));
		locus_graph_destroy(g);
		return CLI_EXIT_FAIL;
	}
	if (flock(dfd, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK) {
		fprintf(stderr,
			"locus flow clean: another run is using the shared directory %s; clean "
			"once it is over\n",
			shared);
		close(dfd);
		locus_graph_destroy(g);
		return CLI_EXIT_FAIL;
	}
	/* The workflow's own file, which no clean removes. */
	struct stat wst;
	const char *wf = a->workflow;
	static const char *const prefixes[] = {"makeflow:", "wfcommons:", "stg:", "text:"};
	for (size_t k = 0; k < CLI_ARRAY_LEN(prefixes); k++)
		if (!strncmp(wf, prefixes[k], strlen(prefixes[k])))
			wf += strlen(prefixes[k]);
	int have_wf = strncmp(a->workflow, "gen:", 4) && !stat(wf, &wst);
	/* The journal: this workflow's, or left alone (and so is all else). */
	int journal = 0;
	if (a->journal) {
		struct locus_flow_journal j = {0};
		int found = 0;
		if (read_journal(a->journal, g, &j, &found, &err)) {
			char msg[1024];
			fprintf(
			    stderr,
			    "locus flow clean: refusing to remove %s, which is not a journal of "
			    "%s (%s); nothing removed\n",
			    a->journal, a->workflow, locus_error_format(&err, msg, sizeof msg));
			status = CLI_EXIT_FAIL;
		}
		locus_flow_journal_fini(&j);
		journal = found && !status;
	}
	/* Every file the workflow makes, checked before any goes. */
	size_t made = 0, absent = 0;
	uint64_t bytes = 0;
	for (size_t o = 0; !status && o < g->n_objects; o++) {
		const struct locus_object *ob = &g->objects[o];
		if (ob->producer == LOCUS_NONE || !ob->name)
			continue;
		shared_path(shared, ob->name, path, sizeof path);
		struct stat st;
		if (lstat(path, &st)) {
			if (errno != ENOENT) {
				fprintf(stderr, "locus flow clean: cannot look at %s: %s\n", path,
					strerror(errno));
				status = CLI_EXIT_FAIL;
			}
			continue;
		}
		if (S_ISDIR(st.st_mode) ||
		    (have_wf && st.st_dev == wst.st_dev && st.st_ino == wst.st_ino)) {
			fprintf(stderr,
				"locus flow clean: refusing to remove %s, %s, not a file the "
				"workflow makes (task \"%s\" writes \"%s\"); nothing removed\n",
				path, S_ISDIR(st.st_mode) ? "a directory" : "the workflow itself",
				g->tasks[ob->producer].name ? g->tasks[ob->producer].name : "?",
				ob->name);
			status = CLI_EXIT_FAIL;
		}
	}
	for (size_t o = 0; !status && o < g->n_objects; o++) {
		const struct locus_object *ob = &g->objects[o];
		if (ob->producer == LOCUS_NONE || !ob->name)
			continue;
		shared_path(shared, ob->name, path, sizeof path);
		struct stat st;
		if (lstat(path, &st)) {
			absent++;
			continue;
		}
		if (unlink(path)) {
			fprintf(stderr, "locus flow clean: cannot remove %s: %s\n", path,
				strerror(errno));
			status = CLI_EXIT_FAIL;
			break;
		}
		made++;
		bytes += (uint64_t)st.st_size;
	}
	if (!status && journal && unlink(a->journal)) {
		fprintf(stderr, "locus flow clean: cannot remove the journal %s: %s\n", a->journal,
			strerror(errno));
		status = CLI_EXIT_FAIL;
	}
	/* The runs' status files: in the shared directory, and the
	 * journal's. */
	size_t n_status = 0;
	for (int k = 0; !status && k < 1 + (a->journal != NULL); k++) {
		struct stat st;
		if (k == 0)
			snprintf(path, sizeof path, "%s/.locus-flow-status", shared);
		else
			snprintf(path, sizeof path, "%s.status", a->journal);
		if (!lstat(path, &st) && S_ISREG(st.st_mode) && !unlink(path))
			n_status++;
		remove_task_logs(path);
	}
	if (!status)
		printf("locus flow clean: removed %zu file%s (%" PRIu64
		       " bytes) of %s from %s%s%s%s "
		       "(%zu of the %zu files it makes were not there)\n",
		       made, made == 1 ? "" : "s", bytes, a->workflow, shared,
		       journal ? ", and the journal " : "", journal ? a->journal : "",
		       n_status ? ", and the run's status file" : "", absent, made + absent);
	close(dfd);
	locus_graph_destroy(g);
	return status;
}
