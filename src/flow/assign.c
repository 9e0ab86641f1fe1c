/*
 * The assignment a workflow policy sends a worker (assign.h).
 */
#include "flow/assign.h"

#include "locus/task.h"

uint32_t locus__flow_description(const struct locus_graph *g, uint32_t t)
{
	const struct locus_task *tk = &g->tasks[t];
	return 64 + 32 * (tk->n_in + tk->n_out);
}

struct locus_msg locus__flow_assign_msg(const struct locus_graph *g, uint32_t from, uint32_t to,
					uint32_t t, enum locus_gather gather,
					enum locus_output output)
{
	struct locus_msg m = {.type = LOCUS_MSG_ASSIGN_FLOW,
			      .from = from,
			      .to = to,
			      .bytes = locus__flow_description(g, t),
			      .n_args = 4};
	m.arg[0] = t;
	m.arg[1] = -1;
	m.arg[2] = gather;
	m.arg[3] = output;
	return m;
}
