/* locus flow: many-task workflows (AME/AMFS): show one's stages and
 * patterns, or run it in the simulator under a data-management policy. */
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#ifdef LOCUS_HAVE_MPI
#include "locus/mpi.h"
#endif

static const char *const help =
    "usage: locus flow show WORKFLOW [OPTIONS]\n"
    "       locus flow sim WORKFLOW [OPTIONS]\n"
    "       locus flow run WORKFLOW [-np N] [--emulate-nodes K] [OPTIONS]\n"
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
    "written to the shared directory.\n"
    "\n"
    "WORKFLOW:\n"
    "  FILE                      WfCommons JSON, a Makeflow (named Makeflow, *.mf or\n"
    "                            *.makeflow, or told by content), STG or the text form\n"
    "  makeflow:FILE, wfcommons:FILE, stg:FILE, text:FILE   the format named\n"
    "  gen:montage[:IMAGES]      the paper's Montage (1319 images: the 6x6 degree\n"
    "                            mosaic of Table VI)\n"
    "  gen:blast[:N[:M]]         the paper's mtcBLAST: N database fragments (63), M\n"
    "                            query files (16)\n"
    "      --seed S              seed of generated workflows and of the run (default 1)\n"
    "      --jitter CV           generated runtimes' coefficient of variation\n"
    "      --runtime-scale X     multiply generated runtimes by X\n"
    "      --work SPEC           sim: every task's runtime from SPEC instead (fixed:S,\n"
    "                            uniform:LO:HI, exp:MEAN, per-mib:S, trace:FILE: one\n"
    "                            value per task in order, as --measured writes)\n"
    "      --runtime SECONDS     a Makeflow rule's runtime when no LOCUS_RUNTIME\n"
    "                            variable gives one (default 1)\n"
    "\n"
    "Pattern thresholds (show; sim and run pass them to amfs as -o gather=N,...):\n"
    "      --gather N            a task reading N produced files or more gathers (16)\n"
    "      --multicast N         a file N tasks of one stage read is multicast (8)\n"
    "      --scatter N           a task whose outputs N tasks read scatters (8)\n"
    "      --reduce STAGE,...    these stages' gathers are reductions: run runs the\n"
    "                            task's own command at every node of the tree over the\n"
    "                            inputs there, with the words naming the others left\n"
    "                            out (inputs as words of their own, one output file)\n"
    "\n"
    "Policy (sim):\n"
    "      --config NAME         amfs's configuration (Fig. 10): staging (inputs\n"
    "                            staged from the shared file system, outputs written\n"
    "                            back), cache (intermediate files stay on the nodes),\n"
    "                            aware (+ data-aware dispatch), cogather (+ collective\n"
    "                            gather), asgather (+ asynchronous gather), shared\n"
    "                            (every read and write on the shared file system), auto\n"
    "                            (collective or asynchronous gather chosen per task)\n"
    "  -x, --policy NAME         amfs (default), taskvine, dask, or any policy of\n"
    "                            'locus sim --list-policies'\n"
    "  -o, --opt KEY=VALUE,...   policy options (amfs: aware=first|bytes, steal=N,\n"
    "                            keep=1, multicast=N, ...: docs/flow.md)\n"
    "      --compare A,B,...     run several on the same workflow and platform: each\n"
    "                            an amfs configuration or a policy name (-o applies\n"
    "                            to the amfs runs); one table, then time per stage\n"
    "\n"
    "Ranks (run):\n"
    "  -n, --np N                ranks (default: K + 1 with --emulate-nodes, else the\n"
    "                            cores): the first D run the dispatchers, the others\n"
    "                            are workers, each its node's storage server too\n"
    "  -K, --emulate-nodes K     one machine plays K nodes, each with its own storage\n"
    "                            directory (worker ranks spread round-robin)\n"
    "      --local DIR           where the nodes' storage goes (default /dev/shm)\n"
    "      --shared DIR          the shared directory: the workflow's inputs are read\n"
    "                            there and its final outputs written there (default:\n"
    "                            the workflow file's directory)\n"
    "      --retries N           run a failing task up to N more times (default 1)\n"
    "      --keep                keep every node's storage and working directories\n"
    "      --journal FILE        record each finished task and where its outputs are;\n"
    "                            run again with it, an interrupted run does only what\n"
    "                            is left, taking the files the nodes kept (a task\n"
    "                            whose files were lost runs again)\n"
    "      --checksum            the journal checks kept files by checksum, not size only\n"
    "      --measured PREFIX     write PREFIX.platform.json (the nodes, with the rate\n"
    "                            the copies between them achieved) and PREFIX.work\n"
    "                            (each task's seconds), and print the 'locus flow\n"
    "                            sim' command that replays the run\n"
    "      --stand-in X          run stand-ins instead of the commands: each reads its\n"
    "                            inputs, sleeps X times its runtime and writes outputs\n"
    "                            of their recorded sizes (WfCommons instances)\n"
    "      --mpirun PATH, --hostfile FILE, --mpi-arg ARG   the launcher and its options\n"
    "\n"
    "Platform (sim):\n"
    "  -p, --platform FILE       nodes from a platform file (nodes with 0 cores run\n"
    "                            the dispatchers)\n"
    "  -N, --nodes N             or N generated worker nodes (default 64)\n"
    "  -c, --cores C             cores (workers) per node (default 4, as BG/P)\n"
    "      --dispatchers D       amfs's dispatchers, each with a metadata server, on\n"
    "                            nodes of their own (default: one per 63 worker\n"
    "                            nodes, the paper's 1:63)\n"
    "      --net-bw BW           each node's network interface (default 425MB)\n"
    "      --disk-bw BW          each node's local storage bandwidth (default 1GB)\n"
    "      --storage SIZE        each node's local storage capacity (default: no\n"
    "                            limit; a run that overfills one fails saying which)\n"
    "      --fs-bw BW            the shared file system's aggregate bandwidth\n"
    "                            (default 1250MB)\n"
    "      --fs-ops N            its metadata operations per second (default 2000)\n"
    "      --fs-latency SECONDS  what opening a file on it costs a client; a node\n"
    "                            opens its files one after another (default 0)\n"
    "      --latency SECONDS     message and transfer latency (default 50e-6)\n"
    "      --cost-msg SECONDS    time a process spends per message it handles (5e-6)\n"
    "      --cost-entry SECONDS  time per metadata entry examined (1e-7)\n"
    "\n"
    "Output:\n"
    "      --json                print the analysis, result or comparison as JSON\n"
    "      --out FILE            write the full result JSON (per stage, task, transfer)\n"
    "      --csv FILE            one line per task\n"
    "      --trace FILE          Chrome trace-event JSON (open in Perfetto)\n"
    "      --gantt FILE          SVG Gantt chart\n"
    "      --load FILE           SVG chart of per-worker load\n"
    "  -q, --quiet               no progress bar\n"
    "  -h, --help                show this help\n"
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
    "  mpirun --hostfile hosts -np 65 locus flow run Makeflow --local /tmp --shared $PWD\n";

#define FLOW_MAX_RUNS 32

struct flow_args {
	const char *sub, *workflow;
	struct locus_flow_load_options load;
	uint64_t seed;
	struct locus_pattern_options pat;
	const char *reduce;
	int have_pat;
	const char *config, *policy, *opts, *compare;
	const char *platform;
	uint64_t nodes, cores, dispatchers, net_bw, disk_bw, storage, fs_bw;
	double fs_ops, fs_latency, latency, cost_msg, cost_entry;
	int have_nodes, have_dispatchers;
	const char *out, *csv, *trace, *gantt, *load_svg;
	int json, quiet;
	/* run */
	struct cli_mpi mpi;
	uint64_t np, emulate, retries;
	const char *local, *shared, *journal, *measured;
	const char *work; /* sim: --work SPEC */
	int keep, have_run, tty, checksum;
	double stand_in;
};

static const char *const configs[] = {"staging",  "cache",  "aware", "cogather",
				      "asgather", "shared", "auto"};

static int is_config(const char *s)
{
	for (size_t k = 0; k < CLI_ARRAY_LEN(configs); k++)
		if (!strcmp(s, configs[k]))
			return 1;
	return 0;
}

static int bad(const char *sub, const char *opt, const char *what, const char *arg)
{
	char cmd[16];
	snprintf(cmd, sizeof cmd, "flow %s", sub);
	return cli_usage_error(cmd, "%s expects %s, got \"%s\"", opt, what, arg);
}

static int parse_args(int argc, char **argv, struct flow_args *a)
{
	static const struct option opts[] = {
	    {"seed", required_argument, 0, 1},
	    {"jitter", required_argument, 0, 2},
	    {"runtime-scale", required_argument, 0, 3},
	    {"runtime", required_argument, 0, 4},
	    {"gather", required_argument, 0, 5},
	    {"multicast", required_argument, 0, 6},
	    {"scatter", required_argument, 0, 7},
	    {"reduce", required_argument, 0, 8},
	    {"config", required_argument, 0, 9},
	    {"policy", required_argument, 0, 'x'},
	    {"opt", required_argument, 0, 'o'},
	    {"compare", required_argument, 0, 10},
	    {"platform", required_argument, 0, 'p'},
	    {"nodes", required_argument, 0, 'N'},
	    {"cores", required_argument, 0, 'c'},
	    {"dispatchers", required_argument, 0, 11},
	    {"net-bw", required_argument, 0, 12},
	    {"disk-bw", required_argument, 0, 13},
	    {"storage", required_argument, 0, 14},
	    {"fs-bw", required_argument, 0, 15},
	    {"fs-ops", required_argument, 0, 16},
	    {"latency", required_argument, 0, 17},
	    {"cost-msg", required_argument, 0, 18},
	    {"cost-entry", required_argument, 0, 19},
	    {"json", no_argument, 0, 20},
	    {"out", required_argument, 0, 21},
	    {"csv", required_argument, 0, 22},
	    {"trace", required_argument, 0, 23},
	    {"gantt", required_argument, 0, 24},
	    {"load", required_argument, 0, 25},
	    {"fs-latency", required_argument, 0, 26},
	    {"np", required_argument, 0, 'n'},
	    {"emulate-nodes", required_argument, 0, 'K'},
	    {"local", required_argument, 0, 30},
	    {"shared", required_argument, 0, 31},
	    {"retries", required_argument, 0, 32},
	    {"keep", no_argument, 0, 33},
	    {"stand-in", required_argument, 0, 34},
	    {"progress-tty", no_argument, 0, 35},
	    {"journal", required_argument, 0, 36},
	    {"checksum", no_argument, 0, 37},
	    {"measured", required_argument, 0, 38},
	    {"work", required_argument, 0, 39},
	    CLI_MPI_LONG_OPTIONS,
	    {"quiet", no_argument, 0, 'q'},
	    {"help", no_argument, 0, 'h'},
	    {0, 0, 0, 0},
	};
	const char *sub = a->sub;
	char cmd[16];
	snprintf(cmd, sizeof cmd, "flow %s", sub);
	int c, rc = 0;
	uint64_t u;
	optind = 1;
	opterr = 0;
	while (!rc && (c = getopt_long(argc, argv, ":x:o:p:N:c:n:K:qh", opts, NULL)) != -1) {
		switch (c) {
		case 1:
			rc = cli_uint(cmd, "--seed", optarg, &a->seed);
			a->load.seed = a->seed;
			break;
		case 2:
			rc = cli_double(cmd, "--jitter", optarg, &a->load.jitter);
			if (!rc && !(a->load.jitter >= 0 && a->load.jitter <= 100))
				rc = bad(sub, "--jitter", "a coefficient of variation in [0, 100]",
					 optarg);
			break;
		case 3:
			rc = cli_double(cmd, "--runtime-scale", optarg, &a->load.runtime_scale);
			if (!rc && !(a->load.runtime_scale > 0 && a->load.runtime_scale <= 1e9))
				rc = bad(sub, "--runtime-scale", "a factor > 0", optarg);
			break;
		case 4:
			rc = cli_double(cmd, "--runtime", optarg, &a->load.runtime);
			if (!rc && !(a->load.runtime >= 0 && a->load.runtime <= 1e12))
				rc = bad(sub, "--runtime", "seconds >= 0", optarg);
			break;
		case 5:
		case 6:
		case 7:
			rc = cli_uint(cmd,
				      c == 5   ? "--gather"
				      : c == 6 ? "--multicast"
					       : "--scatter",
				      optarg, &u);
			if (!rc && (!u || u > UINT32_MAX))
				rc = bad(sub,
					 c == 5	  ? "--gather"
					 : c == 6 ? "--multicast"
						  : "--scatter",
					 "a count >= 1", optarg);
			*(c == 5   ? &a->pat.gather
			  : c == 6 ? &a->pat.multicast
				   : &a->pat.scatter) = (uint32_t)u;
			a->have_pat = 1;
			break;
		case 8:
			a->reduce = optarg;
			a->have_pat = 1;
			break;
		case 9:
			a->config = optarg;
			break;
		case 'x':
			a->policy = optarg;
			break;
		case 'o':
			a->opts = optarg;
			break;
		case 10:
			a->compare = optarg;
			break;
		case 'p':
			a->platform = optarg;
			break;
		case 'N':
			rc = cli_uint(cmd, "--nodes", optarg, &a->nodes);
			if (!rc && (!a->nodes || a->nodes > 1000000))
				rc = bad(sub, "--nodes", "a count from 1 to 1000000", optarg);
			a->have_nodes = 1;
			break;
		case 'c':
			rc = cli_uint(cmd, "--cores", optarg, &a->cores);
			if (!rc && (!a->cores || a->cores > 4096))
				rc = bad(sub, "--cores", "a count from 1 to 4096", optarg);
			a->have_nodes = 1;
			break;
		case 11:
			rc = cli_uint(cmd, "--dispatchers", optarg, &a->dispatchers);
			if (!rc && (!a->dispatchers || a->dispatchers > 100000))
				rc = bad(sub, "--dispatchers", "a count from 1 to 100000", optarg);
			a->have_dispatchers = 1;
			break;
		case 12:
		case 13:
		case 15: {
			const char *name = c == 12 ? "--net-bw" : c == 13 ? "--disk-bw" : "--fs-bw";
			uint64_t *v = c == 12 ? &a->net_bw : c == 13 ? &a->disk_bw : &a->fs_bw;
			rc = cli_bandwidth(cmd, name, optarg, v);
			if (c != 15)
				a->have_nodes = 1;
			break;
		}
		case 14:
			rc = cli_size(cmd, "--storage", optarg, &a->storage);
			a->have_nodes = 1;
			break;
		case 16:
			rc = cli_double(cmd, "--fs-ops", optarg, &a->fs_ops);
			if (!rc && !(a->fs_ops >= 0 && a->fs_ops <= 1e12))
				rc = bad(sub, "--fs-ops", "operations a second >= 0 (0: no limit)",
					 optarg);
			break;
		case 17:
			rc = cli_double(cmd, "--latency", optarg, &a->latency);
			if (!rc && !(a->latency >= 0 && a->latency <= LOCUS_LATENCY_MAX))
				rc = bad(sub, "--latency", "seconds from 0 to 1000", optarg);
			break;
		case 18:
		case 19:
			rc = cli_double(cmd, c == 18 ? "--cost-msg" : "--cost-entry", optarg,
					c == 18 ? &a->cost_msg : &a->cost_entry);
			if (!rc && !((c == 18 ? a->cost_msg : a->cost_entry) >= 0 &&
				     (c == 18 ? a->cost_msg : a->cost_entry) <= 1e3))
				rc = bad(sub, c == 18 ? "--cost-msg" : "--cost-entry",
					 "seconds from 0 to 1000", optarg);
			break;
		case 20:
			a->json = 1;
			break;
		case 21:
			a->out = optarg;
			break;
		case 22:
			a->csv = optarg;
			break;
		case 23:
			a->trace = optarg;
			break;
		case 24:
			a->gantt = optarg;
			break;
		case 25:
			a->load_svg = optarg;
			break;
		case 26:
			rc = cli_double(cmd, "--fs-latency", optarg, &a->fs_latency);
			if (!rc && !(a->fs_latency >= 0 && a->fs_latency <= 1e3))
				rc = bad(sub, "--fs-latency", "seconds from 0 to 1000", optarg);
			break;
		case 'n':
			rc = cli_uint(cmd, "--np", optarg, &a->np);
			if (!rc && (!a->np || a->np > 1000000))
				rc = bad(sub, "--np", "a count of ranks from 2", optarg);
			a->have_run = 1;
			break;
		case 'K':
			rc = cli_uint(cmd, "--emulate-nodes", optarg, &a->emulate);
			if (!rc && (!a->emulate || a->emulate > 100000))
				rc =
				    bad(sub, "--emulate-nodes", "a count from 1 to 100000", optarg);
			a->have_run = 1;
			break;
		case 30:
			a->local = optarg;
			a->have_run = 1;
			break;
		case 31:
			a->shared = optarg;
			a->have_run = 1;
			break;
		case 32:
			rc = cli_uint(cmd, "--retries", optarg, &a->retries);
			if (!rc && a->retries > 1000)
				rc = bad(sub, "--retries", "a count from 0 to 1000", optarg);
			a->have_run = 1;
			break;
		case 33:
			a->keep = 1;
			a->have_run = 1;
			break;
		case 34:
			rc = cli_double(cmd, "--stand-in", optarg, &a->stand_in);
			if (!rc && !(a->stand_in > 0 && a->stand_in <= 1e6))
				rc = bad(sub, "--stand-in", "a factor > 0", optarg);
			a->have_run = 1;
			break;
		case 35:
			a->tty = 1;
			break;
		case 36:
			a->journal = optarg;
			a->have_run = 1;
			break;
		case 37:
			a->checksum = 1;
			a->have_run = 1;
			break;
		case 38:
			a->measured = optarg;
			a->have_run = 1;
			break;
		case 39:
			a->work = optarg;
			break;
		case CLI_MPI_MPIRUN:
		case CLI_MPI_HOSTFILE:
		case CLI_MPI_ARG:
			rc = cli_mpi_option(cmd, &a->mpi, c, optarg);
			a->have_run = 1;
			break;
		case 'q':
			a->quiet = 1;
			break;
		case 'h':
			fputs(help, stdout);
			return -1;
		case ':':
			return cli_usage_error(cmd, "option %s needs a value", argv[optind - 1]);
		default:
			return cli_usage_error(cmd, "unknown option %s", argv[optind - 1]);
		}
	}
	if (rc)
		return rc;
	if (optind >= argc)
		return cli_usage_error(cmd, "name the workflow: a file, or gen:montage, gen:blast");
	a->workflow = argv[optind++];
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument \"%s\"", argv[optind]);
	int is_sim = !strcmp(sub, "sim"), is_run = !strcmp(sub, "run");
	if (!is_run && a->have_run)
		return cli_usage_error(cmd, "--np, --emulate-nodes, --local, --shared, --retries, "
					    "--keep, --stand-in and the launcher's options are "
					    "'locus flow run''s");
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
	    (a->config || a->policy || a->opts || a->compare || a->platform || a->have_nodes ||
	     a->have_dispatchers || a->fs_bw || a->fs_ops >= 0 || a->fs_latency > 0 ||
	     a->latency >= 0 || a->cost_msg >= 0 || a->cost_entry >= 0 || a->out || a->csv ||
	     a->trace || a->gantt || a->load_svg))
		return cli_usage_error(cmd, "the policy, platform and output files are sim's "
					    "options; 'locus flow show' takes the workflow's and "
					    "the pattern thresholds, and --json");
	if (!is_sim && !is_run)
		return 0;
	if (a->platform && a->have_nodes)
		return cli_usage_error(cmd, "--platform excludes --nodes, --cores, --net-bw, "
					    "--disk-bw and --storage");
	if (a->config && a->compare)
		return cli_usage_error(cmd, "--compare names the configurations; drop --config");
	if (a->config && a->policy && strcmp(a->policy, "amfs"))
		return cli_usage_error(cmd, "--config is amfs's; drop it with --policy %s",
				       a->policy);
	if (a->config && !is_config(a->config))
		return cli_usage_error(
		    cmd,
		    "--config expects staging, cache, aware, cogather, asgather, "
		    "shared or auto, got \"%s\"",
		    a->config);
	if (a->compare && a->policy)
		return cli_usage_error(cmd, "--compare names the policies; drop --policy");
	if (a->compare && (a->out || a->csv || a->trace || a->gantt || a->load_svg))
		return cli_usage_error(
		    cmd,
		    "--out, --csv, --trace, --gantt and --load describe one run; drop --compare");
	return 0;
}

/* The workflow, read or generated. */
static int load(struct locus_graph **g, const struct flow_args *a, struct locus_error *err)
{
	return locus_flow_load(g, a->workflow, &a->load, err);
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
		rc = load(&g, a, &err);
	if (!rc) {
		/* The defaults, where no threshold was given. */
		struct locus_pattern_options po;
		locus_pattern_options_default(&po);
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
		if (a->json)
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
static char *amfs_opts(const struct flow_args *a, const char *config)
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
	if (a->opts)
		ADD("%s%s", n ? "," : "", a->opts);
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
		const char *name = a->policy ? a->policy : "amfs";
		runs[0].policy = locus_policy_find(name);
		if (!runs[0].policy) {
			rc = cli_usage_error(
			    cmd, "no policy \"%s\" (see 'locus sim --list-policies')", name);
		} else {
			*n_runs = 1;
			runs[0].opts = !strcmp(name, "amfs") ? amfs_opts(a, a->config)
				       : a->opts	     ? strdup(a->opts)
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
		nd->net_bw = a->net_bw ? (double)a->net_bw : 425e6;
		nd->disk_bw = a->disk_bw ? (double)a->disk_bw : 1e9;
		nd->storage = (double)a->storage;
	}
	return 0;
}

static void print_run(const struct locus_result *r, const struct locus_graph *g,
		      const struct flow_args *a, uint64_t D)
{
	printf("workflow %s: %zu tasks in %zu stages, %zu files\n", a->workflow, g->n_tasks,
	       g->n_stages, g->n_objects);
	printf("policy %s%s%s, seed %" PRIu64 ": %zu workers on %zu nodes, %zu scheduler%s",
	       r->policy, r->policy_options ? " " : "", r->policy_options ? r->policy_options : "",
	       r->seed, r->n_workers, r->n_nodes, r->n_schedulers, r->n_schedulers == 1 ? "" : "s");
	if (!strcmp(r->policy, "amfs"))
		printf(" (a submitter, %" PRIu64 " dispatcher%s and as many metadata servers)", D,
		       D == 1 ? "" : "s");
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

/* --out, --csv, --trace, --gantt and --load: each whole or not at all. */
static int write_outputs(const char *cmd, const struct locus_result *r, const struct flow_args *a)
{
	const struct {
		const char *path;
		int (*fn)(const struct locus_result *, FILE *);
	} outs[] = {{a->out, locus_report_json},
		    {a->csv, locus_report_csv},
		    {a->trace, locus_report_trace},
		    {a->gantt, locus_report_svg_gantt},
		    {a->load_svg, locus_report_svg_load}};
	struct cli_outputs staged = {0};
	int ost = 0;
	for (size_t k = 0; !ost && k < CLI_ARRAY_LEN(outs); k++) {
		struct cli_report_writer w = {r, outs[k].fn};
		if (outs[k].path)
			ost = cli_outputs_stage(cmd, &staged, outs[k].path, cli_report_write, &w);
	}
	if (!ost)
		ost = cli_outputs_commit(cmd, &staged);
	cli_outputs_discard(&staged);
	return ost;
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
	int status = 0, rc;
	const char *out_paths[] = {a->out, a->csv, a->trace, a->gantt, a->load_svg};
	if ((status = cli_outputs_check(cmd, out_paths, CLI_ARRAY_LEN(out_paths))))
		return status;
	if ((status = plan_runs(a, plan, &n_plan)))
		goto out;
	if ((rc = load(&g, a, &err)))
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
	if (a->platform) {
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
		    .shared_fs_bw = a->fs_bw ? (double)a->fs_bw : 1.25e9,
		    .fs_ops = a->fs_ops,
		    .fs_latency = a->fs_latency,
		    .no_task_results = !(a->out || a->csv || a->trace || a->gantt || a->load_svg),
		    .no_transfer_results = !(a->out || a->trace || a->gantt),
		    .progress = tty ? cli_progress : NULL,
		    .progress_user = (void *)plan[i].policy->name,
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
		rc = a->json ? locus_report_compare_json((const struct locus_result *const *)runs,
							 n_runs, stdout)
			     : locus_report_compare((const struct locus_result *const *)runs,
						    n_runs, stdout);
		if (rc)
			goto fail;
		goto out;
	}
	if (a->json)
		rc = locus_report_json(runs[0], stdout);
	else
		print_run(runs[0], g, a, D);
	if (rc)
		goto fail;
	int ost = write_outputs(cmd, runs[0], a);
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
	locus_workload_destroy(wl);
	locus_platform_destroy(plat);
	locus_graph_destroy(g);
	return status;
}

/* ---- run ------------------------------------------------------------------- */

#ifdef LOCUS_HAVE_MPI
/* The shared directory: --shared, else the workflow file's directory
 * (where a Makeflow's relative names point), else this one. */
static int shared_dir(const struct flow_args *a, char *buf, size_t size)
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

static void run_progress(void *user, size_t done, size_t total, double seconds)
{
	(void)user;
	fprintf(stderr, "\rlocus flow run: %zu of %zu tasks done, %.1f s", done, total, seconds);
	if (done == total)
		fputc('\n', stderr);
}

/* What the nodes can do, measured after the run for --measured (every
 * rank calls it): the slowest node's local storage reading a 64 MiB file
 * it has just written (its first rank on each host: the simulator's
 * disk_bw is a read bandwidth), and MPI moving 64 MiB from the first
 * worker rank to the last. Rank 0 gets the rates
 * (bytes/s; 0 when not measured). Buffers are written before the clock
 * starts, so that what is timed is the storage and the transport. */
static void probe_platform(const struct flow_args *a, double *disk_bw, double *net_bw)
{
	const size_t n = (size_t)64 << 20;
	int rank, size, local = 0;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm host;
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
	MPI_Comm_rank(host, &local);
	MPI_Comm_free(&host);
	char *buf = malloc(n);
	if (buf)
		memset(buf, 'x', n);
	double disk = 0;
	if (buf && local == 0) {
		char path[4096];
		snprintf(path, sizeof path, "%s/locus-probe-%d-%ld",
			 a->local ? a->local : "/dev/shm", rank, (long)getpid());
		int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd >= 0 && write(fd, buf, n) == (ssize_t)n && !fsync(fd)) {
			double t0 = MPI_Wtime();
			if (pread(fd, buf, n, 0) == (ssize_t)n)
				disk = (double)n / (MPI_Wtime() - t0);
		}
		if (fd >= 0)
			close(fd);
		unlink(path);
	}
	/* The slowest host's; hosts that did not measure say nothing. */
	double mine = disk > 0 ? disk : 1e300, slowest = 0;
	MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
	*disk_bw = slowest < 1e300 ? slowest : 0;
	int from = size > 2 ? 1 : 0, to = size - 1, ok = buf != NULL, all = 0;
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	double net = 0;
	if (all && from != to) {
		MPI_Barrier(MPI_COMM_WORLD);
		double t0 = MPI_Wtime();
		if (rank == from) {
			MPI_Send(buf, (int)n, MPI_BYTE, to, 0, MPI_COMM_WORLD);
			MPI_Recv(&ok, 1, MPI_INT, to, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			net = (double)n / (MPI_Wtime() - t0);
		} else if (rank == to) {
			MPI_Recv(buf, (int)n, MPI_BYTE, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(&ok, 1, MPI_INT, from, 1, MPI_COMM_WORLD);
		}
	}
	MPI_Reduce(&net, net_bw, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	free(buf);
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
	char shared[4096];
	shared_dir(a, shared, sizeof shared);
	char *opts = NULL;
	const char *pname = a->policy ? a->policy : "amfs";
	if (!strcmp(pname, "amfs"))
		opts = amfs_opts(a, a->config);
	else if (a->opts)
		opts = strdup(a->opts);
	/* Every rank reads the workflow: the same file gives the same graph. */
	int rc = load(&g, a, &err);
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
		    .seed = a->seed,
		    .retries = (int)a->retries,
		    .keep = a->keep,
		    .stand_in = a->stand_in,
		    .journal = a->journal,
		    .checksum = a->checksum,
		    .cancel = &cli_cancelled,
		    .process_group = group,
		    .progress = a->tty && !a->quiet ? run_progress : NULL,
		};
		rc = locus_mpi_flow_run(MPI_COMM_WORLD, &o, &rep, &err);
	}
	double disk_bw = 0, net_bw = 0;
	if (!rc && a->measured)
		probe_platform(a, &disk_bw, &net_bw);
	if (rc) {
		if (rank == 0)
			status = cli_error(cmd, &err, rc);
		else
			status = CLI_EXIT_FAIL;
	} else if (rank == 0) {
		const struct locus_result *r = rep.result;
		uint64_t D = a->dispatchers ? a->dispatchers : 1;
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
		if (a->json)
			rc = locus_report_json(r, stdout);
		else
			print_run(r, g, a, D);
		fflush(stdout);
		if (rc)
			status = cli_error(cmd, &err, rc);
		int ost = write_outputs(cmd, r, a);
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

static int flow_run(struct flow_args *a, int argc, char **argv)
{
#ifdef LOCUS_HAVE_MPI
	if (cli_in_mpi_job())
		return run_rank(a);
	char mplat[4096] = "", mwork[4096] = "";
	if (a->measured) {
		snprintf(mplat, sizeof mplat, "%s.platform.json", a->measured);
		snprintf(mwork, sizeof mwork, "%s.work", a->measured);
	}
	const char *outs[] = {a->out,
			      a->csv,
			      a->trace,
			      a->gantt,
			      a->load_svg,
			      a->measured ? mplat : NULL,
			      a->measured ? mwork : NULL};
	int rc = cli_outputs_check("flow run", outs, CLI_ARRAY_LEN(outs));
	if (rc)
		return rc;
	/* A workflow that cannot be read is said before any rank starts. */
	struct locus_error err = {0};
	struct locus_graph *g = NULL;
	if ((rc = load(&g, a, &err)))
		return cli_error("flow run", &err, rc);
	locus_graph_destroy(g);
	uint64_t D = a->dispatchers ? a->dispatchers : 1, np = a->np;
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

int cmd_flow(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		fputs(help, argc < 2 ? stderr : stdout);
		return argc < 2 ? CLI_EXIT_USAGE : 0;
	}
	struct flow_args a = {.sub = argv[1],
			      .seed = 1,
			      .load = {.seed = 1, .runtime = 1},
			      .nodes = 64,
			      .cores = 4,
			      .fs_ops = -1,
			      .latency = -1,
			      .cost_msg = -1,
			      .cost_entry = -1};
	if (strcmp(a.sub, "show") && strcmp(a.sub, "sim") && strcmp(a.sub, "run"))
		return cli_usage_error("flow", "expected 'show', 'sim' or 'run', got \"%s\"",
				       a.sub);
	cli_mpi_np_spelling(argc, argv);
	int rc = parse_args(argc - 1, argv + 1, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (!strcmp(a.sub, "show"))
		return flow_show(&a);
	if (!strcmp(a.sub, "run"))
		return flow_run(&a, argc, argv);
	/* The engine's defaults for what was not given. */
	if (a.fs_ops < 0)
		a.fs_ops = 2000;
	if (a.cost_msg < 0)
		a.cost_msg = 5e-6;
	if (a.cost_entry < 0)
		a.cost_entry = 1e-7;
	return flow_sim(&a);
}
