// Eight double lanes (AVX-512F) for the host's pair loops, chosen at run time: the project is
// compiled without -march, so the functions that use them carry target("avx512f")
// (FS_LANES_TARGET) and run only where available() says so. The GPU and other hosts run the
// scalar bodies. Users: sph_simd.hpp (density and forces), euler_simd.hpp (the partner search).
#pragma once

#if !defined(__CUDACC__) && defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define FS_LANES_AVX512 1
#endif

namespace fs::lanes {

#if defined(FS_LANES_AVX512)

// Whether this host runs the eight-lane functions.
inline bool available() {
    static const bool avx512 = __builtin_cpu_supports("avx512f");
    return avx512;
}

#define FS_LANES_TARGET __attribute__((target("avx512f"))) inline

// The first n of 8 lanes.
FS_LANES_TARGET __mmask8 first_lanes(int n) { return n >= 8 ? __mmask8(0xFF) : __mmask8((1u << n) - 1u); }

// Four points or fewer of an array of (x, y) pairs (p: its first x), a to a + na - 1 in lanes 0..3
// and b to b + nb - 1 in lanes 4..7, as their x and y apart; the other lanes read nothing and
// hold 0.
FS_LANES_TARGET void load_points(const double* p, int a, int na, int b, int nb, __m512d& x, __m512d& y) {
    const __m512i even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
    const __m512i odd = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
    const __m512d lo = _mm512_maskz_loadu_pd(static_cast<__mmask8>((1u << (2 * na)) - 1u), p + 2 * a);
    const __m512d hi = _mm512_maskz_loadu_pd(static_cast<__mmask8>((1u << (2 * nb)) - 1u), p + 2 * b);
    x = _mm512_permutex2var_pd(lo, even, hi);
    y = _mm512_permutex2var_pd(lo, odd, hi);
}

// Points j .. j+7 (lanes past the first `left` read nothing and hold 0).
FS_LANES_TARGET void load_points(const double* p, int j, int left, __m512d& x, __m512d& y) {
    load_points(p, j, left < 4 ? left : 4, j + 4, left < 4 ? 0 : left < 8 ? left - 4 : 4, x, y);
}

#else

inline bool available() { return false; }

#endif

}  // namespace fs::lanes
