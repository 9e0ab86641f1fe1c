/*
 * A run's report as one self-contained HTML page (locus_report_html):
 * the summary, the per-stage table, the Gantt chart (inline SVG), where
 * the bytes came from, and the failures with their stderr. No script, no
 * file beside it: a browser opens it from anywhere, offline.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/report.h"
#include "report/out.h"
#include "report/svg.h"

static const char page_style[] =
    "<style>\n"
    "body{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;margin:24px;color:#222;"
    "max-width:1240px}\n"
    "h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}\n"
    "table{border-collapse:collapse;font-size:13px}\n"
    "th,td{padding:3px 10px;border-bottom:1px solid #eee;text-align:right}\n"
    "th:first-child,td:first-child{text-align:left}\n"
    "th{background:#f4f4f4}\n"
    "pre{background:#f8f8f8;border:1px solid #e4e4e4;padding:8px;white-space:pre-wrap;"
    "font-size:12px}\n"
    ".ok{color:#2e7d32}.bad{color:#c62828}\n"
    "</style>\n";

static void text(struct locus__out *o, const char *s)
{
	locus__out_xml(o, s, strlen(s));
}

/* Text of a <pre>: escaped as XML text, its line breaks and tabs kept
 * (locus__out_xml writes every control character as '?'). */
static void pre_text(struct locus__out *o, const char *s)
{
	while (*s) {
		size_t n = strcspn(s, "\n\t");
		locus__out_xml(o, s, n);
		s += n;
		if (*s)
			locus__out_char(o, *s++);
	}
}

/* <tr><td>label</td><td>value</td></tr> */
static void row(struct locus__out *o, const char *label, const char *value)
{
	locus__out_str(o, "<tr><td>");
	text(o, label);
	locus__out_str(o, "</td><td>");
	text(o, value);
	locus__out_str(o, "</td></tr>\n");
}

static void cell(struct locus__out *o, const char *s)
{
	locus__out_str(o, "<td>");
	text(o, s);
	locus__out_str(o, "</td>");
}

static void cell_num(struct locus__out *o, double v, int decimals)
{
	char b[LOCUS__NUM_MAX];
	if (isfinite(v))
		locus__fmt_fixed(b, v, decimals, 0);
	else
		strcpy(b, "-");
	cell(o, b);
}

static void summary(struct locus__out *o, const struct locus_result *r, const char *title)
{
	char v[256], a[LOCUS__NUM_MAX], pol[64];
	locus__out_str(o, "<h1>");
	text(o, title ? title : "Locus run");
	locus__out_str(o, "</h1>\n<section id=\"summary\"><h2>Summary</h2>\n");
	locus__out_str(o, r->failed ? "<p class=\"bad\">failed</p>\n"
				    : "<p class=\"ok\">complete</p>\n");
	locus__out_str(o, "<table>\n");
	row(o, "engine", strcmp(r->engine, "mpi") ? "the simulator" : "MPI ranks (a real run)");
	row(o, "policy", locus__svg_policy(r, pol, sizeof pol));
	locus__fmt_short(a, r->makespan);
	snprintf(v, sizeof v, "%s s", a);
	row(o, "makespan", v);
	snprintf(v, sizeof v, "%zu of %zu", r->failed ? r->tasks_done : r->n_tasks, r->n_tasks);
	row(o, "tasks done", v);
	size_t nodes = locus_report_worker_nodes(r);
	snprintf(v, sizeof v, "%zu on %zu node%s", r->n_workers, nodes, nodes == 1 ? "" : "s");
	row(o, "workers", v);
	snprintf(v, sizeof v, "%zu", r->n_schedulers);
	row(o, "schedulers", v);
	if (r->flow) {
		snprintf(v, sizeof v, "%.1f MB read, %.1f MB written, %llu metadata operations",
			 (double)r->fs_bytes_read / 1e6, (double)r->fs_bytes_written / 1e6,
			 (unsigned long long)r->fs_ops);
		row(o, "shared file system", v);
	}
	snprintf(v, sizeof v, "%llu, %.1f MB", (unsigned long long)r->transfers,
		 (double)r->bytes_moved / 1e6);
	row(o, "copies between nodes", v);
	snprintf(v, sizeof v, "%llu", (unsigned long long)r->seed);
	row(o, "seed", v);
	locus__out_str(o, "</table>\n</section>\n");
}

static void stage_table(struct locus__out *o, const struct locus_result *r)
{
	const struct locus_graph *g = r->graph;
	locus__out_str(o, "<section id=\"stages\"><h2>Stages</h2>\n");
	if (!r->flow || !r->stages || !g || !g->n_stages) {
		locus__out_str(o, "<p>This run has no stages (not a workflow).</p>\n</section>\n");
		return;
	}
	locus__out_str(o, "<table>\n<tr><th>stage</th><th>tasks</th><th>start (s)</th><th>end "
			  "(s)</th><th>span (s)</th><th>wait (s)</th><th>read (s)</th>"
			  "<th>compute (s)</th><th>write (s)</th><th>MB local</th><th>MB from "
			  "peers</th><th>MB FS in</th><th>MB FS out</th></tr>\n");
	for (size_t k = 0; k < g->n_stages; k++) {
		const struct locus_stage_result *s = &r->stages[k];
		char n[32];
		locus__out_str(o, "<tr>");
		cell(o, g->stage_names[k] ? g->stage_names[k] : "?");
		snprintf(n, sizeof n, "%zu", s->tasks);
		cell(o, n);
		cell_num(o, s->first_start, 2);
		cell_num(o, s->last_end, 2);
		cell_num(o, s->last_end - s->first_start, 2);
		cell_num(o, s->input_wait, 2);
		cell_num(o, s->read, 2);
		cell_num(o, s->compute, 2);
		cell_num(o, s->write, 2);
		cell_num(o, (double)s->bytes_local / 1e6, 1);
		cell_num(o, (double)s->bytes_peer / 1e6, 1);
		cell_num(o, (double)s->bytes_fs_read / 1e6, 1);
		cell_num(o, (double)s->bytes_fs_written / 1e6, 1);
		locus__out_str(o, "</tr>\n");
	}
	locus__out_str(o, "</table>\n<p>Times in seconds (wait, read, compute and write summed "
			  "over the stage's tasks); MB of 10<sup>6</sup> bytes.</p>\n</section>\n");
}

static void bytes_table(struct locus__out *o, const struct locus_result *r)
{
	struct locus__bytes in = locus__input_bytes(r);
	uint64_t loc = in.local, peer = in.peer, fs = in.fs, out = in.out;
	double all = (double)(loc + peer + fs);
	locus__out_str(o, "<section id=\"bytes\"><h2>Where the bytes came from</h2>\n<table>\n"
			  "<tr><th>the tasks' inputs</th><th>MB</th><th>share</th></tr>\n");
	const struct {
		const char *name;
		uint64_t b;
	} rows[] = {{"on the task's node already", loc},
		    {"from other nodes (peers)", peer},
		    {"from the shared file system", fs}};
	for (size_t i = 0; i < 3; i++) {
		locus__out_str(o, "<tr>");
		cell(o, rows[i].name);
		cell_num(o, (double)rows[i].b / 1e6, 1);
		cell_num(o, all > 0 ? 100.0 * (double)rows[i].b / all : NAN, 1);
		locus__out_str(o, "</tr>\n");
	}
	locus__out_str(o, "</table>\n");
	if (r->flow) {
		char v[160];
		snprintf(v, sizeof v,
			 "Outputs written to the shared file system: %.1f MB. Shares in per cent "
			 "of the inputs' bytes.",
			 (double)out / 1e6);
		locus__out_str(o, "<p>");
		text(o, v);
		locus__out_str(o, "</p>\n");
	}
	locus__out_str(o, "</section>\n");
}

static void failures(struct locus__out *o, const struct locus_result *r,
		     const struct locus_report_html_options *opt)
{
	size_t n = opt ? opt->n_failures : 0;
	locus__out_str(o, "<section id=\"failures\"><h2>Failures</h2>\n");
	if (!r->failed && !n) {
		locus__out_str(o, "<p class=\"ok\">No attempt failed.</p>\n</section>\n");
		return;
	}
	if (r->failed) {
		locus__out_str(o, "<p class=\"bad\">The run failed:</p>\n<pre>");
		pre_text(o, r->failure);
		locus__out_str(o, "</pre>\n");
	}
	for (size_t i = 0; i < n; i++) {
		const struct locus_report_failure *f = &opt->failures[i];
		char head[512];
		snprintf(head, sizeof head, "task %.200s, attempt %d on %.100s: %.150s",
			 f->task ? f->task : "?", f->attempt, f->node ? f->node : "?",
			 f->why ? f->why : "failed");
		locus__out_str(o, "<h3>");
		text(o, head);
		locus__out_str(o, "</h3>\n<pre>");
		pre_text(o, f->stderr_text && *f->stderr_text ? f->stderr_text
							      : "(its stderr is empty)");
		locus__out_str(o, "</pre>\n");
	}
	locus__out_str(o, "</section>\n");
}

void locus_report_html_options_init(struct locus_report_html_options *o)
{
	*o = (struct locus_report_html_options){.version = LOCUS_REPORT_HTML_OPTIONS_VERSION};
}

int locus_report_html(const struct locus_result *r, const struct locus_report_html_options *opt,
		      FILE *fp)
{
	if (!r || !fp ||
	    (opt && locus__check_version(opt->version, LOCUS_REPORT_HTML_OPTIONS_VERSION,
					 "locus_report_html_options", NULL)))
		return LOCUS_EINVAL;
	const char *title = opt && opt->title ? opt->title : NULL;
	struct locus__out o;
	locus__out_init(&o, fp);
	locus__out_str(&o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			   "<title>");
	text(&o, title ? title : "Locus run");
	locus__out_str(&o, "</title>\n");
	locus__out_str(&o, page_style);
	locus__out_str(&o, "</head>\n<body>\n");
	summary(&o, r, title);
	stage_table(&o, r);
	locus__out_str(&o, "<section id=\"chart\"><h2>Gantt chart</h2>\n");
	if (r->failed && !r->tasks) {
		/* A run that failed before its tasks' results were gathered. */
		locus__out_str(&o, "<p>No chart: the run failed before its tasks' times were "
				   "gathered.</p>\n");
		goto rest;
	}
	int rc = locus__out_fini(&o);
	if (rc)
		return rc;
	/* The chart, inline: its own <svg> element. */
	if ((rc = locus_report_svg_gantt(r, fp)))
		return rc;
	locus__out_init(&o, fp);
rest:
	locus__out_str(&o, "</section>\n");
	bytes_table(&o, r);
	failures(&o, r, opt);
	locus__out_str(&o, "</body>\n</html>\n");
	return locus__out_fini(&o);
}
