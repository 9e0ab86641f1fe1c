/*
 * ScalScheduling's modulo-based priority (scal.c), internal: shared with
 * the tests, which check it against values computed by hand.
 */
#ifndef LOCUS_SCHED_SCAL_H
#define LOCUS_SCHED_SCAL_H

#include <stdint.h>

/* Eq. 1: the priority of task z (1-based, of f) on worker i (1-based, of
 * n) with m schedulers; a worker runs its local tasks highest first. */
uint64_t locus__scal_priority(uint64_t n, uint64_t f, uint64_t m, uint64_t z, uint64_t i);

#endif
