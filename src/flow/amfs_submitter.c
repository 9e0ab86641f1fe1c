/*
 * AME/AMFS (amfs.c): the submitter.
 */
#include "flow/amfs.h"

void locus__amfs_submitter_event(struct amfs *s, const struct locus_event *ev,
				 struct locus_actions *act)
{
	uint32_t me = p_submitter(s);
	if (ev->kind == LOCUS_EV_MESSAGE && ev->msg->type == M_FINISHED) {
		/* Every dispatcher is done: the workers stop looking for work. */
		if (++s->finished == s->D && s->steal)
			for (uint32_t w = 0; w < s->nw; w++)
				amfs_send(act, me, w, M_STOP, 0, 0, 0, 0);
		return;
	}
	if (ev->kind != LOCUS_EV_START)
		return;
	/* The task lists and the file lists (their descriptions' bytes). */
	for (uint32_t d = 0; d < s->D; d++) {
		uint64_t bytes = 0;
		for (uint32_t i = s->dtasks_at[d]; i < s->dtasks_at[d + 1]; i++)
			bytes += description(s, s->dtasks[i]);
		amfs_send(act, me, p_disp(s, d), M_TASKS,
			  (uint32_t)(bytes < UINT32_MAX ? bytes : UINT32_MAX), 0, 0, 0);
	}
	uint64_t *files = calloc(s->D, sizeof *files);
	if (!files) {
		locus_act_oom(act);
		return;
	}
	for (uint32_t o = 0; o < s->g->n_objects; o++)
		files[server_of(s, o)] += 64;
	for (uint32_t m = 0; m < s->D; m++)
		amfs_send(act, me, p_server(s, m), M_FILES,
			  (uint32_t)(files[m] < UINT32_MAX ? files[m] : UINT32_MAX), 0, 0, 0);
	free(files);
}
