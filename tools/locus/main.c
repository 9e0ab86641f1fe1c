/* locus: the command-line tool. One file per subcommand. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const struct {
	const char *name;
	int (*run)(int, char **);
	const char *summary;
} commands[] = {
    {"place", cmd_place, "split data into chunks and place replicas on nodes"},
    {"locate", cmd_locate, "ask where chunks live (DL-MPI's locality calls)"},
    {"sim", cmd_sim, "run scheduling policies in the simulator, with bounds"},
    {"run", cmd_run, "run a command on every chunk of a store, on MPI ranks"},
    {"plan", cmd_plan, "plan the rounds of a divisible workload (UMR, PTUMR)"},
    {"scatter", cmd_scatter, "execute a divisible-load plan on MPI ranks over a file"},
    {"flow", cmd_flow, "show a many-task workflow, or simulate it under AME/AMFS"},
};

static void usage(FILE *fp)
{
	fprintf(fp, "usage: locus [--version] [--help] COMMAND [ARGS]\n"
		    "\n"
		    "Locus moves computation to data: it schedules each task onto a process\n"
		    "that holds its data and says how close a run came to the best one.\n"
		    "\n"
		    "Commands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(fp, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(fp, "\n"
		    "Run 'locus COMMAND --help' for a command's options and examples.\n"
		    "Set LOCUS_DEBUG=locality,place (or all) for debug messages on stderr.\n");
}

void *cli_calloc(size_t n, size_t size)
{
	return calloc(n ? n : 1, size ? size : 1);
}

int cli_set_error(struct locus_error *err, int code, const char *file, const char *fmt, ...)
{
	va_list ap;
	locus_error_clear(err);
	err->code = code;
	if (file)
		snprintf(err->file, sizeof err->file, "%s", file);
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof err->message, fmt, ap);
	va_end(ap);
	return code;
}

int cli_error(const char *cmd, const struct locus_error *err, int rc)
{
	char buf[1024];
	if (err && err->code)
		fprintf(stderr, "locus %s: %s\n", cmd, locus_error_format(err, buf, sizeof buf));
	else
		fprintf(stderr, "locus %s: %s\n", cmd, locus_strerror(rc));
	return CLI_EXIT_FAIL;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "locus %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nRun 'locus %s --help' for usage.\n", cmd);
	return CLI_EXIT_USAGE;
}

int cli_size(const char *cmd, const char *opt, const char *arg, uint64_t *out)
{
	if (locus_parse_size(arg, out))
		return cli_usage_error(
		    cmd, "%s expects a size such as 4096, 64K, 64M or 1G, got \"%s\"", opt, arg);
	return 0;
}

int cli_bandwidth(const char *cmd, const char *opt, const char *arg, uint64_t *out)
{
	int rc = cli_size(cmd, opt, arg, out);
	if (!rc && !(*out >= LOCUS_BW_MIN && (double)*out <= LOCUS_BW_MAX))
		rc = cli_usage_error(cmd, "%s expects bytes/s from %g to %g, got \"%s\"", opt,
				     LOCUS_BW_MIN, LOCUS_BW_MAX, arg);
	return rc;
}

int cli_uint(const char *cmd, const char *opt, const char *arg, uint64_t *out)
{
	if (locus_parse_u64(arg, strlen(arg), out))
		return cli_usage_error(cmd, "%s expects a non-negative integer, got \"%s\"", opt,
				       arg);
	return 0;
}

int cli_double(const char *cmd, const char *opt, const char *arg, double *out)
{
	char *end;
	*out = strtod(arg, &end);
	if (!*arg || *end)
		return cli_usage_error(cmd, "%s expects a number, got \"%s\"", opt, arg);
	return 0;
}

void cli_progress(void *user, size_t done, size_t total, double now)
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

void cli_warn_problems(const char *cmd, const struct locus_result *r)
{
	enum { SHOWN = 10 };
	if (!r || !r->n_problems)
		return;
	fprintf(stderr, "locus %s: warning: the source reports %zu problem%s with the data:\n", cmd,
		r->n_problems, r->n_problems == 1 ? "" : "s");
	for (size_t i = 0; i < r->n_problems && i < SHOWN; i++)
		fprintf(stderr, "  %s: %s\n", r->problems[i].dataset, r->problems[i].detail);
	if (r->n_problems > SHOWN)
		fprintf(stderr, "  ... and %zu more (under \"problems\" in the result JSON)\n",
			r->n_problems - SHOWN);
}

void cli_json_string(const char *s)
{
	putchar('"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		if (argc > 2 && strcmp(cmd, "help") == 0) {
			char *args[] = {argv[2], (char *)"--help", NULL};
			for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
				if (strcmp(commands[i].name, argv[2]) == 0)
					return commands[i].run(2, args);
		}
		usage(stdout);
		return 0;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		printf("locus %s\n", LOCUS_VERSION_STRING);
		return 0;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(commands[i].name, cmd) == 0) {
			cli_mpi_report_start();
			int status = commands[i].run(argc - 1, argv + 1);
			cli_mpi_report_end(status);
			return status;
		}
	fprintf(stderr, "locus: unknown command \"%s\"\n\n", cmd);
	usage(stderr);
	return CLI_EXIT_USAGE;
}
