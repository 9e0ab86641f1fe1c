/*
 * Reports of a divisible-load plan (locus/divisible.h): JSON ("locus-plan"
 * version 1, docs/formats.md), a table, and the timing chart of an
 * execution as SVG (Fig. 4 of the PTUMR paper: the master's link, then per
 * worker its transfers and computations, coloured by round).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locus/divisible.h"
#include "report/out.h"
#include "report/svg.h"

#define PLAN_FORMAT  "locus-plan"
#define PLAN_VERSION 1

static void field_str(struct locus__out *o, const char *k, const char *v)
{
	locus__out_key(o, k);
	locus__out_json_str(o, v, strlen(v));
}

/* The plan's method and settings, sizes and rounds: the document's first
 * lines. */
static void plan_json_settings(struct locus__out *o, const struct locus_divisible_plan *p)
{
	field_str(o, "format", PLAN_FORMAT);
	locus__out_str(o, ", ");
	locus__out_field_u64(o, "version", PLAN_VERSION);
	locus__out_str(o, ",\n ");
	field_str(o, "method", locus_divisible_method_name(&p->opt));
	locus__out_str(o, ", ");
	locus__out_key(o, "lambda");
	locus__out_i64(o, p->opt.lambda);
	locus__out_str(o, ", ");
	locus__out_field_num(o, "mu", p->opt.mu);
	locus__out_str(o, ", ");
	locus__out_field_u64(o, "group_size", p->opt.group_size);
	locus__out_str(o, ",\n ");
	locus__out_field_num(o, "W", p->W);
	locus__out_str(o, ", ");
	locus__out_field_num(o, "b0", p->b0);
	locus__out_str(o, ", ");
	locus__out_field_u64(o, "n_workers", p->n_workers);
	locus__out_str(o, ", ");
	locus__out_field_u64(o, "n_groups", p->n_groups);
	locus__out_str(o, ", ");
	locus__out_field_u64(o, "n_used", p->n_used);
	locus__out_str(o, ",\n ");
	locus__out_field_num(o, "theta", p->theta);
	locus__out_str(o, ", ");
	locus__out_field_num(o, "gamma", p->gamma);
	locus__out_str(o, ", ");
	locus__out_field_num(o, "m_star", p->m_star);
	locus__out_str(o, ", ");
	locus__out_field_u64(o, "rounds", p->rounds);
	locus__out_str(o, ", ");
	locus__out_key(o, "fallback");
	locus__out_str(o, p->fallback ? "true" : "false");
}

/* The round counts the search tried, with their T_real (none when the
 * rounds were given). */
static void plan_json_candidates(struct locus__out *o, const struct locus_divisible_plan *p)
{
	locus__out_key(o, "candidates");
	locus__out_char(o, '[');
	for (size_t i = 0; i < p->n_cand && !p->opt.rounds; i++) {
		locus__out_str(o, i ? ", {" : "{");
		locus__out_field_u64(o, "rounds", p->cand[i].rounds);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "t_real", p->cand[i].t_real);
		if (p->cand[i].infeasible) {
			locus__out_str(o, ", \"infeasible\": ");
			locus__out_json_str(o, p->cand[i].infeasible,
					    strlen(p->cand[i].infeasible));
		}
		locus__out_char(o, '}');
	}
	locus__out_char(o, ']');
}

static void plan_json_times(struct locus__out *o, const struct locus_divisible_plan *p)
{
	locus__out_field_num(o, "t_ideal", p->t_ideal);
	locus__out_str(o, ", ");
	locus__out_field_num(o, "t_real", p->t_real);
	locus__out_str(o, ", ");
	locus__out_field_num(o, "t_bound", p->t_bound);
	locus__out_str(o, ", ");
	locus__out_field_num(o, "ratio", p->t_real / p->t_bound);
}

/* The virtual workers: members, parameters and, for those used, their
 * chunk in each round. */
static void plan_json_groups(struct locus__out *o, const struct locus_divisible_plan *p)
{
	locus__out_key(o, "groups");
	locus__out_str(o, "[");
	for (size_t k = 0; k < p->n_groups; k++) {
		const struct locus_divisible_group *g = &p->groups[k];
		locus__out_str(o, k ? ",\n  {" : "\n  {");
		locus__out_key(o, "workers");
		locus__out_char(o, '[');
		for (size_t t = 0; t < g->count; t++) {
			if (t)
				locus__out_str(o, ", ");
			locus__out_u64(o, p->order[g->first + t]);
		}
		locus__out_str(o, "], ");
		locus__out_field_num(o, "S", g->S);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "B", g->B);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "Delta", g->Delta);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "E", g->E);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "R", g->R);
		locus__out_str(o, ", ");
		locus__out_key(o, "used");
		locus__out_str(o, k < p->n_used ? "true" : "false");
		locus__out_str(o, ", ");
		locus__out_key(o, "chunks");
		locus__out_char(o, '[');
		for (size_t j = 0; k < p->n_used && j < p->rounds; j++) {
			if (j)
				locus__out_str(o, ", ");
			locus__out_num(o, locus_divisible_group_chunk(p, j, k));
		}
		locus__out_str(o, "]}");
	}
	locus__out_char(o, ']');
}

/* The workers: parameters, virtual worker and rate. */
static void plan_json_workers(struct locus__out *o, const struct locus_divisible_plan *p)
{
	locus__out_key(o, "workers");
	locus__out_str(o, "[");
	for (size_t i = 0; i < p->n_workers; i++) {
		const struct locus_divisible_worker *w = &p->workers[i];
		locus__out_str(o, i ? ",\n  {" : "\n  {");
		locus__out_field_u64(o, "id", i);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "s", w->s);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "b", w->b);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "delta", w->delta);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "eps", w->eps);
		locus__out_str(o, ", ");
		locus__out_key(o, "group");
		locus__out_i64(o, p->group_of[i]);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "rate", p->rate[i]);
		locus__out_char(o, '}');
	}
	locus__out_str(o, "]");
}

/* An execution of the plan, simulated or measured: its makespan and every
 * transfer and computation. */
static void plan_json_execution(struct locus__out *o, const struct locus_divisible_run *run,
				const char *label)
{
	locus__out_key(o, "execution");
	locus__out_char(o, '{');
	field_str(o, "label", label ? label : "simulated");
	locus__out_str(o, ", ");
	locus__out_field_num(o, "makespan", run->makespan);
	locus__out_str(o, ", ");
	locus__out_field_num(o, "link_busy", run->link_busy);
	locus__out_str(o, ", ");
	locus__out_key(o, "events");
	locus__out_char(o, '[');
	for (size_t e = 0; e < run->n_events; e++) {
		const struct locus_divisible_event *v = &run->events[e];
		locus__out_str(o, e ? ",\n  {" : "\n  {");
		locus__out_field_u64(o, "worker", v->worker);
		locus__out_str(o, ", ");
		locus__out_field_u64(o, "round", v->round);
		locus__out_str(o, ", ");
		locus__out_field_u64(o, "group", v->group);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "units", v->units);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "send_start", v->send_start);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "recv_end", v->recv_end);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "comp_start", v->comp_start);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "comp_end", v->comp_end);
		locus__out_char(o, '}');
	}
	locus__out_str(o, "]}");
}

int locus_divisible_report_json(const struct locus_divisible_plan *p,
				const struct locus_divisible_run *run, const char *label, FILE *fp)
{
	struct locus__out o;
	locus__out_init(&o, fp);
	locus__out_str(&o, "{");
	plan_json_settings(&o, p);
	locus__out_str(&o, ",\n ");
	plan_json_candidates(&o, p);
	locus__out_str(&o, ",\n ");
	plan_json_times(&o, p);
	locus__out_str(&o, ",\n ");
	plan_json_groups(&o, p);
	locus__out_str(&o, ",\n ");
	plan_json_workers(&o, p);
	if (run) {
		locus__out_str(&o, ",\n ");
		plan_json_execution(&o, run, label);
	}
	locus__out_str(&o, "}\n");
	return locus__out_fini(&o);
}

static void cell(struct locus__out *o, double v, int width)
{
	char buf[LOCUS__NUM_MAX];
	size_t n = locus__fmt_short(buf, v);
	if (!isfinite(v)) {
		strcpy(buf, "-");
		n = 1;
	}
	for (size_t i = n; i < (size_t)width; i++)
		locus__out_char(o, ' ');
	locus__out_write(o, buf, n);
}

static void line(struct locus__out *o, const char *label, double v)
{
	locus__out_str(o, label);
	char buf[LOCUS__NUM_MAX];
	size_t n = locus__fmt_fixed(buf, v, 4, 0);
	if (!isfinite(v)) {
		strcpy(buf, "-");
		n = 1;
	}
	locus__out_write(o, buf, n);
	locus__out_char(o, '\n');
}

int locus_divisible_report_table(const struct locus_divisible_plan *p,
				 const struct locus_divisible_run *run, FILE *fp)
{
	struct locus__out o;
	char buf[160];
	locus__out_init(&o, fp);
	snprintf(buf, sizeof buf, "%s: W %g over %zu workers, b0 %g\n",
		 locus_divisible_method_name(&p->opt), p->W, p->n_workers, p->b0);
	locus__out_str(&o, buf);
	if (p->opt.method == LOCUS_DIVISIBLE_PTUMR) {
		if (p->opt.group_size)
			snprintf(buf, sizeof buf, "grouping: groups of %zu\n", p->opt.group_size);
		else if (p->opt.gt)
			snprintf(buf, sizeof buf,
				 "grouping: lambda %ld, Grouping Threshold mu %g\n", p->opt.lambda,
				 p->opt.mu);
		else
			snprintf(buf, sizeof buf, "grouping: lambda %ld, no Grouping Threshold\n",
				 p->opt.lambda);
		locus__out_str(&o, buf);
	}
	size_t used_workers = 0;
	for (size_t k = 0; k < p->n_used; k++)
		used_workers += p->groups[k].count;
	snprintf(buf, sizeof buf, "virtual workers: %zu used of %zu (%zu workers used)\n",
		 p->n_used, p->n_groups, used_workers);
	locus__out_str(&o, buf);
	snprintf(buf, sizeof buf, "rounds: M* %.3f, M %zu%s\n", p->m_star, p->rounds,
		 p->opt.rounds ? " (given)"
		 : p->fallback ? " (fallback: M*'s neighbours infeasible)"
			       : " (M+)");
	locus__out_str(&o, buf);
	line(&o, "T_ideal   ", p->t_ideal);
	line(&o, "T_real    ", p->t_real);
	line(&o, "T_bound   ", p->t_bound);
	line(&o, "T_real / T_bound ", p->t_real / p->t_bound);
	if (run) {
		line(&o, "simulated makespan ", run->makespan);
		line(&o, "simulated / T_real ", run->makespan / p->t_real);
	}
	locus__out_str(
	    &o, "\n   k  members        S        B    Delta        E        R  chunks by round\n");
	size_t show = p->n_used < 40 ? p->n_used : 40;
	for (size_t k = 0; k < show; k++) {
		const struct locus_divisible_group *g = &p->groups[k];
		snprintf(buf, sizeof buf, "%4zu %8zu", k, g->count);
		locus__out_str(&o, buf);
		cell(&o, g->S, 9);
		cell(&o, g->B, 9);
		cell(&o, g->Delta, 9);
		cell(&o, g->E, 9);
		cell(&o, g->R, 9);
		locus__out_char(&o, ' ');
		size_t rounds = p->rounds < 8 ? p->rounds : 8;
		for (size_t j = 0; j < rounds; j++) {
			locus__out_char(&o, ' ');
			locus__out_short(&o, locus_divisible_group_chunk(p, j, k));
		}
		if (rounds < p->rounds)
			locus__out_str(&o, " ...");
		locus__out_char(&o, '\n');
	}
	if (show < p->n_used) {
		snprintf(buf, sizeof buf, "  (%zu more virtual workers: see --json)\n",
			 p->n_used - show);
		locus__out_str(&o, buf);
	}
	return locus__out_fini(&o);
}

/* Round colours (cycled). */
static const char *const round_fill[] = {"#4878d0", "#ee854a", "#6acc64", "#d65f5f",
					 "#956cb4", "#8c613c", "#dc7ec0", "#797979"};
#define N_FILL (sizeof round_fill / sizeof round_fill[0])
/* Rows of workers drawn at most; the rest are summarised. */
#define MAX_ROWS 64

static void bar(struct locus__out *o, double x, double y, double w, double h, unsigned round,
		double opacity, const char *tip)
{
	locus__out_str(o, "<rect x=\"");
	locus__svg_num(o, x);
	locus__out_str(o, "\" y=\"");
	locus__svg_num(o, y);
	locus__out_str(o, "\" width=\"");
	locus__svg_num(o, w > 0.3 ? w : 0.3);
	locus__out_str(o, "\" height=\"");
	locus__svg_num(o, h);
	locus__out_str(o, "\" fill=\"");
	locus__out_str(o, round_fill[round % N_FILL]);
	if (opacity < 1) {
		locus__out_str(o, "\" fill-opacity=\"");
		locus__out_fixed(o, opacity, 2);
	}
	locus__out_str(o, "\"><title>");
	locus__out_xml(o, tip, strlen(tip));
	locus__out_str(o, "</title></rect>\n");
}

int locus_divisible_report_svg(const struct locus_divisible_plan *p,
			       const struct locus_divisible_run *run, FILE *fp)
{
	struct locus__out o;
	locus__out_init(&o, fp);
	/* Rows: the master's link, then the used workers in plan order. */
	size_t *row = calloc(p->n_workers ? p->n_workers : 1, sizeof *row);
	if (!row) {
		locus__out_fini(&o);
		return LOCUS_ENOMEM;
	}
	size_t rows = 0, used = 0;
	for (size_t k = 0; k < p->n_used; k++)
		for (size_t t = 0; t < p->groups[k].count; t++, used++) {
			size_t i = p->order[p->groups[k].first + t];
			row[i] = used < MAX_ROWS ? ++rows : 0;
		}
	const double left = 120, top = 64, rh = 14, plot_w = 860;
	double h = top + (double)(rows + 1) * rh + 70, w = left + plot_w + 30;
	double span = run && run->makespan > 0 ? run->makespan : p->t_real;
	if (!(span > 0))
		span = 1;
	double sx = plot_w / span;
	char title[200], sub[300], tip[200];
	snprintf(title, sizeof title, "Locus plan: %s timing chart",
		 locus_divisible_method_name(&p->opt));
	locus__svg_begin_doc(&o, w, h, title);
	locus__svg_text(&o, 12, 22, "start", "title", title);
	int n =
	    snprintf(sub, sizeof sub,
		     "W %g, %zu workers (%zu used in %zu virtual workers), b0 %g, M %zu; "
		     "T_real %.4g, T_bound %.4g",
		     p->W, p->n_workers, used, p->n_used, p->b0, p->rounds, p->t_real, p->t_bound);
	if (run && n > 0 && (size_t)n < sizeof sub)
		snprintf(sub + n, sizeof sub - (size_t)n, ", executed %.4g", run->makespan);
	locus__svg_text(&o, 12, 40, "start", "sub", sub);
	/* Grid and time axis. */
	int dec;
	double step = locus__svg_ticks(span, 10, &dec);
	double y_axis = top + (double)(rows + 1) * rh + 4;
	for (double t = 0; t <= span * (1 + 1e-9); t += step) {
		double x = left + t * sx;
		locus__svg_line(&o, x, top - 4, x, y_axis, "grid");
		char lab[32];
		snprintf(lab, sizeof lab, "%.*f", dec, t);
		locus__svg_text(&o, x, y_axis + 14, "middle", "small", lab);
	}
	locus__svg_line(&o, left, y_axis, left + plot_w, y_axis, "axis");
	locus__svg_text(&o, left + plot_w / 2, y_axis + 30, "middle", NULL,
			run && run->events ? "time (s)" : "time");
	locus__svg_text(&o, left - 6, top + rh - 3, "end", "node", "master link");
	for (size_t k = 0, r = 0; k < p->n_used; k++)
		for (size_t t = 0; t < p->groups[k].count; t++) {
			size_t i = p->order[p->groups[k].first + t];
			if (!row[i])
				continue;
			char lab[64];
			snprintf(lab, sizeof lab, "w%zu (vw %zu)", i, k);
			locus__svg_text(&o, left - 6, top + (double)(r + 2) * rh - 3, "end",
					"small", lab);
			r++;
		}
	if (run) {
		/* The master's link: one bar per group's transfers. */
		for (size_t e = 0; e < run->n_events;) {
			const struct locus_divisible_event *v = &run->events[e];
			double end = v->recv_end;
			size_t f = e + 1;
			while (f < run->n_events && run->events[f].group == v->group &&
			       run->events[f].round == v->round &&
			       run->events[f].send_start == v->send_start) {
				if (run->events[f].recv_end > end)
					end = run->events[f].recv_end;
				f++;
			}
			snprintf(tip, sizeof tip,
				 "round %u, virtual worker %u: %zu transfers, %.4g to %.4g",
				 v->round, v->group, f - e, v->send_start, end);
			bar(&o, left + v->send_start * sx, top + 2, (end - v->send_start) * sx,
			    rh - 4, v->round, 1, tip);
			e = f;
		}
		for (size_t e = 0; e < run->n_events; e++) {
			const struct locus_divisible_event *v = &run->events[e];
			if (v->worker >= p->n_workers || !row[v->worker])
				continue;
			double y = top + (double)row[v->worker] * rh;
			snprintf(tip, sizeof tip, "w%u round %u: %.4g units received %.4g to %.4g",
				 v->worker, v->round, v->units, v->send_start, v->recv_end);
			bar(&o, left + v->send_start * sx, y + 2,
			    (v->recv_end - v->send_start) * sx, 4, v->round, 0.45, tip);
			snprintf(tip, sizeof tip, "w%u round %u: computed %.4g to %.4g", v->worker,
				 v->round, v->comp_start, v->comp_end);
			bar(&o, left + v->comp_start * sx, y + 6,
			    (v->comp_end - v->comp_start) * sx, rh - 8, v->round, 1, tip);
		}
		double xm = left + run->makespan * sx;
		locus__svg_line(&o, xm, top - 4, xm, y_axis, "ms");
	}
	double xr = left + p->t_real * sx, xb = left + p->t_bound * sx;
	if (xr <= left + plot_w + 1)
		locus__svg_line(&o, xr, top - 4, xr, y_axis, "ref");
	locus__svg_line(&o, xb, top - 4, xb, y_axis, "lb");
	double ly = y_axis + 48, lx = left;
	lx = locus__svg_legend(&o, lx, ly, "ref", 1, "T_real (plan)");
	lx = locus__svg_legend(&o, lx, ly, "lb", 1, "T_bound");
	if (run)
		lx = locus__svg_legend(&o, lx, ly, "ms", 1, "executed makespan");
	locus__svg_text(&o, lx + 10, ly, "start", "small",
			"thin bars: transfers; thick bars: computations; colour: round");
	if (used > MAX_ROWS) {
		char more[96];
		snprintf(more, sizeof more, "(first %d of %zu used workers shown)", MAX_ROWS, used);
		locus__svg_text(&o, left, top - 8, "start", "small", more);
	}
	locus__svg_end(&o);
	free(row);
	return locus__out_fini(&o);
}
