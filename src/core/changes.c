/*
 * Platform changes over time (docs/formats.md, "Scenario"): what a node
 * or a link can do from a moment on, as GTP models a shared pool (avail^t
 * and bandwidth^t, Hernandez and Cole, section 2.1), with failures and
 * recoveries. A scenario is read from text, built from --fail specs, or
 * generated with GTP's variability bound (section 6.2).
 *
 * The text format extends the speed trace (speed.c): a line of three
 * fields whose second is neither "fail" nor "recover" is "TIME NODE
 * SPEED", so every speed trace reads as the same speed changes here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "locus/platform.h"
#include "locus/rng.h"

/* The most fields a line uses (link) plus one, to see an extra field. */
#define MAX_FIELDS 6

/* How much of a field an error message quotes. */
#define QUOTE_MAX 40

#define KINDS_WORDS "speed, avail, bandwidth, link, fail, recover"

struct kind_form {
	const char *word; /* the keyword; NULL for the speed-trace form */
	enum locus_change_kind kind;
	size_t fields; /* fields on a line of this form, comment excluded */
	const char *usage;
};

static const struct kind_form forms[] = {
    {"speed", LOCUS_CHANGE_SPEED, 4, "TIME speed NODE SPEED"},
    {"avail", LOCUS_CHANGE_AVAIL, 4, "TIME avail NODE A"},
    {"bandwidth", LOCUS_CHANGE_BANDWIDTH, 4, "TIME bandwidth NODE F"},
    {"link", LOCUS_CHANGE_LINK, 5, "TIME link NODE NODE F"},
    {"fail", LOCUS_CHANGE_FAIL, 3, "TIME fail NODE"},
    {"recover", LOCUS_CHANGE_RECOVER, 3, "TIME recover NODE"},
};

static const struct kind_form trace_form = {NULL, LOCUS_CHANGE_SPEED, 3, "TIME NODE SPEED"};

/* ---- reading ------------------------------------------------------------- */

struct reader {
	const struct locus_platform *p;
	const char *name;
	struct locus_error *err;
	long line;
	struct locus_change *out;
	size_t n, cap;
	/* Per node, for fail/recover: 0 never failed, +L down since line L,
	 * -L up again since line L. Allocated at the first fail or recover. */
	long *state;
};

static int ascii_lower(int ch)
{
	return ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch;
}

static int field_is(const struct locus__field *f, const char *word)
{
	size_t i;
	for (i = 0; i < f->n && word[i]; i++)
		if (ascii_lower((unsigned char)f->s[i]) != word[i])
			return 0;
	return i == f->n && !word[i];
}

static const struct kind_form *find_form(const struct locus__field *f)
{
	for (size_t i = 0; i < LOCUS__ARRAY_LEN(forms); i++)
		if (field_is(f, forms[i].word))
			return &forms[i];
	return NULL;
}

/* The field as an error message quotes it: a number as written (unless
 * `always`), anything else in double quotes; control bytes become '?',
 * long fields end in "...". */
static const char *quote(const struct locus__field *f, char *buf, size_t size, int always)
{
	double v;
	int q = always || locus__field_number(f, &v) != 0;
	size_t k = 0, m = f->n < QUOTE_MAX ? f->n : QUOTE_MAX;
	if (size < QUOTE_MAX + 6)
		return "";
	if (q)
		buf[k++] = '"';
	for (size_t i = 0; i < m; i++) {
		unsigned char ch = (unsigned char)f->s[i];
		buf[k++] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
	}
	if (m < f->n) {
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	if (q)
		buf[k++] = '"';
	buf[k] = 0;
	return buf;
}

/* The column just after field f: where a missing next field belongs. */
static long after(const struct locus__field *f)
{
	return f->col + (long)f->n;
}

static long find_node(const struct locus_platform *p, const struct locus__field *f)
{
	char node[256];
	if (f->n >= sizeof node || memchr(f->s, 0, f->n))
		return -1;
	memcpy(node, f->s, f->n);
	node[f->n] = 0;
	return locus_platform_find(p, node);
}

static int node_field(struct reader *r, const struct locus__field *f, uint32_t *idx)
{
	char q[QUOTE_MAX + 8];
	long i = find_node(r->p, f);
	if (i < 0)
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f->col,
				  "no node %s in the platform", quote(f, q, sizeof q, 1));
	*idx = (uint32_t)i;
	return 0;
}

static int value_field(struct reader *r, const struct locus__field *f, enum locus_change_kind kind,
		       double *v)
{
	char q[QUOTE_MAX + 8];
	int bad = locus__field_number(f, v) != 0;
	switch (kind) {
	case LOCUS_CHANGE_AVAIL:
		if (bad || !(*v > 0 && *v <= 1))
			return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f->col,
					  "expected an availability in (0, 1], got %s",
					  quote(f, q, sizeof q, 0));
		return 0;
	case LOCUS_CHANGE_BANDWIDTH:
		if (bad || !(*v > 0))
			return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f->col,
					  "expected a bandwidth factor > 0, got %s",
					  quote(f, q, sizeof q, 0));
		return 0;
	case LOCUS_CHANGE_LINK:
		if (bad || !(*v > 0))
			return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f->col,
					  "expected a link bandwidth factor > 0, got %s",
					  quote(f, q, sizeof q, 0));
		return 0;
	default:
		if (bad || !(*v >= LOCUS_SPEED_MIN && *v <= LOCUS_SPEED_MAX))
			return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f->col,
					  "expected a speed in [%g, %g], got %s", LOCUS_SPEED_MIN,
					  LOCUS_SPEED_MAX, quote(f, q, sizeof q, 0));
		return 0;
	}
}

/* Which form a line of k fields (comment removed) has, or NULL after
 * filling the error. */
static const struct kind_form *line_form(struct reader *r, const struct locus__field *f, size_t k)
{
	char q[QUOTE_MAX + 8];
	const struct kind_form *form;
	if (k == 1)
		goto unknown;
	form = find_form(&f[1]);
	if (!form) {
		if (k == 3)
			return &trace_form;
		if (k == 2)
			goto unknown;
		locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[1].col,
			   "expected \"TIME KIND NODE ...\" with KIND one of " KINDS_WORDS
			   ", got %s",
			   quote(&f[1], q, sizeof q, 1));
		return NULL;
	}
	/* Three fields cannot be a whole speed, avail, bandwidth or link
	 * line: they are a speed trace's line when a node has that name. */
	if (k == 3 && form->fields > 3 && find_node(r->p, &f[1]) >= 0)
		return &trace_form;
	if (k < form->fields) {
		locus__err(r->err, LOCUS_EPARSE, r->name, r->line, after(&f[k - 1]),
			   "expected \"%s\", the line ends after %zu fields", form->usage, k);
		return NULL;
	}
	if (k > form->fields) {
		locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[form->fields].col,
			   "expected \"%s\", got an extra field %s", form->usage,
			   quote(&f[form->fields], q, sizeof q, 0));
		return NULL;
	}
	return form;
unknown:
	locus__err(r->err, LOCUS_EPARSE, r->name, r->line, after(&f[k - 1]),
		   "expected \"TIME KIND NODE ...\" with KIND one of " KINDS_WORDS
		   ", or \"TIME NODE SPEED\"");
	return NULL;
}

/* Checks that a fail finds its node up and a recover finds it down. */
static int track_state(struct reader *r, const struct locus_change *c,
		       const struct locus__field *nf)
{
	if (!r->state) {
		r->state = locus__calloc(r->p->n_nodes, sizeof *r->state);
		if (!r->state)
			return locus__err(r->err, LOCUS_ENOMEM, r->name, 0, 0, "out of memory");
	}
	long s = r->state[c->node];
	const char *node = r->p->nodes[c->node].name;
	if (c->kind == LOCUS_CHANGE_FAIL) {
		if (s > 0)
			return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, nf->col,
					  "node \"%.64s\" is already down (it failed on line %ld)",
					  node, s);
		r->state[c->node] = r->line;
	} else {
		if (s == 0)
			return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, nf->col,
					  "node \"%.64s\" is not down (no fail before this "
					  "recover)",
					  node);
		if (s < 0)
			return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, nf->col,
					  "node \"%.64s\" is not down (it recovered on line %ld)",
					  node, -s);
		r->state[c->node] = -r->line;
	}
	return 0;
}

/* Reads one line into r->out. */
static int read_line(struct reader *r, const char *line, size_t len)
{
	struct locus__field f[MAX_FIELDS];
	struct locus_change c = {0};
	const struct kind_form *form;
	char q[QUOTE_MAX + 8];
	size_t k = locus__split_fields(line, len, f, MAX_FIELDS);
	int rc;

	/* A field that starts with '#' starts a comment. */
	for (size_t i = 0; i < k && i < MAX_FIELDS; i++)
		if (f[i].s[0] == '#')
			k = i;
	if (k == 0)
		return 0;
	if (k > MAX_FIELDS)
		k = MAX_FIELDS; /* too many whatever the form: line_form says so */
	if (locus__field_number(&f[0], &c.time) || c.time < 0)
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[0].col,
				  "expected a time in seconds >= 0, got %s",
				  quote(&f[0], q, sizeof q, 0));
	c.time += 0.0; /* -0 is 0 */
	if (!(form = line_form(r, f, k)))
		return LOCUS_EPARSE;
	c.kind = form->kind;
	c.node2 = LOCUS_NONE;
	const struct locus__field *nf = &f[form->word ? 2 : 1];
	if ((rc = node_field(r, nf, &c.node))) {
		/* "1 fail 2" where a node is called "fail": say how to write
		 * its speed change. */
		if (form->word && form->fields == 3 && find_node(r->p, &f[1]) >= 0)
			return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, nf->col,
					  "no node %s in the platform (a speed change of node "
					  "\"%.*s\" is written \"TIME speed %.*s SPEED\")",
					  quote(nf, q, sizeof q, 1), (int)f[1].n, f[1].s,
					  (int)f[1].n, f[1].s);
		return rc;
	}
	if (form->kind == LOCUS_CHANGE_LINK) {
		if ((rc = node_field(r, &f[3], &c.node2)))
			return rc;
		if (c.node2 == c.node)
			return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[3].col,
					  "a link joins two distinct nodes, got node \"%.64s\" "
					  "twice",
					  r->p->nodes[c.node].name);
		if (c.node2 < c.node) { /* stored as the platform's links are */
			uint32_t t = c.node;
			c.node = c.node2;
			c.node2 = t;
		}
	}
	if (form->fields > 3 || !form->word) {
		const struct locus__field *vf = &f[form->word ? form->fields - 1 : 2];
		if ((rc = value_field(r, vf, form->kind, &c.value)))
			return rc;
	}
	if (r->n && c.time < r->out[r->n - 1].time) {
		/* As few digits as tell the two times apart. */
		double prev = r->out[r->n - 1].time;
		char a[40], b[40];
		for (int prec = 6; prec <= 17; prec++) {
			snprintf(a, sizeof a, "%.*g", prec, c.time);
			snprintf(b, sizeof b, "%.*g", prec, prev);
			if (strcmp(a, b) != 0)
				break;
		}
		return locus__err(r->err, LOCUS_EPARSE, r->name, r->line, f[0].col,
				  "times must not decrease (%s after %s)", a, b);
	}
	if (form->kind == LOCUS_CHANGE_FAIL || form->kind == LOCUS_CHANGE_RECOVER)
		if ((rc = track_state(r, &c, nf)))
			return rc;
	if (locus__grow(&r->out, &r->cap, r->n + 1, sizeof *r->out))
		return locus__err(r->err, LOCUS_ENOMEM, r->name, 0, 0, "out of memory");
	r->out[r->n++] = c;
	return 0;
}

int locus_changes_parse(struct locus_change **out, size_t *n, const struct locus_platform *p,
			const char *text, size_t len, const char *name, struct locus_error *err)
{
	struct locus_error local;
	struct reader r = {p, name, err ? err : &local, 0, NULL, 0, 0, NULL};
	size_t pos = 0, ln;
	const char *line;
	int rc = 0;

	if (!out || !n)
		return locus__err(err, LOCUS_EINVAL, name, 0, 0, "no place for the changes");
	*out = NULL;
	*n = 0;
	if (!p || (!text && len))
		return locus__err(err, LOCUS_EINVAL, name, 0, 0, "no platform or no text");
	while (!rc && locus__next_line(text, len, &pos, &line, &ln)) {
		r.line++;
		rc = read_line(&r, line, ln);
	}
	free(r.state);
	if (rc) {
		free(r.out);
		return rc;
	}
	*out = r.out;
	*n = r.n;
	return 0;
}

int locus_changes_load(struct locus_change **out, size_t *n, const struct locus_platform *p,
		       const char *path, struct locus_error *err)
{
	char *text;
	size_t len;
	if (!out || !n)
		return locus__err(err, LOCUS_EINVAL, path, 0, 0, "no place for the changes");
	*out = NULL;
	*n = 0;
	if (!path)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "no file name");
	int rc = locus__read_file(&text, &len, path, err);
	if (rc)
		return rc;
	rc = locus_changes_parse(out, n, p, text, len, path, err);
	free(text);
	return rc;
}

/* ---- --fail specs -------------------------------------------------------- */

/* A number >= 0 in strtod syntax that starts with a digit or '.' (no
 * sign, no blank, no "inf"): sets *end after it. */
static int spec_number(const char *s, const char **end, double *v)
{
	char *e;
	if (!((*s >= '0' && *s <= '9') || *s == '.'))
		return LOCUS_EPARSE;
	*v = strtod(s, &e);
	if (e == s || !isfinite(*v))
		return LOCUS_EPARSE;
	*end = e;
	return 0;
}

int locus_change_parse_fail(struct locus_change out[2], const struct locus_platform *p,
			    const char *spec, struct locus_error *err)
{
	const char *at, *end;
	double t, down;
	char node[256];

	if (!out || !p || !spec)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "no platform or no failure spec");
	at = strrchr(spec, '@');
	if (!at)
		return locus__err(err, LOCUS_EPARSE, NULL, 0, 0,
				  "expected NODE@TIME or NODE@TIME+DOWN, got \"%.200s\"", spec);
	if (at == spec)
		return locus__err(err, LOCUS_EPARSE, NULL, 0, 0,
				  "expected a node name before '@' in \"%.200s\"", spec);
	size_t nn = (size_t)(at - spec);
	long idx = -1;
	if (nn < sizeof node) {
		memcpy(node, spec, nn);
		node[nn] = 0;
		idx = locus_platform_find(p, node);
	}
	if (idx < 0)
		return locus__err(err, LOCUS_EPARSE, NULL, 0, 0,
				  "no node \"%.*s\" in the platform (in \"%.200s\")",
				  (int)(nn < 64 ? nn : 64), spec, spec);
	if (spec_number(at + 1, &end, &t) || (*end && *end != '+'))
		return locus__err(err, LOCUS_EPARSE, NULL, 0, 0,
				  "expected a time in seconds >= 0 after '@' in \"%.200s\"", spec);
	t += 0.0;
	if (!*end) {
		out[0] = (struct locus_change){t, LOCUS_CHANGE_FAIL, (uint32_t)idx, LOCUS_NONE, 0};
		return 1;
	}
	if (spec_number(end + 1, &end, &down) || *end || !(down > 0))
		return locus__err(err, LOCUS_EPARSE, NULL, 0, 0,
				  "expected a down time in seconds > 0 after '+' in \"%.200s\"",
				  spec);
	double back = t + down;
	if (!isfinite(back) || !(back > t))
		return locus__err(err, LOCUS_EPARSE, NULL, 0, 0,
				  "the node must come back after it fails: %g + %g is not a "
				  "later time (in \"%.200s\")",
				  t, down, spec);
	out[0] = (struct locus_change){t, LOCUS_CHANGE_FAIL, (uint32_t)idx, LOCUS_NONE, 0};
	out[1] = (struct locus_change){back, LOCUS_CHANGE_RECOVER, (uint32_t)idx, LOCUS_NONE, 0};
	return 2;
}

/* ---- merging ------------------------------------------------------------- */

int locus_changes_merge(struct locus_change **out, size_t *n, const struct locus_change *a,
			size_t na, const struct locus_change *b, size_t nb)
{
	if (!out || !n)
		return LOCUS_EINVAL;
	*out = NULL;
	*n = 0;
	if ((na && !a) || (nb && !b))
		return LOCUS_EINVAL;
	if (na > SIZE_MAX - nb)
		return LOCUS_ENOMEM;
	if (na + nb == 0)
		return 0;
	struct locus_change *m = locus__reallocarray(NULL, na + nb, sizeof *m);
	if (!m)
		return LOCUS_ENOMEM;
	size_t i = 0, j = 0, k = 0;
	while (i < na && j < nb)
		m[k++] = b[j].time < a[i].time ? b[j++] : a[i++];
	while (i < na)
		m[k++] = a[i++];
	while (j < nb)
		m[k++] = b[j++];
	*out = m;
	*n = k;
	return 0;
}

/* ---- generating ---------------------------------------------------------- */

/* splitmix64's output function of x + the golden gamma: a bijection that
 * scatters neighbouring inputs. */
static uint64_t mix(uint64_t x)
{
	uint64_t z = x + 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The seed of one resource's generator (docs/formats.md): it depends on
 * the scenario's seed and the resource only, not on the other resources
 * nor on the order they are visited in. */
static uint64_t resource_seed(uint64_t seed, enum locus_change_kind kind, uint32_t node,
			      uint32_t node2)
{
	uint64_t h = mix(seed);
	h = mix(h ^ (uint64_t)kind);
	h = mix(h ^ node);
	return mix(h ^ node2);
}

struct gen {
	struct locus_change *out;
	size_t n, cap;
	const struct locus_variability *v;
	struct locus_error *err;
};

/* Appends one resource's changes: gaps exponential of mean period, each
 * followed by a value 1 - bound * U. A gap that rounds to nothing makes
 * the later value replace the earlier one, so that no resource changes
 * twice at one time (and the sort's key is unique). */
static int gen_resource(struct gen *g, enum locus_change_kind kind, uint32_t node, uint32_t node2)
{
	struct locus_rng rng;
	double t = 0;
	size_t first = g->n;
	locus_rng_init(&rng, resource_seed(g->v->seed, kind, node, node2));
	for (;;) {
		t += locus_rng_exponential(&rng, g->v->period);
		if (!(t < g->v->horizon))
			return 0;
		double value = 1.0 - g->v->bound * locus_rng_uniform(&rng);
		if (g->n > first && g->out[g->n - 1].time == t) {
			g->out[g->n - 1].value = value;
			continue;
		}
		if (g->n >= LOCUS_CHANGES_MAX)
			return locus__err(g->err, LOCUS_ERANGE, NULL, 0, 0,
					  "the scenario has more than %d changes (horizon %g, "
					  "period %g): use a longer period or a shorter horizon",
					  LOCUS_CHANGES_MAX, g->v->horizon, g->v->period);
		if (locus__grow(&g->out, &g->cap, g->n + 1, sizeof *g->out))
			return locus__err(g->err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
		struct locus_change *c = &g->out[g->n++];
		memset(c, 0, sizeof *c); /* padding too: same seed, same bytes */
		c->time = t;
		c->kind = kind;
		c->node = node;
		c->node2 = node2;
		c->value = value;
	}
}

static int cmp_change(const void *x, const void *y)
{
	const struct locus_change *a = x, *b = y;
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	if (a->node2 != b->node2)
		return a->node2 < b->node2 ? -1 : 1;
	return 0;
}

int locus_changes_generate(struct locus_change **out, size_t *n, const struct locus_platform *p,
			   const struct locus_variability *v, struct locus_error *err)
{
	struct gen g = {NULL, 0, 0, v, err};
	int rc = 0;

	if (!out || !n)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "no place for the changes");
	*out = NULL;
	*n = 0;
	if (!p || !v)
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0, "no platform or no variability");
	if (!(v->bound >= 0 && v->bound < 1))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "the variability bound must be in [0, 1), got %g", v->bound);
	if (!(v->period > 0) || !isfinite(v->period))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "the period must be a finite number of seconds > 0, got %g",
				  v->period);
	if (!(v->horizon >= 0) || !isfinite(v->horizon))
		return locus__err(err, LOCUS_EINVAL, NULL, 0, 0,
				  "the horizon must be a finite number of seconds >= 0, got %g",
				  v->horizon);
	if (v->bound == 0)
		return 0; /* every value would be the peak: nothing changes */

	/* Refuse before drawing when the resources alone, or the changes
	 * they are expected to make, pass the cap. */
	size_t procs = 0;
	for (size_t i = 0; i < p->n_nodes; i++)
		procs += p->nodes[i].cores > 0;
	int pairs = p->network == LOCUS_NET_PAIRS;
	double links = !v->links ? 0
		       : pairs	 ? (double)procs * ((double)procs - 1) / 2
				 : (double)p->n_nodes;
	double resources = (double)procs + links;
	if (resources > LOCUS_CHANGES_MAX)
		return locus__err(err, LOCUS_ERANGE, NULL, 0, 0,
				  "%.0f resources would change, more than %d", resources,
				  LOCUS_CHANGES_MAX);
	double expected = resources * (v->horizon / v->period);
	if (expected > LOCUS_CHANGES_MAX)
		return locus__err(err, LOCUS_ERANGE, NULL, 0, 0,
				  "about %.3g changes expected (%.0f resources, horizon %g, "
				  "period %g), more than %d: use a longer period or a shorter "
				  "horizon",
				  expected, resources, v->horizon, v->period, LOCUS_CHANGES_MAX);

	/* The processors' indices, so that pairs cost no more than they are. */
	uint32_t *proc = locus__reallocarray(NULL, procs ? procs : 1, sizeof *proc);
	if (!proc)
		return locus__err(err, LOCUS_ENOMEM, NULL, 0, 0, "out of memory");
	procs = 0;
	for (size_t i = 0; i < p->n_nodes; i++)
		if (p->nodes[i].cores > 0)
			proc[procs++] = (uint32_t)i;
	for (size_t i = 0; !rc && i < procs; i++)
		rc = gen_resource(&g, LOCUS_CHANGE_AVAIL, proc[i], LOCUS_NONE);
	if (v->links && pairs) {
		for (size_t a = 0; !rc && a < procs; a++)
			for (size_t b = a + 1; !rc && b < procs; b++)
				rc = gen_resource(&g, LOCUS_CHANGE_LINK, proc[a], proc[b]);
	} else if (v->links) {
		for (size_t i = 0; !rc && i < p->n_nodes; i++)
			rc = gen_resource(&g, LOCUS_CHANGE_BANDWIDTH, (uint32_t)i, LOCUS_NONE);
	}
	free(proc);
	if (rc) {
		free(g.out);
		return rc;
	}
	/* Keys are unique (gen_resource), so any sort gives the same bytes. */
	if (g.n > 1)
		qsort(g.out, g.n, sizeof *g.out, cmp_change);
	*out = g.out;
	*n = g.n;
	return 0;
}
