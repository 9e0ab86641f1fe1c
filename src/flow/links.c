/*
 * List cells in one pool (links.h).
 */
#include "flow/links.h"

#include <stdlib.h>

#include "core/internal.h"

void locus__links_init(struct locus__links *p)
{
	*p = (struct locus__links){.free = LOCUS__LINK_END};
}

void locus__links_fini(struct locus__links *p)
{
	free(p->cell);
	locus__links_init(p);
}

uint32_t locus__links_new(struct locus__links *p, uint32_t val, uint32_t aux, uint32_t next)
{
	uint32_t l = p->free;
	if (l != LOCUS__LINK_END) {
		p->free = p->cell[l].next;
	} else {
		if (locus__grow(&p->cell, &p->cap, p->n + 1, sizeof *p->cell))
			return LOCUS__LINK_END;
		l = (uint32_t)p->n++;
	}
	p->cell[l] = (struct locus__link){val, aux, next};
	return l;
}

void locus__links_free(struct locus__links *p, uint32_t l)
{
	p->cell[l].next = p->free;
	p->free = l;
}

uint32_t locus__links_find(const struct locus__links *p, uint32_t head, uint32_t val)
{
	for (uint32_t l = head; l != LOCUS__LINK_END; l = p->cell[l].next)
		if (p->cell[l].val == val)
			return l;
	return LOCUS__LINK_END;
}

int locus__links_add(struct locus__links *p, uint32_t *head, uint32_t val)
{
	if (locus__links_find(p, *head, val) != LOCUS__LINK_END)
		return 0;
	uint32_t l = locus__links_new(p, val, 0, *head);
	if (l == LOCUS__LINK_END)
		return LOCUS_ENOMEM;
	*head = l;
	return 0;
}

void locus__links_remove(struct locus__links *p, uint32_t *head, uint32_t val)
{
	for (uint32_t *at = head; *at != LOCUS__LINK_END; at = &p->cell[*at].next)
		if (p->cell[*at].val == val) {
			uint32_t l = *at;
			*at = p->cell[l].next;
			locus__links_free(p, l);
			return;
		}
}

int locus__links_pop(struct locus__links *p, uint32_t *head, uint32_t *val, uint32_t *aux)
{
	uint32_t l = *head;
	if (l == LOCUS__LINK_END)
		return 0;
	*val = p->cell[l].val;
	if (aux)
		*aux = p->cell[l].aux;
	*head = p->cell[l].next;
	locus__links_free(p, l);
	return 1;
}

void locus__links_clear(struct locus__links *p, uint32_t *head)
{
	uint32_t val;
	while (locus__links_pop(p, head, &val, NULL))
		;
}
