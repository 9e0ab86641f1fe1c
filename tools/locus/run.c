/*
 * locus run: run a command on every chunk of a store, for real, on MPI
 * ranks, as a scheduling policy decides (the MPI engine, locus/mpi.h).
 *
 * Started by hand, it checks its arguments and runs mpirun as its child,
 * which starts the ranks: each is this same program, which sees
 * it runs inside an MPI job (the launcher's environment) and takes part.
 * Started under mpirun by the user (a cluster with a hostfile, a batch
 * system), it takes part directly. The command is run without a shell: a
 * chunk's name or path can never become part of a command line. The
 * launching and the running of commands are shared with locus scatter
 * (mpirun.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#ifdef LOCUS_HAVE_MPI
#include "locus/mpi.h"
#endif

static const char *const help_head =
    "usage: locus run [OPTIONS] --store DIR -- COMMAND [ARGS...]\n"
    "\n"
    "Runs COMMAND once on every chunk of a node-local store, on MPI ranks, as\n"
    "a scheduling policy decides: each rank is given chunks its node holds\n"
    "when the policy can, and a chunk from elsewhere is fetched from a rank on\n"
    "a node that holds it. Prints what happened next to the bounds, in the\n"
    "schema of 'locus sim', so a run and its simulation compare side by side.\n"
    "\n"
    "The command is run without a shell. In its arguments\n"
    "  {}        becomes the chunk's local path (a scratch copy when fetched)\n"
    "  {#}       the chunk's index in its dataset\n"
    "  {ds}      the dataset's name\n"
    "  {offset}  the chunk's offset in the dataset, {length} its bytes\n"
    "and the path is added as the last argument when no argument holds a {}.\n"
    "The command also finds LOCUS_CHUNK_PATH, LOCUS_CHUNK_INDEX,\n"
    "LOCUS_DATASET, LOCUS_CHUNK_OFFSET, LOCUS_CHUNK_LENGTH, LOCUS_ATTEMPT,\n"
    "LOCUS_RANK and LOCUS_NODE in its environment. A command that exits\n"
    "non-zero or is killed is reported with its chunk and the end of its\n"
    "stderr and run again on another rank, up to --retries more times.\n";

static const char *const help_job =
    "\n"
    "Job:\n"
    "  -n, -np, --np N         MPI ranks (default: the emulated nodes + 1, or the\n"
    "                          cores of this machine)\n";

static const char *const help_output =
    "  Under a launcher already (mpirun -np 64 locus run ...), locus run takes\n"
    "  part as one rank and ignores these.\n"
    "\n"
    "Output:\n";

static const char *const help_tail =
    "\n"
    "Exit status: 0 when every chunk ran, 1 when some failed on every attempt\n"
    "(each is listed) or the run could not start, 2 for bad usage.\n"
    "\n"
    "Examples:\n"
    "  locus place --generate 64M --chunk-size 1M --split fasta --nodes 8 \\\n"
    "              --store /tmp/store --dataset reads.fa\n"
    "  locus run -K 8 --store /tmp/store --policy dlmpi -- wc -l {}\n"
    "  locus run -K 8 --store /tmp/store --journal j.txt --results out -- \\\n"
    "            grep -c '>' {}\n"
    "  mpirun --hostfile hosts -np 64 locus run --store /data/store -- ./analyse {}\n";

struct run_args {
	const char *store, *dataset, *journal, *results, *measured;
	struct cli_policy pol;
	struct cli_results res;
	struct cli_mpi mpi;
	uint64_t np, schedulers, emulate, retries, seed, net_bw;
	int quiet, tty, wait;
	char **cmd; /* COMMAND ARGS..., NULL-terminated */
	int n_cmd;
};

/* ---- the options ------------------------------------------------------------- */

/* Named ids of the options without a short letter. */
enum {
	O_SCHED = 256,
	O_NETBW,
	O_WAIT,
	O_RESULTS,
	O_SEED,
	O_MEASURED,
	O_TTY,
};

static int job_option(const char *cmd, void *values, int id, const char *arg)
{
	const struct run_args *a = values;
	if (id == 'n' && a->np == 0)
		return cli_usage_error(cmd, "--np expects at least 1 rank");
	return 0;
}

#define AT(field) offsetof(struct run_args, field)
static const struct cli_opt job_opts[] = {
    {"np", 'n', CLI_UINT, AT(np), "N", NULL}, /* help_job says it, with -np */
    {"store", 's', CLI_TEXT, AT(store), "DIR", "the node-local store (locus place --store)"},
    {"dataset", 'd', CLI_TEXT, AT(dataset), "NAME", "only this dataset (default: every one)"},
};
static const struct cli_group job_group = CLI_GROUP(job_opts, job_option);

static const struct cli_say policy_say[] = {
    {'x', "fifo, monolithic, dlmpi, delay or scal (default scal)"},
    {'o', "policy options (as for locus sim)"},
    {0, NULL},
};

/* How the chunks run. */
static const struct cli_opt run_opts[] = {
    {"schedulers", O_SCHED, CLI_UINT, AT(schedulers), "N",
     "scheduler ranks (default: the policy's)"},
    {"emulate-nodes", 'K', CLI_UINT, AT(emulate), "K",
     "one machine as K nodes: rank r uses the r mod K-th\n"
     "node directory of the store as its own disk"},
    {"emulate-net-bw", O_NETBW, CLI_SIZE, AT(net_bw), "BW",
     "a fetch takes at least bytes / BW (e.g. 100MB)"},
    {"retries", 'r', CLI_UINT, AT(retries), "R", "more attempts of a failed chunk (default 2)"},
    {"journal", 'j', CLI_TEXT, AT(journal), "FILE",
     "record each finished chunk durably; run again with\n"
     "the same journal to skip them; one run at a time\n"
     "uses a journal (another is refused, naming its pid)"},
    {"wait", O_WAIT, CLI_FLAG, AT(wait), NULL,
     "wait for the run that holds the journal (or the\n"
     "results directory) instead"},
    {"results", O_RESULTS, CLI_TEXT, AT(results), "DIR",
     "each chunk's stdout into DIR/DATASET/chunk-INDEX.out\n"
     "(written whole or not at all); default: stdout;\n"
     "one run at a time uses DIR (another is refused,\n"
     "naming its pid)"},
    {"seed", O_SEED, CLI_UINT, AT(seed), "S", "seed of the policy's choices (default 1)"},
};
static const struct cli_group run_group = CLI_GROUP(run_opts, NULL);

static const struct cli_say results_say[] = {
    {CLI_RESULTS_JSON, "print the result as JSON (docs/formats.md)"},
    {0, NULL},
};

static const struct cli_opt out_opts[] = {
    {"measured", O_MEASURED, CLI_TEXT, AT(measured), "PREFIX",
     "write PREFIX.platform.json and PREFIX.work, the\n"
     "measured platform and task times, for locus sim"},
    {"quiet", 'q', CLI_FLAG, AT(quiet), NULL, "no progress line"},
    /* Set by the launching process when its stderr is a terminal. */
    {"progress-tty", O_TTY, CLI_FLAG, AT(tty), NULL, NULL},
};
static const struct cli_group out_group = CLI_GROUP(out_opts, NULL);

/* In this order, which getopt's message on an ambiguous option lists. */
static const struct cli_use uses[] = {
    {.group = &job_group, .before = help_job},
    {.group = &cli_policy_group, .at = AT(pol), .say = policy_say},
    {.group = &run_group},
    {.group = &cli_mpi_group, .at = AT(mpi), .before = "\nMPI:\n"},
    {.group = &cli_results_group, .at = AT(res), .before = help_output, .say = results_say},
    {.group = &out_group},
};
#undef AT

static const struct cli_command command =
    CLI_COMMAND(uses, CLI_OPTIONS_FIRST, CLI_ERRORS_GETOPT, help_head, help_tail, 26);

/* The lock file of a results directory (one run at a time writes it). */
#define RESULTS_LOCK ".locus-run.lock"

/* Makes the directory `dir` and those above it, as a chunk's output would
 * (mkdir -p): 0, or -1 with errno set. */
static int make_dirs(const char *dir)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *s = path + 1;; s++) {
		if (*s && (*s != '/' || s[-1] == '/'))
			continue;
		char was = *s;
		*s = 0;
		int bad = mkdir(path, 0755) != 0 && errno != EEXIST;
		*s = was;
		if (bad)
			return -1;
		if (!was)
			return 0;
	}
}

/* --results DIR before launching: made when missing (as a chunk's output
 * would make it), a directory, and one this user can write, shown by
 * making its lock file there. 0, or CLI_EXIT_USAGE with the error
 * printed. Every chunk used to fail on it three times first. */
static int prepare_results(const char *dir)
{
	struct stat st;
	char lock[PATH_MAX];
	if (make_dirs(dir) != 0)
		return cli_usage_error("run", "--results %s: cannot make the directory: %s", dir,
				       strerror(errno));
	if (stat(dir, &st) != 0)
		return cli_usage_error("run", "--results %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return cli_usage_error("run", "--results %s: not a directory", dir);
	if (snprintf(lock, sizeof lock, "%s/" RESULTS_LOCK, dir) >= (int)sizeof lock)
		return cli_usage_error("run", "--results %s: the path is too long", dir);
	int fd = open(lock, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return cli_usage_error("run", "--results %s: cannot write there: %s", dir,
				       strerror(errno));
	close(fd);
	return 0;
}

static int parse_args(int argc, char **argv, struct run_args *a)
{
	int rc;
	memset(a, 0, sizeof *a);
	a->retries = 2;
	a->seed = 1;
	cli_mpi_np_spelling(argc, argv);
	/* In order: options end at the command; "--" ends them too. */
	if ((rc = cli_parse("run", &command, a, argc, argv)))
		return rc;
	if (a->retries > 1000)
		return cli_usage_error("run", "--retries is at most 1000");
	if (!a->store)
		return cli_usage_error("run", "--store DIR is required");
	if (optind >= argc)
		return cli_usage_error("run", "no command: put it after --, as in "
					      "'locus run --store DIR -- wc -l {}'");
	a->cmd = argv + optind;
	a->n_cmd = argc - optind;
	struct stat st;
	if (stat(a->store, &st) != 0 || !S_ISDIR(st.st_mode))
		return cli_usage_error("run", "--store %s: not a directory", a->store);
	/* Found now rather than after every chunk failed on it. */
	if (a->results && (rc = prepare_results(a->results)))
		return rc;
	if (cli_results_check("run", &a->res, NULL, 0))
		return CLI_EXIT_FAIL;
	return 0;
}

/* Becomes mpirun, which starts the ranks (cli_mpi_launch). */
static int launch(struct run_args *a, int argc, char **argv)
{
	uint64_t np = a->np;
	struct cli_slurm sl;
	int in_slurm = a->mpi.hostfile || a->emulate ? 0 : cli_slurm_allocation("run", &sl);
	if (in_slurm < 0)
		return -in_slurm;
	if (in_slurm) {
		/* The allocation's tasks, on its nodes (the launcher reads
		 * them from Slurm). */
		if (!np)
			np = sl.ntasks;
		cli_slurm_fini(&sl);
	}
	if (!np) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		np = a->emulate ? a->emulate + 1 : (uint64_t)(cores > 1 ? cores : 2);
	}
	return cli_mpi_launch("run", &a->mpi, np, !a->quiet && isatty(2) ? "--progress-tty" : NULL,
			      argc, argv);
}

#ifdef LOCUS_HAVE_MPI
/* ---- each rank ------------------------------------------------------------ */

struct rank_ctx {
	const struct run_args *a;
};

/* DIR/DATASET/chunk-INDEX.out, its directories (DIR's too) made. */
static int result_path(const char *dir, const struct locus_mpi_chunk *c, char *path, size_t size)
{
	int n = snprintf(path, size, "%s/%s/chunk-%06zu.out", dir, c->dataset, c->index);
	if (n < 0 || (size_t)n >= size)
		return -1;
	for (char *s = path + 1; *s; s++) {
		if (*s != '/' || s[-1] == '/')
			continue;
		*s = 0;
		int bad = mkdir(path, 0755) != 0 && errno != EEXIST;
		*s = '/';
		if (bad)
			return -1;
	}
	return 0;
}

static int run_chunk(void *user, const struct locus_mpi_chunk *c, char *why, size_t why_size)
{
	struct rank_ctx *x = user;
	const struct run_args *a = x->a;
	char **argv = NULL, **envp = NULL;
	int rc = 1;
	char out_path[PATH_MAX], index[32], offset[32], length[32];

	/* A path that starts with '-' (a store named "-st") would reach the
	 * command as an option: it gets "./" in front. */
	char dashed[PATH_MAX + 2];
	const char *path = c->path;
	if (path[0] == '-') {
		snprintf(dashed, sizeof dashed, "./%s", c->path);
		path = dashed;
	}
	snprintf(index, sizeof index, "%zu", c->index);
	snprintf(offset, sizeof offset, "%" PRIu64, c->offset);
	snprintf(length, sizeof length, "%" PRIu64, c->length);
	const struct cli_subst subs[] = {{"{}", path},
					 {"{#}", index},
					 {"{ds}", c->dataset},
					 {"{offset}", offset},
					 {"{length}", length}};
	if (!(argv = cli_command(a->cmd, a->n_cmd, subs, CLI_ARRAY_LEN(subs)))) {
		snprintf(why, why_size, "out of memory");
		goto out;
	}
	/* The environment: ours and the chunk's. */
	char vars[8][PATH_MAX + 64];
	snprintf(vars[0], sizeof vars[0], "LOCUS_CHUNK_PATH=%s", path);
	snprintf(vars[1], sizeof vars[1], "LOCUS_CHUNK_INDEX=%zu", c->index);
	snprintf(vars[2], sizeof vars[2], "LOCUS_DATASET=%s", c->dataset);
	snprintf(vars[3], sizeof vars[3], "LOCUS_CHUNK_OFFSET=%" PRIu64, c->offset);
	snprintf(vars[4], sizeof vars[4], "LOCUS_CHUNK_LENGTH=%" PRIu64, c->length);
	snprintf(vars[5], sizeof vars[5], "LOCUS_ATTEMPT=%d", c->attempt);
	snprintf(vars[6], sizeof vars[6], "LOCUS_RANK=%d", c->rank);
	snprintf(vars[7], sizeof vars[7], "LOCUS_NODE=%s", c->node);
	char *var_ptr[8];
	for (int i = 0; i < 8; i++)
		var_ptr[i] = vars[i];
	if (!(envp = cli_env(var_ptr, 8))) {
		snprintf(why, why_size, "out of memory");
		goto out;
	}
	if (a->results && result_path(a->results, c, out_path, sizeof out_path)) {
		snprintf(why, why_size, "cannot make the directory of %s: %s", out_path,
			 strerror(errno));
		goto out;
	}
	rc = cli_spawn(argv, envp, a->results ? out_path : NULL, c->output, c->output_len, why,
		       why_size);
out:
	cli_command_free(argv);
	free(envp);
	return rc;
}

/* Rank 0: a chunk's output, whole (the engine sends each one here). */
static void write_output(void *user, const char *data, size_t len)
{
	(void)user;
	fflush(stdout);
	while (len) {
		ssize_t w = write(1, data, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		data += w;
		len -= (size_t)w;
	}
}

static void progress(void *user, size_t done, size_t failed, size_t total, double seconds)
{
	(void)user;
	int width = 30,
	    fill = total ? (int)((double)(done + failed) / (double)total * width) : width;
	fprintf(stderr, "\rrun [%.*s%*s] %zu/%zu done, %zu failed, %.1fs", fill,
		"##############################", width - fill, "", done, total, failed, seconds);
	if (done + failed >= total)
		fprintf(stderr, "\r%*s\r", 76, "");
	fflush(stderr);
}

static void print_summary(const struct locus_mpi_report *rep)
{
	const struct locus_result *r = rep->result;
	printf("locus run: policy %s, %zu chunks on %zu workers (%zu nodes, %zu scheduler%s)",
	       r->policy, r->n_tasks, r->n_workers, r->n_nodes, r->n_schedulers,
	       r->n_schedulers == 1 ? "" : "s");
	if (rep->skipped)
		printf("; %zu done before (journal)", rep->skipped);
	printf("\n\n");
	printf("  makespan          %12.6f s   lower bound %.6f s (ratio %.3f)\n", r->makespan,
	       r->lb_makespan, r->lb_makespan > 0 ? r->makespan / r->lb_makespan : 0);
	printf("  local reads       %12zu     %.2f%% of tasks", r->local_tasks,
	       r->n_tasks ? 100.0 * (double)r->local_tasks / (double)r->n_tasks : 0);
	if (r->opt_local >= 0)
		printf(", balanced optimum %ld (%.2f%%)", r->opt_local,
		       r->n_tasks ? 100.0 * (double)r->opt_local / (double)r->n_tasks : 0);
	printf("\n  bytes moved       %12" PRIu64 "     fetched from peers", r->bytes_remote);
	if (rep->net_bw > 0)
		printf(" at %.1f MB/s", rep->net_bw / 1e6);
	printf("\n  wait for a task   mean %.6f s, p50 %.6f, p99 %.6f, max %.6f\n", r->wait_mean,
	       r->wait_p50, r->wait_p99, r->wait_max);
	printf("  request latency   %.6f s one way (fastest round trip / 2)\n", rep->latency);
	printf("  messages          %" PRIu64 " (%.2f per task)\n", r->messages,
	       r->n_tasks ? (double)r->messages / (double)r->n_tasks : 0);
	printf("  failed chunks     %zu\n", rep->n_failures);
}

/* Rank 0's write lock on the results directory's lock file (fcntl, so
 * that the holder's pid can be named), held for the whole run: two runs
 * writing one directory both ran everything. Waits for it with --wait.
 * Returns the open descriptor, or -1 with `why` filled. */
static int lock_results(const char *dir, int wait, char *why, size_t size)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/" RESULTS_LOCK, dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(why, size, "--results %s: cannot open %s: %s", dir, path, strerror(errno));
		return -1;
	}
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	for (;;) {
		if (fcntl(fd, wait ? F_SETLKW : F_SETLK, &fl) == 0)
			return fd;
		if (errno == EINTR && !cli_cancelled)
			continue;
		if (errno == EINTR) {
			snprintf(why, size, "the run was cancelled while waiting for --results %s",
				 dir);
		} else if (errno != EAGAIN && errno != EACCES) {
			snprintf(why, size, "--results %s: cannot lock %s: %s", dir, path,
				 strerror(errno));
		} else {
			struct flock who = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
			if (fcntl(fd, F_GETLK, &who) == 0 && who.l_type == F_UNLCK)
				continue; /* released meanwhile */
			snprintf(why, size,
				 "--results %s: another run (pid %ld) is using the results "
				 "directory (one run at a time); wait for it to end, or run with "
				 "--wait",
				 dir, (long)who.l_pid);
		}
		close(fd);
		return -1;
	}
}

static int rank_main(struct run_args *a)
{
	int level, rank, status = 0;
	MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &level);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	cli_catch_signals(0);
	cli_watch_launcher();
	(void)cli_keep_commands();
	/* What a killed run left: each node's first rank sweeps its host's
	 * dead temporaries before any chunk of this run can start. */
	MPI_Comm node;
	int node_rank = 0;
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
	MPI_Comm_rank(node, &node_rank);
	MPI_Comm_free(&node);
	/* One run at a time writes a results directory: rank 0 holds its
	 * lock before anything runs or is swept. */
	int results_fd = -1, locked = 1;
	char why[PATH_MAX + 160];
	if (a->results && rank == 0 &&
	    (results_fd = lock_results(a->results, a->wait, why, sizeof why)) < 0) {
		fprintf(stderr, "locus run: %s\n", why);
		locked = 0;
	}
	MPI_Bcast(&locked, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (!locked) {
		MPI_Finalize();
		return CLI_EXIT_FAIL;
	}
	if (a->results && node_rank == 0)
		cli_sweep_results(a->results);

	struct rank_ctx x = {.a = a};
	struct locus_mpi_options o = {
	    .store = a->store,
	    .dataset = a->dataset,
	    .policy = a->pol.name,
	    .policy_opts = a->pol.opts,
	    .schedulers = (size_t)a->schedulers,
	    .emulate_nodes = (size_t)a->emulate,
	    .seed = a->seed,
	    .retries = (int)a->retries,
	    .journal = a->journal,
	    .wait_journal = a->wait,
	    .emulate_net_bw = (double)a->net_bw,
	    .cancel = &cli_cancelled,
	    .progress = a->tty && !a->quiet ? progress : NULL,
	    .output = a->results ? NULL : write_output,
	};
	struct locus_mpi_report rep;
	struct locus_error err = {0};
	/* A signal reaches the engine through the cancel flag. */
	int rc = locus_mpi_run(MPI_COMM_WORLD, &o, run_chunk, &x, &rep, &err);
	if (rc) {
		if (rank == 0)
			cli_error("run", &err, rc);
		status = CLI_EXIT_FAIL;
	} else if (rank == 0) {
		const struct locus_result *r = rep.result;
		if (a->res.json)
			rc = locus_report_json(r, stdout);
		else
			print_summary(&rep);
		fflush(stdout);
		/* All written, then all renamed: never one file without the others. */
		int ost = rc ? 0 : cli_results_write("run", &a->res, r);
		if (!rc && !ost && a->measured)
			rc = cli_write_measured(
			    a->measured, rep.platform, rep.work, rep.result->n_tasks,
			    "seconds in the command, by task (catalog order)", &err);
		if (rc)
			status = cli_error("run", &err, rc);
		else if (ost)
			status = ost;
		cli_warn_problems("run", r);
		for (size_t i = 0; i < rep.n_failures; i++) {
			const struct locus_mpi_failure *f = &rep.failures[i];
			fprintf(
			    stderr,
			    "locus run: chunk %zu of \"%s\" failed %d time%s (last on rank %d): "
			    "%s\n",
			    f->index, f->dataset, f->attempts, f->attempts == 1 ? "" : "s", f->rank,
			    f->why);
		}
		if (rep.n_failures) {
			fprintf(stderr, "locus run: %zu of %zu chunks failed on every attempt%s\n",
				rep.n_failures, r->n_tasks,
				a->journal ? "; the journal holds the others, run again to retry "
					     "these"
					   : "");
			status = CLI_EXIT_FAIL;
		}
	}
	locus_mpi_report_fini(&rep);
	if (cli_leak_check())
		status = CLI_EXIT_FAIL;
	MPI_Finalize();
	if (results_fd >= 0)
		close(results_fd);
	return status;
}
#endif

int cmd_run(int argc, char **argv)
{
	struct run_args a;
	int rc = parse_args(argc, argv, &a);
	if (rc)
		return rc == CLI_HELP_SHOWN ? 0 : rc;
#ifdef LOCUS_HAVE_MPI
	if (cli_in_mpi_job())
		return rank_main(&a);
	return launch(&a, argc, argv);
#else
	(void)launch;
	fprintf(stderr, "locus run: this locus was built without MPI; install Open MPI or "
			"MPICH (scripts/install-deps) and build again\n");
	return CLI_EXIT_FAIL;
#endif
}
