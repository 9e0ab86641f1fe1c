/*
 * List cells in one pool: the singly linked lists the workflow policies
 * keep of a file's holders, of the processes waiting to hear of it and of
 * the tasks waiting for a copy (amfs's metadata servers, dask's scheduler,
 * TaskVine's manager). A list is the index of its first cell, or
 * LOCUS__LINK_END when empty; a cell holds a value, an aux word its user
 * gives a meaning to, and the next cell. Freed cells are reused, so
 * a cell's index means nothing beyond its list.
 *
 * Ownership: the caller owns the struct locus__links (locus__links_init,
 * locus__links_fini); the pool owns its cells.
 */
#ifndef LOCUS_FLOW_LINKS_H
#define LOCUS_FLOW_LINKS_H

#include <stddef.h>
#include <stdint.h>

/* The end of a list (and "no cell"). */
#define LOCUS__LINK_END UINT32_MAX

struct locus__link {
	uint32_t val, aux, next;
};

struct locus__links {
	struct locus__link *cell;
	size_t n, cap;
	uint32_t free; /* first free cell, or LOCUS__LINK_END */
};

void locus__links_init(struct locus__links *p);
void locus__links_fini(struct locus__links *p);

/* A new cell {val, aux, next} (a free one if any), or LOCUS__LINK_END
 * when memory ran out. Put it at a list's head by storing it there. */
uint32_t locus__links_new(struct locus__links *p, uint32_t val, uint32_t aux, uint32_t next);

/* Gives cell l back to the pool (it must be in no list any more). */
void locus__links_free(struct locus__links *p, uint32_t l);

/* The first cell of the list at `head` whose value is val, or
 * LOCUS__LINK_END. */
uint32_t locus__links_find(const struct locus__links *p, uint32_t head, uint32_t val);

/* Puts val (aux 0) at the head of the list at *head unless it is in it
 * already: 0, or LOCUS_ENOMEM. */
int locus__links_add(struct locus__links *p, uint32_t *head, uint32_t val);

/* Takes val out of the list at *head, if it is there (its first cell). */
void locus__links_remove(struct locus__links *p, uint32_t *head, uint32_t val);

/* Takes the head cell off the list at *head: its value (and aux, if
 * aux is not NULL), 1; or 0 when the list is empty. */
int locus__links_pop(struct locus__links *p, uint32_t *head, uint32_t *val, uint32_t *aux);

/* Empties the list at *head. */
void locus__links_clear(struct locus__links *p, uint32_t *head);

#endif
