/* locus sim: run scheduling policies in the discrete-event simulator. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char *const help =
    "usage: locus sim [OPTIONS]\n"
    "\n"
    "Runs a scheduling policy (or several, --compare) over one workload in the\n"
    "discrete-event simulator and reports makespan, locality, request waits and\n"
    "scheduler load next to the bounds no schedule can beat. The same seed\n"
    "gives the same result, byte for byte.\n"
    "\n"
    "Platform:\n"
    "  -p, --platform FILE       nodes from a platform file (docs/formats.md)\n"
    "  -N, --nodes N             or N generated nodes (default 32)\n"
    "  -P, --procs-per-node P    worker processes per generated node (default 1)\n"
    "      --racks K             racks of generated nodes (default 1)\n"
    "      --speeds LO:HI        generated node speeds uniform in [LO, HI] (default 1:1)\n"
    "      --disk-bw BW          generated nodes' disk bandwidth (default 100MB)\n"
    "      --net-bw BW           their network interface bandwidth (default 125MB)\n"
    "      --rack-bw BW          each rack's uplink, each way (default: no cap)\n"
    "      --backbone-bw BW      the whole network's aggregate (default: no cap)\n"
    "      --speed-trace FILE    speed changes: lines \"TIME NODE SPEED\"\n"
    "\n"
    "Data (where each task's chunk lives):\n"
    "  -s, --source SPEC         a catalog, store, fsck or WebHDFS source (see\n"
    "                            'locus locate --help'); every chunk is a task\n"
    "  -d, --dataset NAME        only this dataset of the source\n"
    "  -n, --tasks N             or N generated chunks (default 10 per worker)\n"
    "  -c, --chunk-size SIZE     size of generated chunks (default 64M)\n"
    "  -r, --replicas R          replicas of generated chunks (default 3, or one per\n"
    "                            node on smaller platforms)\n"
    "      --placement NAME      hdfs (default), random or skewed\n"
    "      --skew-std S          spread of replicas per node for skewed\n"
    "\n"
    "Tasks:\n"
    "  -w, --work SPEC           compute per task on a speed-1 node: fixed:SECONDS,\n"
    "                            uniform:LO:HI, exp:MEAN, per-mib:SECONDS or\n"
    "                            trace:FILE (default fixed:1)\n"
    "\n"
    "Policy:\n"
    "  -x, --policy NAME         the policy (default dlmpi); --list-policies names them\n"
    "  -o, --opt KEY=VALUE,...   policy options\n"
    "      --schedulers N        scheduler processes (default: the policy's)\n"
    "      --compare A,B,...     run several policies on the same workload\n"
    "      --list-policies       list the policies and exit\n"
    "      --ip ALPHA:BETA       also solve DL-MPI's integer program (Eq. 1) exactly\n"
    "                            and print each run's score next to its optimum\n"
    "                            (at most 12 tasks; e.g. 0.5:0.5)\n"
    "\n"
    "Engine:\n"
    "      --latency SECONDS     message latency (default: the platform's, 50e-6)\n"
    "      --cost-msg SECONDS    time a process spends per message it handles (default 5e-6)\n"
    "      --cost-entry SECONDS  time per metadata entry examined (default 1e-7)\n"
    "      --shared-fs BW        read every chunk from a shared file system with\n"
    "                            this aggregate bandwidth\n"
    "      --seed S              seed of placement, work and policies (default 1)\n"
    "\n"
    "Output:\n"
    "      --json                print the result (or comparison) as JSON\n"
    "      --out FILE            write the full result JSON (per worker, per task)\n"
    "      --csv FILE            one line per task\n"
    "      --trace FILE          Chrome trace-event JSON (open in Perfetto)\n"
    "      --gantt FILE          SVG Gantt chart\n"
    "      --load FILE           SVG chart of per-worker load and local/remote reads\n"
    "  -q, --quiet               no progress bar\n"
    "  -h, --help                show this help\n"
    "\n"
    "Sizes and bandwidths (bytes, bytes/s): 64M, 1G are powers of 1024; 80MB, 1GB\n"
    "powers of 1000.\n"
    "\n"
    "Examples:\n"
    "  locus sim --nodes 32 --tasks 640 --work fixed:2 --compare fifo,monolithic,dlmpi\n"
    "  locus sim --nodes 64 --speeds 1:4 --policy dlmpi --gantt g.svg --out run.json\n"
    "  locus sim --source /tmp/store --platform cluster.json --policy delay -o delay=0.5\n";

struct sim_args {
	const char *platform, *speed_trace, *source, *dataset, *work, *policy, *opts, *compare;
	const char *out, *csv, *trace, *gantt, *load;
	uint64_t nodes, ppn, racks, tasks, chunk_size, replicas, schedulers, seed;
	uint64_t disk_bw, net_bw, rack_bw, backbone_bw; /* generated platforms; 0: default */
	double speed_lo, speed_hi, skew_std, latency, cost_msg, cost_entry, shared_fs;
	enum locus_place_policy placement;
	int json, quiet, list, have_tasks, have_skew, ip;
	double ip_alpha, ip_beta;
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
	return (*end || !(*lo > 0) || !(*hi >= *lo) || isinf(*hi)) ? -1 : 0;
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

static int parse_args(int argc, char **argv, struct sim_args *a)
{
	static const struct option opts[] = {
	    {"platform", required_argument, 0, 'p'},
	    {"nodes", required_argument, 0, 'N'},
	    {"procs-per-node", required_argument, 0, 'P'},
	    {"racks", required_argument, 0, 1},
	    {"speeds", required_argument, 0, 2},
	    {"speed-trace", required_argument, 0, 3},
	    {"source", required_argument, 0, 's'},
	    {"dataset", required_argument, 0, 'd'},
	    {"tasks", required_argument, 0, 'n'},
	    {"chunk-size", required_argument, 0, 'c'},
	    {"replicas", required_argument, 0, 'r'},
	    {"placement", required_argument, 0, 4},
	    {"skew-std", required_argument, 0, 5},
	    {"work", required_argument, 0, 'w'},
	    {"policy", required_argument, 0, 'x'},
	    {"opt", required_argument, 0, 'o'},
	    {"schedulers", required_argument, 0, 6},
	    {"compare", required_argument, 0, 7},
	    {"list-policies", no_argument, 0, 8},
	    {"latency", required_argument, 0, 9},
	    {"cost-msg", required_argument, 0, 10},
	    {"cost-entry", required_argument, 0, 11},
	    {"shared-fs", required_argument, 0, 12},
	    {"seed", required_argument, 0, 13},
	    {"json", no_argument, 0, 14},
	    {"out", required_argument, 0, 15},
	    {"csv", required_argument, 0, 16},
	    {"trace", required_argument, 0, 17},
	    {"gantt", required_argument, 0, 18},
	    {"load", required_argument, 0, 19},
	    {"disk-bw", required_argument, 0, 20},
	    {"net-bw", required_argument, 0, 21},
	    {"rack-bw", required_argument, 0, 22},
	    {"backbone-bw", required_argument, 0, 23},
	    {"ip", required_argument, 0, 24},
	    {"quiet", no_argument, 0, 'q'},
	    {"help", no_argument, 0, 'h'},
	    {0, 0, 0, 0},
	};
	int c, rc = 0;
	uint64_t fs = 0;
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
			       .policy = "dlmpi"};
	optind = 1;
	opterr = 0;
	while (!rc &&
	       (c = getopt_long(argc, argv, ":p:N:P:s:d:n:c:r:w:x:o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			a->platform = optarg;
			break;
		case 'N':
			rc = cli_uint("sim", "--nodes", optarg, &a->nodes);
			break;
		case 'P':
			rc = cli_uint("sim", "--procs-per-node", optarg, &a->ppn);
			break;
		case 1:
			rc = cli_uint("sim", "--racks", optarg, &a->racks);
			break;
		case 2:
			if (parse_speeds(optarg, &a->speed_lo, &a->speed_hi))
				rc = cli_usage_error(
				    "sim", "--speeds expects LO:HI with 0 < LO <= HI, got \"%s\"",
				    optarg);
			break;
		case 3:
			a->speed_trace = optarg;
			break;
		case 's':
			a->source = optarg;
			break;
		case 'd':
			a->dataset = optarg;
			break;
		case 'n':
			rc = cli_uint("sim", "--tasks", optarg, &a->tasks);
			a->have_tasks = 1;
			break;
		case 'c':
			rc = cli_size("sim", "--chunk-size", optarg, &a->chunk_size);
			break;
		case 'r':
			rc = cli_uint("sim", "--replicas", optarg, &a->replicas);
			if (!rc && !a->replicas)
				rc = cli_usage_error("sim", "--replicas must be at least 1");
			break;
		case 4:
			if (locus_place_policy_parse(optarg, &a->placement))
				rc = cli_usage_error(
				    "sim", "--placement expects hdfs, random or skewed, got \"%s\"",
				    optarg);
			break;
		case 5:
			rc = cli_double("sim", "--skew-std", optarg, &a->skew_std);
			a->have_skew = 1;
			break;
		case 'w':
			a->work = optarg;
			break;
		case 'x':
			a->policy = optarg;
			break;
		case 'o':
			a->opts = optarg;
			break;
		case 6:
			rc = cli_uint("sim", "--schedulers", optarg, &a->schedulers);
			break;
		case 7:
			a->compare = optarg;
			break;
		case 8:
			a->list = 1;
			break;
		case 9:
			rc = cli_double("sim", "--latency", optarg, &a->latency);
			break;
		case 10:
			rc = cli_double("sim", "--cost-msg", optarg, &a->cost_msg);
			break;
		case 11:
			rc = cli_double("sim", "--cost-entry", optarg, &a->cost_entry);
			break;
		case 12:
			rc = cli_size("sim", "--shared-fs", optarg, &fs);
			a->shared_fs = (double)fs;
			break;
		case 13:
			rc = cli_uint("sim", "--seed", optarg, &a->seed);
			break;
		case 14:
			a->json = 1;
			break;
		case 15:
			a->out = optarg;
			break;
		case 16:
			a->csv = optarg;
			break;
		case 17:
			a->trace = optarg;
			break;
		case 18:
			a->gantt = optarg;
			break;
		case 19:
			a->load = optarg;
			break;
		case 20:
			rc = cli_size("sim", "--disk-bw", optarg, &a->disk_bw);
			if (!rc && !a->disk_bw)
				rc = cli_usage_error("sim", "--disk-bw must be > 0");
			break;
		case 21:
			rc = cli_size("sim", "--net-bw", optarg, &a->net_bw);
			if (!rc && !a->net_bw)
				rc = cli_usage_error("sim", "--net-bw must be > 0");
			break;
		case 22:
			rc = cli_size("sim", "--rack-bw", optarg, &a->rack_bw);
			if (!rc && !a->rack_bw)
				rc = cli_usage_error("sim", "--rack-bw must be > 0");
			break;
		case 24:
			if (parse_weights(optarg, &a->ip_alpha, &a->ip_beta))
				rc = cli_usage_error(
				    "sim", "--ip expects ALPHA:BETA, two numbers >= 0, got \"%s\"",
				    optarg);
			a->ip = 1;
			break;
		case 23:
			rc = cli_size("sim", "--backbone-bw", optarg, &a->backbone_bw);
			if (!rc && !a->backbone_bw)
				rc = cli_usage_error("sim", "--backbone-bw must be > 0");
			break;
		case 'q':
			a->quiet = 1;
			break;
		case 'h':
			fputs(help, stdout);
			return -1;
		case ':':
			return cli_usage_error("sim", "option %s needs a value", argv[optind - 1]);
		default:
			return cli_usage_error("sim", "unknown option %s", argv[optind - 1]);
		}
	}
	if (rc)
		return rc;
	if (optind < argc)
		return cli_usage_error("sim", "unexpected argument \"%s\"", argv[optind]);
	if (a->platform && (a->nodes != 32 || a->ppn != 1 || a->racks != 1 || a->speed_hi != 1 ||
			    a->disk_bw || a->net_bw || a->rack_bw || a->backbone_bw))
		return cli_usage_error("sim",
				       "--platform excludes --nodes, --procs-per-node, --racks, "
				       "--speeds and the --*-bw options");
	if (!a->platform && (!a->nodes || !a->ppn || !a->racks || a->ppn > 4096))
		return cli_usage_error("sim",
				       "--nodes, --racks and --procs-per-node must be at least 1");
	if (a->source && (a->have_tasks || a->have_skew))
		return cli_usage_error(
		    "sim", "--source gives the chunks; --tasks and --skew-std generate them");
	if (a->placement == LOCUS_PLACE_SKEWED && !a->have_skew && !a->source)
		return cli_usage_error("sim", "--placement skewed needs --skew-std S");
	if (a->latency != -1 && !(a->latency >= 0))
		return cli_usage_error("sim", "--latency must be >= 0");
	if (!(a->cost_msg >= 0) || !(a->cost_entry >= 0))
		return cli_usage_error("sim", "--cost-msg and --cost-entry must be >= 0");
	if (a->ip && a->json)
		return cli_usage_error("sim", "--ip prints a text comparison; drop --json");
	if (a->compare && a->opts)
		return cli_usage_error("sim", "--opt sets one policy's options; drop --compare");
	if (a->compare && (a->out || a->csv || a->trace || a->gantt || a->load))
		return cli_usage_error(
		    "sim",
		    "--out, --csv, --trace, --gantt and --load describe one run; drop --compare");
	return 0;
}

static int progress_tty;

static void progress(void *user, size_t done, size_t total, double now)
{
	const char *name = user;
	int width = 30, fill = total ? (int)((double)done / (double)total * width) : width;
	fprintf(stderr, "\r%-12s [%.*s%*s] %3d%%  t=%.3fs", name, fill,
		"##############################", width - fill, "",
		total ? (int)(100.0 * (double)done / (double)total) : 100, now);
	if (done >= total)
		fprintf(stderr, "\r%*s\r", 70, "");
	fflush(stderr);
}

static void print_summary(const struct locus_result *r)
{
	printf("policy %s, seed %" PRIu64
	       ": %zu tasks on %zu workers (%zu nodes, %zu scheduler%s)\n\n",
	       r->policy, r->seed, r->n_tasks, r->n_workers, r->n_nodes, r->n_schedulers,
	       r->n_schedulers == 1 ? "" : "s");
	printf("  makespan          %12.6f s   lower bound %.6f s (ratio %.3f)\n", r->makespan,
	       r->lb_makespan, r->lb_makespan > 0 ? r->makespan / r->lb_makespan : 0);
	printf("  local reads       %12zu     %.2f%% of tasks", r->local_tasks,
	       r->n_tasks ? 100.0 * (double)r->local_tasks / (double)r->n_tasks : 0);
	if (r->opt_local >= 0)
		printf(", optimum %ld (%.2f%%)", r->opt_local,
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

int cmd_sim(int argc, char **argv)
{
	struct sim_args a;
	struct locus_error err = {0};
	struct locus_platform *plat = NULL;
	struct locus_catalog *cat = NULL;
	struct locus_workload *wl = NULL;
	struct locus_work_spec work = {0};
	struct locus_speed_change *speed = NULL;
	struct locus_result **runs = NULL;
	const struct locus_policy **pols = NULL;
	char *names = NULL;
	size_t n_speed = 0, n_runs = 0;
	int status = 0;
	int rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (a.list) {
		list_policies();
		return 0;
	}
	/* The policies, checked before any work. */
	names = strdup(a.compare ? a.compare : a.policy);
	size_t n_pol = 1;
	for (const char *s = names; *s; s++)
		n_pol += *s == ',';
	pols = cli_calloc(n_pol, sizeof *pols);
	runs = cli_calloc(n_pol, sizeof *runs);
	if (!names || !pols || !runs) {
		rc = LOCUS_ENOMEM;
		goto fail;
	}
	n_pol = 0;
	for (char *tok = strtok(names, ","); tok; tok = strtok(NULL, ",")) {
		pols[n_pol] = locus_policy_find(tok);
		if (!pols[n_pol]) {
			fprintf(stderr, "locus sim: no policy \"%s\"; the policies are:\n", tok);
			list_policies();
			status = CLI_EXIT_USAGE;
			goto out;
		}
		n_pol++;
	}
	if ((rc = locus_work_spec_parse(&work, a.work, &err)))
		goto fail;

	/* Platform. */
	if (a.platform) {
		if ((rc = locus_platform_load(&plat, a.platform, &err)))
			goto fail;
	} else {
		if ((rc = locus_platform_generate(&plat, (size_t)a.nodes, (size_t)a.racks,
						  (int)a.ppn, "node")))
			goto fail;
		for (size_t i = 0; i < plat->n_nodes; i++) {
			if (a.disk_bw)
				plat->nodes[i].disk_bw = (double)a.disk_bw;
			if (a.net_bw)
				plat->nodes[i].net_bw = (double)a.net_bw;
		}
		plat->rack_bw = (double)a.rack_bw;
		plat->backbone_bw = (double)a.backbone_bw;
		if (a.speed_hi > a.speed_lo || a.speed_lo != 1)
			locus_platform_random_speeds(plat, a.speed_lo, a.speed_hi, a.seed);
	}
	if (a.speed_trace &&
	    (rc = locus_speed_trace_load(&speed, &n_speed, plat, a.speed_trace, &err)))
		goto fail;

	/* Data. */
	if (a.source) {
		if ((rc = locus_source_open(&cat, a.source, &err)))
			goto fail;
	} else {
		size_t n_tasks = a.have_tasks ? (size_t)a.tasks : 10 * locus_platform_cores(plat);
		if (!a.replicas)
			a.replicas = plat->n_nodes < 3 ? plat->n_nodes : 3;
		if (a.replicas > plat->n_nodes) {
			status = cli_usage_error(
			    "sim", "--replicas must be between 1 and the number of nodes (%zu)",
			    plat->n_nodes);
			goto out;
		}
		struct locus_place_options po = {.policy = a.placement,
						 .replicas = (unsigned)a.replicas,
						 .seed = a.seed,
						 .skew_std = a.skew_std};
		if ((rc = locus_place_catalog(&cat, plat, "generated", n_tasks, a.chunk_size, &po,
					      &err)))
			goto fail;
	}
	if ((rc = locus_workload_build(&wl, plat, cat, a.dataset, &work, a.seed, &err)))
		goto fail;
	if (wl->n_unplaced && !a.shared_fs)
		fprintf(stderr,
			"locus sim: warning: %zu task%s read chunks no platform node holds\n",
			wl->n_unplaced, wl->n_unplaced == 1 ? "" : "s");
	if (a.ip && wl->n_tasks > IP_MAX_TASKS) {
		status = cli_usage_error("sim",
					 "--ip solves the integer program exactly for at most %d "
					 "tasks; this workload has %zu",
					 IP_MAX_TASKS, wl->n_tasks);
		goto out;
	}
	long opt_local = -1;
	if ((rc = locus_bound_locality(wl, NULL, &opt_local, NULL, &err)))
		goto fail;

	progress_tty = !a.quiet && isatty(2);
	for (size_t i = 0; i < n_pol; i++) {
		struct locus_sim_config cfg = {
		    .wl = wl,
		    .policy = pols[i],
		    .policy_opts = a.compare ? NULL : a.opts,
		    .schedulers = (size_t)a.schedulers,
		    .seed = a.seed,
		    .latency = a.latency,
		    .cost_per_msg = a.cost_msg,
		    .cost_per_entry = a.cost_entry,
		    .shared_fs_bw = a.shared_fs,
		    .speed = speed,
		    .n_speed = n_speed,
		    .no_task_results = !(a.out || a.csv || a.trace || a.gantt || a.load || a.ip),
		    .progress = progress_tty ? progress : NULL,
		    .progress_user = (void *)pols[i]->name,
		};
		if ((rc = locus_sim_run(&runs[i], &cfg, &err)))
			goto fail;
		runs[i]->opt_local = a.shared_fs > 0 ? 0 : opt_local;
		n_runs++;
	}
	if (a.compare) {
		rc = a.json ? locus_report_compare_json((const struct locus_result *const *)runs,
							n_runs, stdout)
			    : locus_report_compare((const struct locus_result *const *)runs, n_runs,
						   stdout);
		if (!rc && a.ip)
			rc = print_ip(wl, runs, n_runs, a.ip_alpha, a.ip_beta, &err);
		if (rc)
			goto fail;
		goto out;
	}
	if (a.json)
		rc = locus_report_json(runs[0], stdout);
	else
		print_summary(runs[0]);
	if (!rc && a.ip)
		rc = print_ip(wl, runs, 1, a.ip_alpha, a.ip_beta, &err);
	const struct {
		const char *path;
		int (*fn)(const struct locus_result *, FILE *);
	} outs[] = {{a.out, locus_report_json},
		    {a.csv, locus_report_csv},
		    {a.trace, locus_report_trace},
		    {a.gantt, locus_report_svg_gantt},
		    {a.load, locus_report_svg_load}};
	for (size_t k = 0; !rc && k < sizeof outs / sizeof outs[0]; k++)
		if (outs[k].path)
			rc = locus_report_save(runs[0], outs[k].fn, outs[k].path, &err);
	if (rc)
		goto fail;
	goto out;
fail:
	status = cli_error("sim", &err, rc);
out:
	for (size_t i = 0; i < n_runs; i++)
		locus_result_destroy(runs[i]);
	free(runs);
	free(pols);
	free(names);
	free(speed);
	locus_work_spec_fini(&work);
	locus_workload_destroy(wl);
	locus_catalog_destroy(cat);
	locus_platform_destroy(plat);
	return status;
}
