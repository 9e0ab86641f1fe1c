/*
 * The load chart: one bar per worker (grouped by node), or per node, or
 * per group of nodes when there are more than BARS_MAX workers. The upper
 * panel stacks the tasks each bar ran locally and not locally; the lower
 * one stacks its busy (reading and computing) and idle time.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locus/report.h"
#include "report/svg.h"

#define WIDTH	  1200.0
#define ML	  80.0
#define MR	  30.0
#define MT	  100.0
#define PANEL_H	  230.0
#define PANEL_GAP 50.0
#define MB	  66.0
#define BARS_MAX  128

struct bar {
	size_t first, n; /* workers order[first .. first + n) */
	uint32_t node_lo, node_hi;
	double local, remote, busy, idle;
};

struct load {
	const struct locus_result *r;
	size_t *order;
	struct bar *bars;
	size_t n_bars;
	size_t nodes_per_bar; /* 0: a bar per worker */
	double pw, slot;
	double top[2]; /* panels' tops */
};

static int make_bars(struct load *l)
{
	const struct locus_result *r = l->r;
	size_t n = r->workers ? r->n_workers : 0;

	l->order = malloc((n ? n : 1) * sizeof *l->order);
	l->bars = calloc(n ? n : 1, sizeof *l->bars);
	if (!l->order || !l->bars)
		return LOCUS_ENOMEM;
	locus__svg_worker_order(r, l->order);
	size_t distinct = 0;
	for (size_t i = 0; i < n; i++)
		if (i == 0 || r->workers[l->order[i]].node != r->workers[l->order[i - 1]].node)
			distinct++;
	l->nodes_per_bar = n > BARS_MAX ? (distinct + BARS_MAX - 1) / BARS_MAX : 0;
	size_t in_bar = 0;
	for (size_t i = 0; i < n; i++) {
		const struct locus_worker_result *wr = &r->workers[l->order[i]];
		int new_node = i == 0 || wr->node != r->workers[l->order[i - 1]].node;
		if (i == 0 || !l->nodes_per_bar || (new_node && in_bar == l->nodes_per_bar)) {
			struct bar *b = &l->bars[l->n_bars++];
			b->first = i;
			b->node_lo = wr->node;
			in_bar = 0;
		}
		struct bar *b = &l->bars[l->n_bars - 1];
		if (b->n == 0 || new_node)
			in_bar++;
		b->n++;
		b->node_hi = wr->node;
		b->local += wr->local_tasks;
		b->remote += wr->tasks >= wr->local_tasks ? wr->tasks - wr->local_tasks : 0;
		b->busy += isfinite(wr->busy) ? wr->busy : 0;
		b->idle += isfinite(wr->idle) ? wr->idle : 0;
	}
	return 0;
}

static void bar_name(const struct load *l, const struct bar *b, char *buf, size_t size)
{
	if (!l->nodes_per_bar)
		snprintf(buf, size, "w%zu", l->order[b->first]);
	else if (b->node_lo == b->node_hi)
		snprintf(buf, size, "n%u", (unsigned)b->node_lo);
	else
		snprintf(buf, size, "n%u-%u", (unsigned)b->node_lo, (unsigned)b->node_hi);
}

static void headings(struct locus__out *o, const struct load *l)
{
	const struct locus_result *r = l->r;
	char pol[40], a[LOCUS__NUM_MAX], b[LOCUS__NUM_MAX], line[512];

	snprintf(line, sizeof line, "Load per %s: %s", l->nodes_per_bar ? "node" : "worker",
		 locus__svg_policy(r, pol, sizeof pol));
	locus__svg_text(o, 16, 24, NULL, "title", line);
	locus__fmt_short(b, r->worker_idle_total);
	size_t nodes = locus_report_worker_nodes(r);
	if (r->flow) {
		/* A workflow's tasks read several files, from several places:
		 * its bytes by where they came from, not a share of tasks. */
		struct locus__bytes in = locus__input_bytes(r);
		snprintf(line, sizeof line,
			 "%zu tasks, inputs %.1f MB local, %.1f MB from peers, %.1f MB from the "
			 "shared FS; %zu workers on %zu nodes; idle time in all %s s",
			 r->n_tasks, (double)in.local / 1e6, (double)in.peer / 1e6,
			 (double)in.fs / 1e6, r->n_workers, nodes, b);
	} else {
		locus__fmt_percent(a, locus__local_fraction(r));
		snprintf(line, sizeof line,
			 "%zu tasks, %s%% read locally; %zu workers on %zu nodes; idle time in all "
			 "%s s",
			 r->n_tasks, a, r->n_workers, nodes, b);
	}
	locus__svg_text(o, 16, 44, NULL, "sub", line);
	if (l->nodes_per_bar) {
		snprintf(line, sizeof line,
			 "each bar sums the workers of %zu node%s; times are worker-seconds",
			 l->nodes_per_bar, l->nodes_per_bar > 1 ? "s" : "");
		locus__svg_text(o, 16, 62, NULL, "small", line);
	}
	double x = 16, y = 84;
	x = locus__svg_legend(o, x, y, "bl", 0, "local tasks");
	x = locus__svg_legend(o, x, y, "br", 0, "not local tasks");
	x = locus__svg_legend(o, x, y, "bb", 0, "busy (read + compute)");
	x = locus__svg_legend(o, x, y, "bi", 0, "idle");
	if (!l->nodes_per_bar) {
		x = locus__svg_legend(o, x, y, "ref", 1, "mean tasks per worker");
		locus__svg_legend(o, x, y, "ms", 1, "makespan");
	}
}

/* A panel's frame and y axis from 0 to the returned maximum. */
static double panel_axis(struct locus__out *o, const struct load *l, int p, double max,
			 int integral, const char *title)
{
	double top = l->top[p], bottom = top + PANEL_H;
	int dec;
	char label[LOCUS__NUM_MAX];

	if (!(max > 0) || !isfinite(max))
		max = 1;
	double step = locus__svg_ticks(max, 5, &dec);
	if (integral && step < 1) {
		step = 1;
		dec = 0;
	}
	double ymax = ceil(max / step - 1e-9) * step;
	for (long i = 0;; i++) {
		double v = (double)i * step;
		if (v > ymax * (1 + 1e-9))
			break;
		double y = bottom - v / ymax * PANEL_H;
		locus__svg_line(o, ML, y, ML + l->pw, y, "grid");
		locus__fmt_fixed(label, v, dec, 0);
		locus__svg_text(o, ML - 6, y + 4, "end", NULL, label);
	}
	locus__svg_line(o, ML, top, ML, bottom, "axis");
	locus__svg_line(o, ML, bottom, ML + l->pw, bottom, "axis");
	locus__svg_text(o, ML, top - 10, NULL, "sub", title);
	return ymax;
}

/* Light bands behind the bars of every other node (a bar per worker). */
static void node_bands(struct locus__out *o, const struct load *l)
{
	size_t band = 0;

	if (l->nodes_per_bar)
		return;
	for (size_t i = 0; i < l->n_bars;) {
		size_t j = i + 1;
		while (j < l->n_bars && l->bars[j].node_lo == l->bars[i].node_lo)
			j++;
		if (band++ % 2)
			for (int p = 0; p < 2; p++)
				locus__svg_rect(o, "band", ML + (double)i * l->slot, l->top[p],
						(double)(j - i) * l->slot, PANEL_H);
		i = j;
	}
}

static void bars(struct locus__out *o, const struct load *l, const double ymax[2])
{
	double bw = l->slot * 0.72;
	char name[48], text[256], a[LOCUS__NUM_MAX], b[LOCUS__NUM_MAX];

	for (size_t i = 0; i < l->n_bars; i++) {
		const struct bar *br = &l->bars[i];
		double x = ML + (double)i * l->slot + (l->slot - bw) / 2;
		bar_name(l, br, name, sizeof name);
		double bottom = l->top[0] + PANEL_H, k = PANEL_H / ymax[0];
		double h1 = br->local * k, h2 = br->remote * k;
		snprintf(text, sizeof text, "%s: %.0f tasks, %.0f local, %.0f not local", name,
			 br->local + br->remote, br->local, br->remote);
		locus__svg_rect_open(o, "bl", x, bottom - h1, bw, h1);
		locus__svg_tooltip(o, text);
		locus__svg_rect_open(o, "br", x, bottom - h1 - h2, bw, h2);
		locus__svg_tooltip(o, text);

		bottom = l->top[1] + PANEL_H;
		k = PANEL_H / ymax[1];
		h1 = br->busy * k;
		h2 = br->idle * k;
		locus__fmt_short(a, br->busy);
		locus__fmt_short(b, br->idle);
		snprintf(text, sizeof text, "%s: busy %s s, idle %s s", name, a, b);
		locus__svg_rect_open(o, "bb", x, bottom - h1, bw, h1);
		locus__svg_tooltip(o, text);
		locus__svg_rect_open(o, "bi", x, bottom - h1 - h2, bw, h2);
		locus__svg_tooltip(o, text);
	}
}

/* Bar names under the lower panel (thinned to fit) and node names below. */
static void bar_labels(struct locus__out *o, const struct load *l)
{
	double y = l->top[1] + PANEL_H + 16;
	size_t longest = 1;
	char name[48];

	for (size_t i = 0; i < l->n_bars; i++) {
		bar_name(l, &l->bars[i], name, sizeof name);
		if (strlen(name) > longest)
			longest = strlen(name);
	}
	size_t every = (size_t)ceil((locus__svg_text_width(longest) + 6) / l->slot);
	if (every < 1)
		every = 1;
	for (size_t i = 0; i < l->n_bars; i += every) {
		bar_name(l, &l->bars[i], name, sizeof name);
		locus__svg_text(o, ML + ((double)i + 0.5) * l->slot, y, "middle", "small", name);
	}
	if (!l->nodes_per_bar) {
		double right = -1e9;
		for (size_t i = 0; i < l->n_bars;) {
			size_t j = i + 1;
			while (j < l->n_bars && l->bars[j].node_lo == l->bars[i].node_lo)
				j++;
			snprintf(name, sizeof name, "node %u", (unsigned)l->bars[i].node_lo);
			double w = locus__svg_text_width(strlen(name));
			double xm = ML + (double)(i + j) / 2 * l->slot;
			if (xm - w / 2 >= right + 6) {
				locus__svg_text(o, xm, y + 16, "middle", "node", name);
				right = xm + w / 2;
			}
			i = j;
		}
	}
	locus__svg_text(o, ML + l->pw / 2, y + 36, "middle", NULL,
			l->nodes_per_bar ? "nodes" : "workers, by node");
}

/* The mean tasks per worker and the makespan (a bar per worker only). */
static void reference_lines(struct locus__out *o, const struct load *l, const double ymax[2])
{
	const struct locus_result *r = l->r;
	double total = 0;

	if (l->nodes_per_bar || !l->n_bars)
		return;
	for (size_t i = 0; i < l->n_bars; i++)
		total += l->bars[i].local + l->bars[i].remote;
	double mean = total / (double)l->n_bars;
	double y = l->top[0] + PANEL_H - mean / ymax[0] * PANEL_H;
	locus__svg_line(o, ML, y, ML + l->pw, y, "ref");
	if (isfinite(r->makespan) && r->makespan > 0 && r->makespan <= ymax[1]) {
		y = l->top[1] + PANEL_H - r->makespan / ymax[1] * PANEL_H;
		locus__svg_line(o, ML, y, ML + l->pw, y, "ms");
	}
}

int locus_report_svg_load(const struct locus_result *r, FILE *fp)
{
	struct load l;
	struct locus__out o;

	if (!r || !fp)
		return LOCUS_EINVAL;
	memset(&l, 0, sizeof l);
	l.r = r;
	int rc = make_bars(&l);
	if (rc)
		goto out;
	l.pw = WIDTH - ML - MR;
	l.slot = l.pw / (double)(l.n_bars ? l.n_bars : 1);
	l.top[0] = MT + 16;
	l.top[1] = l.top[0] + PANEL_H + PANEL_GAP;

	double max[2] = {0, 0};
	for (size_t i = 0; i < l.n_bars; i++) {
		const struct bar *b = &l.bars[i];
		if (b->local + b->remote > max[0])
			max[0] = b->local + b->remote;
		if (b->busy + b->idle > max[1])
			max[1] = b->busy + b->idle;
	}
	if (!l.nodes_per_bar && isfinite(r->makespan) && r->makespan > max[1])
		max[1] = r->makespan;

	locus__out_init(&o, fp);
	locus__svg_begin(&o, WIDTH, l.top[1] + PANEL_H + MB, "load chart", r);
	headings(&o, &l);
	node_bands(&o, &l);
	double ymax[2];
	ymax[0] = panel_axis(&o, &l, 0, max[0], 1,
			     l.nodes_per_bar ? "Tasks per node: local and not local"
					     : "Tasks per worker: local and not local");
	ymax[1] = panel_axis(&o, &l, 1, max[1], 0,
			     l.nodes_per_bar ? "Worker time per node (s): busy and idle"
					     : "Time per worker (s): busy and idle");
	bars(&o, &l, ymax);
	reference_lines(&o, &l, ymax);
	bar_labels(&o, &l);
	if (!l.n_bars)
		locus__svg_text(&o, ML + l.pw / 2, l.top[0] + PANEL_H / 2, "middle", "sub",
				"no workers");
	locus__svg_end(&o);
	rc = locus__out_fini(&o);
out:
	free(l.order);
	free(l.bars);
	return rc;
}
