/*
 * The journal of a workflow run (locus_flow_journal_parse;
 * docs/formats.md, "Flow journal"): which tasks finished and where their
 * outputs were kept.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
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

/* Undoes the escapes of a name (\t, \n, \\) in place. */
static void unescape(char *s)
{
	size_t k = 0;
	for (size_t i = 0; s[i]; i++) {
		if (s[i] == '\\' && s[i + 1]) {
			i++;
			s[k++] = s[i] == 't' ? '\t' : s[i] == 'n' ? '\n' : s[i];
		} else {
			s[k++] = s[i];
		}
	}
	s[k] = 0;
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
	char head[96];
	snprintf(head, sizeof head, "locus-flow-journal 1\t%zu\t%zu", g->n_tasks, g->n_objects);
	size_t pos = 0, n;
	const char *line;
	long lineno = 0;
	int rc = 0;
	while (!rc && locus__next_line(text, len, &pos, &line, &n)) {
		lineno++;
		if (n && line[n - 1] == '\r')
			n--;
		char *l = locus__strndup(line, n);
		if (!l) {
			rc = locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
			break;
		}
		if (memchr(line, 0, n)) {
			rc = locus__err(err, LOCUS_EPARSE, name, lineno, 1,
					"expected text, found a NUL byte");
			free(l);
			break;
		}
		if (lineno == 1) {
			if (strcmp(l, head))
				rc = locus__err(err, LOCUS_EPARSE, name, 1, 1,
						"expected \"locus-flow-journal 1\", %zu tasks and %zu "
						"files (this workflow's journal), got \"%.60s\"",
						g->n_tasks, g->n_objects, l);
			free(l);
			continue;
		}
		char *fld[6] = {0};
		size_t nf = 0;
		for (char *p = l; nf < 6;) {
			fld[nf++] = p;
			char *tab = strchr(p, '\t');
			if (!tab)
				break;
			*tab = 0;
			p = tab + 1;
		}
		for (size_t i = 0; i < nf; i++)
			unescape(fld[i]);
		if (!strcmp(fld[0], "task") && nf == 3) {
			long t = locus_graph_find_task(g, fld[1]);
			if (t < 0)
				rc = locus__err(err, LOCUS_EINVAL, name, lineno, 6,
						"no task \"%.200s\" in this workflow: the journal is "
						"another workflow's",
						fld[1]);
			else
				j->done[t] = 1;
		} else if (!strcmp(fld[0], "file") && nf == 5) {
			long o = locus_graph_find_object(g, fld[1]);
			uint64_t b = 0, h = 0;
			if (o < 0) {
				rc = locus__err(err, LOCUS_EINVAL, name, lineno, 6,
						"no file \"%.200s\" in this workflow: the journal is "
						"another workflow's",
						fld[1]);
			} else if (parse_u64(fld[2], 10, &b)) {
				rc = locus__err(err, LOCUS_EPARSE, name, lineno, 1,
						"expected a size in bytes, got \"%.40s\"", fld[2]);
			} else if (strcmp(fld[3], "-") && parse_u64(fld[3], 16, &h)) {
				rc = locus__err(err, LOCUS_EPARSE, name, lineno, 1,
						"expected a checksum (hexadecimal) or \"-\", got "
						"\"%.40s\"",
						fld[3]);
			} else if (!*fld[4]) {
				rc = locus__err(err, LOCUS_EPARSE, name, lineno, 1,
						"expected the node that kept the file, or :shared");
			} else {
				char *p = locus__strdup(fld[4]);
				if (!p) {
					rc = locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
				} else {
					free(j->place[o]);
					j->place[o] = p;
					j->bytes[o] = b;
					j->sum[o] = h;
				}
			}
		} else if (n) {
			rc = locus__err(err, LOCUS_EPARSE, name, lineno, 1,
					"expected \"task NAME NODE\" or \"file NAME BYTES SUM "
					"PLACE\" (tab-separated)");
		}
		free(l);
	}
	if (!rc && lineno == 0)
		rc = locus__err(err, LOCUS_EPARSE, name, 1, 1, "expected \"locus-flow-journal 1\"");
	if (rc)
		locus_flow_journal_fini(j);
	return rc;
}
