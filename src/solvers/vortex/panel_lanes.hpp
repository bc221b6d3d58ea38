// The panels' sums at the particles (BoundaryElements::add_to_tracers, add_to_vortons) four panels
// at a time: the panels as structure-of-arrays doubles, each body's padded to whole lanes, and one
// kernel body over a lane type, one double (the CUDA threads, hosts without AVX2, the tests'
// comparisons) or four (hosts with AVX2 and FMA, chosen at run time; the project is compiled
// without -march, so the wide instantiation is compiled in a function carrying target("avx2,fma")
// and flatten, as the direct sum's lanes, direct_sum.hpp).
//
// Each lane takes the point source of a panel beyond add_panel_coarse's one panel size (tracers)
// or add_panel's four (vortons) (Hess and Smith 1967: a panel of source density q and area A seen
// from afar as a point source of strength q A); a lane nearer is masked out and that panel taken,
// one at a time, by add_panel's quadrature, its 16 or 64 points (precomputed per panel:
// quadrature_points) in lanes. The wide lanes' 1/sqrt is the float estimate (12 bits) with two
// Newton steps in double, y (3 - r^2 y^2) / 2, each squaring the relative error: below 1e-13, and
// the sums differ from add_panel's panel-by-panel ones only in their order (within 1e-14 in
// tests/test_vortex_panels.cpp, LaneSumsMatchThePanelByPanelSums).
//
// Why: the plate over flames under boundary elements spent 77% of a step (150 ms on one thread,
// 49 000 tracers, 348 panels) in the scalar tracer sum, 26 cycles a tracer and panel, and 17% in
// the vortons' (their quadrature).
#pragma once

#include <cmath>
#include <vector>

#include "core/buffer.hpp"
#include "core/hd.hpp"
#include "solvers/vortex/panel_kernels.hpp"
#include "solvers/vortex/vortex_kernels.hpp"  // kMaxBodies

#if !defined(__CUDACC__) && defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define FS_PANEL_AVX2 1
#endif

namespace fs::vortex::panel_lanes {

constexpr int kWidest = 4;  // every body's panels padded to a multiple of this
enum Component : int { kX, kY, kZ, kStrength, kNear2, kArea, kNX, kNY, kNZ, kComponents };
// add_panel's quadrature points of each panel: level 2's 16 sub-triangle centroids, then level
// 3's 64, in add_panel's order; coordinate c of point k of panel p at
// quad[(p * 3 + c) * kQuadPoints + k] (quadrature_points).
constexpr int kLevel2 = 16, kLevel3 = 64, kQuadPoints = kLevel2 + kLevel3;

// What a tracer reads: component c of padded panel j at d[c * padded + j]; body b's panels are
// begin[b] .. end[b] - 1 (padded), the first of them the body's panel first[b] in the Panel array.
struct Sources {
    const double* d = nullptr;
    const double* quad = nullptr;
    int padded = 0;
    int begin[kMaxBodies] = {0, 0, 0, 0}, end[kMaxBodies] = {0, 0, 0, 0}, first[kMaxBodies] = {0, 0, 0, 0};
    FS_HDI const double* comp(int c) const { return d + static_cast<std::size_t>(c) * padded; }
};

// One double.
struct D1 {
    using F = double;
    static constexpr int W = 1;
    FS_HDI static F load(const double* p) { return *p; }
    FS_HDI static F bcast(double x) { return x; }
    FS_HDI static F rsqrt(F q) { return 1.0 / std::sqrt(q); }
    // a where bound <= x, else 0.
    FS_HDI static F keep_from(F a, F x, F bound) { return bound <= x ? a : 0.0; }
    // The lanes where x < bound, as bits.
    FS_HDI static unsigned below(F x, F bound) { return x < bound ? 1u : 0u; }
    // x < bound ? a : b.
    FS_HDI static F pick_below(F x, F bound, F a, F b) { return x < bound ? a : b; }
    FS_HDI static double sum(F a) { return a; }
};

#if defined(FS_PANEL_AVX2)
#define FS_PANEL_AVX2_FN __attribute__((target("avx2,fma"))) inline
struct D4v {
    __m256d v;
    FS_PANEL_AVX2_FN friend D4v operator+(D4v a, D4v b) { return {_mm256_add_pd(a.v, b.v)}; }
    FS_PANEL_AVX2_FN friend D4v operator-(D4v a, D4v b) { return {_mm256_sub_pd(a.v, b.v)}; }
    FS_PANEL_AVX2_FN friend D4v operator*(D4v a, D4v b) { return {_mm256_mul_pd(a.v, b.v)}; }
};
// Four doubles (AVX2 + FMA).
struct D4 {
    using F = D4v;
    static constexpr int W = 4;
    FS_PANEL_AVX2_FN static F load(const double* p) { return {_mm256_loadu_pd(p)}; }
    FS_PANEL_AVX2_FN static F bcast(double x) { return {_mm256_set1_pd(x)}; }
    // The float estimate, then y (3 - q y^2) / 2 twice (relative error 4e-4, 2e-7, 6e-14).
    FS_PANEL_AVX2_FN static F rsqrt(F q) {
        __m256d y = _mm256_cvtps_pd(_mm_rsqrt_ps(_mm256_cvtpd_ps(q.v)));
        const __m256d half = _mm256_set1_pd(0.5), three = _mm256_set1_pd(3.0);
        for (int k = 0; k < 2; ++k) {
            const __m256d qy2 = _mm256_mul_pd(_mm256_mul_pd(q.v, y), y);
            y = _mm256_mul_pd(_mm256_mul_pd(half, y), _mm256_sub_pd(three, qy2));
        }
        return {y};
    }
    FS_PANEL_AVX2_FN static F keep_from(F a, F x, F bound) {
        return {_mm256_and_pd(a.v, _mm256_cmp_pd(bound.v, x.v, _CMP_LE_OQ))};
    }
    FS_PANEL_AVX2_FN static unsigned below(F x, F bound) {
        return static_cast<unsigned>(_mm256_movemask_pd(_mm256_cmp_pd(x.v, bound.v, _CMP_LT_OQ)));
    }
    FS_PANEL_AVX2_FN static F pick_below(F x, F bound, F a, F b) {
        return {_mm256_blendv_pd(b.v, a.v, _mm256_cmp_pd(x.v, bound.v, _CMP_LT_OQ))};
    }
    // The lanes' sum in a fixed order.
    FS_PANEL_AVX2_FN static double sum(F a) {
        const __m128d h = _mm_add_pd(_mm256_castpd256_pd128(a.v), _mm256_extractf128_pd(a.v, 1));
        return _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
    }
};
#endif

// What the lanes gather (without the 1 / (4 pi)): velocity, and for a vorton the stretching of
// its vorticity w and the field term's sum of A / |r| (times the panel's normal once per panel).
template <class L>
struct Gathered {
    using F = typename L::F;
    F ux, uy, uz, sx, sy, sz;
    FS_HDI explicit Gathered(F zero) : ux(zero), uy(zero), uz(zero), sx(zero), sy(zero), sz(zero) {}
};

// A panel's quadrature points k0 .. k1 - 1 (add_panel: level 2 is 0 .. 16, level 3 16 .. 80) at x,
// each a point source of q A / (the level's count) (add_point_source). add_panel's floor: a
// point nearer than sqrt(floor2) is moved out to it along r: r_f = r sqrt(floor2) / |r|, whose
// source gives s r_f / |r_f|^3 = s r / (|r| floor2), the same stretching direction and, for the
// field, 1 / |r_f| = 1 / sqrt(floor2). Returns the field's sum of the points' weight / |r_f|
// (kVorton only).
template <class L, bool kVorton>
FS_HDI double quadrature_sums(const double* pts, int k0, int k1, const Panel& p, double q, typename L::F xx,
                              typename L::F xy, typename L::F xz, typename L::F wx, typename L::F wy,
                              typename L::F wz, Gathered<L>& out) {
    using F = typename L::F;
    const int n = k1 - k0 == kLevel2 ? 4 : 8;
    const double weight = p.area / (n * n);
    const F strength = L::bcast(q * weight);
    const double floor2 = 0.01 * (p.size / n) * (p.size / n);
    const F f2 = L::bcast(floor2), inv_f2 = L::bcast(1.0 / floor2), one = L::bcast(1.0);
    const F root_f = L::bcast(std::sqrt(floor2)), inv_root_f = L::bcast(1.0 / std::sqrt(floor2));
    const F inv_f3 = L::bcast(1.0 / (floor2 * std::sqrt(floor2))), three = L::bcast(3.0);
    F field = L::bcast(0.0);
    for (int k = k0; k < k1; k += L::W) {
        const F dx = xx - L::load(pts + k), dy = xy - L::load(pts + kQuadPoints + k),
                dz = xz - L::load(pts + 2 * kQuadPoints + k);
        const F r2 = dx * dx + dy * dy + dz * dz;
        const F g = L::rsqrt(r2);
        if constexpr (!kVorton) {
            const F c = strength * g * L::pick_below(r2, f2, inv_f2, g * g);
            out.ux = out.ux + c * dx;
            out.uy = out.uy + c * dy;
            out.uz = out.uz + c * dz;
        } else {
            const F g2 = g * g;
            const F ks = strength * L::pick_below(r2, f2, inv_f3, g2 * g);  // s / |r_f|^3
            const F c = ks * L::pick_below(r2, f2, root_f * g, one);        // times |r_f| / |r|
            out.ux = out.ux + c * dx;
            out.uy = out.uy + c * dy;
            out.uz = out.uz + c * dz;
            const F t = three * (dx * wx + dy * wy + dz * wz) * g2;  // 3 (r . w) / r^2
            out.sx = out.sx + ks * (wx - t * dx);
            out.sy = out.sy + ks * (wy - t * dy);
            out.sz = out.sz + ks * (wz - t * dz);
            field = field + L::pick_below(r2, f2, inv_root_f, g);
        }
    }
    if constexpr (kVorton) return weight * L::sum(field);
    return 0.0;
}

// Body b's panels at the vorton x of vorticity w: add_panel's velocity, stretching and field term
// (want_stretch, want_field), the point source in lanes beyond four panel sizes, the quadrature
// points of level 2 or 3 in lanes nearer (one panel at a time).
template <class L>
FS_HDI PanelInduced vorton_panels(const Sources& s, int b, const Panel* panels, const double* q, glm::dvec3 x,
                                  glm::dvec3 w) {
    using F = typename L::F;
    const F xx = L::bcast(x.x), xy = L::bcast(x.y), xz = L::bcast(x.z), zero = L::bcast(0.0);
    const F wx = L::bcast(w.x), wy = L::bcast(w.y), wz = L::bcast(w.z), three = L::bcast(3.0),
            sixteen = L::bcast(16.0);
    const double *px = s.comp(kX), *py = s.comp(kY), *pz = s.comp(kZ), *ps = s.comp(kStrength),
                 *pn = s.comp(kNear2), *pa = s.comp(kArea), *nx = s.comp(kNX), *ny = s.comp(kNY), *nz = s.comp(kNZ);
    Gathered<L> acc(zero);
    F fx = zero, fy = zero, fz = zero;
    glm::dvec3 field(0.0);
    for (int j = s.begin[b]; j < s.end[b]; j += L::W) {
        const F dx = xx - L::load(px + j), dy = xy - L::load(py + j), dz = xz - L::load(pz + j);
        const F r2 = dx * dx + dy * dy + dz * dz;
        const F reach2 = sixteen * L::load(pn + j);  // (4 sizes)^2: nearer, the quadrature
        const F g = L::rsqrt(r2);
        const F g2 = g * g;
        const F k = L::keep_from(L::load(ps + j) * (g2 * g), r2, reach2);
        acc.ux = acc.ux + k * dx;
        acc.uy = acc.uy + k * dy;
        acc.uz = acc.uz + k * dz;
        const F t = three * (dx * wx + dy * wy + dz * wz) * g2;
        acc.sx = acc.sx + k * (wx - t * dx);
        acc.sy = acc.sy + k * (wy - t * dy);
        acc.sz = acc.sz + k * (wz - t * dz);
        const F a = L::keep_from(L::load(pa + j) * g, r2, reach2);  // A / |r|, times the normal
        fx = fx + a * L::load(nx + j);
        fy = fy + a * L::load(ny + j);
        fz = fz + a * L::load(nz + j);
        const unsigned m = L::below(r2, reach2);
        if (m != 0u)
            for (int l = 0; l < L::W; ++l)
                if ((m >> l) & 1u) {
                    const int p = s.first[b] + (j - s.begin[b]) + l;
                    const Panel& panel = panels[p];
                    const glm::dvec3 d = x - panel.centre;
                    const bool fine = glm::dot(d, d) <= panel.size * panel.size;  // add_panel's level 3
                    const double f = quadrature_sums<L, true>(s.quad + static_cast<std::size_t>(p) * 3 * kQuadPoints,
                                                              fine ? kLevel2 : 0, fine ? kQuadPoints : kLevel2, panel,
                                                              q[p], xx, xy, xz, wx, wy, wz, acc);
                    field += f * panel.normal;
                }
    }
    const double c = 1.0 / (4.0 * 3.14159265358979323846);
    PanelInduced out;
    out.u = c * glm::dvec3(L::sum(acc.ux), L::sum(acc.uy), L::sum(acc.uz));
    out.stretch = c * glm::dvec3(L::sum(acc.sx), L::sum(acc.sy), L::sum(acc.sz));
    out.field = c * (glm::dvec3(L::sum(fx), L::sum(fy), L::sum(fz)) + field);
    return out;
}

// Body b's panels' velocity at x: point sources s r / (4 pi |r|^3) (add_point_source) in lanes
// where |r| >= the panel's size, add_panel's quadrature where nearer.
template <class L>
FS_HDI glm::dvec3 tracer_panels(const Sources& s, int b, const Panel* panels, const double* q, glm::dvec3 x) {
    using F = typename L::F;
    const F xx = L::bcast(x.x), xy = L::bcast(x.y), xz = L::bcast(x.z), zero = L::bcast(0.0);
    const double *px = s.comp(kX), *py = s.comp(kY), *pz = s.comp(kZ), *ps = s.comp(kStrength),
                 *pn = s.comp(kNear2);
    F ux = zero, uy = zero, uz = zero;
    Gathered<L> near(zero);
    for (int j = s.begin[b]; j < s.end[b]; j += L::W) {
        const F dx = xx - L::load(px + j), dy = xy - L::load(py + j), dz = xz - L::load(pz + j);
        const F r2 = dx * dx + dy * dy + dz * dz;
        const F near2 = L::load(pn + j);
        const F g = L::rsqrt(r2);
        const F k = L::keep_from(L::load(ps + j) * (g * g * g), r2, near2);
        ux = ux + k * dx;
        uy = uy + k * dy;
        uz = uz + k * dz;
        const unsigned m = L::below(r2, near2);
        if (m != 0u)
            for (int l = 0; l < L::W; ++l)
                if ((m >> l) & 1u) {
                    const int p = s.first[b] + (j - s.begin[b]) + l;
                    quadrature_sums<L, false>(s.quad + static_cast<std::size_t>(p) * 3 * kQuadPoints, kLevel2,
                                              kQuadPoints, panels[p], q[p], xx, xy, xz, zero, zero, zero, near);
                }
    }
    return (1.0 / (4.0 * 3.14159265358979323846)) * glm::dvec3(L::sum(ux) + L::sum(near.ux),
                                                               L::sum(uy) + L::sum(near.uy),
                                                               L::sum(uz) + L::sum(near.uz));
}

#if defined(FS_PANEL_AVX2)
__attribute__((target("avx2,fma"), flatten)) inline glm::dvec3 tracer_panels_avx2(const Sources& s, int b,
                                                                                  const Panel* panels,
                                                                                  const double* q, glm::dvec3 x) {
    return tracer_panels<D4>(s, b, panels, q, x);
}
__attribute__((target("avx2,fma"), flatten)) inline PanelInduced vorton_panels_avx2(const Sources& s, int b,
                                                                                    const Panel* panels,
                                                                                    const double* q, glm::dvec3 x,
                                                                                    glm::dvec3 w) {
    return vorton_panels<D4>(s, b, panels, q, x, w);
}
// Whether this host runs the four-lane body.
inline bool host_has_avx2() {
    static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return ok;
}
#endif

// add_panel's quadrature points of the placed panels (kQuadPoints above), host.
inline void quadrature_points(const std::vector<Panel>& world, std::vector<double>& out) {
    out.resize(world.size() * 3 * kQuadPoints);
    for (std::size_t p = 0; p < world.size(); ++p) {
        const Panel& w = world[p];
        double* o = out.data() + p * 3 * kQuadPoints;
        int k = 0;
        for (int level = 2; level <= 3; ++level) {
            const int n = 1 << level;
            const glm::dvec3 eu = (w.b - w.a) / double(n), ev = (w.c - w.a) / double(n);
            for (int i = 0; i < n; ++i)
                for (int j = 0; i + j < n; ++j)
                    for (int up = 0; up < 2; ++up) {
                        if (up == 1 && i + j + 1 >= n) continue;
                        const double f = up == 0 ? 1.0 / 3.0 : 2.0 / 3.0;
                        const glm::dvec3 y = w.a + (i + f) * eu + (j + f) * ev;
                        o[k] = y.x, o[kQuadPoints + k] = y.y, o[2 * kQuadPoints + k] = y.z;
                        ++k;
                    }
        }
    }
}

// The sources in the layout above from the placed panels and their strengths (host).
inline void pack(const std::vector<Panel>& world, const std::vector<double>& q, const int* begin, const int* end,
                 std::vector<double>& out, Sources& s) {
    int padded = 0;
    for (int b = 0; b < kMaxBodies; ++b) {
        s.begin[b] = padded;
        s.first[b] = begin[b];
        padded += (end[b] - begin[b] + kWidest - 1) / kWidest * kWidest;
        s.end[b] = padded;
    }
    s.padded = padded;
    // Padding: no strength, never near, far from anything (no 0 / 0).
    out.assign(static_cast<std::size_t>(padded) * kComponents, 0.0);
    for (int j = 0; j < padded; ++j) out[kX * static_cast<std::size_t>(padded) + j] = 1e9;
    for (int b = 0; b < kMaxBodies; ++b)
        for (int i = begin[b]; i < end[b]; ++i) {
            const std::size_t j = static_cast<std::size_t>(s.begin[b] + (i - begin[b]));
            const Panel& p = world[i];
            const double v[kComponents] = {p.centre.x, p.centre.y, p.centre.z, q[i] * p.area, p.size * p.size,
                                           p.area,     p.normal.x, p.normal.y, p.normal.z};
            for (int c = 0; c < kComponents; ++c) out[c * static_cast<std::size_t>(padded) + j] = v[c];
        }
}

}  // namespace fs::vortex::panel_lanes
