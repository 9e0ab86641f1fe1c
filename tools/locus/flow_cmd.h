/* locus flow's parts (tools/locus): the options every subcommand reads,
 * and what flow.c (show, sim, run) and flow_ops.c (a dry run, clean,
 * status) share. */
#ifndef LOCUS_CLI_FLOW_CMD_H
#define LOCUS_CLI_FLOW_CMD_H

#include "cli.h"

#define FLOW_MAX_RUNS 32

struct flow_args {
	const char *sub, *workflow;
	/* The workflow. */
	struct locus_flow_load_options load;
	uint64_t seed;
	const char *work; /* sim: --work SPEC */
	struct locus_pattern_options pat;
	const char *reduce;
	/* The policy (its name NULL: amfs). */
	const char *config, *compare;
	struct cli_policy pol;
	/* run */
	struct cli_mpi mpi;
	uint64_t np, emulate, retries;
	const char *local, *shared, *journal, *measured, *status;
	const char *task; /* status --task NAME */
	int keep, have_run, have_run_only, have_limit, tty, checksum, wait, dry_run;
	double stand_in, timeout;
	/* The platform (sim). */
	const char *platform;
	uint64_t nodes, cores, dispatchers, net_bw, disk_bw, storage, fs_bw;
	uint64_t memory; /* --memory: each worker node's (sim and run) */
	/* --task-cores, --task-memory, --task-disk: load.task_default's. */
	uint64_t task_cores, task_memory, task_disk;
	double fs_ops, fs_latency, latency, cost_msg, cost_entry;
	double preset_fetch; /* --platform preset:...: amfs's fetch_cost unless -o gives one */
	int have_nodes, have_dispatchers;
	/* What to print and write. */
	struct cli_results res;
	int quiet;
};

/* The workflow named by the arguments (with --reduce's stages checked). */
int flow_load(struct locus_graph **g, const struct flow_args *a, struct locus_error *err);
/* The run's shared directory (--shared, else the workflow's directory). */
int flow_shared_dir(const struct flow_args *a, char *buf, size_t size);
/* Where the run's status file is. */
void flow_status_path(const struct flow_args *a, const char *shared, char *buf, size_t size);

int flow_status(struct flow_args *a);
/* The failed attempts kept beside status file `status` (STATUS.tasks),
 * in the order of the tasks and attempts, with the end of each one's
 * stderr, for the HTML report; none when it cannot be read. */
struct flow_failures {
	struct locus_report_failure *f;
	size_t n;
};
void flow_failures_read(const char *status, struct flow_failures *ff);
void flow_failures_fini(struct flow_failures *ff);
int flow_dry_run(struct flow_args *a);

/* amfs's options, "KEY=VALUE,...": the configuration, the pattern
 * thresholds and -o's (malloc'ed, or NULL). */
char *amfs_opts(const struct flow_args *a, const char *config);

/* The text summary of a run of workflow g (sim or run) on D dispatchers. */
void print_run(const struct locus_result *r, const struct locus_graph *g, const struct flow_args *a,
	       uint64_t D);

/* locus flow run (flow_run.c): the launcher's part, or a rank's under
 * it. An exit status. */
int flow_run(struct flow_args *a, int argc, char **argv);
int flow_clean(struct flow_args *a);

#endif
