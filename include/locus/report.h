/*
 * Reports: results a person can read and a program can parse.
 *
 *  - JSON: one versioned "locus-result" document per run (summary, bounds,
 *    per worker, per scheduler, per task), docs/formats.md;
 *  - CSV: one line per task;
 *  - Chrome trace-event JSON (opens in Perfetto): one track per worker,
 *    read and compute slices per task;
 *  - SVG: a Gantt chart of workers over time, and a chart of per-worker
 *    load with local and remote reads;
 *  - a comparison table (text or JSON) of several runs of one workload;
 *  - line charts (SVG) of series a sweep measured, for docs/results.
 * Writers to a FILE return 0 or LOCUS_EIO; the _save forms write to a path
 * atomically.
 */
#ifndef LOCUS_REPORT_H
#define LOCUS_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "locus/error.h"
#include "locus/result.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LOCUS_RESULT_FORMAT "locus-result"
/* A run of chunk tasks is written as version 4 (version 1 with the
 * locality bound's keys named for the balanced optimum they are:
 * balanced_local_tasks and local_vs_balanced); version 5 (was 2) adds
 * what task graphs and platform changes need (a status, transfers, the
 * DAG bounds, each task's start and attempts); version 3 what workflows
 * add to version 2 (the file system's traffic, local storage, each
 * stage's times and bytes), the locality keys under their old names,
 * always null. docs/formats.md, "Result". The newest version: */
#define LOCUS_RESULT_VERSION 5

/* How many distinct nodes r's workers run on: the nodes a summary
 * counts (a platform's nodes without workers, a workflow's dispatchers',
 * are not among them). 0 when r has no workers. */
size_t locus_report_worker_nodes(const struct locus_result *r);

int locus_report_json(const struct locus_result *r, FILE *fp);
int locus_report_csv(const struct locus_result *r, FILE *fp);
int locus_report_trace(const struct locus_result *r, FILE *fp);
int locus_report_svg_gantt(const struct locus_result *r, FILE *fp);
int locus_report_svg_load(const struct locus_result *r, FILE *fp);
/* A failed attempt a report lists (locus_report_html): the task's name,
 * the attempt (from 0), its node, why it failed and its stderr (or its
 * end); all borrowed, any may be NULL. */
struct locus_report_failure {
	const char *task, *node, *why, *stderr_text;
	int attempt;
};
#define LOCUS_REPORT_HTML_OPTIONS_VERSION 1

struct locus_report_html_options {
	/* LOCUS_REPORT_HTML_OPTIONS_VERSION, set by locus_report_html_options_init with the other
	 * defaults; 0 (a struct zeroed by hand) reads as version 1 (docs/formats.md). */
	int version;
	const char *title;			     /* the page's; NULL: "Locus run" */
	const struct locus_report_failure *failures; /* n_failures, or NULL */
	size_t n_failures;
};

/* The current version and the defaults: every member 0 or NULL. */
void locus_report_html_options_init(struct locus_report_html_options *o);

/* One self-contained HTML page of run r (no script, no other file): the
 * summary, the per-stage table (workflows), the Gantt chart inline
 * (locus_report_svg_gantt), where the inputs' bytes came from, and the
 * failures: the run's own (r->failure) and opt's failed attempts, each
 * with its stderr. opt may be NULL. 0, LOCUS_EINVAL, LOCUS_EIO or
 * LOCUS_ENOMEM. */
int locus_report_html(const struct locus_result *r, const struct locus_report_html_options *opt,
		      FILE *fp);
int locus_report_compare(const struct locus_result *const *runs, size_t n, FILE *fp);
int locus_report_compare_json(const struct locus_result *const *runs, size_t n, FILE *fp);

/* A line of a chart: n points (x, y), optionally a band [y_lo, y_hi] around
 * it (the spread over seeds, say); a bound is drawn dashed, without
 * markers. Points that are not finite are left out. The chart points into
 * the caller's arrays. */
struct locus_series {
	const char *label;
	size_t n;
	const double *x, *y;
	const double *y_lo, *y_hi; /* both or neither */
	int bound;
};

struct locus_chart {
	const char *title, *subtitle;
	const char *x_label, *y_label;
	int x_log2;  /* x on a log2 axis, ticked at the first series' points */
	int y_log10; /* y on a log10 axis (values <= 0 left out) */
	int y_zoom;  /* y spans the data, not from 0 (for values close together) */
	const struct locus_series *series;
	size_t n_series;
	/* Categories along x (NULL: numbers): x_names[i] labels x = i + 1. */
	const char *const *x_names;
	size_t n_x_names;
};

/* Draws the chart as SVG: y from 0 (or the least value), a line and
 * markers (with the values as tooltips) per series, and a legend. */
int locus_report_chart(const struct locus_chart *c, FILE *fp);
/* The same into `path`, atomically. */
int locus_report_chart_save(const struct locus_chart *c, const char *path, struct locus_error *err);

/* Runs `writer` into `path` atomically. */
int locus_report_save(const struct locus_result *r,
		      int (*writer)(const struct locus_result *, FILE *), const char *path,
		      struct locus_error *err);

#ifdef __cplusplus
}
#endif
#endif
