/*
 * The replica table (include/locus/task.h): for each object the nodes
 * that hold it, in the order they got it; for each node the objects it
 * was given, so that losing a node is quick. Most objects have one to
 * three holders, kept inline; more spill into an array of their own.
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/task.h"

#define INLINE 3

struct slot {
	uint32_t n, cap; /* cap 0: inline */
	union {
		uint32_t in[INLINE];
		uint32_t *heap;
	} u;
};

/* A node's objects: every object it was given, possibly some it lost
 * since (checked when the node is dropped). */
struct node_list {
	uint32_t *obj;
	size_t n, cap;
};

struct locus_replicas {
	size_t n_objects, n_nodes;
	struct slot *slots;
	struct node_list *nodes;
};

static uint32_t *holders(struct slot *s)
{
	return s->cap ? s->u.heap : s->u.in;
}

static const uint32_t *cholders(const struct slot *s)
{
	return s->cap ? s->u.heap : s->u.in;
}

int locus_replicas_create(struct locus_replicas **out, size_t n_objects, size_t n_nodes)
{
	struct locus_replicas *r = calloc(1, sizeof *r);
	*out = NULL;
	if (!r)
		return LOCUS_ENOMEM;
	r->n_objects = n_objects;
	r->n_nodes = n_nodes;
	r->slots = locus__calloc(n_objects ? n_objects : 1, sizeof *r->slots);
	r->nodes = locus__calloc(n_nodes ? n_nodes : 1, sizeof *r->nodes);
	if (!r->slots || !r->nodes) {
		locus_replicas_destroy(r);
		return LOCUS_ENOMEM;
	}
	*out = r;
	return 0;
}

void locus_replicas_destroy(struct locus_replicas *r)
{
	if (!r)
		return;
	for (size_t o = 0; r->slots && o < r->n_objects; o++)
		if (r->slots[o].cap)
			free(r->slots[o].u.heap);
	for (size_t n = 0; r->nodes && n < r->n_nodes; n++)
		free(r->nodes[n].obj);
	free(r->slots);
	free(r->nodes);
	free(r);
}

int locus_replicas_has(const struct locus_replicas *r, uint32_t object, uint32_t node)
{
	if (object >= r->n_objects)
		return 0;
	const struct slot *s = &r->slots[object];
	const uint32_t *h = cholders(s);
	for (uint32_t i = 0; i < s->n; i++)
		if (h[i] == node)
			return 1;
	return 0;
}

int locus_replicas_add(struct locus_replicas *r, uint32_t object, uint32_t node)
{
	if (object >= r->n_objects || node >= r->n_nodes)
		return LOCUS_EINVAL;
	if (locus_replicas_has(r, object, node))
		return 0;
	struct slot *s = &r->slots[object];
	struct node_list *nl = &r->nodes[node];
	if (locus__grow(&nl->obj, &nl->cap, nl->n + 1, sizeof *nl->obj))
		return LOCUS_ENOMEM;
	if (!s->cap && s->n == INLINE) {
		uint32_t *h = malloc(2 * INLINE * sizeof *h);
		if (!h)
			return LOCUS_ENOMEM;
		memcpy(h, s->u.in, INLINE * sizeof *h);
		s->u.heap = h;
		s->cap = 2 * INLINE;
	} else if (s->cap && s->n == s->cap) {
		uint32_t *h = locus__reallocarray(s->u.heap, 2 * (size_t)s->cap, sizeof *h);
		if (!h)
			return LOCUS_ENOMEM;
		s->u.heap = h;
		s->cap *= 2;
	}
	holders(s)[s->n++] = node;
	nl->obj[nl->n++] = object;
	return 1;
}

int locus_replicas_remove(struct locus_replicas *r, uint32_t object, uint32_t node)
{
	if (object >= r->n_objects)
		return 0;
	struct slot *s = &r->slots[object];
	uint32_t *h = holders(s);
	for (uint32_t i = 0; i < s->n; i++)
		if (h[i] == node) {
			memmove(h + i, h + i + 1, (s->n - i - 1) * sizeof *h);
			s->n--;
			return 1;
		}
	return 0;
}

uint32_t locus_replicas_count(const struct locus_replicas *r, uint32_t object)
{
	return object < r->n_objects ? r->slots[object].n : 0;
}

const uint32_t *locus_replicas_nodes(const struct locus_replicas *r, uint32_t object)
{
	return object < r->n_objects ? cholders(&r->slots[object]) : NULL;
}

size_t locus_replicas_drop_node(struct locus_replicas *r, uint32_t node,
				void (*lost)(void *user, uint32_t object), void *user)
{
	if (node >= r->n_nodes)
		return 0;
	struct node_list *nl = &r->nodes[node];
	size_t dropped = 0;
	for (size_t i = 0; i < nl->n; i++) {
		uint32_t o = nl->obj[i];
		if (!locus_replicas_remove(r, o, node))
			continue; /* lost before, or listed twice */
		dropped++;
		if (!r->slots[o].n && lost)
			lost(user, o);
	}
	nl->n = 0;
	return dropped;
}
