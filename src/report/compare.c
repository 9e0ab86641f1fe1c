/*
 * Several runs of one workload side by side: an aligned text table for a
 * person, and a "locus-compare" JSON document with the same values for a
 * program (docs/formats.md).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "locus/report.h"
#include "report/out.h"

#define COMPARE_FORMAT "locus-compare"
#define CELL	       48

enum {
	COL_POLICY,
	COL_MAKESPAN,
	COL_BOUND,
	COL_LOCAL,
	COL_OPTIMAL,
	COL_WAIT_MEAN,
	COL_WAIT_P99,
	COL_WAIT_MAX,
	COL_MESSAGES,
	COL_SCHED,
	/* Task graphs' (locus_dag_bounds; GTP's Eq. 14 and Topcuoglu's SLR). */
	COL_STATUS,
	COL_NSL,
	COL_SLR,
	COL_TRANSFERS,
	COL_MOVED,
	COL_LOST,
	/* Workflows'. */
	COL_FIRST,
	COL_FS_READ,
	COL_FS_WRITTEN,
	COL_FS_OPS,
	COL_COLLECTIVES,
	COL_STORAGE,
	N_COL
};

static const char *const headers[N_COL] = {
    "policy",	     "makespan",  "/bound",	 "local %",    "/balanced", "wait mean",
    "wait p99",	     "wait max",  "messages",	 "sched busy", "status",    "NSL",
    "SLR",	     "transfers", "MB moved",	 "lost",       "/first",    "FS MB read",
    "FS MB written", "FS ops",	  "collectives", "storage MB",
};

/* The columns of a table of chunk runs, and of one where some run is a
 * task graph (locality and request waits say little there). */
static const int chunk_cols[] = {COL_POLICY,   COL_MAKESPAN,  COL_BOUND,    COL_LOCAL,
				 COL_OPTIMAL,  COL_WAIT_MEAN, COL_WAIT_P99, COL_WAIT_MAX,
				 COL_MESSAGES, COL_SCHED};
static const int dag_cols[] = {COL_POLICY, COL_STATUS,	  COL_MAKESPAN, COL_BOUND, COL_NSL,
			       COL_SLR,	   COL_TRANSFERS, COL_MOVED,	COL_LOST,  COL_SCHED};
/* A workflow's: where its files went. */
static const int flow_cols[] = {COL_POLICY, COL_STATUS,	     COL_MAKESPAN,   COL_BOUND,
				COL_FIRST,  COL_FS_READ,     COL_FS_WRITTEN, COL_FS_OPS,
				COL_MOVED,  COL_COLLECTIVES, COL_STORAGE,    COL_SCHED};

/* Columns of times share the decimals that give their largest value about
 * four significant digits. */
static int time_decimals(const struct locus_result *const *runs, size_t n, int col)
{
	double max = 0;

	for (size_t i = 0; i < n; i++) {
		const struct locus_result *r = runs[i];
		double v = col == COL_MAKESPAN ? r->makespan : r->sched_busy_total;
		if (isfinite(v) && fabs(v) > max)
			max = fabs(v);
	}
	if (max == 0)
		return 3;
	int dec = 3 - (int)floor(log10(max));
	return dec < 0 ? 0 : dec > 6 ? 6 : dec;
}

/* The three wait columns share one count of decimals, so they read side
 * by side: enough for the largest wait to show about four significant
 * digits and for the smallest one that is not 0 to show two (a column of
 * its own could print 0.000 beside 0.000233). */
static int wait_decimals(const struct locus_result *const *runs, size_t n)
{
	double max = 0, min = INFINITY;
	for (size_t i = 0; i < n; i++) {
		const double v[3] = {runs[i]->wait_mean, runs[i]->wait_p99, runs[i]->wait_max};
		for (int k = 0; k < 3; k++) {
			if (!isfinite(v[k]) || v[k] == 0)
				continue;
			if (fabs(v[k]) > max)
				max = fabs(v[k]);
			if (fabs(v[k]) < min)
				min = fabs(v[k]);
		}
	}
	if (max == 0)
		return 3;
	int dec = 3 - (int)floor(log10(max)), small = 1 - (int)floor(log10(min));
	if (small > dec)
		dec = small;
	return dec < 0 ? 0 : dec > 9 ? 9 : dec;
}

static void cell_fixed(char *cell, double v, int decimals)
{
	if (isfinite(v))
		locus__fmt_fixed(cell, v, decimals, 0);
	else
		strcpy(cell, "-");
}

/* The policy name as printable text (control characters as '?'), and in
 * a workflow's table its options after it (cut to the cell). */
static void cell_policy(char *cell, const struct locus_result *r)
{
	size_t n = locus__policy_len(r);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)r->policy[i];
		cell[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	if (r->flow && r->policy_options) {
		cell[n++] = ' ';
		for (const char *s = r->policy_options; *s && n + 1 < CELL; s++) {
			unsigned char c = (unsigned char)*s;
			cell[n++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
		}
	}
	cell[n] = 0;
}

/* The collectives a workflow's policy ran, or -1 when it says nothing. */
static double collectives(const struct locus_result *r)
{
	const struct locus_graph *g = r->graph;
	double n = -1;
	for (size_t s = 0; r->stages && g && s < g->n_stages; s++)
		if (r->stages[s].patterns >= 0)
			n = (n < 0 ? 0 : n) + (double)r->stages[s].collectives;
	return n;
}

/* Display width: UTF-8 characters, not bytes. */
static size_t text_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void pad(struct locus__out *o, size_t n)
{
	for (size_t i = 0; i < n; i++)
		locus__out_char(o, ' ');
}

static void table_row(struct locus__out *o, char (*cells)[CELL], const size_t *width,
		      const int *cols, size_t n_cols)
{
	for (size_t k = 0; k < n_cols; k++) {
		int c = cols[k];
		size_t w = text_width(cells[c]);
		if (k)
			locus__out_write(o, "  ", 2);
		if (c == COL_POLICY || c == COL_STATUS) {
			locus__out_str(o, cells[c]);
			if (k + 1 < n_cols)
				pad(o, width[c] - w);
		} else {
			pad(o, width[c] - w);
			locus__out_str(o, cells[c]);
		}
	}
	locus__out_char(o, '\n');
}

/* Stage s of run r: its time from first start to last end, and that over
 * base's. */
static void stage_cell(char *cell, const struct locus_result *r, const struct locus_result *base,
		       size_t s)
{
	const struct locus_stage_result *a = &r->stages[s], *b = &base->stages[s];
	double span = a->last_end - a->first_start, b_span = b->last_end - b->first_start;
	if (!a->tasks)
		snprintf(cell, CELL, "-");
	else if (b->tasks && b_span > 0)
		snprintf(cell, CELL, "%.1f (%.2f)", span, span / b_span);
	else
		snprintf(cell, CELL, "%.1f", span);
}

/* A workflow's stages, one row each, one column per run: the time from
 * the stage's first start to its last end, and that over the first
 * run's (the AME/AMFS paper's Fig. 10 shows these ratios). */
static void stage_table(struct locus__out *o, const struct locus_result *const *runs, size_t n)
{
	const struct locus_graph *g = runs[0]->graph;
	if (!g || !g->n_stages)
		return;
	for (size_t i = 0; i < n; i++)
		if (runs[i]->graph != g || !runs[i]->stages)
			return;
	size_t wn = 5, wc = 0;
	char cell[CELL];
	for (size_t s = 0; s < g->n_stages; s++)
		if (text_width(g->stage_names[s]) > wn)
			wn = text_width(g->stage_names[s]);
	/* Column i's header is run i's number. */
	for (size_t i = 0; i < n; i++)
		for (size_t s = 0; s < g->n_stages; s++) {
			stage_cell(cell, runs[i], runs[0], s);
			if (strlen(cell) > wc)
				wc = strlen(cell);
		}
	snprintf(cell, sizeof cell, "run %zu", n);
	if (strlen(cell) > wc)
		wc = strlen(cell);
	locus__out_str(o, "\ntime per stage, first start to last end (s), and over run 1's:\n");
	locus__out_str(o, "stage");
	pad(o, wn - 5);
	for (size_t i = 0; i < n; i++) {
		snprintf(cell, sizeof cell, "run %zu", i + 1);
		pad(o, 2 + wc - strlen(cell));
		locus__out_str(o, cell);
	}
	locus__out_char(o, '\n');
	for (size_t s = 0; s < g->n_stages; s++) {
		locus__out_str(o, g->stage_names[s]);
		pad(o, wn - text_width(g->stage_names[s]));
		for (size_t i = 0; i < n; i++) {
			stage_cell(cell, runs[i], runs[0], s);
			pad(o, 2 + wc - strlen(cell));
			locus__out_str(o, cell);
		}
		locus__out_char(o, '\n');
	}
}

int locus_report_compare(const struct locus_result *const *runs, size_t n, FILE *fp)
{
	struct locus__out o;
	size_t width[N_COL];
	int dec[N_COL] = {0}, any_dag = 0, all_flow = n > 0;

	if ((!runs && n) || !fp)
		return LOCUS_EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!runs[i])
			return LOCUS_EINVAL;
		any_dag |= runs[i]->dag;
		all_flow &= runs[i]->flow;
	}
	const int *cols = all_flow ? flow_cols : any_dag ? dag_cols : chunk_cols;
	size_t n_cols = all_flow  ? sizeof flow_cols / sizeof flow_cols[0]
			: any_dag ? sizeof dag_cols / sizeof dag_cols[0]
				  : sizeof chunk_cols / sizeof chunk_cols[0];
	char(*cells)[CELL] = calloc((n + 1) * N_COL, CELL);
	if (!cells)
		return LOCUS_ENOMEM;
	for (int c = 0; c < N_COL; c++)
		strcpy(cells[c], headers[c]);
	dec[COL_MAKESPAN] = time_decimals(runs, n, COL_MAKESPAN);
	dec[COL_WAIT_MEAN] = dec[COL_WAIT_P99] = dec[COL_WAIT_MAX] = wait_decimals(runs, n);
	dec[COL_SCHED] = time_decimals(runs, n, COL_SCHED);
	for (size_t i = 0; i < n; i++) {
		const struct locus_result *r = runs[i];
		char(*row)[CELL] = cells + (i + 1) * N_COL;
		cell_policy(row[COL_POLICY], r);
		cell_fixed(row[COL_MAKESPAN], r->makespan, dec[COL_MAKESPAN]);
		cell_fixed(row[COL_BOUND], locus__makespan_ratio(r), 3);
		cell_fixed(row[COL_LOCAL], locus__local_fraction(r) * 100, 1);
		cell_fixed(row[COL_OPTIMAL], locus__local_vs_balanced(r), 3);
		cell_fixed(row[COL_WAIT_MEAN], r->wait_mean, dec[COL_WAIT_MEAN]);
		cell_fixed(row[COL_WAIT_P99], r->wait_p99, dec[COL_WAIT_P99]);
		cell_fixed(row[COL_WAIT_MAX], r->wait_max, dec[COL_WAIT_MAX]);
		snprintf(row[COL_MESSAGES], CELL, "%llu", (unsigned long long)r->messages);
		cell_fixed(row[COL_SCHED], r->sched_busy_total, dec[COL_SCHED]);
		strcpy(row[COL_STATUS], r->failed ? "failed" : "complete");
		/* A failed run's makespan is when it stopped: no ratio. */
		if (r->failed)
			strcpy(row[COL_BOUND], "-");
		cell_fixed(row[COL_NSL], r->failed || !(r->nsl > 0) ? NAN : r->nsl, 3);
		cell_fixed(row[COL_SLR], r->failed || !(r->slr > 0) ? NAN : r->slr, 3);
		snprintf(row[COL_TRANSFERS], CELL, "%llu", (unsigned long long)r->transfers);
		cell_fixed(row[COL_MOVED], (double)r->bytes_moved / 1e6, 1);
		snprintf(row[COL_LOST], CELL, "%llu", (unsigned long long)r->attempts_lost);
		cell_fixed(row[COL_FIRST],
			   runs[0]->makespan > 0 && !r->failed && !runs[0]->failed
			       ? r->makespan / runs[0]->makespan
			       : NAN,
			   3);
		cell_fixed(row[COL_FS_READ], (double)r->fs_bytes_read / 1e6, 1);
		cell_fixed(row[COL_FS_WRITTEN], (double)r->fs_bytes_written / 1e6, 1);
		snprintf(row[COL_FS_OPS], CELL, "%llu", (unsigned long long)r->fs_ops);
		double nc = collectives(r);
		cell_fixed(row[COL_COLLECTIVES], nc < 0 ? NAN : nc, 0);
		cell_fixed(row[COL_STORAGE], r->storage_peak / 1e6, 1);
	}
	for (int c = 0; c < N_COL; c++) {
		width[c] = 0;
		for (size_t i = 0; i <= n; i++) {
			size_t w = text_width(cells[i * N_COL + c]);
			if (w > width[c])
				width[c] = w;
		}
	}
	locus__out_init(&o, fp);
	table_row(&o, cells, width, cols, n_cols);
	for (size_t k = 0; k < n_cols; k++) {
		if (k)
			locus__out_write(&o, "  ", 2);
		for (size_t j = 0; j < width[cols[k]]; j++)
			locus__out_char(&o, '-');
	}
	locus__out_char(&o, '\n');
	for (size_t i = 0; i < n; i++)
		table_row(&o, cells + (i + 1) * N_COL, width, cols, n_cols);
	if (all_flow) {
		locus__out_str(&o, "times in seconds; /bound: makespan over its lower bound; "
				   "/first: over the first run's; FS: the shared file system (MB "
				   "of 10^6 bytes); MB moved: copies between nodes and the file "
				   "system; storage MB: the most one node's local storage held\n");
		stage_table(&o, runs, n);
	} else if (any_dag)
		locus__out_str(&o, "times in seconds; /bound: makespan over its lower bound; NSL: "
				   "makespan over the critical path at mean costs (GTP Eq. 14); "
				   "SLR: over the critical path at least costs (Topcuoglu); lost: "
				   "attempts lost to failures\n");
	else
		locus__out_str(&o,
			       "times in seconds; /bound: makespan over its lower bound; "
			       "/balanced: local tasks over the most any assignment with balanced "
			       "loads keeps local (above 1: the policy unbalanced the loads)\n");
	free(cells);
	return locus__out_fini(&o);
}

/* One run. */
static void run_json(struct locus__out *o, const struct locus_result *r)
{
	locus__out_str(o, "{\"policy\": ");
	locus__out_json_str(o, r->policy, locus__policy_len(r));
	locus__out_str(o, ", \"seed\": ");
	locus__out_seed(o, r->seed);
	locus__out_str(o, ", ");
	locus__out_field_u64(o, "tasks", r->n_tasks);
	locus__out_str(o, ", ");
	locus__out_field_u64(o, "workers", r->n_workers);
	locus__out_str(o, ", ");
	locus__out_field_u64(o, "schedulers", r->n_schedulers);
	locus__out_str(o, ",\n     ");
	locus__out_field_num(o, "makespan", r->makespan);
	locus__out_str(o, ", ");
	locus__out_field_num(o, "makespan_lower", r->lb_makespan);
	locus__out_str(o, ", ");
	locus__out_field_num(o, "makespan_ratio", locus__makespan_ratio(r));
	locus__out_str(o, ",\n     ");
	locus__out_field_u64(o, "local_tasks", r->local_tasks);
	locus__out_str(o, ", ");
	locus__out_field_num(o, "local_fraction", locus__local_fraction(r));
	locus__out_str(o, ", ");
	locus__out_key(o, "balanced_local_tasks");
	if (r->opt_local < 0)
		locus__out_str(o, "null");
	else
		locus__out_i64(o, r->opt_local);
	locus__out_str(o, ", ");
	locus__out_field_num(o, "local_vs_balanced", locus__local_vs_balanced(r));
	locus__out_str(o, ",\n     ");
	locus__out_wait(o, r);
	locus__out_str(o, ",\n     ");
	locus__out_field_u64(o, "messages", r->messages);
	locus__out_str(o, ", ");
	locus__out_field_u64(o, "message_bytes", r->message_bytes);
	locus__out_str(o, ", \"scheduler_busy\": {");
	locus__out_field_num(o, "total", r->sched_busy_total);
	locus__out_str(o, ", ");
	locus__out_field_num(o, "max", r->sched_busy_max);
	locus__out_str(o, "}, ");
	locus__out_field_num(o, "worker_idle_total", r->worker_idle_total);
	if (r->dag) {
		/* Version 2: task graphs. */
		locus__out_str(o, ",\n     \"status\": ");
		locus__out_str(o, r->failed ? "\"failed\"" : "\"complete\"");
		if (r->failed) {
			locus__out_str(o, ", \"failure\": ");
			locus__out_json_str(o, r->failure, strnlen(r->failure, sizeof r->failure));
		}
		locus__out_str(o, ", ");
		locus__out_field_u64(o, "tasks_done", r->tasks_done);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "critical_path", r->lb_cp);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "nsl", r->nsl);
		locus__out_str(o, ", ");
		locus__out_field_num(o, "slr", r->slr);
		locus__out_str(o, ",\n     ");
		locus__out_field_u64(o, "transfers", r->transfers);
		locus__out_str(o, ", ");
		locus__out_field_u64(o, "bytes_moved", r->bytes_moved);
		locus__out_str(o, ", ");
		locus__out_field_u64(o, "attempts_lost", r->attempts_lost);
	}
	if (r->flow) {
		/* Version 3: workflows. */
		locus__out_str(o, ",\n     \"policy_options\": ");
		if (r->policy_options)
			locus__out_json_str(o, r->policy_options, strlen(r->policy_options));
		else
			locus__out_str(o, "null");
		locus__out_str(o, ", \"file_system\": {");
		locus__out_field_u64(o, "operations", r->fs_ops);
		locus__out_str(o, ", ");
		locus__out_field_u64(o, "bytes_read", r->fs_bytes_read);
		locus__out_str(o, ", ");
		locus__out_field_u64(o, "bytes_written", r->fs_bytes_written);
		locus__out_str(o, "}, ");
		locus__out_field_num(o, "storage_peak", r->storage_peak);
		locus__out_str(o, ", \"collectives\": ");
		double nc = collectives(r);
		if (nc < 0)
			locus__out_str(o, "null");
		else
			locus__out_u64(o, (uint64_t)nc);
		locus__out_str(o, ",\n     \"stages\": [");
		const struct locus_graph *g = r->graph;
		for (size_t s = 0; g && r->stages && s < g->n_stages; s++) {
			const struct locus_stage_result *st = &r->stages[s];
			locus__out_str(o, s ? ", {" : "{");
			locus__out_key(o, "name");
			locus__out_json_str(o, g->stage_names[s], strlen(g->stage_names[s]));
			locus__out_str(o, ", ");
			locus__out_field_num(o, "first_start", st->first_start);
			locus__out_str(o, ", ");
			locus__out_field_num(o, "last_end", st->last_end);
			locus__out_str(o, ", ");
			locus__out_field_num(o, "input_wait", st->input_wait);
			locus__out_char(o, '}');
		}
		locus__out_char(o, ']');
	}
	locus__out_char(o, '}');
}

int locus_report_compare_json(const struct locus_result *const *runs, size_t n, FILE *fp)
{
	struct locus__out o;

	int any_dag = 0, any_flow = 0;

	if ((!runs && n) || !fp)
		return LOCUS_EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!runs[i])
			return LOCUS_EINVAL;
		any_dag |= runs[i]->dag;
		any_flow |= runs[i]->flow;
	}
	locus__out_init(&o, fp);
	locus__out_str(&o, "{\n  \"format\": \"" COMPARE_FORMAT "\",\n  \"version\": ");
	/* Version 4 for chunk runs; 5 adds the task graphs' fields to the
	 * runs that have them, 3 the workflows' (out.h: the versions as the
	 * result's, for the locality bound's keys). */
	locus__out_u64(&o, any_flow  ? LOCUS__RESULT_VERSION_FLOW
			   : any_dag ? LOCUS__RESULT_VERSION_DAG
				     : LOCUS__RESULT_VERSION_CHUNKS);
	/* The runs share their workload: its source's problems once. */
	if (n && runs[0]->n_problems) {
		locus__out_str(&o, ",\n  ");
		locus__out_problems(&o, runs[0], "    ", "  ");
	}
	locus__out_str(&o, ",\n  \"runs\": [");
	for (size_t i = 0; i < n; i++) {
		locus__out_str(&o, i ? ",\n    " : "\n    ");
		run_json(&o, runs[i]);
	}
	locus__out_str(&o, n ? "\n  ]\n}\n" : "]\n}\n");
	return locus__out_fini(&o);
}
