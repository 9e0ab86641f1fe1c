/* locus flow: many-task workflows (AME/AMFS): show one's stages and
 * patterns, or run it in the simulator under a data-management policy. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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

static const char *const help_head =
    "usage: locus flow show WORKFLOW [OPTIONS]\n"
    "       locus flow sim WORKFLOW [OPTIONS]\n"
    "       locus flow run WORKFLOW [-np N] [--emulate-nodes K] [OPTIONS]\n"
    "       locus flow run WORKFLOW --dry-run [OPTIONS]\n"
    "       locus flow clean WORKFLOW [--shared DIR] [--journal FILE]\n"
    "       locus flow status DIR|JOURNAL|FILE [--json]\n"
    "\n"
    "Many-task workflows: programs coupled by files. 'show' prints a workflow's\n"
    "stages, the dataflow patterns found in them (gather, reduce, multicast,\n"
    "scatter, pipeline: the AME/AMFS paper's run-time identification) and its\n"
    "critical path. 'sim' runs it in the simulator under a data-management policy\n"
    "(AME/AMFS by default, in one of its configurations) on a cluster whose nodes\n"
    "keep intermediate files in local storage beside a shared file system, and\n"
    "reports per-stage times and where every byte came from. 'run' runs it for real\n"
    "on MPI ranks under the same policy: each task's command in a working directory\n"
    "of its node where its inputs appear under their names, files kept in each\n"
    "node's local storage and copied between nodes by MPI, the final outputs\n"
    "written to the shared directory. 'run --dry-run' prints what a run would do\n"
    "(ranks, the workflow's inputs and whether they are there, every task's\n"
    "command, reads and writes in the order its dependencies allow) and makes\n"
    "nothing. 'clean' removes what a run of the workflow made in the shared\n"
    "directory (every file a task writes) and its --journal, as makeflow -c does,\n"
    "and nothing else. A run keeps a status file up to date (tasks waiting,\n"
    "running, done, failed attempts and bytes, per stage): DIR/.locus-flow-status\n"
    "in its shared directory, or JOURNAL.status beside its journal; 'status' prints\n"
    "it, and says when the run was killed. Inside a Slurm allocation (salloc,\n"
    "sbatch) 'run' takes its ranks and nodes from the allocation and keeps node\n"
    "storage in the job's local temporary directory (docs/slurm.md).\n";

static const char *const help_workflow =
    "\n"
    "WORKFLOW:\n"
    "  FILE                      WfCommons JSON, a Makeflow (named Makeflow, *.mf or\n"
    "                            *.makeflow, or told by content), STG or the text form\n"
    "  makeflow:FILE, wfcommons:FILE, stg:FILE, text:FILE   the format named\n"
    "  gen:montage[:IMAGES]      the paper's Montage (1319 images: the 6x6 degree\n"
    "                            mosaic of Table VI)\n"
    "  gen:blast[:N[:M]]         the paper's mtcBLAST: N database fragments (63), M\n"
    "                            query files (16)\n";

static const char *const help_tail =
    "\n"
    "Sizes and bandwidths (bytes, bytes/s): 64M, 1G are powers of 1024; 80MB, 1GB\n"
    "powers of 1000.\n"
    "\n"
    "Examples:\n"
    "  locus flow show gen:montage\n"
    "  locus flow show montage-chameleon-2mass-01d-001.json --json\n"
    "  locus flow sim gen:montage --nodes 128 --compare staging,cache,aware,cogather,asgather\n"
    "  locus flow sim gen:blast:63:128 --nodes 512 --config cogather -o steal=2\n"
    "  locus flow sim Makeflow --nodes 8 --cores 2 --compare cache,taskvine,dask\n"
    "  locus flow sim wf.json --config aware --storage 2G --out run.json --trace run.trace\n"
    "  locus flow run mosaic/Makeflow -np 5 --emulate-nodes 2 --config cogather --gantt g.svg\n"
    "  mpirun --hostfile hosts -np 65 locus flow run Makeflow --local /tmp --shared $PWD\n"
    "  sbatch -N 4 -n 32 --wrap 'locus flow run Makeflow --journal m.j'   # in Slurm\n"
    "  locus flow run Makeflow -np 9 --dry-run        # what would run, in order; makes nothing\n"
    "  locus flow run Makeflow -np 9 --timeout 600 --retries 2 --journal m.j\n"
    "  locus flow status m.j                          # while it runs, or after it was killed\n"
    "  locus flow clean Makeflow --journal m.j        # as makeflow -c\n";

static const char *const configs[] = {"staging",  "cache",  "aware", "cogather",
				      "asgather", "shared", "auto"};

static int is_config(const char *s)
{
	for (size_t k = 0; k < CLI_ARRAY_LEN(configs); k++)
		if (!strcmp(s, configs[k]))
			return 1;
	return 0;
}

/* ---- the options, a group per section of --help ------------------------------ */

/* Named ids of the options without a short letter. */
enum {
	O_SEED = 256,
	O_JITTER,
	O_RUNTIME_SCALE,
	O_WORK,
	O_RUNTIME,
	O_TASK_CORES,
	O_TASK_MEMORY,
	O_TASK_DISK,
	O_GATHER,
	O_MULTICAST,
	O_SCATTER,
	O_REDUCE,
	O_CONFIG,
	O_COMPARE,
	O_LOCAL,
	O_SHARED,
	O_RETRIES,
	O_KEEP,
	O_JOURNAL,
	O_CHECKSUM,
	O_WAIT,
	O_MEASURED,
	O_STAND_IN,
	O_DRY_RUN,
	O_TIMEOUT,
	O_STATUS,
	O_TASK,
	O_DISPATCHERS,
	O_NET_BW,
	O_DISK_BW,
	O_STORAGE,
	O_MEMORY,
	O_FS_BW,
	O_FS_OPS,
	O_FS_LATENCY,
	O_LATENCY,
	O_COST_MSG,
	O_COST_ENTRY,
	O_PROGRESS_TTY,
};

#define AT(field) offsetof(struct flow_args, field)

static int workflow_option(const char *cmd, void *values, int id, const char *arg)
{
	struct flow_args *a = values;
	switch (id) {
	case O_SEED:
		a->load.seed = a->seed;
		return 0;
	case O_JITTER:
		if (!(a->load.jitter >= 0 && a->load.jitter <= 100))
			return cli_expects(cmd, "--jitter",
					   "a coefficient of variation in [0, 100]", arg);
		return 0;
	case O_RUNTIME_SCALE:
		if (!(a->load.runtime_scale > 0 && a->load.runtime_scale <= 1e9))
			return cli_expects(cmd, "--runtime-scale", "a factor > 0", arg);
		return 0;
	case O_RUNTIME:
		if (!(a->load.runtime >= 0 && a->load.runtime <= 1e12))
			return cli_expects(cmd, "--runtime", "seconds >= 0", arg);
		return 0;
	case O_TASK_CORES: /* Makeflow's CORES' range */
		if (a->task_cores < 1 || a->task_cores > 1000000)
			return cli_expects(cmd, "--task-cores", "a count from 1 to 1000000", arg);
		a->load.task_default.cores = (uint32_t)a->task_cores;
		return 0;
	case O_TASK_MEMORY:
		a->load.task_default.memory = a->task_memory;
		return 0;
	case O_TASK_DISK:
		a->load.task_default.disk = a->task_disk;
		return 0;
	}
	return 0;
}

static const struct cli_opt workflow_opts[] = {
    {"seed", O_SEED, CLI_UINT, AT(seed), "S",
     "seed of generated workflows and of the run (default 1)"},
    {"jitter", O_JITTER, CLI_NUMBER, AT(load.jitter), "CV",
     "generated runtimes' coefficient of variation"},
    {"runtime-scale", O_RUNTIME_SCALE, CLI_NUMBER, AT(load.runtime_scale), "X",
     "multiply generated runtimes by X"},
    {"work", O_WORK, CLI_TEXT, AT(work), "SPEC",
     "sim: every task's runtime from SPEC instead (fixed:S,\n"
     "uniform:LO:HI, exp:MEAN, per-mib:S, trace:FILE: one\n"
     "value per task in order, as --measured writes)"},
    {"runtime", O_RUNTIME, CLI_NUMBER, AT(load.runtime), "SECONDS",
     "a Makeflow rule's runtime when no LOCUS_RUNTIME\n"
     "variable gives one (default 1)"},
    {"task-cores", O_TASK_CORES, CLI_UINT, AT(task_cores), "N",
     "the workflow's default demand: what a task takes of\n"
     "each resource the workflow does not state for it\n"
     "(as if in Makeflow's default category; default 1)"},
    {"task-memory", O_TASK_MEMORY, CLI_SIZE, AT(task_memory), "SIZE", "(default 0: none)"},
    {"task-disk", O_TASK_DISK, CLI_SIZE, AT(task_disk), "SIZE", "(default 0: none)"},
};
static const struct cli_group workflow_group = CLI_GROUP(workflow_opts, workflow_option);

/* --gather, --multicast, --scatter: counts from 1. */
static int patterns_option(const char *cmd, void *values, int id, const char *arg)
{
	struct flow_args *a = values;
	if (id == O_REDUCE)
		return 0;
	const char *opt = id == O_GATHER      ? "--gather"
			  : id == O_MULTICAST ? "--multicast"
					      : "--scatter";
	uint32_t *v = id == O_GATHER	  ? &a->pat.gather
		      : id == O_MULTICAST ? &a->pat.multicast
					  : &a->pat.scatter;
	uint64_t u;
	int rc;
	if ((rc = cli_uint(cmd, opt, arg, &u)))
		return rc;
	if (!u || u > UINT32_MAX)
		return cli_expects(cmd, opt, "a count >= 1", arg);
	*v = (uint32_t)u;
	return 0;
}

static const struct cli_opt patterns_opts[] = {
    {"gather", O_GATHER, CLI_OWN, 0, "N", "a task reading N produced files or more gathers (16)"},
    {"multicast", O_MULTICAST, CLI_OWN, 0, "N",
     "a file N tasks of one stage read is multicast (8)"},
    {"scatter", O_SCATTER, CLI_OWN, 0, "N", "a task whose outputs N tasks read scatters (8)"},
    {"reduce", O_REDUCE, CLI_TEXT, AT(reduce), "STAGE,...",
     "these stages' gathers are reductions: run runs the\n"
     "task's own command at every node of the tree over the\n"
     "inputs there, with the words naming the others left\n"
     "out (inputs as words of their own, one output file)"},
};
static const struct cli_group patterns_group = CLI_GROUP(patterns_opts, patterns_option);

static const struct cli_opt config_opts[] = {
    {"config", O_CONFIG, CLI_TEXT, AT(config), "NAME",
     "amfs's configuration (Fig. 10): staging (inputs\n"
     "staged from the shared file system, outputs written\n"
     "back), cache (intermediate files stay on the nodes),\n"
     "aware (+ data-aware dispatch), cogather (+ collective\n"
     "gather), asgather (+ asynchronous gather), shared\n"
     "(every read and write on the shared file system), auto\n"
     "(collective or asynchronous gather chosen per task)"},
};
static const struct cli_group config_group = CLI_GROUP(config_opts, NULL);

static const struct cli_say policy_say[] = {
    {'x', "amfs (default), taskvine, dask, or any policy of\n"
	  "'locus sim --list-policies'"},
    {'o', "policy options (amfs: aware=now|first|bytes, steal=N,\n"
	  "keep=1, multicast=N, ...: docs/flow.md)"},
    {0, NULL},
};

static const struct cli_opt compare_opts[] = {
    {"compare", O_COMPARE, CLI_TEXT, AT(compare), "A,B,...",
     "run several on the same workflow and platform: each\n"
     "an amfs configuration or a policy name (-o applies\n"
     "to the amfs runs); one table, then time per stage"},
};
static const struct cli_group compare_group = CLI_GROUP(compare_opts, NULL);

/* Every option of 'locus flow run' alone, and their ranges. */
static int ranks_option(const char *cmd, void *values, int id, const char *arg)
{
	struct flow_args *a = values;
	if (id == O_TASK)
		return *arg ? 0 : cli_expects(cmd, "--task", "a task's name", arg); /* status's */
	if (id == O_TIMEOUT || id == O_RETRIES)
		a->have_limit = 1; /* run's and sim's */
	else
		a->have_run = 1;
	if (id != O_SHARED && id != O_JOURNAL)
		a->have_run_only = 1; /* not clean's */
	if (id == 'n' && (!a->np || a->np > 1000000))
		return cli_expects(cmd, "--np", "a count of ranks from 2", arg);
	if (id == 'K' && (!a->emulate || a->emulate > 100000))
		return cli_expects(cmd, "--emulate-nodes", "a count from 1 to 100000", arg);
	if (id == O_RETRIES && a->retries > 1000)
		return cli_expects(cmd, "--retries", "a count from 0 to 1000", arg);
	if (id == O_STAND_IN && !(a->stand_in > 0 && a->stand_in <= 1e6))
		return cli_expects(cmd, "--stand-in", "a factor > 0", arg);
	if (id == O_TIMEOUT && !(a->timeout > 0 && a->timeout <= 1e9))
		return cli_expects(cmd, "--timeout", "seconds > 0", arg);
	/* An empty name would be the file system's root (--local), this
	 * directory (--shared), or no file at all (--journal). */
	if ((id == O_LOCAL || id == O_SHARED || id == O_JOURNAL || id == O_STATUS) && !*arg)
		return cli_expects(cmd,
				   id == O_LOCAL    ? "--local"
				   : id == O_SHARED ? "--shared"
				   : id == O_STATUS ? "--status"
						    : "--journal",
				   id == O_JOURNAL || id == O_STATUS ? "a file" : "a directory",
				   arg);
	return 0;
}

static const struct cli_opt ranks_opts[] = {
    {"np", 'n', CLI_UINT, AT(np), "N",
     "ranks (default: K + 1 with --emulate-nodes, else the\n"
     "cores): the first D run the dispatchers, the others\n"
     "are workers, each its node's storage server too"},
    {"emulate-nodes", 'K', CLI_UINT, AT(emulate), "K",
     "one machine plays K nodes, each with its own storage\n"
     "directory (worker ranks spread round-robin)"},
    {"local", O_LOCAL, CLI_TEXT, AT(local), "DIR",
     "where the nodes' storage goes (default /dev/shm); made\n"
     "if missing (its parent must exist) and then removed"},
    {"shared", O_SHARED, CLI_TEXT, AT(shared), "DIR",
     "the shared directory: the workflow's inputs are read\n"
     "there and its final outputs written there (default:\n"
     "the workflow file's directory); one run at a time\n"
     "in it, which sweeps what killed runs left"},
    {"retries", O_RETRIES, CLI_UINT, AT(retries), "N",
     "run a failing task up to N more times (default 1;\n"
     "sim: a task over its time limit)"},
    {"keep", O_KEEP, CLI_FLAG, AT(keep), NULL, "keep every node's storage and working directories"},
    {"journal", O_JOURNAL, CLI_TEXT, AT(journal), "FILE",
     "record each finished task and where its outputs are;\n"
     "run again with it, an interrupted run does only what\n"
     "is left, taking the files the nodes kept (a task\n"
     "whose files were lost runs again); a file that is\n"
     "not a journal is refused and left as it is"},
    {"checksum", O_CHECKSUM, CLI_FLAG, AT(checksum), NULL,
     "the journal checks kept files by checksum, not size only"},
    {"wait", O_WAIT, CLI_FLAG, AT(wait), NULL,
     "wait for another run holding the shared directory\n"
     "(or the journal) to end, then run; without it such a\n"
     "run is refused, naming its pid"},
    {"measured", O_MEASURED, CLI_TEXT, AT(measured), "PREFIX",
     "write PREFIX.platform.json (the nodes, with the rate\n"
     "the copies between them achieved) and PREFIX.work\n"
     "(each task's seconds), and print the 'locus flow\n"
     "sim' command that replays the run"},
    {"stand-in", O_STAND_IN, CLI_NUMBER, AT(stand_in), "X",
     "run stand-ins instead of the commands: each reads its\n"
     "inputs, sleeps X times its runtime and writes outputs\n"
     "of their recorded sizes (WfCommons instances)"},
    {"timeout", O_TIMEOUT, CLI_NUMBER, AT(timeout), "SECONDS",
     "end an attempt that runs longer (its whole process\n"
     "group: SIGTERM, SIGKILL 2 s later), report it with\n"
     "its stderr and retry it as any failure; a Makeflow's\n"
     ".MAKEFLOW WALL_TIME gives its rules' own limit (sim:\n"
     "an attempt computing longer fails at the limit)"},
    {"status", O_STATUS, CLI_TEXT, AT(status), "FILE",
     "the status file the run keeps up to date (default:\n"
     "JOURNAL.status with --journal, else DIR/.locus-flow-\n"
     "status in the shared directory); 'locus flow status'\n"
     "prints it"},
    {"task", O_TASK, CLI_TEXT, AT(task), "NAME",
     "status: each attempt of task NAME (its first output's\n"
     "name): node, exit, wall and CPU seconds, peak memory,\n"
     "and its stdout and stderr, kept in STATUS.tasks/"},
    {"dry-run", O_DRY_RUN, CLI_FLAG, AT(dry_run), NULL,
     "print what the run would do, in order, and start\n"
     "nothing: no rank, file, directory, lock or journal"},
};
static const struct cli_group ranks_group = CLI_GROUP(ranks_opts, ranks_option);

/* The nodes' options (which --platform excludes), and the ranges. */
static int platform_option(const char *cmd, void *values, int id, const char *arg)
{
	struct flow_args *a = values;
	switch (id) {
	case 'N':
		a->have_nodes = 1;
		if (!a->nodes || a->nodes > 1000000)
			return cli_expects(cmd, "--nodes", "a count from 1 to 1000000", arg);
		return 0;
	case 'c':
		a->have_nodes = 1;
		if (!a->cores || a->cores > 4096)
			return cli_expects(cmd, "--cores", "a count from 1 to 4096", arg);
		return 0;
	case O_DISPATCHERS:
		a->have_dispatchers = 1;
		if (!a->dispatchers || a->dispatchers > 100000)
			return cli_expects(cmd, "--dispatchers", "a count from 1 to 100000", arg);
		return 0;
	case O_NET_BW:
	case O_DISK_BW:
	case O_STORAGE:
		/* run's --storage: each node's room for its tasks' DISK. */
		a->have_nodes |= id != O_STORAGE || strcmp(a->sub, "run");
		return 0;
	case O_FS_OPS:
		if (!(a->fs_ops >= 0 && a->fs_ops <= 1e12))
			return cli_expects(cmd, "--fs-ops",
					   "operations a second >= 0 (0: no limit)", arg);
		return 0;
	}
	return 0;
}

static const struct cli_opt platform_opts[] = {
    {"platform", 'p', CLI_TEXT, AT(platform), "FILE",
     "nodes from a platform file (nodes with 0 cores run\n"
     "the dispatchers), or preset:bgp[:NODES]: the AME/AMFS\n"
     "paper's Blue Gene/P, a partition of NODES nodes (128:\n"
     "512 cores) with its file system and costs\n"
     "(docs/flow.md)"},
    {"nodes", 'N', CLI_UINT, AT(nodes), "N", "or N generated worker nodes (default 64)"},
    {"cores", 'c', CLI_UINT, AT(cores), "C", "cores (workers) per node (default 4, as BG/P)"},
    {"dispatchers", O_DISPATCHERS, CLI_UINT, AT(dispatchers), "D",
     "amfs's dispatchers, each with a metadata server, on\n"
     "nodes of their own (default: one per 63 worker\n"
     "nodes, the paper's 1:63)"},
    {"net-bw", O_NET_BW, CLI_BANDWIDTH, AT(net_bw), "BW",
     "each node's network interface (default 125MB,\n"
     "the library's; preset:bgp has 425MB)"},
    {"disk-bw", O_DISK_BW, CLI_BANDWIDTH, AT(disk_bw), "BW",
     "each node's local storage bandwidth (default 1GB)"},
    {"storage", O_STORAGE, CLI_SIZE, AT(storage), "SIZE",
     "each node's local storage capacity (default: no\n"
     "limit; a run that overfills one fails saying which;\n"
     "run: each worker node's room for its tasks' DISK,\n"
     "by default the space free where its storage is)"},
    {"memory", O_MEMORY, CLI_SIZE, AT(memory), "SIZE",
     "each worker node's memory, which the tasks' MEMORY\n"
     "(WfCommons: memoryInBytes) share (sim default: no\n"
     "limit; run: the machine's over the nodes it plays)"},
    {"fs-bw", O_FS_BW, CLI_BANDWIDTH, AT(fs_bw), "BW",
     "the shared file system's aggregate bandwidth\n"
     "(default 1250MB)"},
    {"fs-ops", O_FS_OPS, CLI_NUMBER, AT(fs_ops), "N",
     "its metadata operations per second (default 2000)"},
    {"fs-latency", O_FS_LATENCY, CLI_SECONDS, AT(fs_latency), "SECONDS",
     "what opening a file on it costs a client; a node\n"
     "opens its files one after another (default 0)"},
    {"latency", O_LATENCY, CLI_SECONDS, AT(latency), "SECONDS",
     "message and transfer latency (default 50e-6)"},
    {"cost-msg", O_COST_MSG, CLI_SECONDS, AT(cost_msg), "SECONDS",
     "time a process spends per message it handles (5e-6)"},
    {"cost-entry", O_COST_ENTRY, CLI_SECONDS, AT(cost_entry), "SECONDS",
     "time per metadata entry examined (1e-7)"},
};
static const struct cli_group platform_group = CLI_GROUP(platform_opts, platform_option);

static const struct cli_say results_say[] = {
    {CLI_RESULTS_JSON, "print the analysis, result or comparison as JSON"},
    {CLI_RESULTS_OUT, "write the full result JSON (per stage, task, transfer)"},
    {CLI_RESULTS_LOAD, "SVG chart of per-worker load"},
    {0, NULL},
};

static const struct cli_opt misc_opts[] = {
    {"quiet", 'q', CLI_FLAG, AT(quiet), NULL, "no progress bar"},
    /* Set by the launching process when its stderr is a terminal. */
    {"progress-tty", O_PROGRESS_TTY, CLI_FLAG, AT(tty), NULL, NULL},
};
static const struct cli_group misc_group = CLI_GROUP(misc_opts, NULL);

static const struct cli_use uses[] = {
    {.group = &workflow_group, .before = help_workflow},
    {.group = &patterns_group,
     .before = "\nPattern thresholds (show; sim and run pass them to amfs as -o gather=N,...):\n"},
    {.group = &config_group, .before = "\nPolicy (sim):\n"},
    {.group = &cli_policy_group, .at = AT(pol), .say = policy_say},
    {.group = &compare_group},
    {.group = &ranks_group,
     .before = "\nRanks and attempts (run; --timeout and --retries sim too):\n"},
    {.group = &cli_mpi_group,
     .at = AT(mpi),
     .instead = "      --mpirun PATH, --hostfile FILE, --mpi-arg ARG   the launcher and its "
		"options\n"},
    {.group = &platform_group, .before = "\nPlatform (sim):\n"},
    {.group = &cli_results_group, .at = AT(res), .before = "\nOutput:\n", .say = results_say},
    {.group = &misc_group},
};

#undef AT

static const struct cli_command command =
    CLI_COMMAND(uses, CLI_OPTIONS_ANYWHERE, CLI_ERRORS_PLAIN, help_head, help_tail, 28);

/* What each subcommand takes, once all options are read: 0, or an exit
 * status (the error printed). */
static int check_args(const char *cmd, struct flow_args *a)
{
	const char *sub = a->sub;
	int is_sim = !strcmp(sub, "sim"), is_run = !strcmp(sub, "run");
	if (a->mpi.mpirun || a->mpi.hostfile || a->mpi.n_args)
		a->have_run = a->have_run_only = 1;
	if (!strcmp(sub, "status")) {
		if (a->have_run || a->have_limit || a->config || a->pol.name || a->pol.opts ||
		    a->compare || a->platform || a->have_nodes || a->have_dispatchers || a->fs_bw ||
		    a->fs_ops >= 0 || a->fs_latency > 0 || a->latency >= 0 || a->cost_msg >= 0 ||
		    a->cost_entry >= 0 || a->work || a->reduce || a->memory ||
		    cli_results_any(&a->res))
			return cli_usage_error(cmd,
					       "'locus flow status' takes --json and --task only");
		return 0;
	}
	if (a->task)
		return cli_usage_error(cmd, "--task is 'locus flow status''s");
	if (!strcmp(sub, "clean")) {
		if (a->have_run_only || a->have_limit || a->config || a->pol.name || a->pol.opts ||
		    a->compare || a->platform || a->have_nodes || a->have_dispatchers || a->fs_bw ||
		    a->fs_ops >= 0 || a->fs_latency > 0 || a->latency >= 0 || a->cost_msg >= 0 ||
		    a->cost_entry >= 0 || a->work || a->reduce || cli_results_any(&a->res) ||
		    a->res.json || a->memory)
			return cli_usage_error(cmd, "'locus flow clean' takes the workflow's "
						    "options, --shared and --journal");
		return 0;
	}
	if (!is_run && a->have_run)
		return cli_usage_error(cmd, "--np, --emulate-nodes, --local, --shared, --keep, "
					    "--stand-in, --dry-run and the launcher's options are "
					    "'locus flow run''s");
	if (!is_run && !is_sim && a->have_limit)
		return cli_usage_error(cmd, "--timeout and --retries are 'locus flow run''s and "
					    "'locus flow sim''s");
	if (a->dry_run && (cli_results_any(&a->res) || a->measured || a->res.json))
		return cli_usage_error(cmd, "a dry run writes nothing and has no result: drop "
					    "the output options");
	if (!is_sim && a->work)
		return cli_usage_error(cmd, "--work replaces the runtimes 'locus flow sim' uses");
	if (is_run &&
	    (a->compare || a->platform || a->have_nodes || a->fs_bw || a->fs_ops >= 0 ||
	     a->fs_latency > 0 || a->latency >= 0 || a->cost_msg >= 0 || a->cost_entry >= 0))
		return cli_usage_error(cmd, "a real run has real nodes: --compare and the "
					    "platform's options are 'locus flow sim''s");
	if (is_run && a->emulate && a->mpi.hostfile)
		return cli_usage_error(cmd, "--emulate-nodes plays nodes on this machine; drop "
					    "it with --hostfile");
	if (!is_sim && !is_run &&
	    (a->config || a->pol.name || a->pol.opts || a->compare || a->platform ||
	     a->have_nodes || a->have_dispatchers || a->fs_bw || a->fs_ops >= 0 ||
	     a->fs_latency > 0 || a->latency >= 0 || a->cost_msg >= 0 || a->cost_entry >= 0 ||
	     a->memory || cli_results_any(&a->res)))
		return cli_usage_error(cmd, "the policy, platform and output files are sim's "
					    "options; 'locus flow show' takes the workflow's and "
					    "the pattern thresholds, and --json");
	if (!is_sim && !is_run)
		return 0;
	if (a->platform && a->have_nodes)
		return cli_usage_error(cmd, "--platform excludes --nodes, --cores, --net-bw, "
					    "--disk-bw and --storage");
	if (a->platform && a->memory)
		return cli_usage_error(cmd, "--platform states each node's memory (\"memory\"): "
					    "drop --memory");
	if (a->config && a->compare)
		return cli_usage_error(cmd, "--compare names the configurations; drop --config");
	if (a->config && a->pol.name && strcmp(a->pol.name, "amfs"))
		return cli_usage_error(cmd, "--config is amfs's; drop it with --policy %s",
				       a->pol.name);
	if (a->config && !is_config(a->config))
		return cli_usage_error(
		    cmd,
		    "--config expects staging, cache, aware, cogather, asgather, "
		    "shared or auto, got \"%s\"",
		    a->config);
	if (a->compare && a->pol.name)
		return cli_usage_error(cmd, "--compare names the policies; drop --policy");
	if ((a->compare &&
	     cli_list_check(cmd, "--compare", "configurations or policies", a->compare)) ||
	    (a->reduce && cli_list_check(cmd, "--reduce", "stages", a->reduce)))
		return CLI_EXIT_USAGE;
	if (a->compare)
		return cli_results_one_run(cmd, &a->res);
	return 0;
}

static int parse_args(int argc, char **argv, struct flow_args *a)
{
	char cmd[16];
	snprintf(cmd, sizeof cmd, "flow %s", a->sub);
	int rc = cli_parse(cmd, &command, a, argc, argv);
	if (rc)
		return rc;
	if (optind >= argc && !strcmp(a->sub, "status"))
		return cli_usage_error(cmd, "name the run: its shared directory, its journal or "
					    "its status file");
	if (optind >= argc)
		return cli_usage_error(cmd, "name the workflow: a file, or gen:montage, gen:blast");
	a->workflow = argv[optind++];
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument \"%s\"", argv[optind]);
	return check_args(cmd, a);
}

/* The workflow, read or generated. */
int flow_load(struct locus_graph **g, const struct flow_args *a, struct locus_error *err)
{
	int rc = locus_flow_load(g, a->workflow, &a->load, err);
	if (!rc && a->reduce && (rc = locus_flow_check_stages(*g, a->reduce, ',', err))) {
		locus_graph_destroy(*g);
		*g = NULL;
	}
	return rc;
}

/* The --reduce list as an array of stage names (*names is one malloc'ed
 * copy the entries point into). */
static int reduce_list(const char *list, char **copy, const char ***names, size_t *n)
{
	*copy = NULL;
	*names = NULL;
	*n = 0;
	if (!list)
		return 0;
	size_t k = 1;
	for (const char *s = list; *s; s++)
		k += *s == ',';
	*copy = strdup(list);
	*names = cli_calloc(k, sizeof **names);
	if (!*copy || !*names)
		return LOCUS_ENOMEM;
	for (char *tok = strtok(*copy, ","); tok; tok = strtok(NULL, ","))
		(*names)[(*n)++] = tok;
	return 0;
}

/* ---- show ------------------------------------------------------------------ */

static void print_patterns(unsigned p)
{
	int first = 1;
	for (unsigned k = 0; k < LOCUS_PATTERNS; k++)
		if (p & 1u << k) {
			printf("%s%s", first ? "" : ",", locus_pattern_name(k));
			first = 0;
		}
	if (first)
		printf("-");
}

static const char *stage_name(const struct locus_graph *g, size_t s)
{
	return s < g->n_stages ? g->stage_names[s] : "(none)";
}

static void show_text(const struct locus_graph *g, const struct locus_flow_analysis *an,
		      const char *spec)
{
	uint64_t in_fs = 0, inter = 0, final = 0;
	size_t n_in = 0, n_inter = 0, n_final = 0;
	for (size_t o = 0; o < g->n_objects; o++) {
		const struct locus_object *ob = &g->objects[o];
		if (ob->producer == LOCUS_NONE) {
			in_fs += ob->bytes;
			n_in++;
		} else if (ob->n_cons) {
			inter += ob->bytes;
			n_inter++;
		} else {
			final += ob->bytes;
			n_final++;
		}
	}
	printf("workflow %s: %zu tasks in %zu stages; files: %zu inputs (%.1f MB), %zu "
	       "intermediate (%.1f MB), %zu outputs (%.1f MB)\n\n",
	       spec, g->n_tasks, an->n_stages, n_in, (double)in_fs / 1e6, n_inter,
	       (double)inter / 1e6, n_final, (double) final / 1e6);
	int w = 5;
	for (size_t s = 0; s < an->n_stages; s++) {
		int l = (int)strlen(stage_name(g, s));
		w = l > w ? l : w;
	}
	w = w > 40 ? 40 : w;
	printf("%-*s  %7s  %7s  %8s  %7s  %11s  %10s  %10s  %10s  %s\n", w, "stage", "tasks",
	       "inputs", "produced", "outputs", "consumption", "MB in", "MB out", "work (s)",
	       "patterns");
	for (size_t s = 0; s < an->n_stages; s++) {
		const struct locus_flow_stage *st = &an->stages[s];
		printf("%-*.*s  %7" PRIu32 "  %7" PRIu32 "  %8" PRIu32 "  %7" PRIu32 "  %11" PRIu64
		       "  %10.1f  %10.1f  %10.1f  ",
		       w, 40, stage_name(g, s), st->tasks, st->inputs, st->produced_inputs,
		       st->outputs, st->consumption, (double)st->bytes_in / 1e6,
		       (double)st->bytes_out / 1e6, st->work);
		print_patterns(st->patterns);
		if (st->patterns & (LOCUS_PATTERN_GATHER | LOCUS_PATTERN_REDUCE))
			printf(" (%" PRIu32 " gathering, up to %" PRIu32 " inputs)", st->gathers,
			       st->max_inputs);
		if (st->patterns & LOCUS_PATTERN_MULTICAST)
			printf(" (%" PRIu32 " files, up to %" PRIu32 " readers)",
			       st->multicast_files, st->max_consumers);
		if (st->patterns & LOCUS_PATTERN_SCATTER)
			printf(" (%" PRIu32 " scattering)", st->scatters);
		printf("\n");
	}
	printf("\ninputs: distinct files its tasks read; produced: of them, written by a "
	       "task; consumption: reads counted per task (Table V); MB of 10^6 bytes\n");
	printf("thresholds: gather %" PRIu32 ", multicast %" PRIu32 ", scatter %" PRIu32 "\n",
	       an->opt.gather, an->opt.multicast, an->opt.scatter);
	printf("\ncritical path: %.3f s over %zu tasks (runtimes only, no data movement)\n",
	       an->critical_path, an->n_cp);
	char buf[64];
	for (size_t k = 0; k < an->n_cp; k++) {
		uint32_t t = an->cp_tasks[k];
		printf("  %-40s %-20s %10.3f\n", locus_graph_task_name(g, t, buf, sizeof buf),
		       stage_name(g, locus_flow_stage_of(g, t)), g->tasks[t].work);
	}
}

static void json_patterns(unsigned p)
{
	int first = 1;
	putchar('[');
	for (unsigned k = 0; k < LOCUS_PATTERNS; k++)
		if (p & 1u << k) {
			printf("%s\"%s\"", first ? "" : ", ", locus_pattern_name(k));
			first = 0;
		}
	putchar(']');
}

static void show_json(const struct locus_graph *g, const struct locus_flow_analysis *an,
		      const char *spec)
{
	printf("{\n  \"format\": \"locus-flow\",\n  \"version\": 1,\n  \"workflow\": ");
	cli_json_string(spec);
	printf(",\n  \"tasks\": %zu,\n  \"files\": %zu,\n", g->n_tasks, g->n_objects);
	printf("  \"thresholds\": {\"gather\": %" PRIu32 ", \"multicast\": %" PRIu32
	       ", \"scatter\": %" PRIu32 ", \"reduce\": [",
	       an->opt.gather, an->opt.multicast, an->opt.scatter);
	for (size_t k = 0; k < an->opt.n_reduce; k++) {
		printf(k ? ", " : "");
		cli_json_string(an->opt.reduce[k]);
	}
	printf("]},\n  \"stages\": [");
	for (size_t s = 0; s < an->n_stages; s++) {
		const struct locus_flow_stage *st = &an->stages[s];
		printf(s ? ",\n    {\"name\": " : "\n    {\"name\": ");
		cli_json_string(stage_name(g, s));
		printf(", \"tasks\": %" PRIu32 ", \"inputs\": %" PRIu32
		       ", \"produced_inputs\": %" PRIu32 ", \"outputs\": %" PRIu32
		       ", \"consumption\": %" PRIu64 ", \"bytes_in\": %" PRIu64
		       ", \"bytes_out\": %" PRIu64 ", \"work\": %.17g,\n"
		       "     \"patterns\": ",
		       st->tasks, st->inputs, st->produced_inputs, st->outputs, st->consumption,
		       st->bytes_in, st->bytes_out, st->work);
		json_patterns(st->patterns);
		printf(", \"gathers\": %" PRIu32 ", \"scatters\": %" PRIu32
		       ", \"pipelines\": %" PRIu32 ", \"multicast_files\": %" PRIu32
		       ", \"max_inputs\": %" PRIu32 ", \"max_consumers\": %" PRIu32 "}",
		       st->gathers, st->scatters, st->pipelines, st->multicast_files,
		       st->max_inputs, st->max_consumers);
	}
	printf("\n  ],\n  \"critical_path\": {\"seconds\": %.17g, \"tasks\": [", an->critical_path);
	char buf[64];
	for (size_t k = 0; k < an->n_cp; k++) {
		printf(k ? ", " : "");
		cli_json_string(locus_graph_task_name(g, an->cp_tasks[k], buf, sizeof buf));
	}
	printf("]}\n}\n");
}

static int flow_show(struct flow_args *a)
{
	struct locus_error err = {0};
	struct locus_graph *g = NULL;
	struct locus_flow_analysis *an = NULL;
	char *copy = NULL;
	const char **names = NULL;
	size_t n_names = 0;
	int rc = reduce_list(a->reduce, &copy, &names, &n_names);
	if (!rc)
		rc = flow_load(&g, a, &err);
	if (!rc) {
		/* The defaults, where no threshold was given. */
		struct locus_pattern_options po;
		locus_pattern_options_init(&po);
		po.gather = a->pat.gather ? a->pat.gather : po.gather;
		po.multicast = a->pat.multicast ? a->pat.multicast : po.multicast;
		po.scatter = a->pat.scatter ? a->pat.scatter : po.scatter;
		po.reduce = names;
		po.n_reduce = n_names;
		rc = locus_flow_analyse(&an, g, &po, &err);
	}
	int status = 0;
	if (rc) {
		status = cli_error("flow show", &err, rc);
	} else {
		if (a->res.json)
			show_json(g, an, a->workflow);
		else
			show_text(g, an, a->workflow);
		if (fflush(stdout))
			status = CLI_EXIT_FAIL;
	}
	locus_flow_analysis_destroy(an);
	locus_graph_destroy(g);
	free(names);
	free(copy);
	return status;
}

/* ---- sim ------------------------------------------------------------------- */

/* One run to make: a policy and its options. */
struct flow_run {
	const struct locus_policy *policy;
	char *opts; /* malloc'ed, or NULL */
};

/* "KEY=VALUE,..." of amfs: the configuration, the pattern thresholds and
 * -o's. */
char *amfs_opts(const struct flow_args *a, const char *config)
{
	char buf[1024];
	size_t n = 0;
	buf[0] = 0;
#define ADD(...) n += (size_t)snprintf(buf + n, n < sizeof buf ? sizeof buf - n : 0, __VA_ARGS__)
	if (config)
		ADD("config=%s", config);
	if (a->pat.gather)
		ADD("%sgather=%" PRIu32, n ? "," : "", a->pat.gather);
	if (a->pat.multicast)
		ADD("%smulticast=%" PRIu32, n ? "," : "", a->pat.multicast);
	if (a->pat.scatter)
		ADD("%sscatter=%" PRIu32, n ? "," : "", a->pat.scatter);
	if (a->reduce) {
		/* amfs's reduce option takes stages joined by '+'. */
		ADD("%sreduce=", n ? "," : "");
		for (const char *s = a->reduce; *s && n + 1 < sizeof buf; s++)
			buf[n++] = *s == ',' ? '+' : *s;
		if (n < sizeof buf)
			buf[n] = 0;
	}
	if (a->preset_fetch > 0 && !(a->pol.opts && strstr(a->pol.opts, "fetch_cost=")))
		ADD("%sfetch_cost=%g", n ? "," : "", a->preset_fetch);
	if (a->pol.opts)
		ADD("%s%s", n ? "," : "", a->pol.opts);
#undef ADD
	if (n >= sizeof buf)
		return NULL;
	return n ? strdup(buf) : NULL;
}

/* The runs --compare, --policy and --config ask for. */
static int plan_runs(const struct flow_args *a, struct flow_run *runs, size_t *n_runs)
{
	const char *cmd = "flow sim";
	*n_runs = 0;
	char *list = strdup(a->compare ? a->compare : a->config ? a->config : "");
	if (!list)
		return cli_usage_error(cmd, "out of memory");
	int rc = 0;
	if (!a->compare) {
		const char *name = a->pol.name ? a->pol.name : "amfs";
		runs[0].policy = locus_policy_find(name);
		if (!runs[0].policy) {
			rc = cli_usage_error(
			    cmd, "no policy \"%s\" (see 'locus sim --list-policies')", name);
		} else {
			*n_runs = 1;
			runs[0].opts = !strcmp(name, "amfs") ? amfs_opts(a, a->config)
				       : a->pol.opts	     ? strdup(a->pol.opts)
							     : NULL;
		}
		free(list);
		return rc;
	}
	for (char *tok = strtok(list, ","); tok && !rc; tok = strtok(NULL, ",")) {
		if (*n_runs == FLOW_MAX_RUNS) {
			rc = cli_usage_error(cmd, "--compare takes at most %d runs", FLOW_MAX_RUNS);
			break;
		}
		struct flow_run *r = &runs[*n_runs];
		if (is_config(tok)) {
			r->policy = locus_policy_find("amfs");
			r->opts = amfs_opts(a, tok);
		} else if ((r->policy = locus_policy_find(tok))) {
			r->opts = !strcmp(tok, "amfs") ? amfs_opts(a, NULL) : NULL;
		} else {
			rc = cli_usage_error(cmd,
					     "--compare: \"%s\" is neither an amfs configuration "
					     "(staging, cache, aware, cogather, asgather, shared, "
					     "auto) nor a policy",
					     tok);
			break;
		}
		(*n_runs)++;
	}
	free(list);
	return rc;
}

/* N worker nodes of C cores, then D dispatcher nodes of none. */
static int make_platform(struct locus_platform **out, const struct flow_args *a, uint64_t D,
			 struct locus_error *err)
{
	size_t n = (size_t)(a->nodes + D);
	char **names = cli_calloc(n, sizeof *names);
	int *cores = cli_calloc(n, sizeof *cores);
	int rc = names && cores ? 0 : LOCUS_ENOMEM;
	for (size_t i = 0; i < n && !rc; i++) {
		char buf[32];
		if (i < a->nodes)
			snprintf(buf, sizeof buf, "node%05zu", i);
		else
			snprintf(buf, sizeof buf, "disp%03zu", i - (size_t)a->nodes);
		names[i] = strdup(buf);
		cores[i] = i < a->nodes ? (int)a->cores : 0;
		if (!names[i])
			rc = LOCUS_ENOMEM;
	}
	if (!rc)
		rc = locus_platform_create(out, (const char *const *)names, cores, n, err);
	else
		cli_set_error(err, rc, NULL, "out of memory");
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	free(cores);
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++) {
		struct locus_node *nd = &(*out)->nodes[i];
		nd->net_bw = a->net_bw ? (double)a->net_bw : LOCUS_DEFAULT_NET_BW;
		nd->disk_bw = a->disk_bw ? (double)a->disk_bw : 1e9;
		nd->storage = (double)a->storage;
		nd->memory = i < a->nodes ? (double)a->memory : 0;
	}
	return 0;
}

void print_run(const struct locus_result *r, const struct locus_graph *g, const struct flow_args *a,
	       uint64_t D)
{
	printf("workflow %s: %zu tasks in %zu stages, %zu files\n", a->workflow, g->n_tasks,
	       g->n_stages, g->n_objects);
	/* The workers' nodes: the dispatchers' nodes run no task. */
	size_t wn = locus_report_worker_nodes(r);
	printf("policy %s%s%s, seed %" PRIu64 ": %zu worker%s on %zu node%s, %zu scheduler%s",
	       r->policy, r->policy_options ? " " : "", r->policy_options ? r->policy_options : "",
	       r->seed, r->n_workers, r->n_workers == 1 ? "" : "s", wn, wn == 1 ? "" : "s",
	       r->n_schedulers, r->n_schedulers == 1 ? "" : "s");
	if (!strcmp(r->policy, "amfs"))
		printf(" (a submitter, %" PRIu64 " dispatcher%s and as many metadata servers)", D,
		       D == 1 ? "" : "s");
	if (r->n_nodes > wn)
		printf(" on %zu node%s without workers", r->n_nodes - wn,
		       r->n_nodes - wn == 1 ? "" : "s");
	printf("\n\n");
	if (r->failed)
		printf("  status            FAILED after %zu of %zu tasks: %s\n", r->tasks_done,
		       r->n_tasks, r->failure);
	else
		printf("  status            complete\n");
	int real = !strcmp(r->engine, "mpi");
	if (real)
		printf("  makespan          %12.3f s   (measured)\n", r->makespan);
	else
		printf("  makespan          %12.3f s   lower bound %.3f s (ratio %.3f)\n",
		       r->makespan, r->lb_makespan,
		       r->lb_makespan > 0 ? r->makespan / r->lb_makespan : 0);
	if (!real)
		printf("  critical path     %12.3f s   (runtimes only)\n", r->lb_cp);
	printf("  file system       %12.1f MB read, %.1f MB written, %" PRIu64
	       " metadata operations\n",
	       (double)r->fs_bytes_read / 1e6, (double)r->fs_bytes_written / 1e6, r->fs_ops);
	printf("  copies            %12" PRIu64 "     %.1f MB (between nodes, and to or from "
	       "the file system)\n",
	       r->transfers, (double)r->bytes_moved / 1e6);
	if (!real)
		printf("  local storage     %12.1f MB at most on one node; %.1f MB left at the end "
		       "(%.1f MB intermediate)\n",
		       r->storage_peak / 1e6, r->storage_end / 1e6, r->intermediate_end / 1e6);
	for (size_t j = 0; j < 8 && r->pstats.counter_names[j]; j++)
		printf("  %-17s %12" PRIu64 "\n", r->pstats.counter_names[j],
		       r->pstats.counters[j]);
	if (!real) {
		printf("  messages          %12" PRIu64 "\n", r->messages);
		printf("  schedulers        busy %.3f s in all, %.3f s on the busiest\n",
		       r->sched_busy_total, r->sched_busy_max);
		printf("  worker idle       %.1f s in all\n", r->worker_idle_total);
		printf("  simulated         %" PRIu64 " events in %.3f s (%.0f events/s)\n",
		       r->events, r->wall_seconds,
		       r->wall_seconds > 0 ? (double)r->events / r->wall_seconds : 0);
	}
	if (!r->stages)
		return;
	/* The stages of what ran (a resumed run's or a last round's part). */
	g = r->graph ? r->graph : g;
	int w = 5;
	for (size_t s = 0; s < g->n_stages; s++) {
		int l = (int)strlen(g->stage_names[s]);
		w = l > w ? l : w;
	}
	w = w > 32 ? 32 : w;
	printf("\n%-*s  %7s  %9s  %9s  %9s  %9s  %9s  %9s  %9s  %10s  %10s  %10s  %10s  %s\n", w,
	       "stage", "tasks", "start", "end", "span", "wait", "read", "compute", "write",
	       "MB local", "MB peer", "MB FS in", "MB FS out", "patterns (collectives)");
	for (size_t s = 0; s < g->n_stages; s++) {
		const struct locus_stage_result *st = &r->stages[s];
		printf("%-*.*s  %7zu  %9.2f  %9.2f  %9.2f  %9.1f  %9.1f  %9.1f  %9.1f  %10.1f  "
		       "%10.1f  %10.1f  %10.1f  ",
		       w, 32, g->stage_names[s], st->tasks, st->first_start, st->last_end,
		       st->last_end - st->first_start, st->input_wait, st->read, st->compute,
		       st->write, (double)st->bytes_local / 1e6, (double)st->bytes_peer / 1e6,
		       (double)st->bytes_fs_read / 1e6, (double)st->bytes_fs_written / 1e6);
		if (st->patterns < 0) {
			printf("-\n");
			continue;
		}
		print_patterns((unsigned)st->patterns);
		printf(" (%" PRIu64 ")\n", st->collectives);
	}
	printf("\ntimes in seconds (wait, read, compute, write: summed over the stage's tasks); "
	       "MB of 10^6 bytes\n");
}

/* --platform preset:NAME[:NODES]: the preset and its partition's size
 * (*nodes kept when not given); its constants go into a where a leaves
 * them unset. Returns 0 or the usage error's status. */
static int take_preset(const char *cmd, struct flow_args *a,
		       const struct locus_flow_preset **preset, size_t *nodes)
{
	if (!a->platform || strncmp(a->platform, "preset:", 7))
		return 0;
	char name[32];
	const char *spec = a->platform + 7, *colon = strchr(spec, ':');
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
	snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : 0), spec);
	*preset = locus_flow_preset_find(name);
	if (!*preset)
		return cli_usage_error(cmd,
				       "--platform %s: no such preset (expected "
				       "preset:bgp[:NODES])",
				       a->platform);
	if (colon) {
		char *end = NULL;
		unsigned long long v = strtoull(colon + 1, &end, 10);
		if (!colon[1] || !end || *end || v < 2 || v > 1000000)
			return cli_usage_error(cmd,
					       "--platform %s: expected a partition of 2 "
					       "to 1000000 nodes after the preset's name",
					       a->platform);
		*nodes = (size_t)v;
	}
	a->preset_fetch = (*preset)->fetch_cost;
	if (!a->fs_latency)
		a->fs_latency = (*preset)->fs_latency;
	if (a->latency < 0)
		a->latency = (*preset)->latency;
	return 0;
}

/* The time limits: each task's own (WALL_TIME), else `timeout`; *limits
 * NULL when no task has one. Returns 0 or LOCUS_ENOMEM. */
static int time_limits(const struct locus_graph *g, double timeout, double **limits,
		       struct locus_error *err)
{
	int limited = timeout > 0;
	for (size_t t = 0; !limited && g->commands && t < g->n_tasks; t++)
		limited = g->commands[t].wall_time > 0;
	*limits = NULL;
	if (!limited)
		return 0;
	*limits = cli_calloc(g->n_tasks, sizeof **limits);
	if (!*limits)
		return cli_set_error(err, LOCUS_ENOMEM, NULL, "out of memory");
	for (size_t t = 0; t < g->n_tasks; t++)
		(*limits)[t] = g->commands && g->commands[t].wall_time > 0
				   ? g->commands[t].wall_time
				   : timeout;
	return 0;
}

static int flow_sim(struct flow_args *a)
{
	const char *cmd = "flow sim";
	struct locus_error err = {0};
	struct locus_graph *g = NULL;
	struct locus_platform *plat = NULL;
	struct locus_workload *wl = NULL;
	struct flow_run plan[FLOW_MAX_RUNS] = {{0}};
	struct locus_result *runs[FLOW_MAX_RUNS] = {0};
	size_t n_plan = 0, n_runs = 0;
	double *limits = NULL;
	int status = 0, rc;
	if ((status = cli_results_check(cmd, &a->res, NULL, 0)))
		return status;
	/* A named platform: its constants, unless given. */
	const struct locus_flow_preset *preset = NULL;
	size_t preset_nodes = 128;
	if ((status = take_preset(cmd, a, &preset, &preset_nodes)))
		return status;
	if ((status = plan_runs(a, plan, &n_plan)))
		goto out;
	if ((rc = flow_load(&g, a, &err)))
		goto fail;
	if (a->work) {
		struct locus_work_spec spec;
		if ((rc = locus_work_spec_parse(&spec, a->work, &err)))
			goto fail;
		rc = locus_graph_draw_work(g, &spec, a->seed);
		if (!rc && spec.dist == LOCUS_WORK_TRACE && spec.n_trace != g->n_tasks)
			fprintf(
			    stderr,
			    "locus flow sim: warning: %s has %zu values for %zu tasks (cycled)\n",
			    a->work, spec.n_trace, g->n_tasks);
		locus_work_spec_fini(&spec);
		if (rc) {
			status = cli_usage_error(cmd, "--work: %s has a cost per processor",
						 a->workflow);
			goto out;
		}
	}
	/* The dispatchers: a platform file's nodes without cores, else one
	 * per 63 worker nodes. */
	uint64_t D = a->dispatchers;
	double preset_fs_bw = 0;
	if (preset) {
		size_t pd = 0;
		if ((rc = locus_flow_preset_platform(preset, preset_nodes, &plat, &pd,
						     &preset_fs_bw, &err)))
			goto fail;
		if (!D)
			D = pd;
	} else if (a->platform) {
		if ((rc = locus_platform_load(&plat, a->platform, &err)))
			goto fail;
		uint64_t empty = 0, workers = 0;
		for (size_t i = 0; i < plat->n_nodes; i++) {
			empty += plat->nodes[i].cores == 0;
			workers += plat->nodes[i].cores > 0;
		}
		if (!workers) {
			status = cli_usage_error(cmd, "%s has no node with cores to run tasks",
						 a->platform);
			goto out;
		}
		if (!D)
			D = empty ? empty : (workers + 62) / 63;
	} else {
		if (!D)
			D = (a->nodes + 62) / 63;
		if ((rc = make_platform(&plat, a, D, &err)))
			goto fail;
	}
	if ((rc = locus_workload_from_graph(&wl, plat, g, NULL, &err)))
		goto fail;
	if ((rc = time_limits(g, a->timeout, &limits, &err)))
		goto fail;
	int tty = !a->quiet && isatty(2);
	for (size_t i = 0; i < n_plan; i++) {
		int amfs = !strcmp(plan[i].policy->name, "amfs");
		struct locus_sim_config cfg = {
		    .wl = wl,
		    .policy = plan[i].policy,
		    .policy_opts = plan[i].opts,
		    .schedulers = amfs ? (size_t)(1 + 2 * D) : 0,
		    .seed = a->seed,
		    .latency = a->latency,
		    .cost_per_msg = a->cost_msg,
		    .cost_per_entry = a->cost_entry,
		    .shared_fs_bw = a->fs_bw	       ? (double)a->fs_bw
				    : preset_fs_bw > 0 ? preset_fs_bw
						       : 1.25e9,
		    .fs_ops = a->fs_ops,
		    .fs_latency = a->fs_latency,
		    .no_task_results = !cli_results_any(&a->res),
		    .no_transfer_results = !cli_results_transfers(&a->res),
		    .progress = tty ? cli_progress : NULL,
		    .progress_user = (void *)plan[i].policy->name,
		    .time_limit = limits,
		    .retries = limits ? (uint32_t)a->retries : 0,
		};
		if ((rc = locus_sim_run(&runs[i], &cfg, &err)))
			goto fail;
		n_runs++;
		if (runs[i]->failed) {
			fprintf(stderr, "locus flow sim: %s%s%s: the run failed: %s\n",
				plan[i].policy->name, plan[i].opts ? " " : "",
				plan[i].opts ? plan[i].opts : "", runs[i]->failure);
			status = CLI_EXIT_FAIL;
		}
	}
	if (a->compare) {
		rc = a->res.json ? locus_report_compare_json(
				       (const struct locus_result *const *)runs, n_runs, stdout)
				 : locus_report_compare((const struct locus_result *const *)runs,
							n_runs, stdout);
		if (rc)
			goto fail;
		goto out;
	}
	if (a->res.json)
		rc = locus_report_json(runs[0], stdout);
	else
		print_run(runs[0], g, a, D);
	if (rc)
		goto fail;
	char title[4200];
	snprintf(title, sizeof title, "locus flow sim %s", a->workflow);
	struct locus_report_html_options html = {.title = title};
	a->res.html = &html;
	int ost = cli_results_write(cmd, &a->res, runs[0]);
	if (ost)
		status = ost;
	goto out;
fail:
	status = cli_error(cmd, &err, rc);
out:
	for (size_t i = 0; i < n_runs; i++)
		locus_result_destroy(runs[i]);
	for (size_t i = 0; i < n_plan; i++)
		free(plan[i].opts);
	free(limits);
	locus_workload_destroy(wl);
	locus_platform_destroy(plat);
	locus_graph_destroy(g);
	return status;
}

int cmd_flow(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		cli_help(&command, argc < 2 ? stderr : stdout);
		return argc < 2 ? CLI_EXIT_USAGE : 0;
	}
	struct flow_args a = {.sub = argv[1],
			      .seed = 1,
			      .retries = 1, /* as --help and docs/mpi.md say */
			      .load = {.seed = 1, .runtime = 1},
			      .nodes = 64,
			      .cores = 4,
			      .fs_ops = -1,
			      .latency = -1,
			      .cost_msg = -1,
			      .cost_entry = -1};
	if (strcmp(a.sub, "show") && strcmp(a.sub, "sim") && strcmp(a.sub, "run") &&
	    strcmp(a.sub, "clean") && strcmp(a.sub, "status"))
		return cli_usage_error(
		    "flow", "expected 'show', 'sim', 'run', 'clean' or 'status', got \"%s\"",
		    a.sub);
	cli_mpi_np_spelling(argc, argv);
	int rc = parse_args(argc - 1, argv + 1, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (!strcmp(a.sub, "show"))
		return flow_show(&a);
	if (!strcmp(a.sub, "run"))
		return flow_run(&a, argc, argv);
	if (!strcmp(a.sub, "clean"))
		return flow_clean(&a);
	if (!strcmp(a.sub, "status"))
		return flow_status(&a);
	/* The engine's defaults for what was not given. */
	if (a.fs_ops < 0)
		a.fs_ops = 2000;
	if (a.cost_msg < 0)
		a.cost_msg = 5e-6;
	if (a.cost_entry < 0)
		a.cost_entry = 1e-7;
	return flow_sim(&a);
}
