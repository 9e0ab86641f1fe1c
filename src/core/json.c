/* Small helpers for messages about JSON input and for writing JSON. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"

void locus__json_number(char *buf, size_t size, double v)
{
	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(buf, size, "%.0f", v);
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	/* JSON wants '.', whatever LC_NUMERIC the program chose. */
	for (char *s = buf; *s; s++)
		if (*s == ',')
			*s = '.';
}

const char *locus__json_quote(char *buf, size_t size, const char *s, size_t max)
{
	size_t n = 0;

	buf[n++] = '"';
	for (size_t i = 0; s[i]; i++) {
		unsigned char ch = (unsigned char)s[i];
		if ((ch & 0xc0) != 0x80 && (i >= max || n + 12 > size)) {
			memcpy(buf + n, "...", 3);
			n += 3;
			break;
		}
		if (n + 4 > size)
			break;
		if (ch < 0x20 || ch == 0x7f)
			ch = '?';
		if (ch == '"' || ch == '\\')
			buf[n++] = '\\';
		buf[n++] = (char)ch;
	}
	buf[n++] = '"';
	buf[n] = 0;
	return buf;
}

const char *locus__json_describe(json_t *v, char *buf, size_t size)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return locus__json_quote(buf, size, json_string_value(v), 40);
	case JSON_INTEGER:
		snprintf(buf, size, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return buf;
	case JSON_REAL:
		locus__json_number(buf, size, json_real_value(v));
		/* Show 4.0 as a real: "expected an integer, got 4" would puzzle. */
		if (!strpbrk(buf, ".eE") && strlen(buf) + 3 <= size)
			strcat(buf, ".0");
		return buf;
	case JSON_TRUE:
		return "true";
	case JSON_FALSE:
		return "false";
	default:
		return "null";
	}
}
