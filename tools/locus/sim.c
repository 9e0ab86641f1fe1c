/* locus sim: run scheduling policies in the discrete-event simulator. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* The most --fail options. */
#define CLI_MAX_FAILS 64

static const char *const help_head =
    "usage: locus sim [OPTIONS]\n"
    "\n"
    "Runs a scheduling policy (or several, --compare) over one workload in the\n"
    "discrete-event simulator and reports makespan, locality, request waits and\n"
    "scheduler load next to the bounds no schedule can beat. The workload is a\n"
    "bag of chunk tasks (a locality source, or generated chunks) or a task graph\n"
    "(--graph). The same seed gives the same result, byte for byte.\n";

static const char *const help_tail =
    "\n"
    "Sizes and bandwidths (bytes, bytes/s): 64M, 1G are powers of 1024; 80MB, 1GB\n"
    "powers of 1000.\n"
    "\n"
    "Examples:\n"
    "  locus sim --nodes 32 --tasks 640 --work fixed:2 --compare fifo,monolithic,dlmpi\n"
    "  locus sim --nodes 64 --speeds 1:4 --policy dlmpi --gantt g.svg --out run.json\n"
    "  locus sim --source /tmp/store --platform cluster.json --policy delay -o delay=0.5\n"
    "  locus sim --graph topcuoglu2002.txt --compare heft,cpop,dls,peft --schedule\n"
    "  locus sim --graph stg/100/rand0003.stg --procs 8 --ccr 0.5 --beta 0.5 --gantt g.svg\n"
    "  locus sim --graph gen:layrpred:1000 --procs 10 --ccr 1.5 --variability 0.4 --seed 7\n"
    "  locus sim --graph montage.json --procs 16 --fail p03@120 --out run.json\n";

struct sim_args {
	/* A task graph. */
	const char *graph;
	uint64_t procs, link_bw;
	double startup, ccr, beta;
	int schedule;
	/* Platform changes. */
	const char *scenario;
	const char *fails[CLI_MAX_FAILS];
	size_t n_fails;
	double variability, var_period, var_horizon;
	uint64_t var_links;
	/* The platform. */
	const char *platform, *speed_trace;
	uint64_t nodes, ppn, racks;
	double speed_lo, speed_hi;
	uint64_t disk_bw, net_bw, rack_bw, backbone_bw; /* generated platforms; 0: default */
	/* The data and the tasks. */
	const char *source, *dataset, *work;
	uint64_t tasks, chunk_size, replicas;
	enum locus_place_policy placement;
	double skew_std;
	/* The policy (its name NULL: dlmpi, heft for a graph). */
	struct cli_policy pol;
	const char *compare;
	uint64_t schedulers;
	int list, ip;
	double ip_alpha, ip_beta;
	/* The engine. */
	double latency, cost_msg, cost_entry;
	uint64_t shared_fs, seed;
	/* What to print and write. */
	struct cli_results res;
	int quiet;
	/* What was given. */
	int have_nodes, have_tasks, have_skew, have_costs, have_work, have_data;
};

static void list_policies(void)
{
	for (const struct locus_policy *const *p = locus_policies(); *p; p++)
		printf("  %-12s %s\n", (*p)->name, (*p)->summary);
}

static int parse_speeds(const char *arg, double *lo, double *hi)
{
	char *end;
	*lo = strtod(arg, &end);
	if (*end != ':')
		return -1;
	*hi = strtod(end + 1, &end);
	return (*end || !(*lo >= LOCUS_SPEED_MIN) || !(*hi >= *lo) || !(*hi <= LOCUS_SPEED_MAX))
		   ? -1
		   : 0;
}

static int parse_weights(const char *arg, double *alpha, double *beta)
{
	char *end;
	*alpha = strtod(arg, &end);
	if (end == arg || *end != ':')
		return -1;
	const char *b = end + 1;
	*beta = strtod(b, &end);
	return (end == b || *end || !(*alpha >= 0) || !(*beta >= 0) || isinf(*alpha) ||
		isinf(*beta))
		   ? -1
		   : 0;
}

/* The most tasks --ip solves exactly. GLPK's branch and bound grows
 * exponentially: on 4 nodes of 2 workers, 8 tasks took 0.03 s, 12 tasks
 * 0.3 s, 16 tasks 311 s (GLPK's cuts made it slower). */
#define IP_MAX_TASKS 12

/* The processors of a graph with no cost columns, unless told. */
#define GRAPH_PROCS 4

/* ---- the options, a group per section of --help ------------------------------ */

/* Named ids of the options without a short letter. */
enum {
	O_PROCS = 256,
	O_LINK_BW,
	O_STARTUP,
	O_CCR,
	O_BETA,
	O_SCHEDULE,
	O_SCENARIO,
	O_FAIL,
	O_VARIABILITY,
	O_VAR_PERIOD,
	O_VAR_HORIZON,
	O_VAR_LINKS,
	O_RACKS,
	O_SPEEDS,
	O_DISK_BW,
	O_NET_BW,
	O_RACK_BW,
	O_BACKBONE_BW,
	O_SPEED_TRACE,
	O_PLACEMENT,
	O_SKEW_STD,
	O_SCHEDULERS,
	O_COMPARE,
	O_LIST_POLICIES,
	O_IP,
	O_LATENCY,
	O_COST_MSG,
	O_COST_ENTRY,
	O_SHARED_FS,
	O_SEED,
};

#define AT(field) offsetof(struct sim_args, field)

static int graph_option(const char *cmd, void *values, int id, const char *arg)
{
	const struct sim_args *a = values;
	if (id == O_PROCS && (!a->procs || a->procs > 1000000))
		return cli_usage_error(cmd, "--procs must be between 1 and 1000000");
	if (id == O_CCR && !(a->ccr >= 0 && a->ccr <= 1e6))
		return cli_usage_error(cmd, "--ccr must be between 0 and 1e6");
	if (id == O_BETA && !(a->beta >= 0 && a->beta < 2))
		return cli_usage_error(cmd, "--beta must be in [0, 2)");
	return 0;
}

static const struct cli_opt graph_opts[] = {
    {"graph", 'g', CLI_TEXT, AT(graph), "SPEC",
     "a DAG or workflow: an STG file, the text form\n"
     "(\"tasks N procs P\"), WfCommons JSON, a Makeflow\n"
     "(told by name or content, or prefixed stg:, text:,\n"
     "wfcommons:, makeflow:); gen:METHOD:N, N random\n"
     "tasks by an STG method (sameprob, samepred,\n"
     "layrprob, layrpred); gen:montage[:IMAGES] or\n"
     "gen:blast[:N[:M]] ('locus flow --help')"},
    {"procs", O_PROCS, CLI_UINT, AT(procs), "P",
     "run it on P processors (1 to 1000000) joined by\n"
     "contention-free links (default: the graph's cost\n"
     "columns, else 4; --platform or --nodes give a\n"
     "platform instead)"},
    {"link-bw", O_LINK_BW, CLI_BANDWIDTH, AT(link_bw), "BW",
     "each link's bandwidth (default: the graph's data\n"
     "unit, 1 for the text form; else 125MB)"},
    {"startup", O_STARTUP, CLI_SECONDS, AT(startup), "SECONDS",
     "a transfer's start-up latency (default 0)"},
    {"ccr", O_CCR, CLI_NUMBER, AT(ccr), "X",
     "size the edges so that the mean transfer over the\n"
     "mean compute is X, 0 to 1e6 (0: no communication)"},
    {"beta", O_BETA, CLI_NUMBER, AT(beta), "B",
     "a cost per processor, uniform in w(1 +- B/2)\n"
     "around each task's work (0, the default: alike)"},
    {"schedule", O_SCHEDULE, CLI_FLAG, AT(schedule), NULL,
     "print the schedule: task, processor, start, finish"},
};
static const struct cli_group graph_group = CLI_GROUP(graph_opts, graph_option);

static int changes_option(const char *cmd, void *values, int id, const char *arg)
{
	struct sim_args *a = values;
	switch (id) {
	case O_FAIL:
		if (a->n_fails == CLI_MAX_FAILS)
			return cli_usage_error(cmd, "at most %d --fail options; use --scenario",
					       CLI_MAX_FAILS);
		a->fails[a->n_fails++] = arg;
		return 0;
	case O_VARIABILITY:
		if (!(a->variability >= 0 && a->variability < 1))
			return cli_usage_error(cmd,
					       "--variability must be in [0, 1) (0.4: resources "
					       "drop to no less than 60%% of their peak)");
		return 0;
	case O_VAR_PERIOD:
		if (!(a->var_period > 0 && a->var_period < 1e15))
			return cli_usage_error(cmd, "--var-period must be > 0 seconds");
		return 0;
	case O_VAR_HORIZON:
		if (!(a->var_horizon >= 0 && a->var_horizon < 1e15))
			return cli_usage_error(cmd, "--var-horizon must be >= 0 seconds");
		return 0;
	case O_VAR_LINKS:
		if (a->var_links > 1)
			return cli_usage_error(cmd, "--var-links expects 0 or 1");
		return 0;
	}
	return 0;
}

static const struct cli_opt changes_opts[] = {
    {"scenario", O_SCENARIO, CLI_TEXT, AT(scenario), "FILE",
     "changes over time: speed, avail, bandwidth, link,\n"
     "fail, recover (docs/formats.md, \"Scenario\")"},
    {"fail", O_FAIL, CLI_OWN, 0, "NODE@TIME[+DOWN]",
     "NODE fails at TIME (and is back after DOWN\n"
     "seconds); repeatable"},
    {"variability", O_VARIABILITY, CLI_NUMBER, AT(variability), "B",
     "GTP's scenarios: every processor (and link) changes\n"
     "now and then to a value in [1-B, 1] of its peak"},
    {"var-period", O_VAR_PERIOD, CLI_NUMBER, AT(var_period), "S",
     "mean seconds between a resource's changes\n"
     "(default: the makespan's lower bound / 10); how\n"
     "fast the platform changes decides what GTP gains\n"
     "over HEFT more than B does (docs/results/gtp.md)"},
    {"var-horizon", O_VAR_HORIZON, CLI_NUMBER, AT(var_horizon), "S",
     "no change after S seconds (default: 10 x the bound)"},
    {"var-links", O_VAR_LINKS, CLI_UINT, AT(var_links), "0|1",
     "links (or interfaces) vary too (default 1)"},
};
static const struct cli_group changes_group = CLI_GROUP(changes_opts, changes_option);

static int platform_option(const char *cmd, void *values, int id, const char *arg)
{
	struct sim_args *a = values;
	if (id == 'N')
		a->have_nodes = 1;
	if (id == O_SPEEDS && parse_speeds(arg, &a->speed_lo, &a->speed_hi))
		return cli_usage_error(cmd,
				       "--speeds expects LO:HI with 1e-6 <= LO <= HI "
				       "<= 1e6, got \"%s\"",
				       arg);
	return 0;
}

static const struct cli_opt platform_opts[] = {
    {"platform", 'p', CLI_TEXT, AT(platform), "FILE",
     "nodes from a platform file (docs/formats.md)"},
    {"nodes", 'N', CLI_UINT, AT(nodes), "N", "or N generated nodes (default 32)"},
    {"procs-per-node", 'P', CLI_UINT, AT(ppn), "P",
     "worker processes per generated node (default 1)"},
    {"racks", O_RACKS, CLI_UINT, AT(racks), "K", "racks of generated nodes (default 1)"},
    {"speeds", O_SPEEDS, CLI_OWN, 0, "LO:HI",
     "generated node speeds uniform in [LO, HI] (default 1:1)"},
    {"disk-bw", O_DISK_BW, CLI_BANDWIDTH, AT(disk_bw), "BW",
     "generated nodes' disk bandwidth (default 100MB)"},
    {"net-bw", O_NET_BW, CLI_BANDWIDTH, AT(net_bw), "BW",
     "their network interface bandwidth (default 125MB)"},
    {"rack-bw", O_RACK_BW, CLI_BANDWIDTH, AT(rack_bw), "BW",
     "each rack's uplink, each way (default: no cap)"},
    {"backbone-bw", O_BACKBONE_BW, CLI_BANDWIDTH, AT(backbone_bw), "BW",
     "the whole network's aggregate (default: no cap)"},
    {"speed-trace", O_SPEED_TRACE, CLI_TEXT, AT(speed_trace), "FILE",
     "speed changes: lines \"TIME NODE SPEED\""},
};
static const struct cli_group platform_group = CLI_GROUP(platform_opts, platform_option);

/* The data's options and the tasks' (which a graph gives itself). */
static int data_option(const char *cmd, void *values, int id, const char *arg)
{
	struct sim_args *a = values;
	switch (id) {
	case 'n':
		a->have_tasks = 1;
		return 0;
	case O_SKEW_STD:
		a->have_skew = 1;
		return 0;
	case 'w':
		a->have_work = 1;
		return 0;
	case 'r':
		a->have_data = 1;
		if (!a->replicas)
			return cli_usage_error(cmd, "--replicas must be at least 1");
		return 0;
	case O_PLACEMENT:
		a->have_data = 1;
		if (locus_place_policy_parse(arg, &a->placement))
			return cli_usage_error(
			    cmd, "--placement expects hdfs, random or skewed, got \"%s\"", arg);
		return 0;
	}
	a->have_data = 1; /* --source, --dataset, --chunk-size */
	return 0;
}

static const struct cli_opt data_opts[] = {
    {"source", 's', CLI_TEXT, AT(source), "SPEC",
     "a catalog, store, fsck or WebHDFS source (see\n"
     "'locus locate --help'); every chunk is a task"},
    {"dataset", 'd', CLI_TEXT, AT(dataset), "NAME", "only this dataset of the source"},
    {"tasks", 'n', CLI_UINT, AT(tasks), "N", "or N generated chunks (default 10 per worker)"},
    {"chunk-size", 'c', CLI_SIZE, AT(chunk_size), "SIZE", "size of generated chunks (default 64M)"},
    {"replicas", 'r', CLI_UINT, AT(replicas), "R",
     "replicas of generated chunks (default 3, or one per\n"
     "node on smaller platforms)"},
    {"placement", O_PLACEMENT, CLI_OWN, 0, "NAME", "hdfs (default), random or skewed"},
    {"skew-std", O_SKEW_STD, CLI_NUMBER, AT(skew_std), "S",
     "spread of replicas per node for skewed"},
};
static const struct cli_group data_group = CLI_GROUP(data_opts, data_option);

static const struct cli_opt tasks_opts[] = {
    {"work", 'w', CLI_TEXT, AT(work), "SPEC",
     "compute per task on a speed-1 node: fixed:SECONDS,\n"
     "uniform:LO:HI, exp:MEAN, per-mib:SECONDS or\n"
     "trace:FILE (default fixed:1)"},
};
static const struct cli_group tasks_group = CLI_GROUP(tasks_opts, data_option);

static int policies_option(const char *cmd, void *values, int id, const char *arg)
{
	struct sim_args *a = values;
	if (id != O_IP)
		return 0;
	a->ip = 1;
	if (parse_weights(arg, &a->ip_alpha, &a->ip_beta))
		return cli_usage_error(cmd, "--ip expects ALPHA:BETA, two numbers >= 0, got \"%s\"",
				       arg);
	return 0;
}

static const struct cli_say policy_say[] = {
    {'x', "the policy (default dlmpi; heft for a graph);\n"
	  "--list-policies names them"},
    {0, NULL},
};

/* The policy group's companions: which runs, how many schedulers, the IP. */
static const struct cli_opt policies_opts[] = {
    {"schedulers", O_SCHEDULERS, CLI_UINT, AT(schedulers), "N",
     "scheduler processes (default: the policy's)"},
    {"compare", O_COMPARE, CLI_TEXT, AT(compare), "A,B,...",
     "run several policies on the same workload"},
    {"list-policies", O_LIST_POLICIES, CLI_FLAG, AT(list), NULL, "list the policies and exit"},
    {"ip", O_IP, CLI_OWN, 0, "ALPHA:BETA",
     "also solve DL-MPI's integer program (Eq. 1) exactly\n"
     "and print each run's score next to its optimum\n"
     "(at most 12 tasks; e.g. 0.5:0.5)"},
};
static const struct cli_group policies_group = CLI_GROUP(policies_opts, policies_option);

/* The costs given (a graph's default is 0: the DAG papers' model). */
static int engine_option(const char *cmd, void *values, int id, const char *arg)
{
	struct sim_args *a = values;
	a->have_costs |= id == O_COST_MSG ? 1 : id == O_COST_ENTRY ? 2 : 0;
	return 0;
}

static const struct cli_opt engine_opts[] = {
    {"latency", O_LATENCY, CLI_SECONDS, AT(latency), "SECONDS",
     "message latency (default: the platform's, 50e-6)"},
    {"cost-msg", O_COST_MSG, CLI_SECONDS, AT(cost_msg), "SECONDS",
     "time a process spends per message it handles (default\n"
     "5e-6; 0 for a graph, as the DAG papers' model)"},
    {"cost-entry", O_COST_ENTRY, CLI_SECONDS, AT(cost_entry), "SECONDS",
     "time per metadata entry examined (default 1e-7; 0 for\n"
     "a graph)"},
    {"shared-fs", O_SHARED_FS, CLI_SIZE, AT(shared_fs), "BW",
     "read every chunk from a shared file system with\n"
     "this aggregate bandwidth"},
    {"seed", O_SEED, CLI_UINT, AT(seed), "S", "seed of placement, work and policies (default 1)"},
};
static const struct cli_group engine_group = CLI_GROUP(engine_opts, engine_option);

static const struct cli_opt misc_opts[] = {
    {"quiet", 'q', CLI_FLAG, AT(quiet), NULL, "no progress bar"},
};
static const struct cli_group misc_group = CLI_GROUP(misc_opts, NULL);

static const struct cli_use uses[] = {
    {.group = &graph_group, .before = "\nTask graph (docs/formats.md, \"Task graphs\"):\n"},
    {.group = &changes_group, .before = "\nPlatform changes (any workload):\n"},
    {.group = &platform_group, .before = "\nPlatform:\n"},
    {.group = &data_group, .before = "\nData (where each task's chunk lives):\n"},
    {.group = &tasks_group, .before = "\nTasks:\n"},
    {.group = &cli_policy_group, .at = AT(pol), .before = "\nPolicy:\n", .say = policy_say},
    {.group = &policies_group},
    {.group = &engine_group, .before = "\nEngine:\n"},
    {.group = &cli_results_group, .at = AT(res), .before = "\nOutput:\n"},
    {.group = &misc_group},
};

#undef AT

static const struct cli_command command =
    CLI_COMMAND(uses, CLI_OPTIONS_ANYWHERE, CLI_ERRORS_PLAIN, help_head, help_tail, 28);

/* The options that go together, once all are read: 0, or an exit status
 * (the error printed). */
static int check_args(const struct sim_args *a)
{
	if (a->platform && (a->nodes != 32 || a->ppn != 1 || a->racks != 1 || a->speed_hi != 1 ||
			    a->disk_bw || a->net_bw || a->rack_bw || a->backbone_bw))
		return cli_usage_error("sim",
				       "--platform excludes --nodes, --procs-per-node, --racks, "
				       "--speeds and the --*-bw options");
	if (!a->platform && (!a->nodes || !a->ppn || !a->racks || a->ppn > 4096))
		return cli_usage_error("sim",
				       "--nodes, --racks and --procs-per-node must be at least 1");
	if (a->graph && (a->have_data || a->have_tasks || a->have_skew || a->have_work))
		return cli_usage_error("sim", "--graph gives the tasks, their costs and data; drop "
					      "--source, --dataset, --tasks, --work and the chunk "
					      "options");
	if (!a->graph && (a->procs || a->link_bw || a->startup >= 0 || a->ccr >= 0 ||
			  a->beta >= 0 || a->schedule))
		return cli_usage_error(
		    "sim", "--procs, --link-bw, --startup, --ccr, --beta and --schedule "
			   "apply to a task graph (--graph)");
	if (a->procs && (a->platform || a->have_nodes))
		return cli_usage_error("sim",
				       "--procs makes a platform of its own; drop --platform "
				       "and --nodes (or --procs)");
	if ((a->link_bw || a->startup >= 0) && (a->platform || a->have_nodes))
		return cli_usage_error("sim", "--link-bw and --startup describe the links of "
					      "--procs; a platform file or --nodes gives its own");
	if ((a->var_period >= 0 || a->var_horizon >= 0) && a->variability < 0)
		return cli_usage_error("sim",
				       "--var-period and --var-horizon shape --variability's "
				       "scenarios; give --variability B");
	if (a->schedule && (a->compare || a->res.json))
		return cli_usage_error("sim", "--schedule prints one run's table; drop --compare "
					      "and --json");
	if (a->source && (a->have_tasks || a->have_skew))
		return cli_usage_error(
		    "sim", "--source gives the chunks; --tasks and --skew-std generate them");
	if (a->placement == LOCUS_PLACE_SKEWED && !a->have_skew && !a->source)
		return cli_usage_error("sim", "--placement skewed needs --skew-std S");
	if (a->ip && a->graph)
		return cli_usage_error("sim", "--ip is DL-MPI's integer program for chunk tasks; "
					      "drop it with --graph");
	if (a->ip && a->res.json)
		return cli_usage_error("sim", "--ip prints a text comparison; drop --json");
	if (a->compare && a->pol.opts)
		return cli_usage_error("sim", "--opt sets one policy's options; drop --compare");
	if (a->compare && cli_list_check("sim", "--compare", "policies", a->compare))
		return CLI_EXIT_USAGE;
	if (a->compare)
		return cli_results_one_run("sim", &a->res);
	return 0;
}

static int parse_args(int argc, char **argv, struct sim_args *a)
{
	*a = (struct sim_args){.nodes = 32,
			       .ppn = 1,
			       .racks = 1,
			       .chunk_size = 64ull << 20,
			       .replicas = 0,
			       .seed = 1,
			       .speed_lo = 1,
			       .speed_hi = 1,
			       .latency = -1,
			       .cost_msg = 5e-6,
			       .cost_entry = 1e-7,
			       .work = "fixed:1",
			       .startup = -1,
			       .ccr = -1,
			       .beta = -1,
			       .variability = -1,
			       .var_period = -1,
			       .var_horizon = -1,
			       .var_links = 1};
	int rc = cli_parse("sim", &command, a, argc, argv);
	if (rc)
		return rc;
	if (optind < argc)
		return cli_usage_error("sim", "unexpected argument \"%s\"", argv[optind]);
	return check_args(a);
}

static int progress_tty;

static void print_summary(const struct locus_result *r)
{
	printf("policy %s, seed %" PRIu64
	       ": %zu tasks on %zu workers (%zu nodes, %zu scheduler%s)\n\n",
	       r->policy, r->seed, r->n_tasks, r->n_workers, r->n_nodes, r->n_schedulers,
	       r->n_schedulers == 1 ? "" : "s");
	if (r->failed)
		printf("  status            FAILED after %zu of %zu tasks: %s\n", r->tasks_done,
		       r->n_tasks, r->failure);
	if (r->var_bound > 0)
		printf("  variability       bound %g, each resource changing every %g s on "
		       "average until %g s%s\n",
		       r->var_bound, r->var_period, r->var_horizon,
		       r->var_links ? "" : " (processors only)");
	printf("  makespan          %12.6f s   lower bound %.6f s (ratio %.3f)\n", r->makespan,
	       r->lb_makespan, r->lb_makespan > 0 ? r->makespan / r->lb_makespan : 0);
	if (r->attempts_lost)
		printf("  attempts lost     %12" PRIu64 "     (to node failures)\n",
		       r->attempts_lost);
	printf("  local reads       %12zu     %.2f%% of tasks", r->local_tasks,
	       r->n_tasks ? 100.0 * (double)r->local_tasks / (double)r->n_tasks : 0);
	if (r->opt_local >= 0)
		printf(", balanced optimum %ld (%.2f%%)", r->opt_local,
		       r->n_tasks ? 100.0 * (double)r->opt_local / (double)r->n_tasks : 0);
	printf("\n  bytes over network %11" PRIu64 "\n", r->bytes_remote);
	printf("  wait for a task   mean %.6f s, p50 %.6f, p99 %.6f, max %.6f\n", r->wait_mean,
	       r->wait_p50, r->wait_p99, r->wait_max);
	printf("  messages          %" PRIu64 " (%.2f per task)\n", r->messages,
	       r->n_tasks ? (double)r->messages / (double)r->n_tasks : 0);
	printf("  schedulers        busy %.6f s in all, %.6f s on the busiest\n",
	       r->sched_busy_total, r->sched_busy_max);
	for (size_t j = 0; j < 8 && r->pstats.counter_names[j]; j++)
		printf("  %-17s %" PRIu64 "\n", r->pstats.counter_names[j], r->pstats.counters[j]);
	printf("  worker idle       %.6f s in all\n", r->worker_idle_total);
	printf("  simulated         %" PRIu64 " events in %.3f s (%.0f events/s)\n", r->events,
	       r->wall_seconds, r->wall_seconds > 0 ? (double)r->events / r->wall_seconds : 0);
}

/* DL-MPI's Eq. 1 for each run's assignment next to the exact optimum. */
static int print_ip(const struct locus_workload *wl, struct locus_result *const *runs, size_t n,
		    double alpha, double beta, struct locus_error *err)
{
	double best;
	uint32_t *node = cli_calloc(wl->n_tasks, sizeof *node);
	if (!node)
		return cli_set_error(err, LOCUS_ENOMEM, NULL, "out of memory");
	int rc = locus_dlmpi_ip(wl, alpha, beta, IP_MAX_TASKS, node, &best, err);
	if (rc) {
		free(node);
		return rc;
	}
	printf("\nDL-MPI Eq. 1, %g x locality + %g x (work bound / slowest node's time):\n", alpha,
	       beta);
	for (size_t i = 0; i < n; i++) {
		for (size_t t = 0; t < wl->n_tasks; t++)
			node[t] = runs[i]->tasks[t].node;
		double v = locus_dlmpi_objective(wl, alpha, beta, node);
		printf("  %-12s %.4f  (%.1f%% of the optimum)\n", runs[i]->policy, v,
		       best > 0 ? 100 * v / best : 100.0);
	}
	printf("  %-12s %.4f  (GLPK, exact)\n", "optimum", best);
	free(node);
	return 0;
}

/* "gen:METHOD:N": N random tasks by an STG method, seeded by --seed. */
static int load_graph(struct locus_graph **g, const struct sim_args *a, struct locus_error *err)
{
	/* Files, and the workflows locus flow generates. */
	if (strncmp(a->graph, "gen:", 4) != 0 || !strncmp(a->graph, "gen:montage", 11) ||
	    !strncmp(a->graph, "gen:blast", 9)) {
		struct locus_flow_load_options lo = {.seed = a->seed, .runtime = 1};
		return locus_flow_load(g, a->graph, &lo, err);
	}
	struct locus_dag_gen spec = {.seed = a->seed};
	char method[32];
	const char *colon = strchr(a->graph + 4, ':');
	size_t len = colon ? (size_t)(colon - (a->graph + 4)) : 0;
	uint64_t n = 0;
	if (!colon || len >= sizeof method ||
	    (memcpy(method, a->graph + 4, len), method[len] = 0,
	     locus_dag_gen_method_parse(method, &spec.method)) ||
	    locus_parse_u64(colon + 1, strlen(colon + 1), &n) || !n || n > 10000000)
		return cli_set_error(err, LOCUS_EINVAL, NULL,
				     "--graph %s: expected gen:METHOD:N with METHOD sameprob, "
				     "samepred, layrprob or layrpred and 1 <= N <= 10000000",
				     a->graph);
	spec.n_tasks = (size_t)n;
	return locus_dag_generate(g, &spec, err);
}

/* The bandwidth a graph's --ccr is stated against: the links' on a
 * contention-free platform, else the nodes' mean interface. */
static double data_bw(const struct locus_platform *p)
{
	if (p->network == LOCUS_NET_PAIRS)
		return p->link_bw;
	double sum = 0;
	for (size_t i = 0; i < p->n_nodes; i++)
		sum += p->nodes[i].net_bw;
	return p->n_nodes ? sum / (double)p->n_nodes : 0;
}

/* The scenario: --scenario, then --fail, then --variability's, merged
 * by time. `scale` sets --variability's default period and horizon. */
static int build_changes(struct locus_change **out, size_t *n, const struct sim_args *a,
			 const struct locus_platform *p, double scale,
			 struct locus_variability *drawn, struct locus_error *err)
{
	struct locus_change *all = NULL, *more = NULL, *merged = NULL;
	size_t n_all = 0, n_more = 0;
	int rc = 0;
	if (a->scenario && (rc = locus_changes_load(&all, &n_all, p, a->scenario, err)))
		goto out;
	for (size_t k = 0; k < a->n_fails; k++) {
		struct locus_change two[2];
		int got = locus_change_parse_fail(two, p, a->fails[k], err);
		if (got < 0) {
			rc = got;
			goto out;
		}
		/* Each --fail joins the list in time order. */
		size_t n_merged;
		if ((rc = locus_changes_merge(&merged, &n_merged, all, n_all, two, (size_t)got)))
			goto nomem;
		free(all);
		all = merged;
		n_all = n_merged;
		merged = NULL;
	}
	if (a->variability > 0) {
		struct locus_variability v = {
		    .bound = a->variability,
		    .period = a->var_period > 0 ? a->var_period : scale / 10,
		    .horizon = a->var_horizon >= 0 ? a->var_horizon : 10 * scale,
		    .links = (int)a->var_links,
		    .seed = a->seed,
		};
		if (!(v.period > 0)) {
			rc = cli_set_error(err, LOCUS_EINVAL, NULL,
					   "--variability: the workload has no length to scale "
					   "changes by; give --var-period");
			goto out;
		}
		if ((rc = locus_changes_generate(&more, &n_more, p, &v, err)))
			goto out;
		*drawn = v;
		size_t n_merged;
		if ((rc = locus_changes_merge(&merged, &n_merged, all, n_all, more, n_more)))
			goto nomem;
		free(all);
		all = merged;
		n_all = n_merged;
		merged = NULL;
	}
	*out = all;
	*n = n_all;
	all = NULL;
	goto out;
nomem:
	rc = cli_set_error(err, rc, NULL, "cannot merge the platform changes: %s",
			   locus_strerror(rc));
out:
	free(all);
	free(more);
	free(merged);
	return rc;
}

static void print_dag_summary(const struct locus_result *r, const struct locus_platform *p)
{
	printf("policy %s, seed %" PRIu64 ": %zu tasks on %zu processors (%zu nodes, %s)\n\n",
	       r->policy, r->seed, r->n_tasks, r->n_workers, r->n_nodes,
	       p->network == LOCUS_NET_PAIRS ? "contention-free links" : "shared network");
	if (r->failed)
		printf("  status            FAILED after %zu of %zu tasks: %s\n", r->tasks_done,
		       r->n_tasks, r->failure);
	else
		printf("  status            complete\n");
	if (r->var_bound > 0)
		printf("  variability       bound %g, each resource changing every %g s on "
		       "average until %g s%s\n",
		       r->var_bound, r->var_period, r->var_horizon,
		       r->var_links ? "" : " (processors only)");
	printf("  makespan          %12.6f s   lower bound %.6f s (ratio %.3f)\n", r->makespan,
	       r->lb_makespan, r->lb_makespan > 0 ? r->makespan / r->lb_makespan : 0);
	if (r->pstats.planned_makespan > 0)
		printf("  planned makespan  %12.6f s\n", r->pstats.planned_makespan);
	printf("  critical path     %12.6f s at least costs; %.6f s at mean costs\n", r->lb_cp,
	       r->cp_mean);
	if (!r->failed)
		printf("  NSL               %12.4f     SLR %.4f\n", r->nsl, r->slr);
	printf("  transfers         %12" PRIu64 "     %" PRIu64 " bytes\n", r->transfers,
	       r->bytes_moved);
	if (r->attempts_lost)
		printf("  attempts lost     %12" PRIu64 "\n", r->attempts_lost);
	for (size_t j = 0; j < 8 && r->pstats.counter_names[j]; j++)
		printf("  %-17s %" PRIu64 "\n", r->pstats.counter_names[j], r->pstats.counters[j]);
	printf("  schedulers        busy %.6f s in all\n", r->sched_busy_total);
	printf("  worker idle       %.6f s in all\n", r->worker_idle_total);
	printf("  policy's time     first plan %.3f ms, events %.3f ms in all, longest %.3f ms "
	       "(on this machine)\n",
	       1e3 * r->policy_create_seconds, 1e3 * r->policy_seconds, 1e3 * r->policy_event_max);
	printf("  simulated         %" PRIu64 " events in %.3f s (%.0f events/s)\n", r->events,
	       r->wall_seconds, r->wall_seconds > 0 ? (double)r->events / r->wall_seconds : 0);
}

static const struct locus_task_result *sched_tasks;

static int cmp_by_start(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	const struct locus_task_result *ta = &sched_tasks[a], *tb = &sched_tasks[b];
	if (ta->start != tb->start)
		return ta->start < tb->start ? -1 : 1;
	if (ta->worker != tb->worker)
		return ta->worker < tb->worker ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The schedule as run: every task that finished, by start time. */
static int print_schedule(const struct locus_result *r, const struct locus_workload *wl,
			  const struct locus_platform *p)
{
	uint32_t *order = cli_calloc(r->n_tasks ? r->n_tasks : 1, sizeof *order);
	if (!order)
		return LOCUS_ENOMEM;
	size_t n = 0;
	for (size_t t = 0; t < r->n_tasks; t++)
		if (r->tasks[t].attempts && r->tasks[t].end >= r->tasks[t].start)
			order[n++] = (uint32_t)t;
	sched_tasks = r->tasks;
	qsort(order, n, sizeof *order, cmp_by_start);
	int wt = 4, wp = 9;
	char buf[32];
	for (size_t k = 0; k < n; k++) {
		int l = (int)strlen(locus_graph_task_name(wl->graph, order[k], buf, sizeof buf));
		wt = l > wt ? l : wt;
		l = (int)strlen(p->nodes[r->tasks[order[k]].node].name);
		wp = l > wp ? l : wp;
	}
	wt = wt > 40 ? 40 : wt;
	printf("\n%-*s  %-*s  %12s  %12s  %8s\n", wt, "task", wp, "processor", "start", "finish",
	       "attempts");
	for (size_t k = 0; k < n; k++) {
		const struct locus_task_result *tr = &r->tasks[order[k]];
		printf("%-*.*s  %-*s  %12.6f  %12.6f  %8" PRIu32 "\n", wt, 40,
		       locus_graph_task_name(wl->graph, order[k], buf, sizeof buf), wp,
		       p->nodes[tr->node].name, tr->start, tr->end, tr->attempts);
	}
	if (n < r->n_tasks)
		printf("(%zu of %zu tasks did not finish)\n", r->n_tasks - n, r->n_tasks);
	free(order);
	return 0;
}

/* What one locus sim holds while it runs; sim_fini frees it. The steps
 * below return 0, a library error (negative, said by `err`), or an exit
 * status they have printed (positive). */
struct sim {
	struct locus_error err;
	struct locus_platform *plat;
	struct locus_speed_change *speed;
	size_t n_speed;
	struct locus_graph *g;
	struct locus_catalog *cat;
	struct locus_work_spec work;
	struct locus_workload *wl;
	long opt_local;
	struct locus_change *changes;
	size_t n_changes;
	struct locus_variability var; /* --variability's scenario (bound 0: none) */
	char *names;		      /* the policies' names, cut at the commas */
	const struct locus_policy **pols;
	size_t n_pol;
	struct locus_result **runs;
	size_t n_runs;
};

static void sim_fini(struct sim *s)
{
	free(s->changes);
	for (size_t i = 0; i < s->n_runs; i++)
		locus_result_destroy(s->runs[i]);
	free(s->runs);
	free(s->pols);
	free(s->names);
	free(s->speed);
	locus_work_spec_fini(&s->work);
	locus_workload_destroy(s->wl);
	locus_graph_destroy(s->g);
	locus_catalog_destroy(s->cat);
	locus_platform_destroy(s->plat);
}

/* The policies to run, checked before any work. */
static int sim_policies(struct sim *s, const struct sim_args *a)
{
	s->names = strdup(a->compare	? a->compare
			  : a->pol.name ? a->pol.name
			  : a->graph	? "heft"
					: "dlmpi");
	size_t n = 1;
	for (const char *c = s->names; c && *c; c++)
		n += *c == ',';
	s->pols = cli_calloc(n, sizeof *s->pols);
	s->runs = cli_calloc(n, sizeof *s->runs);
	if (!s->names || !s->pols || !s->runs)
		return LOCUS_ENOMEM;
	for (char *tok = strtok(s->names, ","); tok; tok = strtok(NULL, ",")) {
		s->pols[s->n_pol] = locus_policy_find(tok);
		if (!s->pols[s->n_pol]) {
			fprintf(stderr, "locus sim: no policy \"%s\"; the policies are:\n", tok);
			list_policies();
			return CLI_EXIT_USAGE;
		}
		s->n_pol++;
	}
	return 0;
}

/* The platform: a file's, --procs processors joined by links for a graph,
 * or generated nodes; and the speed trace on it. */
static int sim_platform(struct sim *s, const struct sim_args *a)
{
	int rc;
	if (a->platform) {
		if ((rc = locus_platform_load(&s->plat, a->platform, &s->err)))
			return rc;
	} else if (a->graph && !a->have_nodes) {
		/* P processors, one per node, each pair its own link. */
		const struct locus_graph *g = s->g;
		size_t procs = a->procs ? (size_t)a->procs : g->n_procs ? g->n_procs : GRAPH_PROCS;
		if ((rc = locus_platform_generate(&s->plat, procs, 1, 1, "p")))
			return rc;
		double bw = a->link_bw ? (double)a->link_bw : g->data_bw > 0 ? g->data_bw : 125e6;
		locus_platform_set_pairs(s->plat, bw, a->startup >= 0 ? a->startup : 0);
		if (a->speed_hi > a->speed_lo || a->speed_lo != 1)
			locus_platform_random_speeds(s->plat, a->speed_lo, a->speed_hi, a->seed);
	} else {
		if ((rc = locus_platform_generate(&s->plat, (size_t)a->nodes, (size_t)a->racks,
						  (int)a->ppn, "node")))
			return rc;
		struct locus_platform *plat = s->plat;
		for (size_t i = 0; i < plat->n_nodes; i++) {
			if (a->disk_bw)
				plat->nodes[i].disk_bw = (double)a->disk_bw;
			if (a->net_bw)
				plat->nodes[i].net_bw = (double)a->net_bw;
		}
		plat->rack_bw = (double)a->rack_bw;
		plat->backbone_bw = (double)a->backbone_bw;
		if (a->speed_hi > a->speed_lo || a->speed_lo != 1)
			locus_platform_random_speeds(plat, a->speed_lo, a->speed_hi, a->seed);
	}
	if (a->speed_trace &&
	    (rc = locus_speed_trace_load(&s->speed, &s->n_speed, s->plat, a->speed_trace, &s->err)))
		return rc;
	return 0;
}

/* The tasks and their data: the graph's, a source's chunks or generated
 * ones; the locality bound and the platform's changes. */
static int sim_workload(struct sim *s, struct sim_args *a)
{
	struct locus_platform *plat = s->plat;
	int rc;
	if (a->graph) {
		if (a->beta > 0 && s->g->cost)
			return cli_usage_error("sim",
					       "%s gives a cost per processor already; --beta "
					       "applies to graphs with one cost per task",
					       a->graph);
		if (a->beta > 0 &&
		    (rc = locus_dag_set_heterogeneity(s->g, locus_platform_cores(plat), a->beta,
						      a->seed, &s->err)))
			return rc;
		if (a->ccr >= 0 &&
		    (rc = locus_dag_set_ccr(s->g, a->ccr, data_bw(plat), a->seed, &s->err)))
			return rc;
		if ((rc = locus_workload_from_graph(&s->wl, plat, s->g, NULL, &s->err)))
			return rc;
	} else if (a->source) {
		if ((rc = locus_source_open(&s->cat, a->source, &s->err)))
			return rc;
	} else {
		size_t n_tasks = a->have_tasks ? (size_t)a->tasks : 10 * locus_platform_cores(plat);
		if (!a->replicas)
			a->replicas = plat->n_nodes < 3 ? plat->n_nodes : 3;
		if (a->replicas > plat->n_nodes)
			return cli_usage_error(
			    "sim", "--replicas must be between 1 and the number of nodes (%zu)",
			    plat->n_nodes);
		struct locus_place_options po = {.policy = a->placement,
						 .replicas = (unsigned)a->replicas,
						 .seed = a->seed,
						 .skew_std = a->skew_std};
		if ((rc = locus_place_catalog(&s->cat, plat, "generated", n_tasks, a->chunk_size,
					      &po, &s->err)))
			return rc;
	}
	if (!a->graph && (rc = locus_workload_build(&s->wl, plat, s->cat, a->dataset, &s->work,
						    a->seed, &s->err)))
		return rc;
	if (!a->graph && s->wl->n_unplaced && !a->shared_fs)
		fprintf(stderr,
			"locus sim: warning: %zu task%s read chunks no platform node holds\n",
			s->wl->n_unplaced, s->wl->n_unplaced == 1 ? "" : "s");
	if (a->ip && s->wl->n_tasks > IP_MAX_TASKS)
		return cli_usage_error("sim",
				       "--ip solves the integer program exactly for at most %d "
				       "tasks; this workload has %zu",
				       IP_MAX_TASKS, s->wl->n_tasks);
	s->opt_local = -1;
	if (!a->graph && (rc = locus_bound_locality(s->wl, NULL, &s->opt_local, NULL, &s->err)))
		return rc;
	if (a->scenario || a->n_fails || a->variability > 0) {
		struct locus_dag_bounds db;
		if ((rc = locus_dag_bounds(s->wl, NULL, &db)))
			return rc;
		if ((rc = build_changes(&s->changes, &s->n_changes, a, plat, db.lower, &s->var,
					&s->err)))
			return rc;
	}
	return 0;
}

/* Each policy's run; *status becomes CLI_EXIT_FAIL when one failed. */
static int sim_runs(struct sim *s, const struct sim_args *a, int *status)
{
	int rc;
	progress_tty = !a->quiet && isatty(2);
	for (size_t i = 0; i < s->n_pol; i++) {
		struct locus_sim_config cfg = {
		    .wl = s->wl,
		    .policy = s->pols[i],
		    .policy_opts = a->compare ? NULL : a->pol.opts,
		    .schedulers = (size_t)a->schedulers,
		    .seed = a->seed,
		    .latency = a->latency,
		    .cost_per_msg = a->cost_msg,
		    .cost_per_entry = a->cost_entry,
		    .shared_fs_bw = (double)a->shared_fs,
		    .speed = s->speed,
		    .n_speed = s->n_speed,
		    .changes = s->changes,
		    .n_changes = s->n_changes,
		    .no_task_results = !(cli_results_any(&a->res) || a->ip || a->schedule),
		    .no_transfer_results = !cli_results_transfers(&a->res),
		    .progress = progress_tty ? cli_progress : NULL,
		    .progress_user = (void *)s->pols[i]->name,
		    /* A graph's policies plan: say what planning cost. A
		     * chunk workload has a graph too, but its report says
		     * nothing of it: two clock reads an event for nothing
		     * (a tenth of scal's time). */
		    .time_policy = a->graph != NULL,
		};
		if ((rc = locus_sim_run(&s->runs[i], &cfg, &s->err)))
			return rc;
		struct locus_result *r = s->runs[i];
		s->n_runs++;
		r->opt_local = a->shared_fs > 0 ? 0 : s->opt_local;
		r->var_bound = s->var.bound;
		r->var_period = s->var.period;
		r->var_horizon = s->var.horizon;
		r->var_links = s->var.links;
		/* What the source said was wrong with the data, in the result
		 * and, once, on stderr. */
		if (a->source && (rc = locus_result_set_problems(r, s->cat, a->dataset)))
			return rc;
		if (i == 0)
			cli_warn_problems("sim", r);
		if (r->failed) {
			fprintf(stderr, "locus sim: %s: the run failed: %s\n", s->pols[i]->name,
				r->failure);
			*status = CLI_EXIT_FAIL;
		}
	}
	return 0;
}

/* The comparison, or the one run's summary (its schedule, its IP score)
 * and its files. */
static int sim_report(struct sim *s, const struct sim_args *a)
{
	const struct locus_result *const *runs = (const struct locus_result *const *)s->runs;
	int rc;
	if (a->compare) {
		rc = a->res.json ? locus_report_compare_json(runs, s->n_runs, stdout)
				 : locus_report_compare(runs, s->n_runs, stdout);
		if (!rc && a->ip)
			rc = print_ip(s->wl, s->runs, s->n_runs, a->ip_alpha, a->ip_beta, &s->err);
		return rc;
	}
	rc = 0;
	if (a->res.json)
		rc = locus_report_json(runs[0], stdout);
	else if (a->graph)
		print_dag_summary(runs[0], s->plat);
	else
		print_summary(runs[0]);
	if (!rc && a->schedule)
		rc = print_schedule(runs[0], s->wl, s->plat);
	if (!rc && a->ip)
		rc = print_ip(s->wl, s->runs, 1, a->ip_alpha, a->ip_beta, &s->err);
	/* All written, then all renamed: never one file without the others. */
	return rc ? rc : cli_results_write("sim", &a->res, runs[0]);
}

int cmd_sim(int argc, char **argv)
{
	struct sim_args a;
	struct sim s = {0};
	int status = 0;
	int rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (a.list) {
		list_policies();
		return 0;
	}
	/* Every output path is checked before the run, not after it. */
	if ((rc = cli_results_check("sim", &a.res, NULL, 0)))
		return rc;
	if (a.graph) {
		/* The DAG papers' model: a static plan, no scheduler overhead. */
		if (!(a.have_costs & 1))
			a.cost_msg = 0;
		if (!(a.have_costs & 2))
			a.cost_entry = 0;
	}
	if (!(rc = sim_policies(&s, &a)) && !a.graph)
		rc = locus_work_spec_parse(&s.work, a.work, &s.err);
	if (!rc && a.graph)
		rc = load_graph(&s.g, &a, &s.err);
	if (!rc)
		rc = sim_platform(&s, &a);
	if (!rc)
		rc = sim_workload(&s, &a);
	if (!rc)
		rc = sim_runs(&s, &a, &status);
	if (!rc)
		rc = sim_report(&s, &a);
	if (rc < 0)
		status = cli_error("sim", &s.err, rc);
	else if (rc > 0)
		status = rc;
	sim_fini(&s);
	return status;
}
