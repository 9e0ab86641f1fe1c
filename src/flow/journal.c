/*
 * The journal of a workflow run (locus_flow_journal_parse;
 * docs/formats.md, "Journal"; core/journal.h reads its lines): which
 * tasks finished and where their outputs were kept.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/journal.h"
#include "locus/flow.h"

void locus_flow_journal_fini(struct locus_flow_journal *j)
{
	if (!j)
		return;
	for (size_t o = 0; j->place && o < j->n_objects; o++)
		free(j->place[o]);
	free(j->place);
	free(j->done);
	free(j->bytes);
	free(j->sum);
	memset(j, 0, sizeof *j);
}

static int parse_u64(const char *s, int base, uint64_t *out)
{
	if (!*s)
		return -1;
	char *end;
	unsigned long long v = strtoull(s, &end, base);
	if (*end || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	*out = v;
	return 0;
}

struct parse {
	struct locus_flow_journal *j;
	const struct locus_graph *g;
	const char *name;
	const struct locus__journal_head *h; /* read before the first record */
	int head_ok;
};

/* The head names a workflow of g's size: another kind or size is refused
 * there, before any of its records. */
static int check_head(struct parse *p, struct locus_error *err)
{
	const struct locus__journal_head *h = p->h;
	if (p->head_ok)
		return 0;
	if (h->kind != LOCUS__JOURNAL_WORKFLOW || h->tasks != p->g->n_tasks ||
	    h->files != p->g->n_objects)
		return locus__err(err, LOCUS_EPARSE, p->name, 1, 1,
				  "expected the journal of a workflow of %zu tasks and %zu files "
				  "(this workflow's), got that of %s",
				  p->g->n_tasks, p->g->n_objects,
				  h->kind != LOCUS__JOURNAL_WORKFLOW ? "a run of chunks (locus run)"
								     : "another workflow");
	p->head_ok = 1;
	return 0;
}

/* "file NAME BYTES SUM PLACE": a later line of a file replaces an earlier. */
static int take_file(struct parse *p, const struct locus__journal_line *l, struct locus_error *err)
{
	long o = locus_graph_find_object(p->g, l->fld[1]);
	uint64_t b = 0, h = 0;
	if (o < 0)
		return locus__err(err, LOCUS_EINVAL, p->name, l->line, l->col[1],
				  "no file \"%.200s\" in this workflow: the journal is another "
				  "workflow's",
				  l->fld[1]);
	if (parse_u64(l->fld[2], 10, &b))
		return locus__err(err, LOCUS_EPARSE, p->name, l->line, l->col[2],
				  "expected a size in bytes, got \"%.40s\"", l->fld[2]);
	if (strcmp(l->fld[3], "-") && parse_u64(l->fld[3], 16, &h))
		return locus__err(err, LOCUS_EPARSE, p->name, l->line, l->col[3],
				  "expected a checksum (hexadecimal) or \"-\", got \"%.40s\"",
				  l->fld[3]);
	if (!*l->fld[4])
		return locus__err(err, LOCUS_EPARSE, p->name, l->line, l->col[4],
				  "expected the node that kept the file, or :shared");
	char *place = locus__strdup(l->fld[4]);
	if (!place)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	free(p->j->place[o]);
	p->j->place[o] = place;
	p->j->bytes[o] = b;
	p->j->sum[o] = h;
	return 0;
}

static int take(void *user, const struct locus__journal_line *l, struct locus_error *err)
{
	struct parse *p = user;
	int rc = check_head(p, err);
	if (rc)
		return rc;
	if (!strcmp(l->fld[0], "task") && l->nf == 3) {
		long t = locus_graph_find_task(p->g, l->fld[1]);
		if (t < 0)
			return locus__err(err, LOCUS_EINVAL, p->name, l->line, l->col[1],
					  "no task \"%.200s\" in this workflow: the journal is "
					  "another workflow's",
					  l->fld[1]);
		p->j->done[t] = 1;
		return 0;
	}
	if (!strcmp(l->fld[0], "file") && l->nf == 5)
		return take_file(p, l, err);
	return locus__err(err, LOCUS_EPARSE, p->name, l->line, 1,
			  "expected \"task NAME NODE\" or \"file NAME BYTES SUM PLACE\" "
			  "(tab-separated)");
}

int locus_flow_journal_parse(struct locus_flow_journal *j, const struct locus_graph *g,
			     const char *text, size_t len, const char *name,
			     struct locus_error *err)
{
	memset(j, 0, sizeof *j);
	j->n_tasks = g->n_tasks;
	j->n_objects = g->n_objects;
	j->done = calloc(g->n_tasks + 1, 1);
	j->place = calloc(g->n_objects + 1, sizeof *j->place);
	j->bytes = calloc(g->n_objects + 1, sizeof *j->bytes);
	j->sum = calloc(g->n_objects + 1, sizeof *j->sum);
	if (!j->done || !j->place || !j->bytes || !j->sum) {
		locus_flow_journal_fini(j);
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	}
	struct locus__journal_head h;
	struct parse p = {.j = j, .g = g, .name = name, .h = &h};
	int rc = locus__journal_read(text, len, name, &h, take, &p, err);
	if (!rc)
		rc = check_head(&p, err);
	if (rc)
		locus_flow_journal_fini(j);
	return rc;
}
