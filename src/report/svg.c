/* Shared pieces of the SVG charts: head, style, text, ticks, legend. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/svg.h"

static const char style[] =
    "<style>\n"
    "text{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;font-size:11px;fill:#222}\n"
    ".title{font-size:16px;font-weight:bold}\n"
    ".sub{font-size:12px;fill:#444}\n"
    ".node{font-weight:bold}\n"
    ".small{font-size:10px;fill:#444}\n"
    ".c,.bb{fill:#4878d0}\n"
    ".rl,.bl{fill:#59b953}\n"
    ".rr,.br{fill:#ee854a}\n"
    ".rs{fill:#956cb4}\n"
    ".xf{fill:#d65f5f}\n"
    ".bi{fill:#c8c8c8}\n"
    ".band{fill:#f2f2f2}\n"
    ".bg{fill:#fff}\n"
    ".grid{stroke:#e0e0e0;stroke-width:1}\n"
    ".axis{stroke:#333;stroke-width:1}\n"
    ".lb{stroke:#c0392b;stroke-width:1.5;stroke-dasharray:6 3}\n"
    ".ms{stroke:#222;stroke-width:1.5}\n"
    ".ref{stroke:#555;stroke-width:1.2;stroke-dasharray:4 3}\n"
    "</style>\n";

void locus__svg_num(struct locus__out *o, double v)
{
	locus__out_fixed(o, v, 1);
}

/* The svg element, its <title> opened (the caller writes the text and
 * closes it with svg_head_end). */
static void svg_head(struct locus__out *o, double w, double h)
{
	locus__out_str(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"");
	locus__svg_num(o, w);
	locus__out_str(o, "\" height=\"");
	locus__svg_num(o, h);
	locus__out_str(o, "\" viewBox=\"0 0 ");
	locus__svg_num(o, w);
	locus__out_char(o, ' ');
	locus__svg_num(o, h);
	locus__out_str(o, "\">\n<title>");
}

static void svg_head_end(struct locus__out *o)
{
	locus__out_str(o, "</title>\n");
	locus__out_str(o, style);
	locus__out_str(o, "<rect class=\"bg\" width=\"100%\" height=\"100%\"/>\n");
}

void locus__svg_begin(struct locus__out *o, double w, double h, const char *what,
		      const struct locus_result *r)
{
	svg_head(o, w, h);
	locus__out_str(o, "Locus ");
	locus__out_str(o, what);
	locus__out_str(o, ": ");
	locus__out_xml(o, r->policy, locus__policy_len(r));
	svg_head_end(o);
}

void locus__svg_begin_doc(struct locus__out *o, double w, double h, const char *title)
{
	svg_head(o, w, h);
	locus__out_xml(o, title, strlen(title));
	svg_head_end(o);
}

void locus__svg_end(struct locus__out *o)
{
	locus__out_str(o, "</svg>\n");
}

void locus__svg_text(struct locus__out *o, double x, double y, const char *anchor, const char *cls,
		     const char *s)
{
	locus__out_str(o, "<text x=\"");
	locus__svg_num(o, x);
	locus__out_str(o, "\" y=\"");
	locus__svg_num(o, y);
	locus__out_char(o, '"');
	if (anchor && strcmp(anchor, "start") != 0) {
		locus__out_str(o, " text-anchor=\"");
		locus__out_str(o, anchor);
		locus__out_char(o, '"');
	}
	if (cls) {
		locus__out_str(o, " class=\"");
		locus__out_str(o, cls);
		locus__out_char(o, '"');
	}
	locus__out_char(o, '>');
	locus__out_xml(o, s, strlen(s));
	locus__out_str(o, "</text>\n");
}

void locus__svg_line(struct locus__out *o, double x1, double y1, double x2, double y2,
		     const char *cls)
{
	locus__out_str(o, "<line class=\"");
	locus__out_str(o, cls);
	locus__out_str(o, "\" x1=\"");
	locus__svg_num(o, x1);
	locus__out_str(o, "\" y1=\"");
	locus__svg_num(o, y1);
	locus__out_str(o, "\" x2=\"");
	locus__svg_num(o, x2);
	locus__out_str(o, "\" y2=\"");
	locus__svg_num(o, y2);
	locus__out_str(o, "\"/>\n");
}

void locus__svg_rect_open(struct locus__out *o, const char *cls, double x, double y, double w,
			  double h)
{
	locus__out_str(o, "<rect class=\"");
	locus__out_str(o, cls);
	locus__out_str(o, "\" x=\"");
	locus__svg_num(o, x);
	locus__out_str(o, "\" y=\"");
	locus__svg_num(o, y);
	locus__out_str(o, "\" width=\"");
	locus__svg_num(o, w > 0 ? w : 0);
	locus__out_str(o, "\" height=\"");
	locus__svg_num(o, h > 0 ? h : 0);
	locus__out_char(o, '"');
}

void locus__svg_rect(struct locus__out *o, const char *cls, double x, double y, double w, double h)
{
	locus__svg_rect_open(o, cls, x, y, w, h);
	locus__out_str(o, "/>\n");
}

void locus__svg_tooltip(struct locus__out *o, const char *text)
{
	locus__out_str(o, "><title>");
	locus__out_xml(o, text, strlen(text));
	locus__out_str(o, "</title></rect>\n");
}

double locus__svg_legend(struct locus__out *o, double x, double y, const char *cls, int line,
			 const char *label)
{
	char key[32];

	/* The "key" class keeps swatches apart from the chart's own shapes. */
	snprintf(key, sizeof key, "%s key", cls);
	if (line)
		locus__svg_line(o, x, y - 4, x + 22, y - 4, key);
	else
		locus__svg_rect(o, key, x, y - 10, 22, 12);
	locus__svg_text(o, x + 28, y, NULL, NULL, label);
	return x + 28 + locus__svg_text_width(strlen(label)) + 20;
}

double locus__svg_ticks(double max, int target, int *decimals)
{
	if (!(max > 0) || !isfinite(max))
		max = 1;
	double raw = max / (target > 0 ? target : 1);
	double mag = pow(10, floor(log10(raw)));
	double norm = raw / mag;
	double step = (norm < 1.5 ? 1 : norm < 3.5 ? 2 : norm < 7.5 ? 5 : 10) * mag;
	int dec = (int)-floor(log10(step) + 1e-9);
	*decimals = dec > 0 ? dec : 0;
	return step;
}

double locus__svg_text_width(size_t n)
{
	return 6.4 * (double)n;
}

size_t locus__svg_worker_order(const struct locus_result *r, size_t *order)
{
	size_t n = r->workers ? r->n_workers : 0;
	size_t n_nodes = 0;

	for (size_t w = 0; w < n; w++)
		if ((size_t)r->workers[w].node + 1 > n_nodes)
			n_nodes = (size_t)r->workers[w].node + 1;
	size_t *at = calloc(n_nodes + 1, sizeof *at);
	if (!at) {
		/* Keep the ids' order; the charts stay right, only less tidy. */
		for (size_t w = 0; w < n; w++)
			order[w] = w;
		return n_nodes;
	}
	for (size_t w = 0; w < n; w++)
		at[r->workers[w].node + 1]++;
	for (size_t k = 0; k < n_nodes; k++)
		at[k + 1] += at[k];
	for (size_t w = 0; w < n; w++)
		order[at[r->workers[w].node]++] = w;
	free(at);
	return n_nodes;
}

const char *locus__svg_policy(const struct locus_result *r, char *buf, size_t size)
{
	size_t n = locus__policy_len(r);
	if (n >= size)
		n = size - 1;
	memcpy(buf, r->policy, n);
	buf[n] = 0;
	return buf;
}
