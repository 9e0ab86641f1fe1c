/* locus plan: UMR and PTUMR plans for a divisible workload, checked by
 * executing them in the simulator. */
#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *const help_head =
    "usage: locus plan [OPTIONS]\n"
    "\n"
    "Plans how a master sends W units of divisible data to its workers in rounds\n"
    "of growing chunks, so that transfers overlap computation: UMR (one transfer\n"
    "at a time) or PTUMR (groups of workers receive in parallel, as virtual\n"
    "workers). Prints the grouping, the chunk of every virtual worker per round,\n"
    "the number of rounds (M+ around the M* that minimises T_ideal), the\n"
    "predicted makespan T_real and the bound T_bound = W / sum(s) that no plan\n"
    "beats; then executes the plan in the simulator and prints its makespan.\n";

static const char *const help_tail =
    "\n"
    "Units are the user's: W in units, s and b in units/s, delta and eps in s.\n"
    "\n"
    "Examples:\n"
    "  locus plan --workers 100 --het 0.43 --b0 1000 --compare umr,ptumr-nogt,ptumr\n"
    "  locus plan --workers 100 --mean-b 120 --mean-delta 0.5 --b0 600 --search\n"
    "  locus plan --workers-file cluster.json -W 5000 --json plan.json --svg plan.svg\n";

struct plan_args {
	struct cli_dl dl;
	double W;
	const char *compare, *json, *svg;
};

/* Named ids of plan's own options. */
enum { OPT_COMPARE = 256, OPT_JSON, OPT_SVG };

/* -W: a load above 0. */
static int load_option(const char *cmd, void *values, int id, const char *arg)
{
	const struct plan_args *a = values;
	if (!(a->W > 0) || !isfinite(a->W))
		return cli_usage_error(cmd, "--load expects a number > 0, got \"%s\"", arg);
	return 0;
}

#define AT(field) offsetof(struct plan_args, field)
static const struct cli_opt load_opts[] = {
    {"load", 'W', CLI_NUMBER, AT(W), "W", "units of data to send (default 1000)"},
};
static const struct cli_group load_group = CLI_GROUP(load_opts, load_option);

static const struct cli_opt out_opts[] = {
    {"compare", OPT_COMPARE, CLI_TEXT, AT(compare), "A,B,...",
     "plan with each method (umr, ptumr, ptumr-nogt) and\ncompare T_real / T_bound"},
    {"json", OPT_JSON, CLI_TEXT, AT(json), "FILE",
     "write the plan and its simulated execution as JSON\n(\"-\": to stdout instead of the table)"},
    {"svg", OPT_SVG, CLI_TEXT, AT(svg), "FILE", "timing chart of the simulated execution (Fig. 4)"},
};
static const struct cli_group out_group = CLI_GROUP(out_opts, NULL);

static const struct cli_use uses[] = {
    {.group = &load_group, .before = "\n"},
    {.group = &cli_dl_group, .at = AT(dl), .before = "\n"},
    {.group = &out_group, .before = "\nOutput:\n"},
};
#undef AT

static const struct cli_command command =
    CLI_COMMAND(uses, CLI_OPTIONS_ANYWHERE, CLI_ERRORS_QUOTED, help_head, help_tail, 28);

struct one {
	struct locus_divisible_plan *plan;
	struct locus_divisible_run *run;
};

static int write_json(void *ctx, FILE *fp)
{
	struct one *o = ctx;
	return locus_divisible_report_json(o->plan, o->run, "simulated", fp);
}

static int write_svg(void *ctx, FILE *fp)
{
	struct one *o = ctx;
	return locus_divisible_report_svg(o->plan, o->run, fp);
}

struct many {
	struct one *v;
	size_t n;
};

static int write_json_many(void *ctx, FILE *fp)
{
	struct many *m = ctx;
	fputs("[\n", fp);
	for (size_t i = 0; i < m->n; i++) {
		int rc = locus_divisible_report_json(m->v[i].plan, m->v[i].run, "simulated", fp);
		if (rc)
			return rc;
		if (i + 1 < m->n)
			fputs(",\n", fp);
	}
	fputs("]\n", fp);
	return ferror(fp) ? LOCUS_EIO : 0;
}

/* Plans and simulates with the options in d. */
static int plan_one(struct cli_dl *d, double W, struct one *o)
{
	int rc = cli_dl_plan("plan", d, W, &o->plan);
	if (rc)
		return rc;
	struct locus_error err = {0};
	rc = locus_divisible_simulate(&o->run, o->plan, &err);
	return rc ? cli_error("plan", &err, rc) : 0;
}

static void print_compare(const struct many *m, const struct cli_dl *base)
{
	printf("W %g over %zu workers, b0 %g; T_bound %.4f\n\n", m->v[0].plan->W,
	       m->v[0].plan->n_workers, m->v[0].plan->b0, m->v[0].plan->t_bound);
	printf("%-11s %-12s %5s %6s %4s %10s %10s %10s %9s\n", "method", "grouping", "vw", "used",
	       "M", "T_ideal", "T_real", "simulated", "T/bound");
	for (size_t i = 0; i < m->n; i++) {
		const struct locus_divisible_plan *p = m->v[i].plan;
		char grouping[32];
		if (p->opt.method == LOCUS_DIVISIBLE_UMR)
			snprintf(grouping, sizeof grouping, "one each");
		else if (p->opt.group_size)
			snprintf(grouping, sizeof grouping, "size %zu", p->opt.group_size);
		else
			snprintf(grouping, sizeof grouping, "lambda %ld", p->opt.lambda);
		size_t used = 0;
		for (size_t k = 0; k < p->n_used; k++)
			used += p->groups[k].count;
		printf("%-11s %-12s %5zu %6zu %4zu %10.4f %10.4f %10.4f %9.4f\n",
		       locus_divisible_method_name(&p->opt), grouping, p->n_used, used, p->rounds,
		       p->t_ideal, p->t_real, m->v[i].run->makespan, p->t_real / p->t_bound);
	}
	(void)base;
}

int cmd_plan(int argc, char **argv)
{
	struct plan_args a = {.W = 1000};
	struct cli_dl *const d = &a.dl;
	cli_dl_init(d);
	int rc = cli_parse("plan", &command, &a, argc, argv);
	if (rc)
		goto out;
	if (optind < argc) {
		rc = cli_usage_error("plan", "unexpected argument \"%s\"", argv[optind]);
		goto out;
	}
	/* Both outputs are checked before any work and written together. */
	const char *out_paths[] = {a.json, a.svg};
	if ((rc = cli_outputs_check("plan", out_paths, 2)))
		goto out;
	if (a.compare && (rc = cli_list_check("plan", "--compare", "methods", a.compare)))
		goto out;
	if ((rc = cli_dl_workers("plan", d)))
		goto out;
	if (!a.compare) {
		struct one o = {0};
		rc = plan_one(d, a.W, &o);
		if (!rc && !(a.json && strcmp(a.json, "-") == 0)) {
			int wrc = locus_divisible_report_table(o.plan, o.run, stdout);
			if (wrc)
				rc = cli_error("plan", NULL, wrc);
		}
		const struct cli_output outs[] = {{a.json, write_json, &o}, {a.svg, write_svg, &o}};
		if (!rc)
			rc = cli_outputs_write("plan", outs, 2);
		locus_divisible_run_destroy(o.run);
		locus_divisible_plan_destroy(o.plan);
		goto out;
	}
	/* --compare: the same workers under each method. */
	struct one v[8] = {{0}};
	struct many m = {v, 0};
	char *list = strdup(a.compare), *save_ptr = NULL;
	if (!list) {
		rc = cli_error("plan", NULL, LOCUS_ENOMEM);
		goto out;
	}
	for (char *tok = strtok_r(list, ",", &save_ptr); tok && !rc;
	     tok = strtok_r(NULL, ",", &save_ptr)) {
		struct cli_dl e = *d;
		if (m.n == CLI_ARRAY_LEN(v)) {
			rc = cli_usage_error("plan", "--compare takes at most 8 methods");
			break;
		}
		if (locus_divisible_method_parse(tok, &e.opt)) {
			rc = cli_usage_error(
			    "plan", "--compare expects umr, ptumr or ptumr-nogt, got \"%s\"", tok);
			break;
		}
		rc = plan_one(&e, a.W, &v[m.n]);
		if (v[m.n].plan)
			m.n++;
	}
	free(list);
	if (!rc && m.n && !(a.json && strcmp(a.json, "-") == 0))
		print_compare(&m, d);
	/* The chart is the last method's. */
	const struct cli_output outs[] = {
	    {a.json, write_json_many, &m},
	    {m.n ? a.svg : NULL, write_svg, m.n ? &v[m.n - 1] : NULL}};
	if (!rc)
		rc = cli_outputs_write("plan", outs, 2);
	for (size_t i = 0; i < m.n; i++) {
		locus_divisible_run_destroy(v[i].run);
		locus_divisible_plan_destroy(v[i].plan);
	}
out:
	cli_dl_fini(d);
	return rc == CLI_HELP_SHOWN ? 0 : rc;
}
