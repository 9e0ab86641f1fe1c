/*
 * A small test harness. Each test file defines TEST(name) functions and
 * lists them in a TESTS table; main runs them all (or those named on the
 * command line) and ends with "N passed, N failed".
 */
#ifndef LOCUS_TEST_H
#define LOCUS_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int test__failures;

#define TEST(name) static void test_##name(void)

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
			test__failures++;                                                          \
			return;                                                                    \
		}                                                                                  \
	} while (0)

#define CHECK_EQ_INT(a, b)                                                                         \
	do {                                                                                       \
		long long a_ = (long long)(a), b_ = (long long)(b);                                \
		if (a_ != b_) {                                                                    \
			fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__,        \
				__LINE__, #a, #b, a_, b_);                                         \
			test__failures++;                                                          \
			return;                                                                    \
		}                                                                                  \
	} while (0)

#define CHECK_EQ_STR(a, b)                                                                         \
	do {                                                                                       \
		const char *a_ = (a), *b_ = (b);                                                   \
		if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                           \
			fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__,    \
				__LINE__, #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)");         \
			test__failures++;                                                          \
			return;                                                                    \
		}                                                                                  \
	} while (0)

#define CHECK_NEAR(a, b, tol)                                                                      \
	do {                                                                                       \
		double a_ = (a), b_ = (b);                                                         \
		if (!(fabs(a_ - b_) <= (tol))) {                                                   \
			fprintf(stderr, "%s:%d: %s ~ %s failed: %.17g != %.17g\n", __FILE__,       \
				__LINE__, #a, #b, a_, b_);                                         \
			test__failures++;                                                          \
			return;                                                                    \
		}                                                                                  \
	} while (0)

struct test__case {
	const char *name;
	void (*fn)(void);
};

#define TEST_ENTRY(name)                                                                           \
	{                                                                                          \
#name, test_##name                                                                 \
	}

#define TEST_MAIN(...)                                                                             \
	int test__failures;                                                                        \
	static const struct test__case test__cases[] = {__VA_ARGS__};                              \
	int main(int argc, char **argv)                                                            \
	{                                                                                          \
		int passed = 0, failed = 0;                                                        \
		for (size_t i = 0; i < sizeof(test__cases) / sizeof(test__cases[0]); i++) {        \
			int want = argc < 2;                                                       \
			for (int a = 1; a < argc; a++)                                             \
				if (strcmp(argv[a], test__cases[i].name) == 0)                     \
					want = 1;                                                  \
			if (!want)                                                                 \
				continue;                                                          \
			int before = test__failures;                                               \
			test__cases[i].fn();                                                       \
			if (test__failures > before) {                                             \
				failed++;                                                          \
				fprintf(stderr, "FAIL %s\n", test__cases[i].name);                 \
			} else {                                                                   \
				passed++;                                                          \
			}                                                                          \
		}                                                                                  \
		printf("%d passed, %d failed\n", passed, failed);                                  \
		return failed ? 1 : 0;                                                             \
	}

#endif
