/*
 * HEFT, Heterogeneous Earliest Finish Time (Topcuoglu, Hariri and Wu, IEEE
 * TPDS 13(3), 2002, Fig. 4): the tasks by decreasing upward rank, each on
 * the worker where it finishes first, in the earliest idle gap that holds
 * it (insertion) or after the worker's last task (the non-insertion HEFT
 * of GTP).
 *
 * The list is taken from a ready list: the task of largest rank whose
 * predecessors are all placed, ranks of one group (LOCUS__DAG_RTOL) tied
 * and ties to the lower task id. A predecessor never ranks below its
 * successor (costs and transfers are >= 0, rounding is monotone), so the
 * task of largest rank left is always ready and this is the paper's
 * sorted list whenever ranks decrease along edges; where they do not
 * (tasks of cost 0 with free transfers) it still never puts a successor
 * before its predecessor. Equal finish times go to the lower worker.
 * Cost: O(v log v) for the list; per task, the workers of the nodes
 * already used and one worker per class of alike idle ones (plan.h):
 * their data-ready times and the idle gaps searched from them.
 */
#include "core/internal.h"
#include "dag/plan.h"

int locus__dag_heft(struct locus__dag *s)
{
	const struct locus_graph *g = s->g;
	double *rank = s->plan->priority;
	struct locus__ready ready;
	int rc;
	locus__dag_upward(s->wl, s->mean_cost, rank);
	if ((rc = locus__ready_init(&ready, g, rank)))
		return rc;
	for (size_t k = 0; k < s->n_tasks && !rc; k++) {
		uint32_t t = locus__ready_pop(&ready), w;
		locus__dag_ready_all(s, t);
		struct locus__fit fit = locus__dag_best_eft(s, t, &w);
		if (!(rc = locus__dag_place(s, t, w, fit)))
			rc = locus__ready_done(&ready, g, t);
	}
	locus__ready_fini(&ready);
	return rc;
}
