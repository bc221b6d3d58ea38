// The vortex solver's direct sum (direct_sum.hpp: float tiles over structure-of-arrays sources,
// joined in double) against a plain all-double sum written here; its independence of the thread
// count; and that a vorton's own pair adds nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/backend.hpp"
#include "core/exec_cpu.hpp"
#include "solvers/vortex/direct_sum.hpp"

namespace {

using fs::Buffer;
using fs::CpuExec;
using fs::MemorySpace;
using glm::dvec3;
namespace vx = fs::vortex;

double rng_uniform(std::uint64_t& state) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) * 0x1.0p-53;
}
dvec3 rng_vec(std::uint64_t& st) { return dvec3(rng_uniform(st), rng_uniform(st), rng_uniform(st)); }

struct Cloud {
    std::vector<dvec3> pos, omega, tpos;
    std::vector<double> radius;
};

// Vortons in a unit cube around `centre` with cores from 0.02 to 0.08 (so neighbours overlap
// and the diffusion kernel reaches some), random vorticity; tracers in the same cube.
Cloud random_cloud(int vortons, int tracers, std::uint64_t seed, dvec3 centre = dvec3(0.0)) {
    Cloud c;
    std::uint64_t st = seed;
    for (int k = 0; k < vortons; ++k) {
        c.pos.push_back(centre + rng_vec(st) - 0.5);
        c.omega.push_back(10.0 * (rng_vec(st) - 0.5));
        c.radius.push_back(0.02 + 0.06 * rng_uniform(st));
    }
    for (int k = 0; k < tracers; ++k) c.tpos.push_back(centre + rng_vec(st) - 0.5);
    return c;
}

struct Result {
    std::vector<dvec3> u, psi, stretch, diffuse, tu, curl;
};

// The fast sum, as the pipeline calls it (with the field's curl); `exact_up_to` as
// DirectSum::exact_up_to (0: the float tiles even for the few vortons of some tests).
Result fast_sum(const Cloud& c, double nu, int lanes = 16, int exact_up_to = 0) {
    CpuExec exec;
    Buffer<dvec3> pos(MemorySpace::Host), omega(MemorySpace::Host), tpos(MemorySpace::Host);
    Buffer<double> radius(MemorySpace::Host);
    pos.copy_from_host(c.pos);
    omega.copy_from_host(c.omega);
    radius.copy_from_host(c.radius);
    tpos.copy_from_host(c.tpos);
    const std::size_t n = c.pos.size();
    Buffer<dvec3> u(MemorySpace::Host, n), psi(MemorySpace::Host, n), str(MemorySpace::Host, n),
        dif(MemorySpace::Host, n), tu(MemorySpace::Host, c.tpos.size()), crl(MemorySpace::Host, n);
    vx::DirectSum<CpuExec> sum;
    sum.limit_lanes(lanes);
    sum.exact_up_to(exact_up_to);
    sum.prepare(exec, pos.cview(), omega.cview(), radius.cview());
    sum.vortons(exec, pos.cview(), omega.cview(), radius.cview(), nu, u.view(), str.view(), dif.view(), psi.view(),
                crl.view());
    sum.tracers(exec, tpos.cview(), tu.view());
    Result r;
    u.copy_to_host(r.u);
    psi.copy_to_host(r.psi);
    str.copy_to_host(r.stretch);
    dif.copy_to_host(r.diffuse);
    tu.copy_to_host(r.tu);
    crl.copy_to_host(r.curl);
    return r;
}

// The reference: every pair in double, straight from the equations (Rosenhead-Moore kernel,
// Winckelmans and Leonard's stretching, Degond and Mas-Gallic's PSE; vortex_kernels.hpp), the
// pair j = i left out of velocity, stretching and diffusion (it is zero there in exact
// arithmetic). Alongside, each result's condition: the sum of the magnitudes of its terms.
struct Reference {
    Result r;
    std::vector<double> u_mag, stretch_mag, diffuse_mag, tu_mag;
};
Reference reference_sum(const Cloud& c, double nu) {
    const int n = static_cast<int>(c.pos.size());
    const double c4 = 1.0 / (4.0 * vx::kPi), cp = 4.0 / (vx::kPi * std::sqrt(vx::kPi));
    Reference ref;
    for (int i = 0; i < n; ++i) {
        dvec3 u(0.0), psi(0.0), s(0.0), d(0.0);
        double um = 0, sm = 0, dm = 0;
        const dvec3 w = c.omega[i];
        for (int j = 0; j < n; ++j) {
            const double sj = c.radius[j], vj = vx::vorton_volume(sj);
            const dvec3 alpha = vj * c.omega[j], r = c.pos[i] - c.pos[j];
            const double q = glm::dot(r, r) + sj * sj;
            psi += c4 / std::sqrt(q) * alpha;
            if (j == i) continue;
            const double k = c4 / std::pow(q, 1.5), dk = -3.0 * c4 / std::pow(q, 2.5);
            const dvec3 du = k * glm::cross(alpha, r);
            const dvec3 s1 = k * glm::cross(alpha, w), s2 = dk * glm::dot(r, w) * glm::cross(alpha, r);
            u += du;
            s += s1 + s2;
            um += glm::length(du);
            sm += glm::length(s1) + glm::length(s2);
            const double eps = 0.5 * (c.radius[i] + sj), q2 = glm::dot(r, r) / (eps * eps);
            if (q2 <= 16.0) {
                const dvec3 dd = nu * cp * vj * std::exp(-q2) / std::pow(eps, 5) * (c.omega[j] - w);
                d += dd;
                dm += glm::length(dd);
            }
        }
        ref.r.u.push_back(u);
        ref.r.psi.push_back(psi);
        ref.r.stretch.push_back(s);
        ref.r.diffuse.push_back(d);
        ref.u_mag.push_back(um);
        ref.stretch_mag.push_back(sm);
        ref.diffuse_mag.push_back(dm);
    }
    for (const dvec3& x : c.tpos) {
        dvec3 u(0.0);
        double um = 0;
        for (int j = 0; j < n; ++j) {
            const double sj = c.radius[j];
            const dvec3 alpha = vx::vorton_volume(sj) * c.omega[j], r = x - c.pos[j];
            const dvec3 du = c4 / std::pow(glm::dot(r, r) + sj * sj, 1.5) * glm::cross(alpha, r);
            u += du;
            um += glm::length(du);
        }
        ref.r.tu.push_back(u);
        ref.tu_mag.push_back(um);
    }
    return ref;
}

// The error bound. Each pair's terms are formed in float: the positions relative to the first
// vorton are rounded (2^-24 |x|, a relative 2^-24 L / sigma ~ 50 ulps of the nearest pairs'
// terms for a cloud of size L = 1.7 and cores down to 0.02), 1/sqrt by one Newton step from
// the 12-bit estimate (~2 ulps), a few products (~4 ulps); each lane sums 64 of them in float
// per tile (64 ulps at worst, ~8 typically) before the tile joins the double sum. So each
// result is off by at most ~ 2^-24 (50 + 2 + 4 + 64) ~ 7e-6 of the sum of its terms'
// magnitudes: the bound asserted is 1e-5 of that sum. Results with little cancellation are
// then within 1e-5 relative (the RMS relative errors, asserted below 1e-5 too). The diffusion's
// Gaussian exp(-q), q = r^2 / eps^2 up to 16, turns a relative error e of q into e q of its
// term: its bound is 3e-5.
constexpr double kBound = 1e-5, kBoundDiffusion = 3e-5;

struct Errors {
    double max_rel = 0, max_cond = 0, num = 0, den = 0;
    double rms() const { return std::sqrt(num / den); }
};
Errors compare(const std::vector<dvec3>& fast, const std::vector<dvec3>& ref, const std::vector<double>& mag,
               const char* what, double bound = kBound) {
    Errors e;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        const double d = glm::length(fast[i] - ref[i]);
        EXPECT_TRUE(std::isfinite(d)) << what << " " << i;
        EXPECT_LE(d, bound * mag[i]) << what << " " << i << ": " << d << " of " << mag[i];
        if (glm::length(ref[i]) > 0) e.max_rel = std::max(e.max_rel, d / glm::length(ref[i]));
        if (mag[i] > 0) e.max_cond = std::max(e.max_cond, d / mag[i]);
        e.num += d * d;
        e.den += glm::dot(ref[i], ref[i]);
    }
    std::printf("  %-10s max relative %.2e, RMS relative %.2e, max / sum of |terms| %.2e\n", what, e.max_rel, e.rms(),
                e.max_cond);
    EXPECT_LT(e.rms(), bound) << what;
    return e;
}

void check_against_reference(const Cloud& c, int lanes) {
    const double nu = 0.01;
    const Reference ref = reference_sum(c, nu);
    const Result fast = fast_sum(c, nu, lanes);
    compare(fast.u, ref.r.u, ref.u_mag, "velocity");
    compare(fast.stretch, ref.r.stretch, ref.stretch_mag, "stretching");
    compare(fast.diffuse, ref.r.diffuse, ref.diffuse_mag, "diffusion", kBoundDiffusion);
    compare(fast.tu, ref.r.tu, ref.tu_mag, "tracers");
    // psi's terms are alpha_j / (4 pi q^(1/2)); their magnitudes bound its error the same way.
    std::vector<double> pm(c.pos.size(), 0.0);
    for (std::size_t i = 0; i < c.pos.size(); ++i)
        for (std::size_t j = 0; j < c.pos.size(); ++j) {
            const dvec3 r = c.pos[i] - c.pos[j];
            pm[i] += vx::vorton_volume(c.radius[j]) * glm::length(c.omega[j]) /
                     (4.0 * vx::kPi * std::sqrt(glm::dot(r, r) + c.radius[j] * c.radius[j]));
        }
    compare(fast.psi, ref.r.psi, pm, "potential");
}

TEST(VortexDirectSum, MatchesTheDoubleSum) {
    // 3000 vortons (6 tiles, the last one partly padding) and 1000 tracers.
    check_against_reference(random_cloud(3000, 1000, 17), 16);
}

TEST(VortexDirectSum, MatchesTheDoubleSumFarFromTheOrigin) {
    // Sources are stored relative to the first vorton: a cloud at x = 1000 keeps its precision.
    check_against_reference(random_cloud(1200, 300, 5, dvec3(1000.0, -200.0, 50.0)), 16);
}

TEST(VortexDirectSum, EveryLaneWidthMatchesTheDoubleSum) {
    // The widest lanes are the tests above; here 8 (AVX2) where the host has it, and 1 (the
    // CUDA threads' body, and hosts without AVX2).
    for (const int lanes : {8, 1}) {
        std::printf("  %d lane(s)\n", lanes);
        check_against_reference(random_cloud(1200, 300, 23), lanes);
    }
}

TEST(VortexDirectSum, SameResultForOneAndTwoThreads) {
    // Enough targets (> CpuExec::kSerialBelow) that two threads split the loop.
    const Cloud c = random_cloud(5000, 5000, 29);
    const int before = fs::cpu_threads();
    fs::set_cpu_threads(1);
    const Result a = fast_sum(c, 0.01);
    fs::set_cpu_threads(2);
    const Result b = fast_sum(c, 0.01);
    fs::set_cpu_threads(before);
    for (std::size_t i = 0; i < c.pos.size(); ++i) {
        ASSERT_EQ(a.u[i], b.u[i]) << i;
        ASSERT_EQ(a.stretch[i], b.stretch[i]) << i;
        ASSERT_EQ(a.diffuse[i], b.diffuse[i]) << i;
        ASSERT_EQ(a.psi[i], b.psi[i]) << i;
    }
    for (std::size_t i = 0; i < c.tpos.size(); ++i) ASSERT_EQ(a.tu[i], b.tu[i]) << i;
}

TEST(VortexDirectSum, AVortonsOwnPairAddsNothing) {
    // Alone, a vorton moves not, diffuses not and stretches itself only by round-off: its
    // own K (alpha x w) is (V w) x w = 0 up to the rounding of alpha = V w (and the double sum
    // is no nearer zero there).
    const dvec3 w(0.7, -1.1, 0.4);
    Cloud one;
    one.pos = {dvec3(0.3, -0.2, 0.1)};
    one.omega = {w};
    one.radius = {0.05};
    for (const int lanes : {16, 8, 1}) {
        const Result r = fast_sum(one, 0.01, lanes);
        EXPECT_EQ(r.u[0], dvec3(0.0));
        EXPECT_EQ(r.diffuse[0], dvec3(0.0));
        EXPECT_LT(glm::length(r.stretch[0]), 1e-6 * glm::dot(w, w));
        // Its potential is its own: alpha / (4 pi sigma).
        const dvec3 psi = vx::vorton_volume(0.05) * w / (4.0 * vx::kPi * 0.05);
        EXPECT_LT(glm::length(r.psi[0] - psi), 1e-6 * glm::length(psi));
    }
    // Beside a second vorton, each gets exactly the other's velocity, stretching and diffusion
    // (to float precision): its own pair adds nothing.
    Cloud two = one;
    two.pos.push_back(dvec3(0.33, -0.18, 0.12));
    two.omega.push_back(dvec3(-0.5, 0.2, 0.9));
    two.radius.push_back(0.04);
    const Reference ref = reference_sum(two, 0.01);
    const Result r = fast_sum(two, 0.01);
    for (int i = 0; i < 2; ++i) {
        EXPECT_LT(glm::length(r.u[i] - ref.r.u[i]), 1e-6 * glm::length(ref.r.u[i])) << i;
        EXPECT_LT(glm::length(r.diffuse[i] - ref.r.diffuse[i]), 1e-6 * glm::length(ref.r.diffuse[i])) << i;
        EXPECT_LT(glm::length(r.stretch[i] - ref.r.stretch[i]), 1e-6 * ref.stretch_mag[i] + 1e-6 * glm::dot(w, w)) << i;
    }
}

// The field's curl at each vorton against central differences of the velocity the same
// vortons induce (every pair in double, the vorton's own included: it is part of the field), on
// the float tiles at every lane width and on the all-double path.
TEST(VortexDirectSum, TheFieldsCurlIsTheCurlOfItsVelocity) {
    const Cloud c = random_cloud(400, 0, 31);
    const int n = static_cast<int>(c.pos.size());
    auto velocity_at = [&](dvec3 x) {
        dvec3 u(0.0);
        for (int j = 0; j < n; ++j) {
            const double sj = c.radius[j];
            const dvec3 r = x - c.pos[j];
            u += glm::cross(vx::vorton_volume(sj) * c.omega[j], r) /
                 (4.0 * vx::kPi * std::pow(glm::dot(r, r) + sj * sj, 1.5));
        }
        return u;
    };
    // h: the differences' truncation (h / sigma)^2 ~ 1e-8 at the smallest core, 0.02; their
    // round-off 1e-16 |u| / h ~ 1e-11 |u|.
    const double h = 2e-6;
    std::vector<dvec3> fd(n);
    std::vector<double> mag(n, 0.0);  // the sum of the curl's terms' magnitudes (its condition)
    for (int i = 0; i < n; ++i) {
        dvec3 g[3];
        for (int b = 0; b < 3; ++b) {
            dvec3 e(0.0);
            e[b] = h;
            g[b] = (velocity_at(c.pos[i] + e) - velocity_at(c.pos[i] - e)) / (2.0 * h);  // g[b][a] = d u_a / d x_b
        }
        fd[i] = dvec3(g[1][2] - g[2][1], g[2][0] - g[0][2], g[0][1] - g[1][0]);
        for (int j = 0; j < n; ++j) {
            const double sj = c.radius[j];
            const dvec3 a = vx::vorton_volume(sj) * c.omega[j], r = c.pos[i] - c.pos[j];
            const double q = glm::dot(r, r) + sj * sj;
            mag[i] += (3.0 * glm::length(sj * sj * a + glm::dot(a, r) * r) / std::pow(q, 2.5) +
                       glm::length(a) / std::pow(q, 1.5)) /
                      (4.0 * vx::kPi);
        }
    }
    const Result exact = fast_sum(c, 0.0, 16, n);
    compare(exact.curl, fd, mag, "curl, double", 1e-7);
    for (const int lanes : {16, 8, 1}) {
        std::printf("  %d lane(s)\n", lanes);
        compare(fast_sum(c, 0.0, lanes).curl, fd, mag, "curl, float");
    }
}

// The transposed stretching (omega . grad^T) u, formed as the classical one plus omega x curl u
// (vorticity_rate), changes the vortons' total vorticity sum V_i d omega_i / dt by nothing for
// vortons of equal cores: each pair's two parts cancel (Winckelmans and Leonard 1993, 2.2). The
// classical form's sum is far from zero on the same cloud.
TEST(VortexDirectSum, TheTransposedStretchingKeepsTheTotalVorticity) {
    Cloud c = random_cloud(1500, 0, 37);
    for (double& r : c.radius) r = 0.05;
    for (const int exact_up_to : {0, 2000}) {
        const Result r = fast_sum(c, 0.0, 16, exact_up_to);
        dvec3 classical(0.0), transposed(0.0);
        double classical_mag = 0.0, transposed_mag = 0.0;
        for (std::size_t i = 0; i < c.pos.size(); ++i) {
            const double v = vx::vorton_volume(c.radius[i]);
            const dvec3 t =
                vx::vorticity_rate(c.omega[i], r.stretch[i], dvec3(0.0), r.curl[i], 1.0, vx::kTranspose, 0.0);
            classical += v * r.stretch[i];
            transposed += v * t;
            classical_mag += v * glm::length(r.stretch[i]);
            transposed_mag += v * glm::length(t);
        }
        const double rc = glm::length(classical) / classical_mag, rt = glm::length(transposed) / transposed_mag;
        std::printf("  %s: |sum V rate| / sum |V rate|: classical %.2e, transposed %.2e\n",
                    exact_up_to ? "double" : "float tiles", rc, rt);
        EXPECT_GT(rc, 1e-2);
        EXPECT_LT(rt, exact_up_to ? 1e-13 : 1e-6);
    }
}

// Strengths below float's normal range count as zero in the float tiles (to_float, and the wide
// sums' FTZ/DAZ): a cloud whose vorticity is all that small induces exactly nothing, where
// subnormal arithmetic would have left subnormal sums (and run about twice as slow, docs/solvers/vortex.md). The
// sums leave the calling thread's floating-point control bits as they found them.
TEST(VortexDirectSum, SubnormalStrengthsCountAsZero) {
    EXPECT_EQ(vx::direct::to_float(1e-39), 0.0f);
    EXPECT_EQ(vx::direct::to_float(-1e-39), 0.0f);
    EXPECT_EQ(vx::direct::to_float(2e-38), 2e-38f);
    EXPECT_EQ(vx::direct::to_float(-0.5), -0.5f);
    Cloud c = random_cloud(1200, 300, 47);
    for (dvec3& w : c.omega) w *= 1e-40;
#if defined(__x86_64__)
    const unsigned csr = _mm_getcsr() & ~0x3Fu;  // the control bits (the low six are sticky flags)
#endif
    for (const int lanes : {16, 8, 1}) {
        const Result r = fast_sum(c, 0.01, lanes);
        for (std::size_t i = 0; i < c.pos.size(); ++i) {
            ASSERT_EQ(r.u[i], dvec3(0.0)) << lanes << " lanes, vorton " << i;
            ASSERT_EQ(r.psi[i], dvec3(0.0)) << lanes << " lanes, vorton " << i;
            ASSERT_EQ(r.stretch[i], dvec3(0.0)) << lanes << " lanes, vorton " << i;
            ASSERT_EQ(r.curl[i], dvec3(0.0)) << lanes << " lanes, vorton " << i;
        }
        for (std::size_t i = 0; i < c.tpos.size(); ++i) ASSERT_EQ(r.tu[i], dvec3(0.0)) << lanes << " lanes";
    }
#if defined(__x86_64__)
    EXPECT_EQ(_mm_getcsr() & ~0x3Fu, csr);
#endif
}

}  // namespace
