/*
 * AME/AMFS (amfs.c): the submitter (V-A). It gives each dispatcher its
 * part of the task list and each metadata server its part of the file
 * list (messages of their descriptions' size), and, once every
 * dispatcher is done, tells the workers to stop looking for work.
 */
#include "flow/amfs.h"

#include <stdlib.h>

#include "flow/assign.h"

struct amfs_submitter {
	uint32_t finished; /* dispatchers done */
};

struct amfs_submitter *locus__amfs_submitter_create(const struct amfs *s)
{
	(void)s;
	return locus__calloc(1, sizeof(struct amfs_submitter));
}

void locus__amfs_submitter_destroy(struct amfs_submitter *sub)
{
	free(sub);
}

void locus__amfs_submitter_event(struct amfs *s, struct amfs_submitter *sub,
				 const struct locus_event *ev, struct locus_actions *act)
{
	uint32_t me = p_submitter(s);
	if (ev->kind == LOCUS_EV_MESSAGE && ev->msg->type == M_FINISHED) {
		/* The submitter waits for every dispatcher (V-A). Idle
		 * workers need no word that the workflow is done: they steal
		 * only when woken by a task to spare, and none comes now. */
		sub->finished++;
		return;
	}
	if (ev->kind != LOCUS_EV_START)
		return;
	/* The task lists and the file lists (their descriptions' bytes: 64
	 * a file). */
	for (uint32_t d = 0; d < s->D; d++) {
		uint64_t bytes = 0;
		for (uint32_t i = s->dtasks_at[d]; i < s->dtasks_at[d + 1]; i++)
			bytes += locus__flow_description(s->g, s->dtasks[i]);
		amfs_send(act, me, p_disp(s, d), M_TASKS,
			  (uint32_t)(bytes < UINT32_MAX ? bytes : UINT32_MAX), 0, 0, 0);
	}
	for (uint32_t m = 0; m < s->D; m++) {
		uint64_t bytes = (uint64_t)s->server_files[m] * 64;
		amfs_send(act, me, p_server(s, m), M_FILES,
			  (uint32_t)(bytes < UINT32_MAX ? bytes : UINT32_MAX), 0, 0, 0);
	}
}
