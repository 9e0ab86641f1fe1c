/*
 * Seeded pseudo-random generator (xoshiro256**, seeded through splitmix64).
 *
 * Each instance that makes random choices owns a `struct locus_rng`; there
 * is no global generator, so the same seed gives the same sequence on every
 * platform. The caller allocates the struct (locus_rng_init, no _fini).
 */
#ifndef LOCUS_RNG_H
#define LOCUS_RNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct locus_rng {
	uint64_t s[4];
};

/* Seeds the generator. Any 64-bit seed is valid, including 0. */
void locus_rng_init(struct locus_rng *rng, uint64_t seed);

/* Next 64 random bits. */
uint64_t locus_rng_next(struct locus_rng *rng);

/* Uniform integer in [0, bound), unbiased. bound 0 returns 0. */
uint64_t locus_rng_below(struct locus_rng *rng, uint64_t bound);

/* Uniform double in [0, 1) with 53 random bits. */
double locus_rng_uniform(struct locus_rng *rng);

/* Standard normal deviate (Marsaglia polar method, no cached value, so
 * the sequence depends only on the seed and the calls made). */
double locus_rng_normal(struct locus_rng *rng);

/* Exponential deviate with the given mean (> 0). */
double locus_rng_exponential(struct locus_rng *rng, double mean);

/* Shuffles `n` elements of `size` bytes in place (Fisher-Yates). */
void locus_rng_shuffle(struct locus_rng *rng, void *base, size_t n, size_t size);

#ifdef __cplusplus
}
#endif
#endif
