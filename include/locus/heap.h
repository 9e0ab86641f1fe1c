/*
 * Binary min-heap of fixed-size elements ordered by a caller's comparison.
 *
 * The heap copies elements in and out; it owns its array (locus_heap_init /
 * locus_heap_fini). Ties are the comparison's business: callers that need
 * determinism order equal keys by a sequence number.
 */
#ifndef LOCUS_HEAP_H
#define LOCUS_HEAP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Negative if a comes before b, 0 if equal, positive otherwise. */
typedef int (*locus_heap_cmp_fn)(const void *a, const void *b);

struct locus_heap {
	unsigned char *data;
	size_t size;  /* element size in bytes */
	size_t count; /* elements held */
	size_t cap;   /* elements allocated */
	locus_heap_cmp_fn cmp;
	unsigned char *tmp; /* one element of scratch space */
};

/* Initialises an empty heap of elements of `size` bytes. Returns 0 or
 * LOCUS_EINVAL / LOCUS_ENOMEM. */
int locus_heap_init(struct locus_heap *h, size_t size, locus_heap_cmp_fn cmp);

/* Frees the heap's storage. */
void locus_heap_fini(struct locus_heap *h);

/* Inserts a copy of *elem. Returns 0 or LOCUS_ENOMEM. */
int locus_heap_push(struct locus_heap *h, const void *elem);

/* Copies the least element into *out and removes it. Returns 0, or
 * LOCUS_ENOENT when the heap is empty. */
int locus_heap_pop(struct locus_heap *h, void *out);

/* The least element, or NULL when empty; valid until the next change. */
const void *locus_heap_peek(const struct locus_heap *h);

static inline size_t locus_heap_count(const struct locus_heap *h)
{
	return h->count;
}

#ifdef __cplusplus
}
#endif
#endif
