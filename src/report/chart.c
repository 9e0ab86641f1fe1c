/*
 * Line charts in SVG: the figures of docs/results, drawn from the series
 * a sweep measured (one line per policy or bound, an optional band of the
 * spread over seeds), so that a figure is made by the same run that
 * measured it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/report.h"
#include "report/svg.h"

#define W	760.0
#define H	460.0
#define LEFT	78.0
#define RIGHT	24.0
#define TOP	64.0
#define BOTTOM	96.0
#define PALETTE 8

static const char chart_style[] =
    ".s0{stroke:#4878d0}.s1{stroke:#ee854a}.s2{stroke:#6acc64}.s3{stroke:#d65f5f}"
    ".s4{stroke:#956cb4}.s5{stroke:#8c613c}.s6{stroke:#dc7ec0}.s7{stroke:#797979}\n"
    ".f0{fill:#4878d0}.f1{fill:#ee854a}.f2{fill:#6acc64}.f3{fill:#d65f5f}"
    ".f4{fill:#956cb4}.f5{fill:#8c613c}.f6{fill:#dc7ec0}.f7{fill:#797979}\n"
    ".line{fill:none;stroke-width:2}.bound{fill:none;stroke-width:1.5;stroke-dasharray:6 4}\n"
    ".band{fill-opacity:0.15;stroke:none}\n";

struct frame {
	double x0, x1, y0, y1; /* data ranges (powers of ten on a log10 y axis) */
	int log2x, log10y;
};

static int usable(double v)
{
	return isfinite(v);
}

/* Whether y can be drawn on the frame's y axis. */
static int y_ok(const struct frame *f, double y)
{
	return usable(y) && (!f->log10y || y > 0);
}

static double px(const struct frame *f, double x)
{
	double a = f->log2x ? log2(x) : x, lo = f->log2x ? log2(f->x0) : f->x0,
	       hi = f->log2x ? log2(f->x1) : f->x1;
	return LEFT + (hi > lo ? (a - lo) / (hi - lo) : 0.5) * (W - LEFT - RIGHT);
}

static double py(const struct frame *f, double y)
{
	double a = f->log10y ? log10(y) : y, lo = f->log10y ? log10(f->y0) : f->y0,
	       hi = f->log10y ? log10(f->y1) : f->y1;
	return H - BOTTOM - (hi > lo ? (a - lo) / (hi - lo) : 0) * (H - TOP - BOTTOM);
}

/* The data ranges: y from 0 to the largest value (or band top), x over
 * every point (from 0 on a linear axis when the data start near it). */
static int frame_of(const struct locus_chart *c, struct frame *f)
{
	int any = 0;
	f->x0 = INFINITY;
	f->x1 = -INFINITY;
	f->y0 = c->y_log10 || c->y_zoom ? INFINITY : 0;
	f->y1 = 0;
	f->log2x = c->x_log2;
	f->log10y = c->y_log10;
	for (size_t s = 0; s < c->n_series; s++) {
		const struct locus_series *se = &c->series[s];
		for (size_t i = 0; i < se->n; i++) {
			double x = se->x[i], y = se->y_hi ? se->y_hi[i] : se->y[i];
			if (!usable(x) || !y_ok(f, se->y[i]) || (f->log2x && !(x > 0)))
				continue;
			any = 1;
			if (x < f->x0)
				f->x0 = x;
			if (x > f->x1)
				f->x1 = x;
			if (usable(y) && y > f->y1)
				f->y1 = y;
			double low = se->y_lo && y_ok(f, se->y_lo[i]) ? fmin(se->y_lo[i], se->y[i])
								      : se->y[i];
			if (low < f->y0)
				f->y0 = low;
		}
	}
	if (!any)
		return 0;
	if (!f->log2x && f->x0 > 0 && f->x0 <= 0.1 * f->x1)
		f->x0 = 0;
	if (f->x1 == f->x0)
		f->x1 = f->x0 + 1;
	if (f->log10y) {
		/* Whole decades around the data. */
		f->y0 = pow(10, floor(log10(f->y0)));
		f->y1 = pow(10, ceil(log10(f->y1)));
		if (!(f->y1 > f->y0))
			f->y1 = f->y0 * 10;
		return 1;
	}
	if (c->y_zoom) {
		/* A margin of a tenth of the span below the data. */
		double span = f->y1 - f->y0 > 0 ? f->y1 - f->y0 : fabs(f->y1) * 0.1 + 1e-9;
		f->y0 -= 0.1 * span;
		int dec;
		double step = locus__svg_ticks(f->y1 - f->y0, 6, &dec);
		f->y0 = floor(f->y0 / step) * step;
	}
	if (!(f->y1 > f->y0))
		f->y1 = f->y0 + 1;
	return 1;
}

static void axes(struct locus__out *o, const struct locus_chart *c, struct frame *f)
{
	char buf[LOCUS__NUM_MAX];
	int dec;
	if (f->log10y) {
		for (double y = f->y0; y <= f->y1 * (1 + 1e-9); y *= 10) {
			locus__svg_line(o, LEFT, py(f, y), W - RIGHT, py(f, y), "grid");
			locus__fmt_short(buf, y);
			locus__svg_text(o, LEFT - 6, py(f, y) + 4, "end", NULL, buf);
		}
	} else {
		double step = locus__svg_ticks(f->y1 - f->y0, 6, &dec);
		f->y1 = f->y0 + ceil((f->y1 - f->y0) / step - 1e-9) * step;
		for (double y = f->y0; y <= f->y1 + step * 1e-6; y += step) {
			locus__svg_line(o, LEFT, py(f, y), W - RIGHT, py(f, y), "grid");
			locus__fmt_fixed(buf, y, dec, 0);
			locus__svg_text(o, LEFT - 6, py(f, y) + 4, "end", NULL, buf);
		}
	}
	if (c->x_names && c->n_x_names) {
		/* A category at each x = 1, 2, ... */
		for (size_t i = 0; i < c->n_x_names; i++) {
			double x = (double)(i + 1);
			locus__svg_line(o, px(f, x), TOP, px(f, x), H - BOTTOM, "grid");
			locus__svg_text(o, px(f, x), H - BOTTOM + 16, "middle", NULL,
					c->x_names[i] ? c->x_names[i] : "");
		}
	} else if (f->log2x) {
		/* A tick at every x of the first series. */
		const struct locus_series *se = c->n_series ? &c->series[0] : NULL;
		for (size_t i = 0; se && i < se->n; i++) {
			if (!(se->x[i] > 0))
				continue;
			locus__svg_line(o, px(f, se->x[i]), TOP, px(f, se->x[i]), H - BOTTOM,
					"grid");
			locus__fmt_short(buf, se->x[i]);
			locus__svg_text(o, px(f, se->x[i]), H - BOTTOM + 16, "middle", NULL, buf);
		}
	} else {
		double xs = locus__svg_ticks(f->x1 - f->x0, 8, &dec);
		double first = ceil(f->x0 / xs - 1e-9) * xs;
		for (double x = first; x <= f->x1 + xs * 1e-6; x += xs) {
			locus__svg_line(o, px(f, x), TOP, px(f, x), H - BOTTOM, "grid");
			locus__fmt_fixed(buf, x, dec, 0);
			locus__svg_text(o, px(f, x), H - BOTTOM + 16, "middle", NULL, buf);
		}
	}
	locus__svg_line(o, LEFT, H - BOTTOM, W - RIGHT, H - BOTTOM, "axis");
	locus__svg_line(o, LEFT, TOP, LEFT, H - BOTTOM, "axis");
	if (c->x_label)
		locus__svg_text(o, (LEFT + W - RIGHT) / 2, H - BOTTOM + 36, "middle", NULL,
				c->x_label);
	if (c->y_label) {
		locus__out_str(o, "<g transform=\"translate(18 ");
		locus__svg_num(o, (TOP + H - BOTTOM) / 2);
		locus__out_str(o, ") rotate(-90)\">\n");
		locus__svg_text(o, 0, 0, "middle", NULL, c->y_label);
		locus__out_str(o, "</g>\n");
	}
}

static void points(struct locus__out *o, const struct frame *f, const struct locus_series *se,
		   const double *y, int reverse)
{
	for (size_t k = 0; k < se->n; k++) {
		size_t i = reverse ? se->n - 1 - k : k;
		if (!usable(se->x[i]) || !y_ok(f, y[i]) || (f->log2x && !(se->x[i] > 0)))
			continue;
		locus__svg_num(o, px(f, se->x[i]));
		locus__out_char(o, ',');
		locus__svg_num(o, py(f, y[i]));
		locus__out_char(o, ' ');
	}
}

static void series(struct locus__out *o, const struct frame *f, const struct locus_series *se,
		   int k)
{
	char cls[32];
	if (se->y_lo && se->y_hi) {
		snprintf(cls, sizeof cls, "band f%d", k % PALETTE);
		locus__out_str(o, "<polygon class=\"");
		locus__out_str(o, cls);
		locus__out_str(o, "\" points=\"");
		points(o, f, se, se->y_hi, 0);
		points(o, f, se, se->y_lo, 1);
		locus__out_str(o, "\"/>\n");
	}
	snprintf(cls, sizeof cls, "%s s%d", se->bound ? "bound" : "line", k % PALETTE);
	locus__out_str(o, "<polyline class=\"");
	locus__out_str(o, cls);
	locus__out_str(o, "\" points=\"");
	points(o, f, se, se->y, 0);
	locus__out_str(o, "\"/>\n");
	if (se->bound)
		return;
	snprintf(cls, sizeof cls, "f%d", k % PALETTE);
	for (size_t i = 0; i < se->n; i++) {
		if (!usable(se->x[i]) || !y_ok(f, se->y[i]) || (f->log2x && !(se->x[i] > 0)))
			continue;
		char tip[160], a[LOCUS__NUM_MAX], b[LOCUS__NUM_MAX];
		locus__fmt_short(a, se->x[i]);
		locus__fmt_short(b, se->y[i]);
		snprintf(tip, sizeof tip, "%s: %s, %s", se->label ? se->label : "", a, b);
		locus__out_str(o, "<circle class=\"");
		locus__out_str(o, cls);
		locus__out_str(o, "\" r=\"3\" cx=\"");
		locus__svg_num(o, px(f, se->x[i]));
		locus__out_str(o, "\" cy=\"");
		locus__svg_num(o, py(f, se->y[i]));
		locus__out_str(o, "\"><title>");
		locus__out_xml(o, tip, strlen(tip));
		locus__out_str(o, "</title></circle>\n");
	}
}

static void legend(struct locus__out *o, const struct locus_chart *c)
{
	double x = LEFT, y = H - 26;
	for (size_t s = 0; s < c->n_series; s++) {
		const char *label = c->series[s].label ? c->series[s].label : "";
		double w = 28 + locus__svg_text_width(strlen(label)) + 20;
		char cls[32];
		if (x + w > W - RIGHT && x > LEFT) {
			x = LEFT;
			y += 16;
		}
		snprintf(cls, sizeof cls, "%s s%d", c->series[s].bound ? "bound" : "line",
			 (int)(s % PALETTE));
		x = locus__svg_legend(o, x, y, cls, 1, label);
	}
}

int locus_report_chart(const struct locus_chart *c, FILE *fp)
{
	struct locus__out o;
	struct frame f;
	if (!c || !fp)
		return LOCUS_EINVAL;
	for (size_t s = 0; s < c->n_series; s++)
		if (c->series[s].n && (!c->series[s].x || !c->series[s].y))
			return LOCUS_EINVAL;
	locus__out_init(&o, fp);
	locus__svg_begin_doc(&o, W, H, c->title ? c->title : "chart");
	locus__out_str(&o, "<style>\n");
	locus__out_str(&o, chart_style);
	locus__out_str(&o, "</style>\n");
	if (c->title)
		locus__svg_text(&o, LEFT, 26, NULL, "title", c->title);
	if (c->subtitle)
		locus__svg_text(&o, LEFT, 46, NULL, "sub", c->subtitle);
	if (frame_of(c, &f)) {
		axes(&o, c, &f);
		for (size_t s = 0; s < c->n_series; s++)
			series(&o, &f, &c->series[s], (int)s);
		legend(&o, c);
	} else {
		locus__svg_text(&o, W / 2, H / 2, "middle", "sub", "no data");
	}
	locus__svg_end(&o);
	return locus__out_fini(&o);
}

int locus_report_chart_save(const struct locus_chart *c, const char *path, struct locus_error *err)
{
	char *data = NULL;
	size_t len = 0;
	if (!c || !path || !*path)
		return locus__err(err, LOCUS_EINVAL, path, 0, 0, "a chart and a path are needed");
	FILE *fp = open_memstream(&data, &len);
	if (!fp)
		return locus__err(err, LOCUS_ENOMEM, path, 0, 0, "out of memory");
	int rc = locus_report_chart(c, fp);
	if (fclose(fp) != 0 && !rc)
		rc = LOCUS_ENOMEM;
	if (rc) {
		free(data);
		return locus__err(err, rc, path, 0, 0, "cannot draw the chart: %s",
				  locus_strerror(rc));
	}
	rc = locus__write_atomic(path, data, len, err);
	free(data);
	return rc;
}
