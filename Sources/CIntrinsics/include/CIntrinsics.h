// What Swift cannot reach on its own: glibc's sincos, which Swift's Glibc module does not
// export (it needs _GNU_SOURCE), the compiler's prefetch hints, a vector compare turned into
// bits with one mask move, and a vector maximum in registers.
#ifndef WAYFARE_CINTRINSICS_H
#define WAYFARE_CINTRINSICS_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>

/// Both the sine and the cosine of x in one call: bit-identical to sin and cos, in about
/// 60 % of their time.
static inline void wayfare_sincos(double x, double *s, double *c) {
#if defined(__GLIBC__)
    sincos(x, s, c);
#else
    *s = sin(x);
    *c = cos(x);
#endif
}

/// Asks for the cache line holding p to be fetched for reading. Only a hint: it never
/// faults, so p may point anywhere.
static inline void wayfare_prefetch(const void *p) {
    __builtin_prefetch(p, 0, 3);
}

/// Asks for the cache line holding p to be fetched for writing (owned by this core, so the
/// store that follows does not have to ask again). A hint too: it never faults.
static inline void wayfare_prefetch_for_writing(void *p) {
    __builtin_prefetch(p, 1, 3);
}

/// Tells the core that this thread is spinning on a value another core will change (x86's
/// `pause`, Arm's `yield`): the loop then leaves the core's other hardware thread more room.
static inline void wayfare_spin_hint(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/// Eight floats in a pair of vector registers: Swift sees the type as `SIMD8<Float>`.
typedef float wayfare_float8 __attribute__((ext_vector_type(8)));
typedef _Bool wayfare_bool8 __attribute__((ext_vector_type(8)));

/// The lanes of v equal to x, as bits (lane i is bit i). A vector of booleans cast to a
/// byte, which the compiler makes a compare and a mask move (`movmskps` on x86), where a
/// Swift lane mask can only be turned into bits by summing its lanes.
static inline unsigned wayfare_lanes_equal(wayfare_float8 v, float x) {
    wayfare_bool8 m = __builtin_convertvector(v == x, wayfare_bool8);
    return (unsigned char)__builtin_bit_cast(unsigned char, m);
}

/// The lanes of v at or below x, as bits (lane i is bit i).
static inline unsigned wayfare_lanes_at_most(wayfare_float8 v, float x) {
    wayfare_bool8 m = __builtin_convertvector(v <= x, wayfare_bool8);
    return (unsigned char)__builtin_bit_cast(unsigned char, m);
}

/// For each lane, the gap between the interval [lo, hi] and [qlo, qhi], or 0 where they
/// overlap: max(lo − qhi, qlo − hi, 0). Written with the vector `?:`, which the compiler
/// makes a `maxps` and a masked zero (about six instructions a half, where Swift's
/// sign-bit masks and an add took about ten, and `pointwiseMax` is an out-of-line call).
static inline wayfare_float8 wayfare_gaps(wayfare_float8 lo, wayfare_float8 hi, wayfare_float8 qlo, wayfare_float8 qhi) {
    wayfare_float8 below = lo - qhi, above = qlo - hi, zero = 0;
    wayfare_float8 gap = below > above ? below : above;
    return gap > zero ? gap : zero;
}

#endif
