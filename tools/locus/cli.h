/* Shared pieces of the locus command-line tool. */
#ifndef LOCUS_CLI_H
#define LOCUS_CLI_H

#include <stdint.h>

#include "locus/locus.h"

/* Exit statuses: 0 success, 1 failure, 2 bad usage. */
#define CLI_EXIT_FAIL  1
#define CLI_EXIT_USAGE 2

/* Prints "locus CMD: <formatted error>" to stderr; returns CLI_EXIT_FAIL. */
int cli_error(const char *cmd, const struct locus_error *err, int rc);

/* Prints "locus CMD: message" and a hint to see --help; returns
 * CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parses a size ("64M", "1G", "4096") or a count into *out; prints the
 * usage error itself and returns CLI_EXIT_USAGE on failure, else 0. */
int cli_size(const char *cmd, const char *opt, const char *arg, uint64_t *out);
int cli_uint(const char *cmd, const char *opt, const char *arg, uint64_t *out);
int cli_double(const char *cmd, const char *opt, const char *arg, double *out);

/* Writes a JSON string literal (quotes and escapes) to stdout. */
void cli_json_string(const char *s);

/* The options describing a divisible-load plan (dl_args.c), shared by
 * locus plan and locus scatter. A command adds cli_dl_long_options to its
 * own getopt_long table, hands every option whose id is a CLI_DL_* value
 * or 'm' to cli_dl_option, then calls cli_dl_workers and cli_dl_plan. */
enum {
	CLI_DL_WORKERS_FILE = 1000,
	CLI_DL_WORKERS,
	CLI_DL_HET,
	CLI_DL_MEAN_S,
	CLI_DL_MEAN_B,
	CLI_DL_MEAN_DELTA,
	CLI_DL_MEAN_EPS,
	CLI_DL_SEED,
	CLI_DL_B0,
	CLI_DL_LAMBDA,
	CLI_DL_MU,
	CLI_DL_GROUP_SIZE,
	CLI_DL_ROUNDS,
	CLI_DL_SEARCH,
	CLI_DL_LAST /* a command's own long-only options start here */
};

struct cli_dl {
	struct locus_dl_options opt;
	double b0;
	int have_b0; /* --b0 given: it wins over the workers file's */
	const char *workers_file;
	size_t n_gen; /* --workers N (0: not given; 100 is the default) */
	double het;
	struct locus_dl_worker mean;
	uint64_t seed;
	int search;
	struct locus_dl_worker *workers; /* set by cli_dl_workers */
	size_t n;
};

/* The help text of these options (a block of lines ending in "\n"). */
extern const char cli_dl_help[];

void cli_dl_init(struct cli_dl *d);
void cli_dl_fini(struct cli_dl *d);
/* Copies the long options (at most `max`) into out; returns how many. */
struct option;
size_t cli_dl_long_options(struct option *out, size_t max);
/* Handles option `id` with argument `arg`: 0 or CLI_EXIT_USAGE (printed). */
int cli_dl_option(const char *cmd, struct cli_dl *d, int id, const char *arg);
/* Reads or generates the workers: 0, or an exit status (error printed). */
int cli_dl_workers(const char *cmd, struct cli_dl *d);
/* Plans W units (searching when --search): 0, or an exit status. */
int cli_dl_plan(const char *cmd, struct cli_dl *d, double W, struct locus_dl_plan **out);

int cmd_place(int argc, char **argv);
int cmd_locate(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_plan(int argc, char **argv);

#endif
