/* Shared pieces of the locus command-line tool. */
#ifndef LOCUS_CLI_H
#define LOCUS_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "locus/locus.h"

/* Exit statuses: 0 success, 1 failure, 2 bad usage. */
#define CLI_EXIT_FAIL  1
#define CLI_EXIT_USAGE 2

#define CLI_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* calloc that never returns NULL for n == 0 (the CLI uses only the public
 * headers: these are its own small helpers). */
void *cli_calloc(size_t n, size_t size);

/* Fills `err` as the library's readers do: code, file (may be NULL), and
 * a formatted message; returns `code`. */
int cli_set_error(struct locus_error *err, int code, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Prints "locus CMD: <formatted error>" to stderr; returns CLI_EXIT_FAIL. */
int cli_error(const char *cmd, const struct locus_error *err, int rc);

/* Prints "locus CMD: message" and a hint to see --help; returns
 * CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Checks a comma-separated list option (--compare, --reduce): one name
 * or more, none empty ("", ",", "a,,b" are refused: an empty list once
 * ran nothing and printed an empty table). 0, or prints the usage error
 * naming `what` the names are and returns CLI_EXIT_USAGE. */
int cli_list_check(const char *cmd, const char *opt, const char *what, const char *list);

/* Parses a size ("64M", "1G", "4096") or a count into *out; prints the
 * usage error itself and returns CLI_EXIT_USAGE on failure, else 0. */
int cli_size(const char *cmd, const char *opt, const char *arg, uint64_t *out);
int cli_uint(const char *cmd, const char *opt, const char *arg, uint64_t *out);
/* A bandwidth: a size within [LOCUS_BW_MIN, LOCUS_BW_MAX] bytes/s, the
 * platform file's limits. */
int cli_bandwidth(const char *cmd, const char *opt, const char *arg, uint64_t *out);
int cli_double(const char *cmd, const char *opt, const char *arg, double *out);
/* "locus CMD: OPT expects WHAT, got "ARG"" and the usage hint:
 * CLI_EXIT_USAGE. */
int cli_expects(const char *cmd, const char *opt, const char *what, const char *arg);

/* ---- command lines from tables (options.c) ----
 *
 * An option group is options that go together (a run's output files,
 * the MPI launcher's, a divisible-load plan's), written once: a struct
 * their values go into, a table of its options and a function for what
 * the table cannot say. A command takes groups (shared ones, and groups
 * of its own options, one per section of its --help) and cli_parse reads
 * its command line with a getopt_long table made from them; cli_help
 * prints its --help with each option's line made from its entry. Every
 * command takes -h, --help: cli_parse prints --help and stops there, and
 * its line is the last of the options. */

/* What an option's argument is, and so what it sets at `at`. */
enum cli_arg {
	CLI_FLAG,      /* no argument: an int set to 1 */
	CLI_TEXT,      /* the argument as given: a const char * */
	CLI_UINT,      /* a non-negative integer: a uint64_t (cli_uint) */
	CLI_SIZE,      /* a size, "64M": a uint64_t (cli_size) */
	CLI_BANDWIDTH, /* bytes/s: a uint64_t (cli_bandwidth) */
	CLI_NUMBER,    /* a number: a double (cli_double) */
	CLI_SECONDS,   /* seconds from 0 to LOCUS_LATENCY_MAX: a double */
	CLI_OWN,       /* an argument the group's function reads itself */
};

/* One option of a group. An entry without a name is a line of --help
 * text only (`help`, printed as it is). */
struct cli_opt {
	const char *name; /* the long name, without "--" */
	int id;		  /* its short letter, or a named id: 256 and on for a
			   * command's own, a thousand of its own for a shared group */
	enum cli_arg arg;
	size_t at;	  /* where the value goes: offsetof in the group's struct */
	const char *meta; /* the argument in --help ("FILE"), or NULL */
	const char *help; /* --help's words, lines apart by "\n"; NULL: not shown */
};
/* clang-format off */
#define CLI_HELP_LINE(text) {.help = (text)}
/* clang-format on */

struct cli_group {
	const struct cli_opt *opts;
	size_t n;
	/* Called once an option's value is set (a CLI_OWN option: to set
	 * it) with the group's struct and the argument (NULL for none):
	 * checks and what else the option means. 0, or an exit status (the
	 * error printed). NULL: nothing more to do. */
	int (*option)(const char *cmd, void *values, int id, const char *arg);
};
/* A group of the table `opts` (an array) and the function `fn`. */
/* clang-format off */
#define CLI_GROUP(opts, fn) {(opts), CLI_ARRAY_LEN(opts), (fn)}
/* clang-format on */

/* A command's own words for one of a group's options in --help. */
struct cli_say {
	int id;
	const char *help;
};

/* A group as a command takes it. */
struct cli_use {
	const struct cli_group *group;
	size_t at;		   /* where its struct is: offsetof in the command's */
	const char *before;	   /* --help text before its options, or NULL */
	const struct cli_say *say; /* ends with {0}; NULL: the group's words */
	const char *instead;	   /* --help shows this for the group, or NULL */
};

/* How a command says that an option lacks its value or is unknown:
 * "option --x needs a value", "unknown option --x"; "--x needs a value",
 * "unknown option "--x""; or getopt's own message, then "unknown option". */
enum cli_errors { CLI_ERRORS_PLAIN, CLI_ERRORS_QUOTED, CLI_ERRORS_GETOPT };

/* Where a command's options may stand: anywhere among its other
 * arguments, or only before them (up to the first, or "--"). */
enum cli_order { CLI_OPTIONS_ANYWHERE, CLI_OPTIONS_FIRST };

/* A command's options and its --help around their lines (`column`: where
 * an option's words start). */
struct cli_command {
	const struct cli_use *uses; /* in --help's order */
	size_t n_uses;
	enum cli_order order;
	enum cli_errors errors;
	const char *head, *tail;
	int column;
};
/* The command of the array `uses`, and the rest in struct cli_command's order. */
/* clang-format off */
#define CLI_COMMAND(uses, order, errors, head, tail, column) \
	{(uses), CLI_ARRAY_LEN(uses), (order), (errors), (head), (tail), (column)}
/* clang-format on */

/* Reads argv[1..argc) into `values` (the command's struct that each use's
 * `at` is in), leaving optind at the first argument that is not an
 * option. 0; CLI_HELP_SHOWN once --help is printed (on stdout, the
 * options after it left unread); or an exit status, the error printed as
 * "locus CMD: ...". */
#define CLI_HELP_SHOWN (-1)
int cli_parse(const char *cmd, const struct cli_command *c, void *values, int argc, char **argv);
/* Prints c's --help. */
void cli_help(const struct cli_command *c, FILE *fp);

/* The policy of a run and its options, -x NAME and -o KEY=VALUE,... (locus
 * sim, locus flow, locus run): cli_policy_group, its values in a struct
 * cli_policy (NULL: not given). Each command says in --help which
 * policies it takes, and its default, as option 'x'. */
struct cli_policy {
	const char *name, *opts;
};
extern const struct cli_group cli_policy_group;

/* Several output files written all or none (a run's --out, --csv, --svg,
 * ...): cli_outputs_check, before the run, refuses a path whose directory
 * is missing or not writable, or that is a directory; cli_outputs_stage
 * writes one file's bytes under a temporary name next to it;
 * cli_outputs_commit renames every staged file into place, and
 * cli_outputs_discard removes the temporaries (after a failure). A path
 * of "-" is stdout, written at once by stage. Each function returns 0 or
 * an exit status, the error printed as "locus CMD: ...". */
#define CLI_MAX_OUTPUTS 16
struct cli_outputs {
	size_t n;
	const char *path[CLI_MAX_OUTPUTS];
	char *tmp[CLI_MAX_OUTPUTS];
};
int cli_outputs_check(const char *cmd, const char *const *paths, size_t n);
int cli_outputs_stage(const char *cmd, struct cli_outputs *o, const char *path,
		      int (*writer)(void *, FILE *), void *ctx);
int cli_outputs_commit(const char *cmd, struct cli_outputs *o);
void cli_outputs_discard(struct cli_outputs *o);
/* The whole of it for files known at once: outs[0..n) (a NULL path: not
 * asked for) written all or none, in order. 0, or an exit status. */
struct cli_output {
	const char *path;
	int (*writer)(void *, FILE *);
	void *ctx;
};
int cli_outputs_write(const char *cmd, const struct cli_output *outs, size_t n);
/* A result writer (report.h) as a cli_outputs_stage writer. */
struct cli_report_writer {
	const struct locus_result *r;
	int (*fn)(const struct locus_result *, FILE *);
};
int cli_report_write(void *ctx, FILE *fp);

/* The files a run's result is written to (report.h's writers) and --json,
 * the options of locus sim, locus flow and locus run: cli_results_group,
 * its values in a struct cli_results (zeroed: nothing asked for). Its
 * --help words are locus sim's; a command says its own with these ids. */
struct cli_results {
	int json;
	const char *out, *csv, *trace, *gantt, *load, *report;
	/* What --report adds to the result (a title, failed attempts), set
	 * by the command before cli_results_write; NULL: nothing. */
	const struct locus_report_html_options *html;
};
enum {
	CLI_RESULTS_JSON = 3000,
	CLI_RESULTS_OUT,
	CLI_RESULTS_CSV,
	CLI_RESULTS_TRACE,
	CLI_RESULTS_GANTT,
	CLI_RESULTS_LOAD,
	CLI_RESULTS_REPORT,
};
extern const struct cli_group cli_results_group;
/* Whether a file is asked for; whether one needs the run's transfers. */
int cli_results_any(const struct cli_results *o);
int cli_results_transfers(const struct cli_results *o);
/* With --compare, a file is refused: 0, or CLI_EXIT_USAGE (printed). */
int cli_results_one_run(const char *cmd, const struct cli_results *o);
/* cli_outputs_check, before the run, of the files and more[0..n_more)
 * (NULL entries are left out). */
int cli_results_check(const char *cmd, const struct cli_results *o, const char *const *more,
		      size_t n_more);
/* Writes r into every file asked for, all or none (cli_outputs_*): 0, or
 * an exit status, the error printed. */
int cli_results_write(const char *cmd, const struct cli_results *o, const struct locus_result *r);

/* Under AddressSanitizer, a leak check now (before MPI_Finalize: after
 * it, Open MPI's unloaded components make its allocations look like
 * ours; the tests turn the check at exit off). Returns non-zero when it
 * found leaks; 0 without AddressSanitizer. */
int cli_leak_check(void);

/* Prints, on stderr, "locus CMD: warning: the source reports N
 * problems:" and the first 10 of r's problems, one a line ("DATASET:
 * DETAIL"), with how many more there are; nothing when there are none. */
void cli_warn_problems(const char *cmd, const struct locus_result *r);

/* Writes a JSON string literal (quotes and escapes) to stdout. */
void cli_json_string(const char *s);

/* The options describing a divisible-load plan (divisible_args.c), shared by
 * locus plan and locus scatter: cli_dl_group, with its values in a struct
 * cli_dl (cli_dl_init first); then cli_dl_workers and cli_dl_plan. */
struct cli_dl {
	struct locus_divisible_options opt;
	double b0;
	int have_b0; /* --b0 given: it wins over the workers file's */
	const char *workers_file;
	size_t n_gen; /* --workers N (0: not given; 100 is the default) */
	double het;
	struct locus_divisible_worker mean;
	uint64_t seed;
	int search;
	struct locus_divisible_worker *workers; /* set by cli_dl_workers */
	size_t n;
};

/* Its options' ids are 1000 to 1013 and 'm' (--method). */
extern const struct cli_group cli_dl_group;

void cli_dl_init(struct cli_dl *d);
void cli_dl_fini(struct cli_dl *d);
/* Reads or generates the workers: 0, or an exit status (error printed). */
int cli_dl_workers(const char *cmd, struct cli_dl *d);
/* Plans W units (searching when --search): 0, or an exit status. */
int cli_dl_plan(const char *cmd, struct cli_dl *d, double W, struct locus_divisible_plan **out);

/* What the commands that run on MPI ranks share (mpirun.c): locus run and
 * locus scatter. */
#define CLI_MAX_MPI_ARGS 32
struct cli_mpi {
	const char *mpirun;		    /* the launcher; NULL: cli_mpi_default_launcher */
	const char *hostfile;		    /* passed to the launcher, or NULL */
	const char *args[CLI_MAX_MPI_ARGS]; /* more arguments for it (--mpi-arg) */
	size_t n_args;
};
/* Whether this process was started by an MPI launcher (or by
 * cli_mpi_launch). */
int cli_in_mpi_job(void);
/* The launcher's options as a group (--mpirun, --hostfile and --mpi-arg,
 * at most CLI_MAX_MPI_ARGS of it; ids 2000 to 2002), its values in a
 * struct cli_mpi. */
extern const struct cli_group cli_mpi_group;
/* Accepts mpirun's spelling "-np N" for "--np N" (before any "--"). */
void cli_mpi_np_spelling(int argc, char **argv);
/* The launcher used when --mpirun is not given: the one of the MPI locus
 * was built with when it exists, else "mpirun". */
const char *cli_mpi_default_launcher(void);
/* Runs the launcher with `np` ranks of "locus CMD [EXTRA] argv[1..argc)"
 * (Open MPI: --oversubscribe, --quiet without a hostfile, the variables
 * that let root run it, no cross-memory attach without a hostfile) as a
 * child that dies with this process, and returns its exit status (dies
 * of its signal). A launcher that fails without rank 0 saying why (it
 * could not start, a rank was killed) is explained on stderr with its
 * status or signal. */
int cli_mpi_launch(const char *cmd, const struct cli_mpi *m, uint64_t np, const char *extra,
		   int argc, char **argv);
/* Rank 0 of a job cli_mpi_launch started tells the launching process
 * that it started and how it ended (main calls these around every
 * command; they do nothing outside such a job or on another rank). */
void cli_mpi_report_start(void);
void cli_mpi_report_end(int status);
/* At most this many ranks per core (or hostfile slot): ranks wait
 * without spinning, so a machine holds several per core, but a launcher
 * asked for far more grows until it fails or hangs. */
#define CLI_RANKS_PER_SLOT 16
/* Refuses np above the slots the launcher can give (the hostfile's
 * slots, else this machine's cores) x CLI_RANKS_PER_SLOT, and a hostfile
 * that cannot be read: 0 or CLI_EXIT_USAGE, the error printed. */
int cli_mpi_check_np(const char *cmd, const struct cli_mpi *m, uint64_t np);

/* The Slurm allocation this process runs in (slurm.c): salloc or sbatch
 * set SLURM_JOB_ID and the job's nodes and tasks. */
struct cli_slurm {
	char job[32];	  /* SLURM_JOB_ID */
	const char *list; /* SLURM_JOB_NODELIST as Slurm writes it */
	char **nodes;	  /* it expanded */
	size_t n_nodes;
	uint64_t ntasks;    /* SLURM_NTASKS, else the nodes' CPUs, else one a node */
	const char *tmpdir; /* cli_slurm_tmpdir() */
};
/* 1 and *s filled inside an allocation, 0 outside one, or -CLI_EXIT_USAGE
 * (error printed) when its node list cannot be read. cli_slurm_fini
 * frees it. */
int cli_slurm_allocation(const char *cmd, struct cli_slurm *s);
void cli_slurm_fini(struct cli_slurm *s);
/* The job's local temporary directory, where the nodes keep their files
 * in a Slurm job: SLURM_TMPDIR, else TMPDIR, else /tmp; NULL outside a
 * job. */
const char *cli_slurm_tmpdir(void);

/* A rank's watch over its launcher: a thread that sees the parent
 * process change (the launcher died, even of SIGKILL) within 50 ms, then
 * kills the running command, removes its result temporary and exits. */
void cli_watch_launcher(void);
/* In a rank that runs commands: starts the keeper, a process that
 * outlives this one and kills the commands it left when it is killed
 * (MPICH's proxy kills the ranks with SIGKILL when the launcher dies,
 * before their watch can stop anything); the commands run in its
 * process group, which it returns (0: none could be started). */
int cli_keep_commands(void);
/* The keeper's pipe (cli_keep_commands), where the rank names the
 * process groups of its own that commands with a time limit run in
 * (locus_mpi_flow_options.group_fd), or -1. */
int cli_keeper_fd(void);
/* Whether process pid exists (on this host). */
int cli_pid_alive(long pid);
/* --measured PREFIX of locus run and locus flow run: the platform the run
 * measured into PREFIX.platform.json, and `work` (n seconds, a task a
 * line under the comment line `header`) into PREFIX.work, each written
 * atomically, for a replay with locus sim or locus flow sim. */
int cli_write_measured(const char *prefix, const struct locus_platform *p, const double *work,
		       size_t n, const char *header, struct locus_error *err);
/* Removes result temporaries (NAME.out.tmp.HOST.PID) under dir left by
 * processes of this host that are gone. */
void cli_sweep_results(const char *dir);

/* Set by SIGINT or SIGTERM once cli_catch_signals is called. */
extern volatile int cli_cancelled;
/* Catches SIGINT and SIGTERM: sets cli_cancelled and passes the signal to
 * the command running (its process group); with `die`, the process then
 * dies of the signal. Ignores SIGPIPE. */
void cli_catch_signals(int die);
/* A placeholder of a command's arguments and what it becomes. */
struct cli_subst {
	const char *key, *value;
};
/* The argv of a chunk's command: each of tmpl[0..n) with every placeholder
 * replaced, then subs[0]'s value (the chunk's path) as one more argument
 * when no argument used subs[0]; NULL-terminated, NULL when out of memory.
 * Free it with cli_command_free. */
char **cli_command(char *const *tmpl, int n, const struct cli_subst *subs, size_t n_subs);
void cli_command_free(char **argv);
/* This process's environment and vars[0..n) after it (the array is
 * malloc'ed, the strings are not copied); NULL: no memory. */
char **cli_env(char *const *vars, size_t n);
/* Runs argv (argv[0] found in PATH, no shell) with envp, stdin /dev/null,
 * in a process group of its own. stdout goes to out_path, written whole or
 * not at all (a temporary renamed on success); without out_path it is
 * collected, and on success handed back in *captured (malloc'ed, NULL
 * when empty) or, with captured NULL, copied to ours in whole lines. A
 * failed command's stdout is never shown: its end is quoted in `why`,
 * after its stderr's; stderr is copied to ours on success. Returns 0 when
 * it exited 0, else 1 with `why` saying how it ended (status or signal). */
int cli_spawn(char *const argv[], char *const envp[], const char *out_path, char **captured,
	      size_t *captured_len, char *why, size_t why_size);

int cmd_place(int argc, char **argv);
int cmd_locate(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_scatter(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_flow(int argc, char **argv);

/* A simulation's progress bar on stderr (locus_sim_config.progress; user
 * is the policy's name). */
void cli_progress(void *user, size_t done, size_t total, double now);

#endif
