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

int cmd_place(int argc, char **argv);
int cmd_locate(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_run(int argc, char **argv);

#endif
