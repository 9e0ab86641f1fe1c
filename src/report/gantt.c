/*
 * The Gantt chart: time on x, workers on y grouped by node, each task a
 * read slice (coloured by where it read from) followed by a compute slice,
 * with the makespan and its lower bound as vertical lines.
 *
 * So that the file stays small whatever the run, the chart changes form
 * past two limits (docs/formats.md):
 *  - more than ROWS_MAX workers: a row is a group of whole nodes (as many
 *    per row as keep the rows within ROWS_MAX);
 *  - more than that many workers, or more than DETAIL_TASKS tasks: time is
 *    cut into bins of BIN_PX pixels and each row shows, stacked, the share
 *    of its workers' time spent computing, reading locally, remotely and
 *    from a shared file system in each bin.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locus/report.h"
#include "report/svg.h"

#define WIDTH	      1200.0
#define ML	      150.0 /* left margin: node and worker labels */
#define MR	      36.0
#define MT	      112.0 /* title, subtitles, legend, line labels */
#define MB	      50.0  /* tick labels and axis title */
#define ROWS_MAX      256
#define DETAIL_TASKS  20000
#define TOOLTIP_TASKS 2000
#define BIN_PX	      3.0
#define LABEL_GAP     12.0 /* least vertical distance between two labels */

enum { CAT_COMPUTE, CAT_LOCAL, CAT_REMOTE, CAT_SHARED, N_CAT };
static const char *const cat_class[N_CAT] = {"c", "rl", "rr", "rs"};

struct row {
	size_t first, n;	   /* workers order[first .. first + n) */
	uint32_t node_lo, node_hi; /* nodes it covers */
};

struct gantt {
	const struct locus_result *r;
	size_t n_workers;
	size_t *order;	/* workers by node */
	size_t *row_of; /* row of each worker */
	struct row *rows;
	size_t n_rows;
	size_t nodes_per_row; /* 0: a row per worker */
	int binned;
	size_t bins;
	double t_max, pw, ph, rh;
	size_t worker_nodes; /* nodes that have workers */
	/* The bound drawn: the result's, or for a workflow the larger of
	 * its critical path and its work over the workers (cp, work; from
	 * the tasks' compute times). */
	double bound, cp, work;
	int by_stage; /* compute slices coloured by the task's stage */
};

/* Stage colours (a qualitative palette), cycled past STAGE_COLOURS. */
#define STAGE_COLOURS 10
static const char *const stage_fill[STAGE_COLOURS] = {"#4878d0", "#d5bb67", "#82c6e2", "#dc7ec0",
						      "#8c613c", "#797979", "#1f9e89", "#b8860b",
						      "#6a3d9a", "#e377c2"};

static double x_of(const struct gantt *g, double t)
{
	if (!isfinite(t) || t < 0)
		t = 0;
	return ML + (t > g->t_max ? g->t_max : t) / g->t_max * g->pw;
}

static double row_y(const struct gantt *g, size_t row)
{
	return MT + (double)row * g->rh;
}

/* Rows: one per worker, or groups of whole nodes past ROWS_MAX workers. */
static int make_rows(struct gantt *g)
{
	const struct locus_result *r = g->r;
	size_t n = g->n_workers;

	g->order = malloc((n ? n : 1) * sizeof *g->order);
	g->row_of = malloc((n ? n : 1) * sizeof *g->row_of);
	g->rows = malloc((n ? n : 1) * sizeof *g->rows);
	if (!g->order || !g->row_of || !g->rows)
		return LOCUS_ENOMEM;
	locus__svg_worker_order(r, g->order);
	size_t distinct = 0;
	for (size_t i = 0; i < n; i++)
		if (i == 0 || r->workers[g->order[i]].node != r->workers[g->order[i - 1]].node)
			distinct++;
	g->worker_nodes = distinct;
	g->nodes_per_row = n > ROWS_MAX ? (distinct + ROWS_MAX - 1) / ROWS_MAX : 0;
	size_t in_row = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t node = r->workers[g->order[i]].node;
		int new_node = i == 0 || node != r->workers[g->order[i - 1]].node;
		int new_row =
		    i == 0 || !g->nodes_per_row || (new_node && in_row == g->nodes_per_row);
		if (new_row) {
			struct row *rw = &g->rows[g->n_rows++];
			rw->first = i;
			rw->n = 0;
			rw->node_lo = node;
			in_row = 0;
		}
		struct row *rw = &g->rows[g->n_rows - 1];
		if (new_row || new_node)
			in_row++;
		rw->n++;
		rw->node_hi = node;
		g->row_of[g->order[i]] = g->n_rows - 1;
	}
	return 0;
}

/* A workflow's bound from its tasks' compute times (end - read_end): the
 * longest chain of them along the graph's dependencies, and their sum
 * over the workers; no schedule of those times is shorter than either. */
static int flow_bound(struct gantt *g)
{
	const struct locus_result *r = g->r;
	const struct locus_graph *gr = r->graph;
	g->bound = isfinite(r->lb_makespan) && r->lb_makespan > 0 ? r->lb_makespan : 0;
	if (!r->flow || !gr || !r->tasks || gr->n_tasks != r->n_tasks || !r->n_tasks)
		return 0;
	size_t n = r->n_tasks;
	double *fin = calloc(n, sizeof *fin), sum = 0;
	uint32_t *indeg = calloc(n, sizeof *indeg), *queue = malloc(n * sizeof *queue);
	uint32_t *at = calloc(n + 1, sizeof *at), *succ = NULL;
	if (!fin || !indeg || !queue || !at)
		goto nomem;
	/* Successors (producer -> consumer, once per input), as lists. */
	for (size_t t = 0; t < n; t++)
		for (uint32_t k = 0; k < gr->tasks[t].n_in; k++) {
			uint32_t p = gr->objects[gr->inputs[gr->tasks[t].in_at + k]].producer;
			if (p != LOCUS_NONE && p < n) {
				at[p + 1]++;
				indeg[t]++;
			}
		}
	for (size_t t = 0; t < n; t++)
		at[t + 1] += at[t];
	succ = malloc((at[n] ? at[n] : 1) * sizeof *succ);
	uint32_t *fill = calloc(n, sizeof *fill);
	if (!succ || !fill) {
		free(fill);
		goto nomem;
	}
	for (size_t t = 0; t < n; t++)
		for (uint32_t k = 0; k < gr->tasks[t].n_in; k++) {
			uint32_t p = gr->objects[gr->inputs[gr->tasks[t].in_at + k]].producer;
			if (p != LOCUS_NONE && p < n)
				succ[at[p] + fill[p]++] = (uint32_t)t;
		}
	free(fill);
	size_t head = 0, tail = 0;
	for (size_t t = 0; t < n; t++)
		if (!indeg[t])
			queue[tail++] = (uint32_t)t;
	while (head < tail) {
		uint32_t t = queue[head++];
		const struct locus_task_result *tr = &r->tasks[t];
		double d = isfinite(tr->end - tr->read_end) && tr->end > tr->read_end
			       ? tr->end - tr->read_end
			       : 0;
		sum += d;
		fin[t] += d; /* its predecessors' latest end, then its own time */
		if (fin[t] > g->cp)
			g->cp = fin[t];
		for (uint32_t k = at[t]; k < at[t + 1]; k++) {
			uint32_t c = succ[k];
			if (fin[t] > fin[c])
				fin[c] = fin[t];
			if (!--indeg[c])
				queue[tail++] = c;
		}
	}
	g->work = g->n_workers ? sum / (double)g->n_workers : 0;
	if (g->cp > g->bound)
		g->bound = g->cp;
	if (g->work > g->bound)
		g->bound = g->work;
	g->by_stage = gr->n_stages > 0 && gr->task_stage != NULL;
	free(fin);
	free(indeg);
	free(queue);
	free(at);
	free(succ);
	return 0;
nomem:
	free(fin);
	free(indeg);
	free(queue);
	free(at);
	free(succ);
	return LOCUS_ENOMEM;
}

static void layout(struct gantt *g)
{
	const struct locus_result *r = g->r;
	double t = 0;

	if (isfinite(r->makespan) && r->makespan > t)
		t = r->makespan;
	if (isfinite(r->lb_makespan) && r->lb_makespan > t)
		t = r->lb_makespan;
	if (g->bound > t)
		t = g->bound;
	for (size_t i = 0; r->tasks && i < r->n_tasks; i++)
		if (isfinite(r->tasks[i].end) && r->tasks[i].end > t)
			t = r->tasks[i].end;
	g->t_max = t > 0 ? t : 1;
	g->pw = WIDTH - ML - MR;
	g->rh = g->n_rows ? 720.0 / (double)g->n_rows : 22;
	if (g->rh > 22)
		g->rh = 22;
	if (g->rh < 3)
		g->rh = 3;
	g->ph = g->n_rows ? g->rh * (double)g->n_rows : 40;
	g->binned = g->nodes_per_row || r->n_tasks > DETAIL_TASKS;
	g->bins = (size_t)(g->pw / BIN_PX);
}

/* The stages' own style classes (sN), and their legend on the line
 * under the subtitle, as many as fit. */
static void stage_style(struct locus__out *o, const struct gantt *g)
{
	if (!g->by_stage)
		return;
	locus__out_str(o, "<style>\n");
	for (size_t k = 0; k < STAGE_COLOURS && k < g->r->graph->n_stages; k++) {
		char line[64];
		snprintf(line, sizeof line, ".s%zu{fill:%s}\n", k, stage_fill[k]);
		locus__out_str(o, line);
	}
	locus__out_str(o, "</style>\n");
}

static void stage_legend(struct locus__out *o, const struct gantt *g)
{
	const struct locus_graph *gr = g->r->graph;
	double x = 16;
	for (size_t k = 0; k < gr->n_stages; k++) {
		const char *name = gr->stage_names[k] ? gr->stage_names[k] : "?";
		if (x + 40 + locus__svg_text_width(strlen(name)) > WIDTH - 120) {
			char more[48];
			snprintf(more, sizeof more, "and %zu more stage%s", gr->n_stages - k,
				 gr->n_stages - k == 1 ? "" : "s");
			locus__svg_text(o, x, 62, NULL, "small", more);
			break;
		}
		char cls[16];
		snprintf(cls, sizeof cls, "s%zu", k % STAGE_COLOURS);
		x = locus__svg_legend(o, x, 62, cls, 0, name);
	}
}

static void headings(struct locus__out *o, const struct gantt *g, int shared)
{
	const struct locus_result *r = g->r;
	char pol[40], a[LOCUS__NUM_MAX], b[LOCUS__NUM_MAX], c[LOCUS__NUM_MAX], line[512];

	locus__fmt_short(a, r->makespan);
	snprintf(line, sizeof line, "Gantt chart: %s, makespan %s s",
		 locus__svg_policy(r, pol, sizeof pol), a);
	locus__svg_text(o, 16, 24, NULL, "title", line);

	locus__fmt_short(a, g->bound);
	double ratio = g->bound > 0 ? r->makespan / g->bound : NAN;
	if (isfinite(ratio))
		locus__fmt_fixed(b, ratio, 3, 0);
	else
		strcpy(b, "-");
	if (r->flow) {
		/* A workflow: where its bytes came from, as the stage table
		 * counts them, and the bound it knows. */
		struct locus__bytes in = locus__input_bytes(r);
		char cp[LOCUS__NUM_MAX], wk[LOCUS__NUM_MAX];
		locus__fmt_short(cp, g->cp);
		locus__fmt_short(wk, g->work);
		snprintf(line, sizeof line,
			 "%zu tasks on %zu workers, %zu nodes; bound %s s (critical path %s s, "
			 "work/workers %s s; makespan/bound %s); inputs %.1f MB local, %.1f MB "
			 "from peers, %.1f MB from the shared FS",
			 r->n_tasks, r->n_workers, g->worker_nodes, a, cp, wk, b,
			 (double)in.local / 1e6, (double)in.peer / 1e6, (double)in.fs / 1e6);
	} else {
		locus__fmt_percent(c, locus__local_fraction(r));
		snprintf(line, sizeof line,
			 "%zu tasks on %zu workers, %zu nodes; lower bound %s s (makespan/bound "
			 "%s); %s%% of tasks read locally",
			 r->n_tasks, r->n_workers, g->worker_nodes, a, b, c);
	}
	locus__svg_text(o, 16, 44, NULL, "sub", line);

	if (!r->tasks) {
		snprintf(line, sizeof line, "no per-task results were kept for this run");
	} else if (g->binned) {
		char rows[96];
		if (g->nodes_per_row)
			snprintf(rows, sizeof rows, "each row is %zu node%s", g->nodes_per_row,
				 g->nodes_per_row > 1 ? "s" : "");
		else
			snprintf(rows, sizeof rows, "each row is a worker");
		snprintf(line, sizeof line,
			 "%s; coloured height: share of the row's worker time spent in each "
			 "state, in %zu time bins",
			 rows, g->bins);
	} else {
		line[0] = 0;
	}
	if (line[0])
		locus__svg_text(o, 16, 62, NULL, "small", line);
	else if (g->by_stage)
		stage_legend(o, g);

	double x = 16, y = 84;
	if (!g->by_stage) /* else each stage's colour, above */
		x = locus__svg_legend(o, x, y, "c", 0, "compute");
	x = locus__svg_legend(o, x, y, "rl", 0, "read local");
	x = locus__svg_legend(o, x, y, "rr", 0, "read remote");
	if (shared)
		x = locus__svg_legend(o, x, y, "rs", 0, "read shared FS");
	if (r->n_xfers && !g->binned)
		x = locus__svg_legend(o, x, y, "xf", 0, "transfer in");
	x = locus__svg_legend(o, x, y, "lb", 1, r->flow ? "bound" : "makespan lower bound");
	locus__svg_legend(o, x, y, "ms", 1, "makespan");
}

/* Node bands and labels on the left. */
static void rows_frame(struct locus__out *o, const struct gantt *g)
{
	double last_node_y = -1e9, last_row_y = -1e9;
	char text[64];
	size_t band = 0;

	for (size_t i = 0; i < g->n_rows;) {
		/* The rows of one node (a row per worker), or one row. */
		size_t j = i + 1;
		if (!g->nodes_per_row)
			while (j < g->n_rows && g->rows[j].node_lo == g->rows[i].node_lo)
				j++;
		double y0 = row_y(g, i), y1 = row_y(g, j);
		if (band++ % 2)
			locus__svg_rect(o, "band", 0, y0, ML + g->pw, y1 - y0);
		if (!g->nodes_per_row) {
			double ym = (y0 + y1) / 2 + 4;
			if (ym - last_node_y >= LABEL_GAP) {
				snprintf(text, sizeof text, "node %u",
					 (unsigned)g->rows[i].node_lo);
				locus__svg_text(o, 12, ym, NULL, "node", text);
				last_node_y = ym;
			}
			for (size_t k = i; k < j && g->rh >= 9; k++) {
				snprintf(text, sizeof text, "w%zu", g->order[g->rows[k].first]);
				locus__svg_text(o, ML - 8, row_y(g, k) + g->rh / 2 + 4, "end",
						"small", text);
			}
		} else {
			double ym = (y0 + y1) / 2 + 4;
			if (ym - last_row_y >= LABEL_GAP) {
				const struct row *rw = &g->rows[i];
				if (rw->node_lo == rw->node_hi)
					snprintf(text, sizeof text, "node %u (%zu w)",
						 (unsigned)rw->node_lo, rw->n);
				else
					snprintf(text, sizeof text, "nodes %u-%u (%zu w)",
						 (unsigned)rw->node_lo, (unsigned)rw->node_hi,
						 rw->n);
				locus__svg_text(o, ML - 8, ym, "end", "small", text);
				last_row_y = ym;
			}
		}
		i = j;
	}
}

static void time_axis(struct locus__out *o, const struct gantt *g)
{
	int dec;
	double step = locus__svg_ticks(g->t_max, 10, &dec);
	double yb = MT + g->ph;
	char label[LOCUS__NUM_MAX];

	for (long i = 0;; i++) {
		double t = (double)i * step;
		if (t > g->t_max * (1 + 1e-9))
			break;
		double x = x_of(g, t);
		locus__svg_line(o, x, MT, x, yb, "grid");
		locus__svg_line(o, x, yb, x, yb + 5, "axis");
		locus__fmt_fixed(label, t, dec, 0);
		locus__svg_text(o, x, yb + 18, "middle", NULL, label);
	}
	locus__svg_line(o, ML, yb, ML + g->pw, yb, "axis");
	locus__svg_line(o, ML, MT, ML, yb, "axis");
	locus__svg_text(o, ML + g->pw / 2, yb + 38, "middle", NULL, "time (s)");
}

/* When a task began reading (its assignment where the engine kept no
 * start). */
static double read_start(const struct locus_task_result *tr)
{
	return tr->attempts ? tr->start : tr->assigned;
}

static int task_category(const struct locus_task_result *tr)
{
	if (tr->local)
		return CAT_LOCAL;
	return tr->source == UINT32_MAX ? CAT_SHARED : CAT_REMOTE;
}

static void detail_slices(struct locus__out *o, const struct gantt *g)
{
	const struct locus_result *r = g->r;
	double pad = g->rh >= 6 ? g->rh * 0.15 : 0;
	int tooltips = r->n_tasks <= TOOLTIP_TASKS;
	char a[LOCUS__NUM_MAX], b[LOCUS__NUM_MAX], c[LOCUS__NUM_MAX], text[256];

	for (size_t t = 0; t < r->n_tasks; t++) {
		const struct locus_task_result *tr = &r->tasks[t];
		if (tr->worker >= g->n_workers)
			continue;
		double y = row_y(g, g->row_of[tr->worker]) + pad, h = g->rh - 2 * pad;
		int cat = task_category(tr);
		double x0 = x_of(g, read_start(tr)), x1 = x_of(g, tr->read_end);
		double x2 = x_of(g, tr->end);
		char ccls[16] = "c";
		uint32_t st = g->by_stage ? r->graph->task_stage[t] : LOCUS_NONE;
		if (st != LOCUS_NONE)
			snprintf(ccls, sizeof ccls, "s%u", (unsigned)(st % STAGE_COLOURS));
		if (!tooltips) {
			locus__svg_rect(o, cat_class[cat], x0, y, x1 - x0, h);
			locus__svg_rect(o, ccls, x1, y, x2 - x1, h);
			continue;
		}
		locus__fmt_short(a, read_start(tr));
		locus__fmt_short(b, tr->read_end);
		locus__fmt_short(c, tr->end);
		char from[48];
		if (tr->source == UINT32_MAX)
			snprintf(from, sizeof from, "the shared FS");
		else
			snprintf(from, sizeof from, "node %u", (unsigned)tr->source);
		locus__svg_rect_open(o, cat_class[cat], x0, y, x1 - x0, h);
		snprintf(text, sizeof text, "task %zu on worker %u: read %s from %s, %s-%s s", t,
			 (unsigned)tr->worker, tr->local ? "locally" : "remotely", from, a, b);
		locus__svg_tooltip(o, text);
		locus__svg_rect_open(o, ccls, x1, y, x2 - x1, h);
		const char *tname =
		    r->graph && t < r->graph->n_tasks ? r->graph->tasks[t].name : NULL;
		if (st != LOCUS_NONE)
			snprintf(text, sizeof text,
				 "task %zu (%.60s, stage %.40s) on worker %u: compute, %s-%s s", t,
				 tname ? tname : "-",
				 r->graph->stage_names[st] ? r->graph->stage_names[st] : "?",
				 (unsigned)tr->worker, b, c);
		else
			snprintf(text, sizeof text, "task %zu on worker %u: compute, %s-%s s", t,
				 (unsigned)tr->worker, b, c);
		locus__svg_tooltip(o, text);
	}
}

/* Each transfer as a thin bar along the top of the row of the task it
 * went to (the first worker of its node when it went to no task). */
static void transfer_slices(struct locus__out *o, const struct gantt *g)
{
	const struct locus_result *r = g->r;
	char a[LOCUS__NUM_MAX], b[LOCUS__NUM_MAX], text[256];
	int tooltips = r->n_xfers <= TOOLTIP_TASKS;
	double h = g->rh * 0.22 > 1.5 ? g->rh * 0.22 : 1.5;
	for (size_t i = 0; i < r->n_xfers; i++) {
		const struct locus_transfer_result *x = &r->xfers[i];
		size_t w = g->n_workers;
		if (x->task != UINT32_MAX && r->tasks && x->task < r->n_tasks)
			w = r->tasks[x->task].worker;
		for (size_t k = 0; w >= g->n_workers && k < g->n_workers; k++)
			if (r->workers[g->order[k]].node == x->to)
				w = g->order[k];
		if (w >= g->n_workers)
			continue;
		double y = row_y(g, g->row_of[w]), x0 = x_of(g, x->start), x1 = x_of(g, x->end);
		if (!tooltips) {
			locus__svg_rect(o, "xf", x0, y, x1 - x0, h);
			continue;
		}
		locus__svg_rect_open(o, "xf", x0, y, x1 - x0, h);
		locus__fmt_short(a, x->start);
		locus__fmt_short(b, x->end);
		const char *name = r->graph && x->object < r->graph->n_objects
				       ? r->graph->objects[x->object].name
				       : NULL;
		char obj[32];
		if (!name) {
			snprintf(obj, sizeof obj, "object %u", (unsigned)x->object);
			name = obj;
		}
		snprintf(text, sizeof text, "%.120s: node %u to node %u, %s-%s s", name,
			 (unsigned)x->from, (unsigned)x->to, a, b);
		locus__svg_tooltip(o, text);
	}
}

/* Adds the time [a, b) of category `cat` to the bins of `acc` (one row). */
static void add_span(double *acc, size_t bins, double bw, double a, double b)
{
	if (!isfinite(a) || !isfinite(b) || b <= a)
		return;
	if (a < 0)
		a = 0;
	size_t k = (size_t)(a / bw);
	for (; k < bins; k++) {
		double lo = (double)k * bw, hi = lo + bw;
		if (lo >= b)
			break;
		double s = (a > lo ? a : lo), e = (b < hi ? b : hi);
		if (e > s)
			acc[k] += e - s;
	}
}

static int binned_slices(struct locus__out *o, const struct gantt *g)
{
	const struct locus_result *r = g->r;
	size_t bins = g->bins;
	double bw = g->t_max / (double)bins;
	double *acc = calloc(g->n_rows * N_CAT * bins + 1, sizeof *acc);

	if (!acc)
		return LOCUS_ENOMEM;
	for (size_t t = 0; t < r->n_tasks; t++) {
		const struct locus_task_result *tr = &r->tasks[t];
		if (tr->worker >= g->n_workers)
			continue;
		double *row = acc + g->row_of[tr->worker] * N_CAT * bins;
		add_span(row + (size_t)task_category(tr) * bins, bins, bw, read_start(tr),
			 tr->read_end);
		add_span(row + CAT_COMPUTE * bins, bins, bw, tr->read_end, tr->end);
	}
	double pad = g->rh >= 6 ? g->rh * 0.1 : 0;
	double *cum = malloc(bins * sizeof *cum);
	if (!cum) {
		free(acc);
		return LOCUS_ENOMEM;
	}
	for (size_t rw = 0; rw < g->n_rows; rw++) {
		double *row = acc + rw * N_CAT * bins;
		double cap = (double)g->rows[rw].n * bw;
		double yb = row_y(g, rw) + g->rh - pad, bh = g->rh - 2 * pad;
		/* The stack from the top category down, each drawn from the
		 * baseline over the one above: compute ends at the bottom. */
		for (int cat = N_CAT - 1; cat >= 0; cat--) {
			int any = 0;
			for (size_t k = 0; k < bins; k++) {
				double s = 0;
				for (int c2 = 0; c2 <= cat; c2++)
					s += row[(size_t)c2 * bins + k];
				s /= cap;
				cum[k] = s > 1 ? 1 : s;
				any |= cum[k] > 0.0005;
			}
			if (!any)
				continue;
			locus__out_str(o, "<path class=\"");
			locus__out_str(o, cat_class[cat]);
			locus__out_str(o, "\" d=\"M");
			locus__svg_num(o, ML);
			locus__out_char(o, ' ');
			locus__svg_num(o, yb);
			double cur = round(yb * 10) / 10;
			for (size_t k = 0; k < bins; k++) {
				double y = round((yb - cum[k] * bh) * 10) / 10;
				if (y == cur)
					continue;
				locus__out_char(o, 'H');
				locus__svg_num(o, ML + (double)k * g->pw / (double)bins);
				locus__out_char(o, 'V');
				locus__svg_num(o, y);
				cur = y;
			}
			locus__out_char(o, 'H');
			locus__svg_num(o, ML + g->pw);
			locus__out_char(o, 'V');
			locus__svg_num(o, yb);
			locus__out_str(o, "Z\"/>\n");
		}
	}
	free(cum);
	free(acc);
	return 0;
}

/* The lower-bound and makespan lines with their labels above the plot. */
static void bound_lines(struct locus__out *o, const struct gantt *g)
{
	const struct locus_result *r = g->r;
	double yb = MT + g->ph;
	char num[LOCUS__NUM_MAX], text[96];
	const struct {
		double t;
		const char *cls, *name;
		double y;
	} lines[2] = {
	    {g->bound, "lb", r->flow ? "bound" : "lower bound", MT - 4},
	    {r->makespan, "ms", "makespan", MT - 16},
	};

	for (int i = 0; i < 2; i++) {
		if (!isfinite(lines[i].t) || lines[i].t <= 0)
			continue;
		double x = x_of(g, lines[i].t);
		locus__svg_line(o, x, lines[i].y - 8, x, yb, lines[i].cls);
		locus__fmt_short(num, lines[i].t);
		snprintf(text, sizeof text, "%s %s s", lines[i].name, num);
		double w = locus__svg_text_width(strlen(text));
		if (x - 4 - w >= 0)
			locus__svg_text(o, x - 4, lines[i].y, "end", "small", text);
		else
			locus__svg_text(o, x + 4, lines[i].y, NULL, "small", text);
	}
}

int locus_report_svg_gantt(const struct locus_result *r, FILE *fp)
{
	struct gantt g;
	struct locus__out o;
	int shared = 0;

	if (!r || !fp)
		return LOCUS_EINVAL;
	memset(&g, 0, sizeof g);
	g.r = r;
	g.n_workers = r->workers ? r->n_workers : 0;
	int rc = make_rows(&g);
	if (rc)
		goto out;
	if ((rc = flow_bound(&g)))
		goto out;
	layout(&g);
	for (size_t t = 0; r->tasks && t < r->n_tasks && !shared; t++)
		shared = !r->tasks[t].local && r->tasks[t].source == UINT32_MAX;

	locus__out_init(&o, fp);
	locus__svg_begin(&o, WIDTH, MT + g.ph + MB, "Gantt chart", r);
	if (!g.binned)
		stage_style(&o, &g);
	else
		g.by_stage = 0; /* bins stack the states, not the stages */
	headings(&o, &g, shared);
	rows_frame(&o, &g);
	time_axis(&o, &g);
	if (!g.n_rows)
		locus__svg_text(&o, ML + g.pw / 2, MT + 24, "middle", "sub", "no workers");
	if (r->tasks && g.binned)
		rc = binned_slices(&o, &g);
	else if (r->tasks)
		detail_slices(&o, &g);
	if (r->n_xfers && !g.binned)
		transfer_slices(&o, &g);
	bound_lines(&o, &g);
	locus__svg_end(&o);
	if (rc)
		o.rc = o.rc ? o.rc : rc;
	rc = locus__out_fini(&o);
out:
	free(g.order);
	free(g.row_of);
	free(g.rows);
	return rc;
}
