/* JSON helpers shared inside the library (jansson). */
#ifndef LOCUS_CORE_JSON_H
#define LOCUS_CORE_JSON_H

#include <jansson.h>
#include <stddef.h>

/* Writes the shortest text that reads back as exactly `v` (finite), in
 * JSON syntax ('.' as the decimal point whatever the locale). */
void locus__json_number(char *buf, size_t size, double v);

/* `s` in double quotes for a message: at most about `max` bytes (cut at a
 * character boundary), control characters shown as '?'. Returns buf. */
const char *locus__json_quote(char *buf, size_t size, const char *s, size_t max);

/* What a JSON value is, for "expected ..., got X" messages. */
const char *locus__json_describe(json_t *v, char *buf, size_t size);

#endif
