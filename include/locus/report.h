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
 *  - a comparison table (text or JSON) of several runs of one workload.
 * Writers to a FILE return 0 or LOCUS_EIO; the _save forms write to a path
 * atomically.
 */
#ifndef LOCUS_REPORT_H
#define LOCUS_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "locus/error.h"
#include "locus/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LOCUS_RESULT_FORMAT  "locus-result"
#define LOCUS_RESULT_VERSION 1

int locus_report_json(const struct locus_result *r, FILE *fp);
int locus_report_csv(const struct locus_result *r, FILE *fp);
int locus_report_trace(const struct locus_result *r, FILE *fp);
int locus_report_svg_gantt(const struct locus_result *r, FILE *fp);
int locus_report_svg_load(const struct locus_result *r, FILE *fp);
int locus_report_compare(const struct locus_result *const *runs, size_t n, FILE *fp);
int locus_report_compare_json(const struct locus_result *const *runs, size_t n, FILE *fp);

/* Runs `writer` into `path` atomically. */
int locus_report_save(const struct locus_result *r,
		      int (*writer)(const struct locus_result *, FILE *), const char *path,
		      struct locus_error *err);

#ifdef __cplusplus
}
#endif
#endif
