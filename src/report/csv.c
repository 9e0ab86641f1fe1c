/*
 * One CSV line per task (docs/formats.md): a header, then the task id,
 * where it ran, where it read from and its times, plus its wait. Numbers
 * are exact and locale-independent; a missing value is an empty field.
 */
#include "locus/report.h"
#include "report/out.h"

#define CSV_HEADER "task,worker,node,source,local,idle_since,assigned,read_end,end,wait\n"

int locus_report_csv(const struct locus_result *r, FILE *fp)
{
	struct locus__out o;

	if (!r || !fp)
		return LOCUS_EINVAL;
	locus__out_init(&o, fp);
	locus__out_str(&o, CSV_HEADER);
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
		locus__out_char(&o, '\n');
	}
	return locus__out_fini(&o);
}
