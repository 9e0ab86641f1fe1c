/*
 * locus scatter: a divisible-load plan (locus plan) executed for real on
 * MPI ranks over the bytes of a file, a command run on every chunk, and
 * the plan's times next to the measured ones (locus_mpi_scatter).
 *
 * Like locus run it becomes mpirun when started by hand and takes part as
 * a rank under a launcher (mpirun.c). Every rank computes the same plan
 * (rank 0 tells the others the input's size); rank 0 is the master, rank
 * i + 1 runs plan worker i.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
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
    "usage: locus scatter -np N [OPTIONS] INPUT -- COMMAND [ARGS...]\n"
    "\n"
    "Executes a divisible-load plan for real. Rank 0 of an MPI job, the master,\n"
    "reads INPUT and sends it to the N-1 other ranks, the workers, in the rounds\n"
    "of growing chunks a UMR or PTUMR plan prescribes (as 'locus plan' prints\n"
    "it): round after round, one virtual worker (a group) after the other, the\n"
    "members of a group at once. Each worker runs COMMAND on every chunk it gets,\n"
    "while its next chunk is already arriving. Then the plan's times are shown\n"
    "next to the measured ones, round by round and group by group.\n"
    "\n"
    "INPUT is W = its size / --unit units of load. A chunk of c units is about\n"
    "c x unit bytes: in the plan's send order the chunks end at byte\n"
    "floor(units so far / W x size), so they cut INPUT into consecutive pieces\n"
    "and every byte reaches exactly one worker, once.\n"
    "\n"
    "COMMAND runs without a shell, once per chunk, on a temporary file holding\n"
    "the chunk. In its arguments\n"
    "  {}        becomes that file's path (added last when no argument has {})\n"
    "  {offset}  the chunk's byte offset in INPUT, {length} its bytes\n"
    "  {round}   its round, from 0\n"
    "and it finds LOCUS_CHUNK_PATH, LOCUS_CHUNK_OFFSET, LOCUS_CHUNK_LENGTH,\n"
    "LOCUS_ROUND, LOCUS_WORKER and LOCUS_RANK in its environment. A command that\n"
    "exits non-zero or is killed fails the run: the master sends no further\n"
    "group, and the chunk is reported with its offset, round and rank, the\n"
    "command's status and the end of its stderr.\n";

static const char *const help_job =
    "\n"
    "Job:\n"
    "  -n, -np, --np N           MPI ranks: the master and N-1 workers (default:\n"
    "                            the workers given + 1, else this machine's cores\n"
    "                            + 1)\n";

static const char *const help_plan =
    "\n"
    "The plan's workers are N-1 alike workers (the --mean-* values) unless\n"
    "--workers-file or --workers says otherwise; they must then be N-1.\n"
    "\n";

static const char *const help_output =
    "  Under a launcher already (mpirun -np 9 locus scatter ...), each rank takes\n"
    "  part and -np and these are ignored.\n"
    "\n"
    "Output:\n";

static const char *const help_tail =
    "\n"
    "Planned times are the plan's model (seconds when the speeds are the real\n"
    "units/s); measured ones are seconds. Give the real speeds (--mean-s,\n"
    "--mean-b, --b0, or a --workers-file) for the two to be comparable.\n"
    "\n"
    "Exit status: 0 when every chunk ran, 1 when a chunk failed or the run could\n"
    "not start, 2 for bad usage.\n"
    "\n"
    "Examples:\n"
    "  head -c 64M /dev/urandom > data.bin\n"
    "  locus scatter -np 5 data.bin -- sha256sum {}\n"
    "  # The workers as they really are (MiB/s and s), so that the planned\n"
    "  # times are seconds too:\n"
    "  locus scatter -np 5 --mean-s 60 --mean-b 400 --b0 400 --mean-delta 0.005 \\\n"
    "                --mean-eps 0.0005 --results out --json run.json data.bin -- \\\n"
    "                sha256sum {}\n"
    "  locus scatter -np 8 --method umr --unit 4M --results out data.bin -- gzip -c {}\n"
    "  mpirun --hostfile hosts -np 17 locus scatter --workers-file cluster.json \\\n"
    "                data.bin -- ./analyse {} {offset}\n";

struct scatter_args {
	struct cli_dl dl;
	struct cli_mpi mpi;
	uint64_t np, unit;
	const char *input, *results, *json, *svg;
	char **cmd; /* COMMAND ARGS..., NULL-terminated */
	int n_cmd;
	int help;
};

/* Named ids of scatter's own options. */
enum { OPT_RESULTS = 256, OPT_JSON, OPT_SVG };

/* -np: a master and a worker at least; --unit: a byte at least. */
static int job_option(const char *cmd, void *values, int id, const char *arg)
{
	const struct scatter_args *a = values;
	if (id == 'n' && a->np < 2)
		return cli_usage_error(cmd,
				       "--np expects at least 2 ranks (a "
				       "master and a worker), got %s",
				       arg);
	if (id == 'u' && a->unit == 0)
		return cli_usage_error(cmd, "--unit expects at least 1 byte");
	return 0;
}

#define AT(field) offsetof(struct scatter_args, field)
static const struct cli_opt job_opts[] = {
    {"np", 'n', CLI_UINT, AT(np), "N", NULL}, /* help_job says it, with -np */
    {"unit", 'u', CLI_SIZE, AT(unit), "SIZE",
     "bytes in a unit of load (default 1M; 4096, 64K,\n1G, 1MB...)"},
    {"results", OPT_RESULTS, CLI_TEXT, AT(results), "DIR",
     "each chunk's stdout into DIR/OFFSET.out, written\nwhole or not at all (default: stdout)"},
};
static const struct cli_group job_group = CLI_GROUP(job_opts, job_option);

static const struct cli_opt out_opts[] = {
    {"json", OPT_JSON, CLI_TEXT, AT(json), "FILE",
     "the plan and the measured execution as JSON\n(\"locus-plan\", docs/formats.md)"},
    {"svg", OPT_SVG, CLI_TEXT, AT(svg), "FILE", "the timing chart of the measured execution"},
};
static const struct cli_group out_group = CLI_GROUP(out_opts, NULL);

static const struct cli_use uses[] = {
    {.group = &job_group, .before = help_job},
    {.group = &cli_dl_group, .at = AT(dl), .before = help_plan},
    {.group = &cli_mpi_group, .at = AT(mpi), .before = "\nMPI:\n"},
    {.group = &out_group, .before = help_output},
};
#undef AT

static int parse_args(int argc, char **argv, struct scatter_args *a)
{
	static const struct cli_command command =
	    CLI_COMMAND(uses, CLI_OPTIONS_FIRST, CLI_ERRORS_QUOTED, help_head, help_tail, 28);
	a->unit = 1 << 20;
	cli_mpi_np_spelling(argc, argv);
	/* In order: options end at INPUT; "--" ends them too. */
	int rc = cli_parse("scatter", &command, a, argc, argv);
	if (rc == CLI_HELP_SHOWN)
		a->help = 1;
	if (rc)
		return rc == CLI_HELP_SHOWN ? 0 : rc;
	if (optind >= argc || !strcmp(argv[optind], "--"))
		return cli_usage_error("scatter", "no INPUT: name the file to scatter, as in "
						  "'locus scatter -np 5 data.bin -- wc -c {}'");
	a->input = argv[optind++];
	if (optind < argc && !strcmp(argv[optind], "--"))
		optind++;
	else if (optind < argc)
		return cli_usage_error("scatter",
				       "unexpected \"%s\" after INPUT: put the command "
				       "after --",
				       argv[optind]);
	if (optind >= argc)
		return cli_usage_error("scatter", "no command: put it after --, as in "
						  "'locus scatter -np 5 data.bin -- wc -c {}'");
	a->cmd = argv + optind;
	a->n_cmd = argc - optind;
	return 0;
}

/* The input's size, or an exit status (the error printed). */
static int input_size(const struct scatter_args *a, uint64_t *size)
{
	struct stat st;
	if (stat(a->input, &st) != 0)
		return cli_usage_error("scatter", "%s: %s", a->input, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return cli_usage_error("scatter", "%s is not a regular file", a->input);
	if (st.st_size == 0)
		return cli_usage_error("scatter", "%s is empty: there is nothing to scatter",
				       a->input);
	*size = (uint64_t)st.st_size;
	return 0;
}

/* The plan's workers for `ranks` ranks: N-1 alike ones by default, else
 * those given, which must be N-1. 0 or an exit status (printed). */
static int workers_for(struct scatter_args *a, uint64_t ranks)
{
	int given = a->dl.workers_file || a->dl.n_gen;
	if (!given)
		a->dl.n_gen = (size_t)(ranks - 1);
	int rc = cli_dl_workers("scatter", &a->dl);
	if (rc)
		return rc;
	if (a->dl.n != ranks - 1)
		return cli_usage_error(
		    "scatter",
		    "%s gives %zu worker%s but the job has %" PRIu64 " ranks, %" PRIu64
		    " worker%s besides the master: give -np %zu%s",
		    a->dl.workers_file ? a->dl.workers_file : "--workers", a->dl.n,
		    a->dl.n == 1 ? "" : "s", ranks, ranks - 1, ranks - 1 == 1 ? "" : "s",
		    a->dl.n + 1, cli_in_mpi_job() ? " to the launcher" : " or leave -np out");
	return 0;
}

#ifdef LOCUS_HAVE_MPI
/* ---- each rank ------------------------------------------------------------ */

struct rank_ctx {
	const struct scatter_args *a;
	int rank;
	int made_results;
	/* The first chunk that failed here. */
	char why[1024];
	uint64_t offset, length;
	int32_t round;
};

/* Writes the chunk to a temporary file and runs the command on it. */
static int on_chunk(const void *data, size_t len, uint64_t offset, uint32_t round, void *user)
{
	struct rank_ctx *x = user;
	const struct scatter_args *a = x->a;
	char path[PATH_MAX], out_path[PATH_MAX], why[sizeof x->why] = "";
	char off_s[32], len_s[32], round_s[32];
	const char *tmpdir = getenv("TMPDIR");
	char **argv = NULL, **envp = NULL;
	int fd = -1, rc = 1;

	path[0] = 0;
	snprintf(path, sizeof path, "%s/locus-scatter-r%d-XXXXXX",
		 tmpdir && *tmpdir ? tmpdir : "/tmp", x->rank);
	if ((fd = mkstemp(path)) < 0) {
		snprintf(why, sizeof why, "cannot make a file for the chunk in %.800s: %s",
			 tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
		path[0] = 0;
		goto out;
	}
	for (size_t at = 0; at < len;) {
		ssize_t w = write(fd, (const char *)data + at, len - at);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			snprintf(why, sizeof why, "cannot write the chunk to %.800s: %s", path,
				 strerror(errno));
			goto out;
		}
		at += (size_t)w;
	}
	if (close(fd) != 0) {
		fd = -1;
		snprintf(why, sizeof why, "cannot write the chunk to %.800s: %s", path,
			 strerror(errno));
		goto out;
	}
	fd = -1;
	snprintf(off_s, sizeof off_s, "%" PRIu64, offset);
	snprintf(len_s, sizeof len_s, "%zu", len);
	snprintf(round_s, sizeof round_s, "%" PRIu32, round);
	const struct cli_subst subs[] = {
	    {"{}", path}, {"{offset}", off_s}, {"{length}", len_s}, {"{round}", round_s}};
	if (!(argv = cli_command(a->cmd, a->n_cmd, subs, CLI_ARRAY_LEN(subs)))) {
		snprintf(why, sizeof why, "out of memory");
		goto out;
	}
	char vars[6][PATH_MAX + 32];
	snprintf(vars[0], sizeof vars[0], "LOCUS_CHUNK_PATH=%s", path);
	snprintf(vars[1], sizeof vars[1], "LOCUS_CHUNK_OFFSET=%s", off_s);
	snprintf(vars[2], sizeof vars[2], "LOCUS_CHUNK_LENGTH=%s", len_s);
	snprintf(vars[3], sizeof vars[3], "LOCUS_ROUND=%s", round_s);
	snprintf(vars[4], sizeof vars[4], "LOCUS_WORKER=%d", x->rank - 1);
	snprintf(vars[5], sizeof vars[5], "LOCUS_RANK=%d", x->rank);
	char *var_ptr[6];
	for (int i = 0; i < 6; i++)
		var_ptr[i] = vars[i];
	if (!(envp = cli_env(var_ptr, 6))) {
		snprintf(why, sizeof why, "out of memory");
		goto out;
	}
	if (a->results) {
		struct locus_error err = {0};
		if (!x->made_results && locus_mkdirs(a->results, &err)) {
			snprintf(why, sizeof why, "%s", err.message);
			goto out;
		}
		x->made_results = 1;
		int n =
		    snprintf(out_path, sizeof out_path, "%s/%" PRIu64 ".out", a->results, offset);
		if (n < 0 || (size_t)n >= sizeof out_path) {
			snprintf(why, sizeof why, "the path of %s's results is too long",
				 a->results);
			goto out;
		}
	}
	rc = cli_spawn(argv, envp, a->results ? out_path : NULL, NULL, NULL, why, sizeof why);
out:
	if (fd >= 0)
		close(fd);
	if (path[0])
		unlink(path);
	cli_command_free(argv);
	free(envp);
	if (rc && !x->why[0]) {
		snprintf(x->why, sizeof x->why, "%s", why[0] ? why : "failed");
		x->offset = offset;
		x->length = len;
		x->round = (int32_t)round;
	}
	return rc;
}

/* ---- the report ------------------------------------------------------------ */

/* The first and last of a run's events of round j (and group k >= 0). */
struct span {
	double send, arrived, comp_start, end;
	size_t n;
};

static struct span span_of(const struct locus_divisible_run *r, long j, long k)
{
	struct span s = {INFINITY, -INFINITY, INFINITY, -INFINITY, 0};
	for (size_t e = 0; e < r->n_events; e++) {
		const struct locus_divisible_event *v = &r->events[e];
		if ((long)v->round != j || (k >= 0 && (long)v->group != k))
			continue;
		s.n++;
		s.send = fmin(s.send, v->send_start);
		s.arrived = fmax(s.arrived, v->recv_end);
		s.comp_start = fmin(s.comp_start, v->comp_start);
		s.end = fmax(s.end, v->comp_end);
	}
	return s;
}

/* Rows of the tables shown at most. */
#define MAX_ROUND_ROWS 60
#define MAX_GROUP_ROWS 120

/* A time of the table, or "-" where there was no chunk. */
static void cell(size_t n, double v)
{
	if (n && isfinite(v))
		printf(" %10.4f", v);
	else
		printf(" %10s", "-");
}

static void print_report(const struct locus_divisible_plan *p,
			 const struct locus_divisible_run *planned,
			 const struct locus_divisible_run *m, uint64_t size, uint64_t unit)
{
	printf("locus scatter: %" PRIu64 " bytes as W %.6g units of %" PRIu64
	       " bytes, %zu workers, %zu chunks\n\n",
	       size, p->W, unit, p->n_workers, m->n_events);
	fflush(stdout);
	locus_divisible_report_table(p, NULL, stdout);
	double per_unit = (double)size / p->W;
	printf("\nPer round: planned in model time (the plan executed in the simulator),\n"
	       "measured in seconds since the common start.\n");
	printf("%5s %6s %13s | %10s %10s | %10s %10s\n", "round", "chunks", "bytes", "plan start",
	       "plan end", "real start", "real end");
	size_t shown = p->rounds < MAX_ROUND_ROWS ? p->rounds : MAX_ROUND_ROWS;
	for (size_t j = 0; j < shown; j++) {
		struct span a = span_of(planned, (long)j, -1), b = span_of(m, (long)j, -1);
		double units = 0;
		for (size_t e = 0; e < m->n_events; e++)
			if (m->events[e].round == j)
				units += m->events[e].units;
		printf("%5zu %6zu %13.0f |", j, b.n, units * per_unit);
		cell(a.n, a.send);
		cell(a.n, a.end);
		printf(" |");
		cell(b.n, b.send);
		cell(b.n, b.end);
		putchar('\n');
	}
	if (shown < p->rounds)
		printf("  (%zu more rounds: see --json)\n", p->rounds - shown);
	printf("\nPer round and virtual worker: planned T_comm = C/B + E and T_comp = C/S +\n"
	       "Delta of its chunk C; measured send span (first send to last arrival) and\n"
	       "compute span (first start to last end) of its members' chunks.\n");
	printf("%5s %4s %6s %13s | %10s %10s | %10s %10s\n", "round", "vw", "chunks", "bytes",
	       "T_comm", "T_comp", "send span", "comp span");
	size_t rows = 0, total = 0;
	for (size_t j = 0; j < p->rounds; j++)
		for (size_t k = 0; k < p->n_used; k++, total++) {
			if (rows >= MAX_GROUP_ROWS)
				continue;
			const struct locus_divisible_group *g = &p->groups[k];
			double C = locus_divisible_group_chunk(p, j, k);
			struct span b = span_of(m, (long)j, (long)k);
			printf("%5zu %4zu %6zu %13.0f | %10.4f %10.4f |", j, k, b.n, C * per_unit,
			       C / g->B + g->E, C / g->S + g->Delta);
			cell(b.n, b.arrived - b.send);
			cell(b.n, b.end - b.comp_start);
			putchar('\n');
			rows++;
		}
	if (rows < total)
		printf("  (%zu more rows: see --json)\n", total - rows);
	printf("\n%-22s %12s %12s\n", "", "planned", "measured");
	printf("%-22s %12.4f %12.4f\n", "makespan", p->t_real, m->makespan);
	printf("%-22s %12.4f %12s\n", "  simulated", planned->makespan, "");
	printf("%-22s %12.4f %12.4f\n", "master's link busy", planned->link_busy, m->link_busy);
	printf("%-22s %12.4f %12s\n", "T_bound", p->t_bound, "");
	if (p->t_real > 0)
		printf("measured / planned makespan: %.4g (measured seconds per model second)\n",
		       m->makespan / p->t_real);
}

/* A plan and its measured execution, for the output writers. */
struct measured {
	const struct locus_divisible_plan *plan;
	const struct locus_divisible_run *run;
};

static int write_json(void *ctx, FILE *fp)
{
	const struct measured *m = ctx;
	return locus_divisible_report_json(m->plan, m->run, "measured", fp);
}

static int write_svg(void *ctx, FILE *fp)
{
	const struct measured *m = ctx;
	return locus_divisible_report_svg(m->plan, m->run, fp);
}

/* Rank 0 prints what failed on every rank and returns how many did.
 * Collective. */
static int report_failures(const struct rank_ctx *x, int rank, int size)
{
	int printed = 0;
	struct {
		char why[sizeof x->why];
		uint64_t offset, length;
		int32_t round, pad;
	} mine, *all = NULL;
	memset(&mine, 0, sizeof mine);
	memcpy(mine.why, x->why, sizeof mine.why);
	mine.offset = x->offset;
	mine.length = x->length;
	mine.round = x->round;
	if (rank == 0)
		all = calloc((size_t)size, sizeof *all);
	int ok = rank != 0 || all, all_ok;
	MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!all_ok)
		return 0;
	MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0,
		   MPI_COMM_WORLD);
	for (int r = 1; rank == 0 && r < size; r++)
		if (all[r].why[0] && ++printed)
			fprintf(stderr,
				"locus scatter: the chunk at byte offset %" PRIu64 " (%" PRIu64
				" bytes, round %d) failed on rank %d (worker %d): %s\n",
				all[r].offset, all[r].length, all[r].round, r, r - 1, all[r].why);
	free(all);
	return printed;
}

static int rank_main(struct scatter_args *a)
{
	int level, rank, size, status = 0, rc = 0;
	MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &level);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	cli_catch_signals(1);
	struct locus_divisible_plan *plan = NULL;
	struct locus_divisible_run *measured = NULL, *planned = NULL;
	struct rank_ctx x = {.a = a, .rank = rank, .round = -1};

	/* The input's size, from rank 0; then the same plan everywhere (rank 0
	 * first, so that an error is printed once). */
	uint64_t fsize = 0;
	if (rank == 0)
		rc = size < 2 ? cli_usage_error("scatter",
						"the job has %d rank: it needs a master "
						"and at least one worker",
						size)
			      : input_size(a, &fsize);
	uint64_t shared[2] = {(uint64_t)rc, fsize};
	MPI_Bcast(shared, 2, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	rc = (int)shared[0];
	fsize = shared[1];
	for (int turn = 0; turn < 2 && !rc; turn++) {
		int mine = 0;
		if ((rank == 0) == (turn == 0)) {
			mine = workers_for(a, (uint64_t)size);
			if (!mine)
				mine = cli_dl_plan("scatter", &a->dl,
						   (double)fsize / (double)a->unit, &plan);
		}
		MPI_Allreduce(&mine, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	}
	if (rc) {
		status = rc;
		goto out;
	}

	struct locus_error err = {0};
	rc = locus_mpi_scatter(MPI_COMM_WORLD, plan, a->input, on_chunk, &x,
			       rank == 0 ? &measured : NULL, &err);
	if (rc) {
		int told = rc == LOCUS_EINCOMPLETE ? report_failures(&x, rank, size) : 0;
		if (rank == 0 && !told)
			cli_error("scatter", &err, rc);
		status = CLI_EXIT_FAIL;
	} else if (rank == 0) {
		if ((rc = locus_divisible_simulate(&planned, plan, &err))) {
			status = cli_error("scatter", &err, rc);
		} else {
			print_report(plan, planned, measured, fsize, a->unit);
			fflush(stdout);
			/* Both written, then both renamed: never one without the other. */
			struct measured m = {plan, measured};
			const struct cli_output outs[] = {{a->json, write_json, &m},
							  {a->svg, write_svg, &m}};
			if (cli_outputs_write("scatter", outs, 2))
				status = CLI_EXIT_FAIL;
		}
	}
out:
	locus_divisible_run_destroy(measured);
	locus_divisible_run_destroy(planned);
	locus_divisible_plan_destroy(plan);
	cli_dl_fini(&a->dl);
	if (cli_leak_check())
		status = CLI_EXIT_FAIL;
	MPI_Finalize();
	return status;
}
#endif

int cmd_scatter(int argc, char **argv)
{
	struct scatter_args a;
	memset(&a, 0, sizeof a);
	cli_dl_init(&a.dl);
	int rc = parse_args(argc, argv, &a);
	if (rc || a.help) {
		cli_dl_fini(&a.dl);
		return rc;
	}
#ifdef LOCUS_HAVE_MPI
	if (cli_in_mpi_job())
		return rank_main(&a);
	/* Everything that can be checked before the job starts is. */
	uint64_t size;
	if ((rc = input_size(&a, &size)))
		goto out;
	uint64_t np = a.np;
	if (!np && (a.dl.workers_file || a.dl.n_gen)) {
		if ((rc = cli_dl_workers("scatter", &a.dl)))
			goto out;
		np = a.dl.n + 1;
		cli_dl_fini(&a.dl);
	}
	if (!np) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		np = (uint64_t)(cores > 1 ? cores : 1) + 1;
	}
	struct locus_divisible_plan *plan = NULL;
	if ((rc = workers_for(&a, np)) ||
	    (rc = cli_dl_plan("scatter", &a.dl, (double)size / (double)a.unit, &plan)))
		goto out;
	locus_divisible_plan_destroy(plan);
	cli_dl_fini(&a.dl);
	return cli_mpi_launch("scatter", &a.mpi, np, NULL, argc, argv);
out:
	cli_dl_fini(&a.dl);
	return rc;
#else
	(void)workers_for;
	(void)input_size;
	cli_dl_fini(&a.dl);
	fprintf(stderr, "locus scatter: this locus was built without MPI; install Open MPI or "
			"MPICH (scripts/install-deps) and build again\n");
	return CLI_EXIT_FAIL;
#endif
}
