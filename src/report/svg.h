/*
 * What the two SVG charts share (internal to src/report): the document
 * head with its style sheet, text, axis ticks, legend entries and the
 * order of workers grouped by node.
 */
#ifndef LOCUS_REPORT_SVG_H
#define LOCUS_REPORT_SVG_H

#include <stddef.h>

#include "locus/sim.h"
#include "report/out.h"

/* The style classes: c compute, rl/rr/rs reads (local, remote, shared
 * file system), bl/br task bars (local, not local), bb/bi time bars (busy,
 * idle), band a node's background, lb/ms the lower-bound and makespan
 * lines, ref a reference line. */

/* Opens an svg element of `w` x `h` pixels with a <title> "Locus <what>:
 * <policy>" and the style sheet. */
void locus__svg_begin(struct locus__out *o, double w, double h, const char *what,
		      const struct locus_result *r);
/* The same for a document that is not about one result, titled `title`. */
void locus__svg_begin_doc(struct locus__out *o, double w, double h, const char *title);
void locus__svg_end(struct locus__out *o);

/* A number of SVG coordinates (one decimal). */
void locus__svg_num(struct locus__out *o, double v);
/* <text> at x, y; `anchor` "start", "middle" or "end"; `cls` may be NULL;
 * `s` is escaped. */
void locus__svg_text(struct locus__out *o, double x, double y, const char *anchor, const char *cls,
		     const char *s);
/* A line from (x1, y1) to (x2, y2) of class `cls`. */
void locus__svg_line(struct locus__out *o, double x1, double y1, double x2, double y2,
		     const char *cls);
/* A rect of class `cls`; negative sizes are drawn as 0. */
void locus__svg_rect(struct locus__out *o, const char *cls, double x, double y, double w, double h);
/* The same rect left open, to be closed by locus__svg_tooltip. */
void locus__svg_rect_open(struct locus__out *o, const char *cls, double x, double y, double w,
			  double h);
/* Closes an open rect with `text` (escaped) as its tooltip. */
void locus__svg_tooltip(struct locus__out *o, const char *text);

/* A legend entry at x, y (the text's baseline): a swatch of class
 * `cls` (a line when `line` is set) and `label`. Returns the x after it. */
double locus__svg_legend(struct locus__out *o, double x, double y, const char *cls, int line,
			 const char *label);

/* Ticks for an axis from 0 to `max` (> 0), about `target` of them: the step
 * (1, 2 or 5 times a power of ten) and the decimals its labels need. */
double locus__svg_ticks(double max, int target, int *decimals);

/* Estimated width in pixels of `n` characters of 11 px text. */
double locus__svg_text_width(size_t n);

/* The workers in node order (by node, then id) into order[n_workers];
 * returns the number of node ids in use (largest + 1). */
size_t locus__svg_worker_order(const struct locus_result *r, size_t *order);

/* "policy, makespan X s" style values for titles: the policy name as
 * printable text in buf (at least 64 bytes). */
const char *locus__svg_policy(const struct locus_result *r, char *buf, size_t size);

#endif
