/* The options that describe a divisible-load plan, shared by locus plan and
 * locus scatter (cli.h). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char cli_dl_help[] =
    "Workers (one of):\n"
    "      --workers-file FILE   workers from a \"locus-workers\" JSON file\n"
    "                            (docs/formats.md); it may give b0\n"
    "      --workers N           or N generated workers (Eq. 11 of the paper):\n"
    "      --het H               heterogeneity, the coefficient of variation of each\n"
    "                            value, in [0, 0.577) (default 0: all alike)\n"
    "      --mean-s S            mean speed, units/s (default 1)\n"
    "      --mean-b B            mean link bandwidth, units/s (default 200)\n"
    "      --mean-delta D        mean overhead per computation, s (default 0.1)\n"
    "      --mean-eps E          mean overhead per transfer, s (default 0.01)\n"
    "      --seed S              seed of the generated workers (default 1)\n"
    "\n"
    "Master and plan:\n"
    "      --b0 B                the master's link, units/s (default 1000)\n"
    "  -m, --method NAME         umr, ptumr (with the Grouping Threshold, default)\n"
    "                            or ptumr-nogt\n"
    "      --lambda L            workers added to a group by Eq. 4 (default 10)\n"
    "      --mu MU               the Grouping Threshold of Eq. 5 (default 1.5)\n"
    "      --group-size M        groups of M workers instead of Eq. 4-5 (the paper's\n"
    "                            homogeneous study)\n"
    "      --rounds M            M rounds instead of the best M+\n"
    "      --search              search lambda (or the group size when the workers\n"
    "                            are all alike) for the least T_real\n";

void cli_dl_init(struct cli_dl *d)
{
	memset(d, 0, sizeof *d);
	locus_divisible_options_default(&d->opt);
	d->b0 = 1000;
	d->mean = (struct locus_divisible_worker){1, 200, 0.1, 0.01};
	d->seed = 1;
}

void cli_dl_fini(struct cli_dl *d)
{
	free(d->workers);
	d->workers = NULL;
}

size_t cli_dl_long_options(struct option *out, size_t max)
{
	static const struct option opts[] = {
	    {"workers-file", required_argument, NULL, CLI_DL_WORKERS_FILE},
	    {"workers", required_argument, NULL, CLI_DL_WORKERS},
	    {"het", required_argument, NULL, CLI_DL_HET},
	    {"mean-s", required_argument, NULL, CLI_DL_MEAN_S},
	    {"mean-b", required_argument, NULL, CLI_DL_MEAN_B},
	    {"mean-delta", required_argument, NULL, CLI_DL_MEAN_DELTA},
	    {"mean-eps", required_argument, NULL, CLI_DL_MEAN_EPS},
	    {"seed", required_argument, NULL, CLI_DL_SEED},
	    {"b0", required_argument, NULL, CLI_DL_B0},
	    {"method", required_argument, NULL, 'm'},
	    {"lambda", required_argument, NULL, CLI_DL_LAMBDA},
	    {"mu", required_argument, NULL, CLI_DL_MU},
	    {"group-size", required_argument, NULL, CLI_DL_GROUP_SIZE},
	    {"rounds", required_argument, NULL, CLI_DL_ROUNDS},
	    {"search", no_argument, NULL, CLI_DL_SEARCH},
	};
	size_t n = sizeof opts / sizeof opts[0];
	if (n > max)
		n = max;
	memcpy(out, opts, n * sizeof *opts);
	return n;
}

/* A positive (or, with zero_ok, non-negative) finite number. */
static int num(const char *cmd, const char *opt, const char *arg, int zero_ok, double *out)
{
	int rc = cli_double(cmd, opt, arg, out);
	if (rc)
		return rc;
	if (!isfinite(*out) || *out < 0 || (!zero_ok && *out == 0))
		return cli_usage_error(cmd, "%s expects a number %s 0, got \"%s\"", opt,
				       zero_ok ? ">=" : ">", arg);
	return 0;
}

int cli_dl_option(const char *cmd, struct cli_dl *d, int id, const char *arg)
{
	uint64_t u;
	int rc;
	switch (id) {
	case CLI_DL_WORKERS_FILE:
		d->workers_file = arg;
		return 0;
	case CLI_DL_WORKERS:
		if ((rc = cli_uint(cmd, "--workers", arg, &u)))
			return rc;
		if (u < 1 || u > 10000000)
			return cli_usage_error(cmd, "--workers expects 1 to 10000000, got %s", arg);
		d->n_gen = (size_t)u;
		return 0;
	case CLI_DL_HET:
		if ((rc = num(cmd, "--het", arg, 1, &d->het)))
			return rc;
		if (!(d->het * sqrt(3.0) < 1))
			return cli_usage_error(cmd,
					       "--het expects a value below 1/sqrt(3) = 0.577 "
					       "(values must stay positive), got %s",
					       arg);
		return 0;
	case CLI_DL_MEAN_S:
		return num(cmd, "--mean-s", arg, 0, &d->mean.s);
	case CLI_DL_MEAN_B:
		return num(cmd, "--mean-b", arg, 0, &d->mean.b);
	case CLI_DL_MEAN_DELTA:
		return num(cmd, "--mean-delta", arg, 1, &d->mean.delta);
	case CLI_DL_MEAN_EPS:
		return num(cmd, "--mean-eps", arg, 1, &d->mean.eps);
	case CLI_DL_SEED:
		return cli_uint(cmd, "--seed", arg, &d->seed);
	case CLI_DL_B0:
		d->have_b0 = 1;
		return num(cmd, "--b0", arg, 0, &d->b0);
	case 'm':
		if (locus_divisible_method_parse(arg, &d->opt))
			return cli_usage_error(
			    cmd, "--method expects umr, ptumr or ptumr-nogt, got \"%s\"", arg);
		return 0;
	case CLI_DL_LAMBDA: {
		char *end;
		long v = strtol(arg, &end, 10);
		if (!*arg || *end || v < -1000000 || v > 10000000)
			return cli_usage_error(cmd, "--lambda expects an integer, got \"%s\"", arg);
		d->opt.lambda = v;
		return 0;
	}
	case CLI_DL_MU:
		return num(cmd, "--mu", arg, 0, &d->opt.mu);
	case CLI_DL_GROUP_SIZE:
		if ((rc = cli_uint(cmd, "--group-size", arg, &u)))
			return rc;
		if (u < 1)
			return cli_usage_error(cmd, "--group-size expects at least 1, got %s", arg);
		d->opt.group_size = (size_t)u;
		return 0;
	case CLI_DL_ROUNDS:
		if ((rc = cli_uint(cmd, "--rounds", arg, &u)))
			return rc;
		if (u < 1 || u > 4096)
			return cli_usage_error(cmd, "--rounds expects 1 to 4096, got %s", arg);
		d->opt.rounds = (size_t)u;
		return 0;
	case CLI_DL_SEARCH:
		d->search = 1;
		return 0;
	}
	return cli_usage_error(cmd, "internal: unknown plan option %d", id);
}

int cli_dl_workers(const char *cmd, struct cli_dl *d)
{
	struct locus_error err = {0};
	if (d->workers_file && d->n_gen)
		return cli_usage_error(cmd, "give --workers-file or --workers, not both");
	if (d->workers_file) {
		double b0 = d->b0;
		int rc =
		    locus_divisible_workers_load(&d->workers, &d->n, &b0, d->workers_file, &err);
		if (rc)
			return cli_error(cmd, &err, rc);
		if (!d->have_b0)
			d->b0 = b0;
		return 0;
	}
	size_t n = d->n_gen ? d->n_gen : 100;
	d->workers = calloc(n, sizeof *d->workers);
	if (!d->workers)
		return cli_error(cmd, NULL, LOCUS_ENOMEM);
	d->n = n;
	locus_divisible_workers_generate(d->workers, n, d->het, &d->mean, d->seed);
	return 0;
}

int cli_dl_plan(const char *cmd, struct cli_dl *d, double W, struct locus_divisible_plan **out)
{
	struct locus_error err = {0};
	int rc;
	if (d->search) {
		struct locus_divisible_options best;
		rc = locus_divisible_search(out, &best, W, d->b0, d->workers, d->n, &d->opt, &err);
		if (!rc)
			d->opt = best;
	} else {
		rc = locus_divisible_plan_create(out, W, d->b0, d->workers, d->n, &d->opt, &err);
	}
	return rc ? cli_error(cmd, &err, rc) : 0;
}
