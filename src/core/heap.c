/* Binary min-heap of fixed-size elements. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/heap.h"

int locus_heap_init(struct locus_heap *h, size_t size, locus_heap_cmp_fn cmp)
{
	memset(h, 0, sizeof *h);
	if (!size || !cmp)
		return LOCUS_EINVAL;
	h->size = size;
	h->cmp = cmp;
	h->tmp = malloc(size);
	return h->tmp ? 0 : LOCUS_ENOMEM;
}

void locus_heap_fini(struct locus_heap *h)
{
	free(h->data);
	free(h->tmp);
	memset(h, 0, sizeof *h);
}

#define AT(h, i) ((h)->data + (i) * (h)->size)

static void swap(struct locus_heap *h, size_t i, size_t j)
{
	memcpy(h->tmp, AT(h, i), h->size);
	memcpy(AT(h, i), AT(h, j), h->size);
	memcpy(AT(h, j), h->tmp, h->size);
}

int locus_heap_push(struct locus_heap *h, const void *elem)
{
	if (locus__grow(&h->data, &h->cap, h->count + 1, h->size))
		return LOCUS_ENOMEM;
	size_t i = h->count++;
	memcpy(AT(h, i), elem, h->size);
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (h->cmp(AT(h, i), AT(h, parent)) >= 0)
			break;
		swap(h, i, parent);
		i = parent;
	}
	return 0;
}

int locus_heap_pop(struct locus_heap *h, void *out)
{
	if (!h->count)
		return LOCUS_ENOENT;
	if (out)
		memcpy(out, AT(h, 0), h->size);
	h->count--;
	if (!h->count)
		return 0;
	memcpy(AT(h, 0), AT(h, h->count), h->size);
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->count && h->cmp(AT(h, l), AT(h, m)) < 0)
			m = l;
		if (r < h->count && h->cmp(AT(h, r), AT(h, m)) < 0)
			m = r;
		if (m == i)
			break;
		swap(h, i, m);
		i = m;
	}
	return 0;
}

const void *locus_heap_peek(const struct locus_heap *h)
{
	return h->count ? h->data : NULL;
}
