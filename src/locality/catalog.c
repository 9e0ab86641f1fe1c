/*
 * The Locus catalog text format (docs/formats.md): tab-separated records,
 * versioned by its first line, closed by an "end" record so that a
 * truncated file is an error and never a smaller catalog.
 *
 *   locus-catalog	1
 *   host	NAME	RACK|-
 *   dataset	NAME	SIZE	CHUNKS	FLAGS|-
 *   chunk	INDEX	OFFSET	LENGTH	HOST,HOST,...|-	FLAGS|-
 *   problem	DATASET	CHUNK|-	FLAGS	DETAIL
 *   end	DATASETS	CHUNKS
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/locality.h"

static const struct {
	const char *name;
	uint32_t flag;
} flag_names[] = {
    {"missing", LOCUS_CHUNK_MISSING},
    {"under-construction", LOCUS_CHUNK_UNDER_CONSTRUCTION},
    {"corrupt", LOCUS_CHUNK_CORRUPT},
    {"erasure-coded", LOCUS_DATASET_ERASURE_CODED},
};

#define MAX_FIELDS 8

struct field {
	const char *s;
	size_t n;
	long col; /* 1-based column of the field's first byte */
};

struct parser {
	const char *name;
	long line;
	struct locus_error *err;
	struct locus_catalog *cat;
	long ds;	  /* current dataset, -1 before the first */
	uint64_t ds_size; /* declared size of the current dataset */
	uint64_t ds_chunks;
	long ds_line; /* line of its dataset record */
	size_t total_chunks;
	uint32_t *reps;
	size_t reps_cap;
};

static int perr(struct parser *p, long col, const char *fmt, const char *what, size_t n)
{
	/* `fmt` has one %.*s for the offending text. */
	return locus__err(p->err, LOCUS_EPARSE, p->name, p->line, col, fmt, (int)(n > 60 ? 60 : n),
			  what);
}

static int field_u64(struct parser *p, const struct field *f, const char *what, uint64_t *out)
{
	int rc = locus__parse_u64(f->s, f->n, out);
	if (rc)
		return locus__err(p->err, LOCUS_EPARSE, p->name, p->line, f->col,
				  "expected %s (a non-negative integer), got \"%.*s\"", what,
				  (int)(f->n > 60 ? 60 : f->n), f->s);
	return 0;
}

static char *field_str(const struct field *f)
{
	return locus__strndup(f->s, f->n);
}

static int is_dash(const struct field *f)
{
	return f->n == 1 && f->s[0] == '-';
}

static int parse_flags(struct parser *p, const struct field *f, uint32_t allowed, uint32_t *out)
{
	*out = 0;
	if (is_dash(f))
		return 0;
	size_t i = 0;
	while (i <= f->n) {
		size_t j = i;
		while (j < f->n && f->s[j] != ',')
			j++;
		size_t k;
		for (k = 0; k < LOCUS__ARRAY_LEN(flag_names); k++)
			if ((flag_names[k].flag & allowed) && strlen(flag_names[k].name) == j - i &&
			    memcmp(flag_names[k].name, f->s + i, j - i) == 0)
				break;
		if (k == LOCUS__ARRAY_LEN(flag_names))
			return locus__err(p->err, LOCUS_EPARSE, p->name, p->line, f->col + (long)i,
					  "unknown flag \"%.*s\" (expected %s)",
					  (int)(j - i > 60 ? 60 : j - i), f->s + i,
					  allowed & LOCUS_DATASET_ERASURE_CODED
					      ? "erasure-coded or -"
					      : "missing, under-construction, corrupt or -");
		*out |= flag_names[k].flag;
		i = j + 1;
	}
	return 0;
}

static int close_dataset(struct parser *p)
{
	if (p->ds < 0)
		return 0;
	const struct locus_dataset *ds = &p->cat->datasets[p->ds];
	if (ds->n_chunks != p->ds_chunks)
		return locus__err(p->err, LOCUS_EPARSE, p->name, p->line, 1,
				  "dataset \"%s\" (line %ld) declares %" PRIu64
				  " chunks but %zu follow",
				  ds->name, p->ds_line, p->ds_chunks, ds->n_chunks);
	if (ds->size != p->ds_size)
		return locus__err(p->err, LOCUS_EPARSE, p->name, p->line, 1,
				  "dataset \"%s\" (line %ld) declares %" PRIu64
				  " bytes but its chunks add up to %" PRIu64,
				  ds->name, p->ds_line, p->ds_size, ds->size);
	return 0;
}

/* The error for a host name that locus_catalog_add_host() refused with
 * `code`, at column `col`. */
static int host_error(struct parser *p, long code, long col, const char *name)
{
	char shown[200], known[320];
	if (code == LOCUS_EINVAL)
		return locus__err(p->err, LOCUS_EPARSE, p->name, p->line, col,
				  "expected a host name (no control character, no ',', not "
				  "starting with '.'), got \"%s\"",
				  locus__visible(name, SIZE_MAX, shown, sizeof shown));
	if (code == LOCUS_EEXIST) {
		locus__catalog_host_clash(p->cat, name, known, sizeof known);
		return locus__err(p->err, LOCUS_EPARSE, p->name, p->line, col,
				  "host \"%s\" cannot be told apart from %s (" LOCUS__HOST_RULE ")",
				  locus__visible(name, SIZE_MAX, shown, sizeof shown), known);
	}
	return locus__err(p->err, (int)code, p->name, p->line, 0, "out of memory");
}

static int rec_host(struct parser *p, struct field *f, size_t nf)
{
	if (nf != 3)
		return perr(p, 1, "expected \"host<TAB>NAME<TAB>RACK\" (RACK may be -)%.*s", "", 0);
	if (f[1].n == 0)
		return perr(p, f[1].col, "expected a host name%.*s", "", 0);
	/* A rack is printed as read: a control character in it (a second
	 * '\r' before the line's end, say) would not read back the same. */
	for (size_t i = 0; i < f[2].n; i++)
		if ((unsigned char)f[2].s[i] < 0x20 || f[2].s[i] == 0x7f)
			return perr(p, f[2].col + (long)i,
				    "expected a rack without control characters (or -)%.*s", "", 0);
	char *name = field_str(&f[1]);
	char *rack = is_dash(&f[2]) || f[2].n == 0 ? NULL : field_str(&f[2]);
	size_t before = p->cat->n_hosts;
	long id = name && (rack || is_dash(&f[2]) || f[2].n == 0)
		      ? locus_catalog_add_host(p->cat, name, rack)
		      : LOCUS_ENOMEM;
	free(rack);
	if (id < 0) {
		int rc = name ? host_error(p, id, f[1].col, name) : host_error(p, id, 0, "");
		free(name);
		return rc;
	}
	free(name);
	if ((size_t)id < before) {
		const char *known = p->cat->hosts[id].name;
		if (strlen(known) == f[1].n && memcmp(known, f[1].s, f[1].n) == 0)
			return perr(p, f[1].col,
				    "host \"%.*s\" is listed twice or after a chunk that names it",
				    f[1].s, f[1].n);
		return locus__err(p->err, LOCUS_EPARSE, p->name, p->line, f[1].col,
				  "host \"%.*s\" is host \"%s\" listed again (" LOCUS__HOST_RULE
				  "), or after a chunk that names it",
				  (int)(f[1].n > 60 ? 60 : f[1].n), f[1].s, known);
	}
	return 0;
}

static int rec_dataset(struct parser *p, struct field *f, size_t nf)
{
	int rc = close_dataset(p);
	if (rc)
		return rc;
	if (nf != 5)
		return perr(p, 1, "expected \"dataset<TAB>NAME<TAB>SIZE<TAB>CHUNKS<TAB>FLAGS\"%.*s",
			    "", 0);
	uint32_t flags;
	if ((rc = field_u64(p, &f[2], "the dataset size in bytes", &p->ds_size)) ||
	    (rc = field_u64(p, &f[3], "the number of chunks", &p->ds_chunks)) ||
	    (rc = parse_flags(p, &f[4], LOCUS_DATASET_ERASURE_CODED, &flags)))
		return rc;
	char *name = field_str(&f[1]);
	long d = name ? locus_catalog_add_dataset(p->cat, name) : LOCUS_ENOMEM;
	free(name);
	if (d == LOCUS_EEXIST)
		return perr(p, f[1].col, "dataset \"%.*s\" is listed twice", f[1].s, f[1].n);
	if (d == LOCUS_EINVAL)
		return perr(p, f[1].col, "expected a dataset name%.*s", "", 0);
	if (d < 0)
		return locus__err(p->err, (int)d, p->name, p->line, 0, "out of memory");
	p->cat->datasets[d].flags = flags;
	p->ds = d;
	p->ds_line = p->line;
	return 0;
}

static int rec_chunk(struct parser *p, struct field *f, size_t nf)
{
	int rc;
	if (p->ds < 0)
		return perr(p, 1, "a chunk record must follow a dataset record%.*s", "", 0);
	if (nf != 6)
		return perr(
		    p, 1,
		    "expected \"chunk<TAB>INDEX<TAB>OFFSET<TAB>LENGTH<TAB>HOSTS<TAB>FLAGS\"%.*s",
		    "", 0);
	struct locus_dataset *ds = &p->cat->datasets[p->ds];
	uint64_t index, offset, length;
	uint32_t flags;
	if ((rc = field_u64(p, &f[1], "the chunk index", &index)) ||
	    (rc = field_u64(p, &f[2], "the chunk offset", &offset)) ||
	    (rc = field_u64(p, &f[3], "the chunk length", &length)) ||
	    (rc = parse_flags(p, &f[5],
			      LOCUS_CHUNK_MISSING | LOCUS_CHUNK_UNDER_CONSTRUCTION |
				  LOCUS_CHUNK_CORRUPT,
			      &flags)))
		return rc;
	if (index != ds->n_chunks)
		return locus__err(p->err, LOCUS_EPARSE, p->name, p->line, f[1].col,
				  "expected chunk index %zu, got %" PRIu64, ds->n_chunks, index);
	if (ds->n_chunks >= p->ds_chunks)
		return locus__err(p->err, LOCUS_EPARSE, p->name, p->line, 1,
				  "dataset \"%s\" declares %" PRIu64 " chunks; this is one more",
				  ds->name, p->ds_chunks);
	if (offset != ds->size)
		return locus__err(p->err, LOCUS_EPARSE, p->name, p->line, f[2].col,
				  "expected offset %" PRIu64
				  " (chunks are contiguous), got %" PRIu64,
				  ds->size, offset);
	uint32_t n = 0;
	if (!is_dash(&f[4])) {
		size_t i = 0;
		while (i <= f[4].n) {
			size_t j = i;
			while (j < f[4].n && f[4].s[j] != ',')
				j++;
			if (j == i)
				return locus__err(p->err, LOCUS_EPARSE, p->name, p->line,
						  f[4].col + (long)i,
						  "expected a host name in the replica list");
			char *h = locus__strndup(f[4].s + i, j - i);
			long id = h ? locus_catalog_add_host(p->cat, h, NULL) : LOCUS_ENOMEM;
			if (id < 0) {
				rc = h ? host_error(p, id, f[4].col + (long)i, h)
				       : host_error(p, id, 0, "");
				free(h);
				return rc;
			}
			free(h);
			for (uint32_t k = 0; k < n; k++)
				if (p->reps[k] == (uint32_t)id)
					return locus__err(
					    p->err, LOCUS_EPARSE, p->name, p->line,
					    f[4].col + (long)i,
					    "host \"%.*s\" is listed twice for one chunk (as "
					    "\"%s\"; " LOCUS__HOST_RULE ")",
					    (int)(j - i > 60 ? 60 : j - i), f[4].s + i,
					    p->cat->hosts[id].name);
			if (locus__grow(&p->reps, &p->reps_cap, (size_t)n + 1, sizeof *p->reps))
				return locus__err(p->err, LOCUS_ENOMEM, p->name, p->line, 0,
						  "out of memory");
			p->reps[n++] = (uint32_t)id;
			i = j + 1;
		}
	}
	long c = locus_catalog_add_chunk(p->cat, (size_t)p->ds, length, p->reps, n, flags);
	if (c == LOCUS_ERANGE)
		return perr(p, f[3].col, "chunk length overflows the dataset size%.*s", "", 0);
	if (c < 0)
		return locus__err(p->err, (int)c, p->name, p->line, 0, "out of memory");
	p->total_chunks++;
	return 0;
}

static int rec_problem(struct parser *p, struct field *f, size_t nf)
{
	int rc;
	if (nf != 5)
		return perr(p, 1,
			    "expected \"problem<TAB>DATASET<TAB>CHUNK<TAB>FLAGS<TAB>DETAIL\"%.*s",
			    "", 0);
	char *name = field_str(&f[1]);
	long d = name ? locus_catalog_find_dataset(p->cat, name) : -1;
	free(name);
	if (d < 0)
		return perr(p, f[1].col, "problem names unknown dataset \"%.*s\"", f[1].s, f[1].n);
	uint64_t chunk = SIZE_MAX;
	uint32_t flags;
	if (!is_dash(&f[2])) {
		if ((rc = field_u64(p, &f[2], "a chunk index or -", &chunk)))
			return rc;
		if (chunk >= p->cat->datasets[d].n_chunks)
			return perr(p, f[2].col, "no such chunk \"%.*s\" in that dataset", f[2].s,
				    f[2].n);
	}
	if ((rc = parse_flags(p, &f[3],
			      LOCUS_CHUNK_MISSING | LOCUS_CHUNK_UNDER_CONSTRUCTION |
				  LOCUS_CHUNK_CORRUPT,
			      &flags)))
		return rc;
	char *detail = field_str(&f[4]);
	rc = detail ? locus_catalog_add_problem(p->cat, (size_t)d, (size_t)chunk, flags, detail)
		    : LOCUS_ENOMEM;
	free(detail);
	return rc ? locus__err(p->err, rc, p->name, p->line, 0, "out of memory") : 0;
}

static int parse(struct parser *p, const char *text, size_t len)
{
	size_t pos = 0, n;
	const char *line;
	int seen_header = 0, seen_end = 0, rc;
	while (locus__next_line(text, len, &pos, &line, &n)) {
		p->line++;
		if (memchr(line, 0, n))
			return perr(p, (long)((const char *)memchr(line, 0, n) - line) + 1,
				    "unexpected NUL byte%.*s", "", 0);
		if (!seen_header) {
			static const char magic[] = LOCUS_CATALOG_MAGIC "\t";
			uint64_t v;
			if (n < sizeof magic - 1 || memcmp(line, magic, sizeof magic - 1) != 0)
				return perr(p, 1,
					    "expected \"" LOCUS_CATALOG_MAGIC
					    "<TAB>VERSION\" as the first line (is this a Locus "
					    "catalog?)%.*s",
					    "", 0);
			if (locus__parse_u64(line + sizeof magic - 1, n - (sizeof magic - 1), &v))
				return perr(p, (long)sizeof magic,
					    "expected a version number, got \"%.*s\"",
					    line + sizeof magic - 1, n - (sizeof magic - 1));
			if (v != LOCUS_CATALOG_VERSION)
				return locus__err(p->err, LOCUS_EPARSE, p->name, p->line,
						  (long)sizeof magic,
						  "catalog version %" PRIu64
						  " is not supported (this Locus reads version %d)",
						  v, LOCUS_CATALOG_VERSION);
			seen_header = 1;
			continue;
		}
		if (n == 0 || line[0] == '#')
			continue;
		if (seen_end)
			return perr(p, 1, "nothing may follow the end record%.*s", "", 0);
		struct field f[MAX_FIELDS];
		size_t nf = 0, i = 0;
		for (;;) {
			size_t j = i;
			while (j < n && line[j] != '\t')
				j++;
			if (nf == MAX_FIELDS)
				return perr(p, (long)i + 1, "too many fields%.*s", "", 0);
			f[nf].s = line + i;
			f[nf].n = j - i;
			f[nf].col = (long)i + 1;
			nf++;
			if (j >= n)
				break;
			i = j + 1;
		}
#define IS(word) (f[0].n == sizeof(word) - 1 && memcmp(f[0].s, word, f[0].n) == 0)
		if (IS("host"))
			rc = rec_host(p, f, nf);
		else if (IS("dataset"))
			rc = rec_dataset(p, f, nf);
		else if (IS("chunk"))
			rc = rec_chunk(p, f, nf);
		else if (IS("problem"))
			rc = rec_problem(p, f, nf);
		else if (IS("end")) {
			uint64_t nd, nc;
			if ((rc = close_dataset(p)))
				return rc;
			if (nf != 3)
				return perr(p, 1, "expected \"end<TAB>DATASETS<TAB>CHUNKS\"%.*s",
					    "", 0);
			if ((rc = field_u64(p, &f[1], "the number of datasets", &nd)) ||
			    (rc = field_u64(p, &f[2], "the number of chunks", &nc)))
				return rc;
			if (nd != p->cat->n_datasets || nc != p->total_chunks)
				return locus__err(p->err, LOCUS_EPARSE, p->name, p->line, 1,
						  "end record says %" PRIu64
						  " datasets and %" PRIu64
						  " chunks, but the catalog has %zu and %zu",
						  nd, nc, p->cat->n_datasets, p->total_chunks);
			seen_end = 1;
			rc = 0;
		} else
			rc = perr(p, 1,
				  "expected a record type (host, dataset, chunk, problem or end), "
				  "got \"%.*s\"",
				  f[0].s, f[0].n);
#undef IS
		if (rc)
			return rc;
	}
	if (!seen_header)
		return locus__err(p->err, LOCUS_EPARSE, p->name, 1, 1,
				  "empty file: expected \"" LOCUS_CATALOG_MAGIC "<TAB>VERSION\"");
	if (!seen_end)
		return locus__err(
		    p->err, LOCUS_EPARSE, p->name, p->line + 1, 1,
		    "unexpected end of file: expected an end record (the catalog is truncated)");
	/* A catalog of nothing would give a run of nothing that "succeeds". */
	if (p->cat->n_datasets == 0)
		return locus__err(p->err, LOCUS_EPARSE, p->name, p->line, 1,
				  "a catalog without a dataset: expected at least one "
				  "\"dataset<TAB>NAME<TAB>SIZE<TAB>CHUNKS<TAB>FLAGS\" record");
	return 0;
}

int locus_catalog_parse(struct locus_catalog **out, const char *text, size_t len, const char *name,
			struct locus_error *err)
{
	struct parser p = {.name = name ? name : "<catalog>", .err = err, .ds = -1};
	*out = NULL;
	int rc = locus_catalog_create(&p.cat);
	if (rc)
		return locus__err(err, rc, p.name, 0, 0, "out of memory");
	rc = parse(&p, text, len);
	free(p.reps);
	if (rc) {
		locus_catalog_destroy(p.cat);
		return rc;
	}
	*out = p.cat;
	return 0;
}

static void flags_text(struct locus__buf *b, uint32_t flags)
{
	int first = 1;
	for (size_t k = 0; k < LOCUS__ARRAY_LEN(flag_names); k++)
		if (flags & flag_names[k].flag) {
			locus__buf_printf(b, "%s%s", first ? "" : ",", flag_names[k].name);
			first = 0;
		}
	if (first)
		locus__buf_append(b, "-", 1);
}

static int format(const struct locus_catalog *cat, struct locus__buf *b)
{
	size_t total = 0;
	locus__buf_printf(b, "%s\t%d\n", LOCUS_CATALOG_MAGIC, LOCUS_CATALOG_VERSION);
	for (size_t h = 0; h < cat->n_hosts; h++)
		locus__buf_printf(b, "host\t%s\t%s\n", cat->hosts[h].name,
				  cat->hosts[h].rack ? cat->hosts[h].rack : "-");
	for (size_t d = 0; d < cat->n_datasets; d++) {
		const struct locus_dataset *ds = &cat->datasets[d];
		locus__buf_printf(b, "dataset\t%s\t%" PRIu64 "\t%zu\t", ds->name, ds->size,
				  ds->n_chunks);
		flags_text(b, ds->flags);
		locus__buf_append(b, "\n", 1);
		for (size_t c = 0; c < ds->n_chunks; c++) {
			const struct locus_chunk *ch = &ds->chunks[c];
			locus__buf_printf(b, "chunk\t%zu\t%" PRIu64 "\t%" PRIu64 "\t", c,
					  ch->offset, ch->length);
			for (uint32_t r = 0; r < ch->n_replicas; r++)
				locus__buf_printf(b, "%s%s", r ? "," : "",
						  cat->hosts[ch->replicas[r]].name);
			if (!ch->n_replicas)
				locus__buf_append(b, "-", 1);
			locus__buf_append(b, "\t", 1);
			flags_text(b, ch->flags);
			locus__buf_append(b, "\n", 1);
		}
		total += ds->n_chunks;
	}
	for (size_t i = 0; i < cat->n_problems; i++) {
		const struct locus_problem *pr = &cat->problems[i];
		locus__buf_printf(b, "problem\t%s\t", cat->datasets[pr->dataset].name);
		if (pr->chunk == SIZE_MAX)
			locus__buf_append(b, "-", 1);
		else
			locus__buf_printf(b, "%zu", pr->chunk);
		locus__buf_append(b, "\t", 1);
		flags_text(b, pr->flags);
		/* A detail never spans lines or fields. */
		locus__buf_append(b, "\t", 1);
		for (const char *s = pr->detail; *s; s++)
			locus__buf_append(b, (unsigned char)*s < 0x20 ? " " : s, 1);
		locus__buf_append(b, "\n", 1);
	}
	locus__buf_printf(b, "end\t%zu\t%zu\n", cat->n_datasets, total);
	return b->data ? 0 : LOCUS_ENOMEM;
}

int locus_catalog_print(const struct locus_catalog *cat, FILE *fp)
{
	struct locus__buf b = {0};
	int rc = format(cat, &b);
	if (!rc && fwrite(b.data, 1, b.len, fp) != b.len)
		rc = LOCUS_EIO;
	locus__buf_fini(&b);
	return rc;
}

int locus_catalog_save(const struct locus_catalog *cat, const char *path, struct locus_error *err)
{
	struct locus__buf b = {0};
	int rc = format(cat, &b);
	if (rc) {
		locus__buf_fini(&b);
		return locus__err(err, rc, path, 0, 0, "out of memory");
	}
	rc = locus__write_atomic(path, b.data, b.len, err);
	locus__buf_fini(&b);
	return rc;
}
