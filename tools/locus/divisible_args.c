/* The options that describe a divisible-load plan, shared by locus plan and
 * locus scatter (cli.h). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Named ids of the options (cli.h: a shared group's are 1000 and on). */
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
	CLI_DL_METHOD = 'm',
};

static int dl_option(const char *cmd, void *values, int id, const char *arg);

#define AT(field) offsetof(struct cli_dl, field)
static const struct cli_opt dl_opts[] = {
    CLI_HELP_LINE("Workers (one of):"),
    {"workers-file", CLI_DL_WORKERS_FILE, CLI_TEXT, AT(workers_file), "FILE",
     "workers from a \"locus-workers\" JSON file\n(docs/formats.md); it may give b0"},
    {"workers", CLI_DL_WORKERS, CLI_OWN, 0, "N", "or N generated workers (Eq. 11 of the paper):"},
    {"het", CLI_DL_HET, CLI_OWN, 0, "H",
     "heterogeneity, the coefficient of variation of each\nvalue, in [0, 0.577) (default 0: all "
     "alike)"},
    {"mean-s", CLI_DL_MEAN_S, CLI_OWN, 0, "S", "mean speed, units/s (default 1)"},
    {"mean-b", CLI_DL_MEAN_B, CLI_OWN, 0, "B", "mean link bandwidth, units/s (default 200)"},
    {"mean-delta", CLI_DL_MEAN_DELTA, CLI_OWN, 0, "D",
     "mean overhead per computation, s (default 0.1)"},
    {"mean-eps", CLI_DL_MEAN_EPS, CLI_OWN, 0, "E", "mean overhead per transfer, s (default 0.01)"},
    {"seed", CLI_DL_SEED, CLI_UINT, AT(seed), "S", "seed of the generated workers (default 1)"},
    CLI_HELP_LINE("\nMaster and plan:"),
    {"b0", CLI_DL_B0, CLI_OWN, 0, "B", "the master's link, units/s (default 1000)"},
    {"method", CLI_DL_METHOD, CLI_OWN, 0, "NAME",
     "umr, ptumr (with the Grouping Threshold, default)\nor ptumr-nogt"},
    {"lambda", CLI_DL_LAMBDA, CLI_OWN, 0, "L", "workers added to a group by Eq. 4 (default 10)"},
    {"mu", CLI_DL_MU, CLI_OWN, 0, "MU", "the Grouping Threshold of Eq. 5 (default 1.5)"},
    {"group-size", CLI_DL_GROUP_SIZE, CLI_OWN, 0, "M",
     "groups of M workers instead of Eq. 4-5 (the paper's\nhomogeneous study)"},
    {"rounds", CLI_DL_ROUNDS, CLI_OWN, 0, "M", "M rounds instead of the best M+"},
    {"search", CLI_DL_SEARCH, CLI_FLAG, AT(search), NULL,
     "search lambda (or the group size when the workers\nare all alike) for the least T_real"},
};
const struct cli_group cli_dl_group = CLI_GROUP(dl_opts, dl_option);
#undef AT

void cli_dl_init(struct cli_dl *d)
{
	memset(d, 0, sizeof *d);
	locus_divisible_options_init(&d->opt);
	d->b0 = 1000;
	d->mean = (struct locus_divisible_worker){1, 200, 0.1, 0.01};
	d->seed = 1;
}

void cli_dl_fini(struct cli_dl *d)
{
	free(d->workers);
	d->workers = NULL;
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

/* What the table cannot say: the checks, and the options with more to
 * them than a value. */
static int dl_option(const char *cmd, void *values, int id, const char *arg)
{
	struct cli_dl *d = values;
	uint64_t u;
	int rc;
	switch (id) {
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
	case CLI_DL_B0:
		d->have_b0 = 1;
		return num(cmd, "--b0", arg, 0, &d->b0);
	case CLI_DL_METHOD:
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
	}
	return 0;
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
