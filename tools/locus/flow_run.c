/* locus flow run: a workflow for real on MPI ranks (locus_mpi_flow_run),
 * started under the MPI launcher by the command itself (mpirun.c); the
 * options and the other subcommands are flow.c's. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "flow_cmd.h"
#ifdef LOCUS_HAVE_MPI
#include "locus/mpi.h"
#endif

/* The shared directory: --shared, else the workflow file's directory
 * (where a Makeflow's relative names point), else this one. */
#ifdef LOCUS_HAVE_MPI
static void run_progress(void *user, size_t done, size_t total, double seconds)
{
	(void)user;
	fprintf(stderr, "\rlocus flow run: %zu of %zu tasks done, %.1f s", done, total, seconds);
	if (done == total)
		fputc('\n', stderr);
}

/* --measured PREFIX: the run's nodes with what the probes measured of
 * their storage and network, and each task's seconds in its command, in
 * the workflow's task order (a task the run did not do: the workflow's
 * runtime), for a replay with locus flow sim. */
static int write_measured(const struct flow_args *a, struct locus_mpi_flow_report *rep,
			  const struct locus_graph *g, double disk_bw, double net_bw,
			  struct locus_error *err)
{
	char plat[4096], work[4096];
	snprintf(plat, sizeof plat, "%s.platform.json", a->measured);
	snprintf(work, sizeof work, "%s.work", a->measured);
	for (size_t k = 0; k < rep->platform->n_nodes; k++) {
		if (rep->platform->nodes[k].cores == 0)
			continue;
		if (net_bw > 0)
			rep->platform->nodes[k].net_bw = net_bw;
		if (disk_bw > 0)
			rep->platform->nodes[k].disk_bw = disk_bw;
	}
	/* A task the run did not do: the workflow's runtime. */
	for (size_t t = 0; t < g->n_tasks; t++)
		if (rep->work[t] < 0)
			rep->work[t] = g->tasks[t].work;
	char header[4200];
	snprintf(header, sizeof header, "seconds in the command, by task of %s in its order",
		 a->workflow);
	int rc = cli_write_measured(a->measured, rep->platform, rep->work, g->n_tasks, header, err);
	if (rc)
		return rc;
	fprintf(stderr,
		"locus flow run: storage %.0f MB/s, network %.0f MB/s (probes); the copies "
		"achieved %.0f MB/s between nodes and %.0f MB/s with the shared directory\n",
		disk_bw / 1e6, net_bw / 1e6, rep->net_bw / 1e6, rep->fs_bw / 1e6);
	fprintf(stderr,
		"locus flow run: measured %s and %s; replay with: locus flow sim %s --platform %s "
		"--work trace:%s",
		plat, work, a->workflow, plat, work);
	if (rep->fs_bw > 0)
		fprintf(stderr, " --fs-bw %.0f", rep->fs_bw);
	fprintf(stderr, "\n");
	return 0;
}

struct failed_page {
	const struct locus_result *r;
	const struct locus_report_html_options *opt;
};

static int failed_page_write(void *ctx, FILE *fp)
{
	const struct failed_page *p = ctx;
	return locus_report_html(p->r, p->opt, fp);
}

/* The --report page's options: its title and the attempts that failed,
 * with their stderr, from the task logs beside the status file (ff holds
 * them until the caller's flow_failures_fini). */
static struct locus_report_html_options report_page(const struct flow_args *a,
						    const char *status_file, int failed,
						    char *title, size_t size,
						    struct flow_failures *ff)
{
	snprintf(title, size, "locus flow run %s%s", a->workflow, failed ? " (failed)" : "");
	flow_failures_read(status_file, ff);
	struct locus_report_html_options html;
	locus_report_html_options_init(&html);
	html.title = title;
	html.failures = ff->f;
	html.n_failures = ff->n;
	return html;
}

/* A run that failed has no result, but --report still says why: the
 * run's error and every failed attempt with its stderr (the task logs),
 * on a page with no chart. The other output files are not written. */
static void failed_report(struct flow_args *a, const struct locus_graph *g, const char *pname,
			  const char *status_file, const struct locus_error *err)
{
	struct locus_result r;
	memset(&r, 0, sizeof r);
	snprintf(r.engine, sizeof r.engine, "mpi");
	snprintf(r.policy, sizeof r.policy, "%s", pname);
	r.seed = a->seed;
	r.n_tasks = g->n_tasks;
	r.failed = 1;
	char buf[1024];
	snprintf(r.failure, sizeof r.failure, "%s", locus_error_format(err, buf, sizeof buf));
	char title[4200];
	struct flow_failures ff = {0};
	struct locus_report_html_options html =
	    report_page(a, status_file, 1, title, sizeof title, &ff);
	struct failed_page page = {&r, &html};
	struct cli_output out = {a->res.report, failed_page_write, &page};
	cli_outputs_write("flow run", &out, 1);
	flow_failures_fini(&ff);
}

static int run_rank(struct flow_args *a)
{
	const char *cmd = "flow run";
	int level, rank, status = 0;
	MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &level);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	cli_catch_signals(0);
	cli_watch_launcher();
	int group = cli_keep_commands();
	struct locus_error err = {0};
	struct locus_graph *g = NULL;
	char shared[4096], status_file[4200];
	flow_shared_dir(a, shared, sizeof shared);
	flow_status_path(a, shared, status_file, sizeof status_file);
	char *opts = NULL;
	const char *pname = a->pol.name ? a->pol.name : "amfs";
	if (!strcmp(pname, "amfs"))
		opts = amfs_opts(a, a->config);
	else if (a->pol.opts)
		opts = strdup(a->pol.opts);
	/* Every rank reads the workflow: the same file gives the same graph
	 * (and the same refusal of a task that has no command to run). */
	int rc = flow_load(&g, a, &err);
	if (!rc && !a->stand_in)
		rc = locus_flow_check_commands(g, a->workflow, &err);
	struct locus_mpi_flow_report rep = {0};
	if (!rc) {
		struct locus_mpi_flow_options o = {
		    .graph = g,
		    .shared = shared,
		    .local = a->local,
		    .policy = pname,
		    .policy_opts = opts,
		    .dispatchers = (size_t)a->dispatchers,
		    .emulate_nodes = (size_t)a->emulate,
		    .node_memory = (double)a->memory,
		    .node_disk = (double)a->storage,
		    .seed = a->seed,
		    .retries = (int)a->retries,
		    .keep = a->keep,
		    .stand_in = a->stand_in,
		    .journal = a->journal,
		    .checksum = a->checksum,
		    .wait = a->wait,
		    .cancel = &cli_cancelled,
		    .process_group = group,
		    .timeout = a->timeout,
		    .status = status_file,
		    .group_fd = cli_keeper_fd(),
		    .progress = a->tty && !a->quiet ? run_progress : NULL,
		};
		rc = locus_mpi_flow_run(MPI_COMM_WORLD, &o, &rep, &err);
	}
	double disk_bw = 0, net_bw = 0;
	if (!rc && a->measured)
		locus_mpi_probe(MPI_COMM_WORLD, a->local, &disk_bw, &net_bw);
	if (rc) {
		if (rank == 0)
			status = cli_error(cmd, &err, rc);
		else
			status = CLI_EXIT_FAIL;
		if (rank == 0 && a->res.report && g)
			failed_report(a, g, pname, status_file, &err);
	} else if (rank == 0) {
		const struct locus_result *r = rep.result;
		uint64_t D = a->dispatchers ? a->dispatchers : 1;
		char jdirs[64] = "";
		if (rep.swept_journal_dirs)
			snprintf(jdirs, sizeof jdirs, " (%zu whose journal was deleted)",
				 rep.swept_journal_dirs);
		if (rep.swept_files || rep.swept_dirs)
			fprintf(stderr,
				"locus flow run: swept what killed runs left: %zu temporar%s in "
				"the shared directory, %zu run director%s under %s%s\n",
				rep.swept_files, rep.swept_files == 1 ? "y" : "ies", rep.swept_dirs,
				rep.swept_dirs == 1 ? "y" : "ies", a->local ? a->local : "/dev/shm",
				jdirs);
		if (a->journal && (rep.skipped || rep.rerun))
			fprintf(
			    stderr,
			    "locus flow run: the journal says %zu task%s are done; %zu of those "
			    "run again, their files lost\n",
			    rep.skipped + rep.rerun, rep.skipped + rep.rerun == 1 ? "" : "s",
			    rep.rerun);
		if (rep.lost)
			fprintf(
			    stderr,
			    "locus flow run: %zu file%s lost while the run went (gone from its "
			    "node, or not as made); made again in %zu round%s (the results below "
			    "are the last round's)\n",
			    rep.lost, rep.lost == 1 ? " was" : "s were", rep.rounds,
			    rep.rounds == 1 ? "" : "s");
		if (rep.repeated)
			fprintf(stderr,
				"locus flow run: %zu task%s ran again: policy %s moved %s as %s "
				"ended, from a monitor a message late (the first run counts)\n",
				rep.repeated, rep.repeated == 1 ? "" : "s", pname,
				rep.repeated == 1 ? "it" : "them",
				rep.repeated == 1 ? "it" : "they");
		if (a->res.json)
			rc = locus_report_json(r, stdout);
		else
			print_run(r, g, a, D);
		fflush(stdout);
		if (rc)
			status = cli_error(cmd, &err, rc);
		char title[4200];
		struct flow_failures ff = {0};
		struct locus_report_html_options html =
		    report_page(a, status_file, 0, title, sizeof title, &ff);
		a->res.html = &html;
		int ost = cli_results_write(cmd, &a->res, r);
		flow_failures_fini(&ff);
		if (ost)
			status = ost;
		if (a->measured && (rc = write_measured(a, &rep, g, disk_bw, net_bw, &err)))
			status = cli_error(cmd, &err, rc);
	}
	locus_mpi_flow_report_fini(&rep);
	locus_graph_destroy(g);
	free(opts);
	if (cli_leak_check())
		status = CLI_EXIT_FAIL;
	MPI_Finalize();
	return status;
}
#endif

int flow_run(struct flow_args *a, int argc, char **argv)
{
	/* In a Slurm job the nodes keep their files in its local temporary
	 * directory. */
	if (!a->local)
		a->local = cli_slurm_tmpdir();
	if (a->dry_run)
		return flow_dry_run(a);
#ifdef LOCUS_HAVE_MPI
	if (cli_in_mpi_job())
		return run_rank(a);
	char mplat[4096] = "", mwork[4096] = "";
	if (a->measured) {
		snprintf(mplat, sizeof mplat, "%s.platform.json", a->measured);
		snprintf(mwork, sizeof mwork, "%s.work", a->measured);
	}
	const char *measured[] = {a->measured ? mplat : NULL, a->measured ? mwork : NULL};
	int rc = cli_results_check("flow run", &a->res, measured, 2);
	if (rc)
		return rc;
	/* A workflow that cannot be read is said before any rank starts. */
	struct locus_error err = {0};
	struct locus_graph *g = NULL;
	if ((rc = flow_load(&g, a, &err)) ||
	    (!a->stand_in && (rc = locus_flow_check_commands(g, a->workflow, &err)))) {
		locus_graph_destroy(g);
		return cli_error("flow run", &err, rc);
	}
	locus_graph_destroy(g);
	uint64_t D = a->dispatchers ? a->dispatchers : 1, np = a->np;
	struct cli_slurm sl;
	int in_slurm = a->mpi.hostfile || a->emulate ? 0 : cli_slurm_allocation("flow run", &sl);
	if (in_slurm < 0)
		return -in_slurm;
	if (in_slurm) {
		/* The allocation's tasks, on its nodes (the launcher reads
		 * them from Slurm). */
		if (!np)
			np = sl.ntasks;
		if (!a->quiet)
			fprintf(stderr,
				"locus flow run: in Slurm job %s: %" PRIu64 " ranks on %zu node%s "
				"(%s), node storage under %s\n",
				sl.job, np, sl.n_nodes, sl.n_nodes == 1 ? "" : "s", sl.list,
				a->local);
		cli_slurm_fini(&sl);
	}
	if (!np) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		np = a->emulate ? a->emulate + D : (uint64_t)(cores > 1 ? cores : 2);
	}
	if (np < D + 1)
		return cli_usage_error(
		    "flow run", "--np %" PRIu64 " leaves no worker beside %" PRIu64 " dispatcher%s",
		    np, D, D == 1 ? "" : "s");
	return cli_mpi_launch("flow", &a->mpi, np, NULL, argc, argv);
#else
	(void)a;
	(void)argc;
	(void)argv;
	fprintf(stderr, "locus flow run: this locus was built without MPI; install Open MPI or "
			"MPICH (scripts/install-deps) and build again\n");
	return CLI_EXIT_FAIL;
#endif
}
