/*
 * The workflow left to run (locus_flow_remaining): what a resumed run
 * executes once a journal says which tasks are done.
 */
#include <stdlib.h>

#include "core/internal.h"
#include "locus/flow.h"

int locus_flow_remaining(struct locus_graph **out, const struct locus_graph *g,
			 const unsigned char *done, struct locus_error *err)
{
	*out = NULL;
	struct locus_graph *r = NULL;
	int rc = locus_graph_create(&r, g->name, err);
	if (rc)
		return rc;
	uint32_t *tmap = malloc((g->n_tasks + 1) * sizeof *tmap);
	uint32_t *omap = malloc((g->n_objects + 1) * sizeof *omap);
	if (!tmap || !omap) {
		rc = locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		goto out;
	}
	for (size_t o = 0; o < g->n_objects; o++)
		omap[o] = LOCUS_NONE;
	/* Tasks in id order, each with its stage, command, demand and line. */
	for (uint32_t t = 0; t < g->n_tasks && !rc; t++) {
		tmap[t] = LOCUS_NONE;
		if (done[t])
			continue;
		long id = locus_graph_add_task(r, g->tasks[t].name, g->tasks[t].work);
		if (id < 0) {
			rc = locus__err(err, (int)id, NULL, 0, 0, "out of memory");
			break;
		}
		tmap[t] = (uint32_t)id;
		if (g->task_stage && g->task_stage[t] != LOCUS_NONE) {
			long s = locus_graph_stage(r, g->stage_names[g->task_stage[t]]);
			rc = s < 0 ? locus__err(err, (int)s, NULL, 0, 0, "out of memory")
				   : locus_graph_set_stage(r, (uint32_t)id, (uint32_t)s);
		}
		if (!rc && g->commands && (g->commands[t].line || g->commands[t].argv))
			rc = locus_graph_set_command(r, (uint32_t)id, &g->commands[t]);
		if (!rc && g->demand)
			rc = locus_graph_set_demand(r, (uint32_t)id, &g->demand[t]);
		if (!rc && g->task_line)
			rc = locus_graph_set_line(r, (uint32_t)id, g->task_line[t]);
		if (rc && !err->message[0])
			locus__err(err, rc, NULL, 0, 0, "out of memory");
	}
	/* The files those tasks read and write: a done task's output they
	 * read is one of the workflow's inputs now. */
	for (uint32_t t = 0; t < g->n_tasks && !rc; t++) {
		if (tmap[t] == LOCUS_NONE)
			continue;
		const struct locus_task *tk = &g->tasks[t];
		for (int pass = 0; pass < 2 && !rc; pass++) {
			uint32_t at = pass ? tk->out_at : tk->in_at,
				 n = pass ? tk->n_out : tk->n_in;
			for (uint32_t k = 0; k < n && !rc; k++) {
				uint32_t o = pass ? g->outputs[at + k] : g->inputs[at + k];
				if (omap[o] == LOCUS_NONE) {
					long id = locus_graph_add_object(r, g->objects[o].name,
									 g->objects[o].bytes);
					if (id < 0) {
						rc = locus__err(err, (int)id, NULL, 0, 0,
								"out of memory");
						break;
					}
					omap[o] = (uint32_t)id;
				}
				const char *as = pass ? (g->output_as ? g->output_as[at + k] : NULL)
						      : (g->input_as ? g->input_as[at + k] : NULL);
				rc = pass ? locus_graph_add_output_as(r, tmap[t], omap[o], as, err)
					  : locus_graph_add_input_as(r, tmap[t], omap[o], as);
				if (rc && !err->message[0])
					locus__err(err, rc, NULL, 0, 0, "out of memory");
			}
		}
	}
	if (!rc)
		rc = locus_graph_finish(r, err);
out:
	free(tmap);
	free(omap);
	if (rc) {
		locus_graph_destroy(r);
		return rc;
	}
	*out = r;
	return 0;
}
