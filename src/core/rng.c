/*
 * xoshiro256** (Blackman and Vigna, 2018) seeded through splitmix64, so that
 * every seed, including 0, gives a well-mixed state.
 */
#include <math.h>
#include <string.h>

#include "locus/rng.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void locus_rng_init(struct locus_rng *rng, uint64_t seed)
{
	uint64_t x = seed;
	for (int i = 0; i < 4; i++)
		rng->s[i] = splitmix64(&x);
}

uint64_t locus_rng_next(struct locus_rng *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t locus_rng_below(struct locus_rng *rng, uint64_t bound)
{
	if (bound == 0)
		return 0;
	/* Rejection on the top of the range keeps every value equally likely. */
	uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
	uint64_t x;
	do
		x = locus_rng_next(rng);
	while (x >= limit);
	return x % bound;
}

double locus_rng_uniform(struct locus_rng *rng)
{
	return (double)(locus_rng_next(rng) >> 11) * 0x1.0p-53;
}

double locus_rng_normal(struct locus_rng *rng)
{
	double u, v, s;
	do {
		u = 2.0 * locus_rng_uniform(rng) - 1.0;
		v = 2.0 * locus_rng_uniform(rng) - 1.0;
		s = u * u + v * v;
	} while (s >= 1.0 || s == 0.0);
	return u * sqrt(-2.0 * log(s) / s);
}

double locus_rng_exponential(struct locus_rng *rng, double mean)
{
	/* 1 - U is in (0, 1], so the log is finite. */
	return -mean * log(1.0 - locus_rng_uniform(rng));
}

void locus_rng_shuffle(struct locus_rng *rng, void *base, size_t n, size_t size)
{
	unsigned char *a = base;
	unsigned char tmp[64];
	if (n < 2)
		return;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)locus_rng_below(rng, (uint64_t)i + 1);
		if (j == i)
			continue;
		/* Swap in pieces so any element size works without allocation. */
		for (size_t off = 0; off < size; off += sizeof tmp) {
			size_t k = size - off < sizeof tmp ? size - off : sizeof tmp;
			memcpy(tmp, a + i * size + off, k);
			memcpy(a + i * size + off, a + j * size + off, k);
			memcpy(a + j * size + off, tmp, k);
		}
	}
}
