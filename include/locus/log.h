/*
 * Debug logging with per-part flags.
 *
 * The environment variable LOCUS_DEBUG selects the parts that log, as a
 * comma-separated list of names ("core,locality,place") or "all". Messages
 * go to stderr, or to a sink set with locus_log_set_sink(); the library
 * never writes to stdout.
 */
#ifndef LOCUS_LOG_H
#define LOCUS_LOG_H

#ifdef __cplusplus
extern "C" {
#endif

enum locus_log_part {
	LOCUS_LOG_CORE = 1u << 0,
	LOCUS_LOG_LOCALITY = 1u << 1,
	LOCUS_LOG_PLACE = 1u << 2,
	LOCUS_LOG_SCHED = 1u << 3,
	LOCUS_LOG_SIM = 1u << 4,
	LOCUS_LOG_MPI = 1u << 5,
	LOCUS_LOG_DIVISIBLE = 1u << 6,
	LOCUS_LOG_DAG = 1u << 7,
	LOCUS_LOG_FLOW = 1u << 8,
	LOCUS_LOG_REPORT = 1u << 9,
	LOCUS_LOG_ALL = 0xffffu
};

/* Receives one formatted message (no trailing newline). */
typedef void (*locus_log_sink_fn)(unsigned part, const char *message, void *user);

/* Parses a LOCUS_DEBUG-style list into part flags. Unknown names are
 * ignored. NULL or "" gives 0. */
unsigned locus_log_parse(const char *list);

/* Sets the enabled parts, overriding LOCUS_DEBUG. */
void locus_log_set_parts(unsigned parts);

/* Returns the enabled parts (read from LOCUS_DEBUG on first use). */
unsigned locus_log_parts(void);

/* Replaces the sink; NULL restores the stderr sink. */
void locus_log_set_sink(locus_log_sink_fn fn, void *user);

/* Logs a printf-style message for `part` if that part is enabled. */
void locus_log(unsigned part, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif
#endif
