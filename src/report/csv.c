/*
 * One CSV line per task (docs/formats.md): a header, then the task id,
 * where it ran, where it read from and its times, plus its wait. Numbers
 * are exact and locale-independent; a missing value is an empty field.
 */
#include "locus/report.h"
#include "report/out.h"

#define CSV_HEADER "task,worker,node,source,local,idle_since,assigned,read_end,end,wait"
/* Task graphs (a version 5 or 3 result) add these. */
#define CSV_MORE ",start,attempts,name"

/* A field quoted as RFC 4180 says when it holds a comma, a quote or a line
 * break. */
static void csv_field(struct locus__out *o, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		locus__out_str(o, s);
		return;
	}
	locus__out_char(o, '"');
	for (; *s; s++) {
		if (*s == '"')
			locus__out_char(o, '"');
		locus__out_char(o, *s);
	}
	locus__out_char(o, '"');
}

int locus_report_csv(const struct locus_result *r, FILE *fp)
{
	struct locus__out o;

	if (!r || !fp)
		return LOCUS_EINVAL;
	locus__out_init(&o, fp);
	locus__out_str(&o, CSV_HEADER);
	locus__out_str(&o, r->dag ? CSV_MORE "\n" : "\n");
	for (size_t t = 0; r->tasks && t < r->n_tasks; t++) {
		const struct locus_task_result *tr = &r->tasks[t];
		locus__out_u64(&o, t);
		locus__out_char(&o, ',');
		locus__out_u64(&o, tr->worker);
		locus__out_char(&o, ',');
		locus__out_u64(&o, tr->node);
		locus__out_char(&o, ',');
		if (tr->source != UINT32_MAX)
			locus__out_u64(&o, tr->source);
		locus__out_write(&o, tr->local ? ",1," : ",0,", 3);
		locus__out_csv_num(&o, tr->idle_since);
		locus__out_char(&o, ',');
		locus__out_csv_num(&o, tr->assigned);
		locus__out_char(&o, ',');
		locus__out_csv_num(&o, tr->read_end);
		locus__out_char(&o, ',');
		locus__out_csv_num(&o, tr->end);
		locus__out_char(&o, ',');
		locus__out_csv_num(&o, tr->assigned - tr->idle_since);
		if (r->dag) {
			locus__out_char(&o, ',');
			locus__out_csv_num(&o, tr->start);
			locus__out_char(&o, ',');
			locus__out_u64(&o, tr->attempts);
			locus__out_char(&o, ',');
			const char *name =
			    r->graph && t < r->graph->n_tasks ? r->graph->tasks[t].name : NULL;
			if (name)
				csv_field(&o, name);
		}
		locus__out_char(&o, '\n');
	}
	return locus__out_fini(&o);
}
