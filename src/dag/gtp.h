/*
 * What GTP's mapping computes at a rescheduling point (gtp.c), internal:
 * shared with the tests, which check the cost equations against values
 * computed by hand. The policy interface is not changed: a test that has
 * created an instance of gtp, gtp-c, gtp-r or gtp-c-r (ops->create) hands
 * it its arrays, and every later rescheduling point fills them in.
 */
#ifndef LOCUS_DAG_GTP_H
#define LOCUS_DAG_GTP_H

#include <stdint.h>

/* The caller's arrays, each with a row of n_workers per task (est, eft,
 * da: [task * n_workers + w]) or per input of a task (input: [(in_at + i)
 * * n_workers + w], in_at and i as in struct locus_task). A value the
 * point did not compute is NAN: a task finished, a processor down, the
 * data of a task started on that processor (Eq. 5 reads none). */
struct locus__gtp_watch {
	double *est; /* EST (Eqs. 5, 6) */
	double *eft; /* EFT (Eqs. 9 to 11) */
	double *da;  /* DA (Eq. 8; Eq. 13 with copies) */
	/* When the input would be on the processor's node: the producer's
	 * EFT plus C (Eqs. 3, 4) or CM (Eq. 12); the time of the point for a
	 * stored input, or one already there. */
	double *input;
	/* On a shared network, the points that played out the schedule in
	 * force and a new mapping (locus__gtp_play), and the makespans the
	 * first of them found for each; the caller zeroes them. */
	unsigned played;
	double first_cur, first_new;
};

/* Makes the instance `state` of a GTP policy fill *w at each of its
 * rescheduling points from now on (w NULL: stop). The arrays stay the
 * caller's; they must hold the graph's rows until the instance is
 * destroyed or watched no more. Not for DLS/sr (its mapping is DLS's). */
void locus__gtp_watch(void *state, struct locus__gtp_watch *w);

#endif
