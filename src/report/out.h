/*
 * What the report writers share (internal to src/report): a buffered
 * writer into a FILE, numbers written exactly and independently of the
 * locale, JSON strings and XML text escaped, and the result's derived
 * ratios.
 *
 * The writer keeps the first error (rc) and drops every later write, so a
 * report is written straight through and its status read once at the end.
 */
#ifndef LOCUS_REPORT_OUT_H
#define LOCUS_REPORT_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "locus/sim.h"

struct locus__out {
	FILE *fp;
	char *buf;
	size_t len, cap;
	int rc; /* first error: LOCUS_EIO or LOCUS_ENOMEM */
};

/* Starts writing to `fp` (rc is LOCUS_ENOMEM when no buffer could be had). */
void locus__out_init(struct locus__out *o, FILE *fp);
/* Flushes, frees the buffer and returns the first error, or 0. */
int locus__out_fini(struct locus__out *o);
/* Writes what is buffered to the FILE. */
void locus__out_flush(struct locus__out *o);
void locus__out_write_slow(struct locus__out *o, const char *s, size_t n);

static inline void locus__out_write(struct locus__out *o, const char *s, size_t n)
{
	if (o->len + n > o->cap) {
		locus__out_write_slow(o, s, n);
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static inline void locus__out_str(struct locus__out *o, const char *s)
{
	locus__out_write(o, s, strlen(s));
}

static inline void locus__out_char(struct locus__out *o, char c)
{
	locus__out_write(o, &c, 1);
}

/* Writes an unsigned or signed integer in decimal. */
void locus__out_u64(struct locus__out *o, uint64_t v);
void locus__out_i64(struct locus__out *o, int64_t v);

/* `"k": ` for a key `k` that needs no escaping. */
void locus__out_key(struct locus__out *o, const char *k);
/* `"k": v` with v an exact number (null when not finite) or an integer. */
void locus__out_field_num(struct locus__out *o, const char *k, double v);
void locus__out_field_u64(struct locus__out *o, const char *k, uint64_t v);
/* "wait": {"mean": .., "p50": .., "p99": .., "max": ..} of a result. */
/* "problems": [...] of r (its locality source's reports on its data),
 * each entry on a line of its own after `indent`, the closing bracket on
 * one after `close`: dataset, chunk (null: the whole dataset), missing,
 * under_construction, corrupt, detail. */
void locus__out_problems(struct locus__out *o, const struct locus_result *r, const char *indent,
			 const char *close);
void locus__out_wait(struct locus__out *o, const struct locus_result *r);
/* A seed as a JSON integer; above 2^63 - 1 as a string of digits, since
 * readers with signed 64-bit integers (jansson) refuse larger ones. */
void locus__out_seed(struct locus__out *o, uint64_t seed);

/* Room for any text the locus__fmt_* functions write, with its NUL. */
#define LOCUS__NUM_MAX 40

/*
 * Writes the shortest of the %.15g, %.16g and %.17g forms of finite `v`
 * that reads back as exactly `v`, with '.' whatever the locale: the same
 * bytes as locus__json_number, about ten times faster. Integral values
 * below 1e15 have no decimal point. Returns the length.
 */
size_t locus__fmt_number(char *buf, double v);
/* `v` rounded to `decimals` (0 to 9) places; with `trim`, trailing zeros
 * and a bare point are dropped. Non-finite values write "0". */
size_t locus__fmt_fixed(char *buf, double v, int decimals, int trim);
/* A fraction as a percentage with one decimal (trimmed), or "-" when it
 * is not finite (nothing to count). */
size_t locus__fmt_percent(char *buf, double fraction);
/* `v` with about four significant digits, for labels ("0.0123", "1234"). */
size_t locus__fmt_short(char *buf, double v);

/* An exact number for JSON: null when `v` is not finite. */
void locus__out_num(struct locus__out *o, double v);
/* An exact number for CSV: nothing (an empty field) when not finite. */
void locus__out_csv_num(struct locus__out *o, double v);
void locus__out_fixed(struct locus__out *o, double v, int decimals);
void locus__out_short(struct locus__out *o, double v);

/* `s[0..n)` as a JSON string in double quotes: '"', '\' and control
 * characters escaped, bytes that are not UTF-8 written as U+FFFD. */
void locus__out_json_str(struct locus__out *o, const char *s, size_t n);
/* `s[0..n)` as XML character data (also fine in a quoted attribute):
 * markup characters as entities, control characters as '?', bytes that are
 * not UTF-8 as U+FFFD. */
void locus__out_xml(struct locus__out *o, const char *s, size_t n);

/* The length of the policy name (r->policy need not end with a NUL). */
size_t locus__policy_len(const struct locus_result *r);

/* a / b, or NaN (written as null, "-" or nothing) when b <= 0 or either
 * is not finite. */
double locus__ratio(double a, double b);
/* makespan over its lower bound; local tasks over all tasks; local tasks
 * over the most any balanced assignment keeps local (NaN when not
 * computed; above 1 when the run unbalanced the loads). */
double locus__makespan_ratio(const struct locus_result *r);
double locus__local_fraction(const struct locus_result *r);
double locus__local_vs_balanced(const struct locus_result *r);
/* A workflow's inputs by where they came from, as its stage table counts
 * them: on the task's node, from peers, from the shared file system, and
 * the outputs written to it. A run without stages: its chunk tasks'
 * local and remote bytes (fs and out 0). */
struct locus__bytes {
	uint64_t local, peer, fs, out;
};
struct locus__bytes locus__input_bytes(const struct locus_result *r);

/* The result and comparison documents' versions. The keys of the
 * locality bound were "optimal_local_tasks" and "local_vs_optimal" in
 * versions 1 to 3; an online schedule that unbalances the loads beats
 * that "optimum" (the best balanced assignment), so versions 4 (chunk
 * tasks, was 1) and 5 (task graphs, platform changes, failures, was 2)
 * call them "balanced_local_tasks" and "local_vs_balanced", and version 6
 * (workflows, was 3) likewise. */
#define LOCUS__RESULT_VERSION_CHUNKS 4
#define LOCUS__RESULT_VERSION_DAG    5
#define LOCUS__RESULT_VERSION_FLOW   6

#endif
