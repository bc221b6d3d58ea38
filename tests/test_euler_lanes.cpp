// The collide stage's eight-lane loops (solvers/euler/euler_simd.hpp) against the scalar loops
// they stand in for. The partner search: the same partners, pair tests, contacts and overlaps,
// and so the same velocities, bit for bit, on gases sparse and crowded, periodic or walled, on
// grids wide and narrow (where every search wraps), with coincident particles and crowds of over
// eight a run. The soft contact's pair forces: the same positions and velocities after many
// sub-steps, bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "core/exec_cpu.hpp"
#include "solvers/euler/euler_pipeline.hpp"

namespace {

using fs::euler::Config;
using fs::euler::HostState;
using fs::euler::Pipeline;
using glm::dvec2;

// n particles: most uniform in the unit box, some in tight clusters (many to a cell), some on
// top of each other, on the box's edges, or a hair inside the collision distance of another
// (where a filter's rounding would matter); random velocities and masses.
HostState gas(int n, double distance, bool coincident, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0), v(-1.0, 1.0);
    HostState s;
    for (int i = 0; i < n; ++i) {
        dvec2 x{u(rng), u(rng)};
        if (i % 10 == 1) x = s.pos[static_cast<std::size_t>(i - 1)] + 0.002 * dvec2(v(rng), v(rng));  // clusters
        if (coincident && i % 97 == 2) x = s.pos[static_cast<std::size_t>(i - 1)];
        if (i % 31 == 5) {
            const double a = 6.283185307179586 * u(rng);
            x = s.pos[static_cast<std::size_t>(i - 1)] + distance * (1.0 - 1e-13) * dvec2(std::cos(a), std::sin(a));
        }
        x -= glm::floor(x);  // clusters running over an edge come in at the other
        if (i % 53 == 3) x.x = 0.0;  // on the edges (never both: coincident corners)
        else if (i % 59 == 4) x.y = std::nextafter(1.0, 0.0);
        x = glm::min(x, dvec2(std::nextafter(1.0, 0.0)));
        s.pos.push_back(x);
        s.vel.push_back({v(rng), v(rng)});
        s.mass.push_back(0.5 + u(rng));
        s.id.push_back(i);
    }
    return s;
}

struct Outcome {
    std::vector<int> partners;
    fs::euler::Sums sums;
    HostState state;
};

Outcome collide(const HostState& s, const Config& c, bool simd) {
    Pipeline<fs::CpuExec> p;
    p.set_simd(simd);
    EXPECT_EQ(p.simd(), simd);
    p.upload(s);
    p.run_stage(fs::euler::kGridBuild, c);
    p.run_stage(fs::euler::kCollide, c);
    Outcome o{p.partners(), p.sums(), {}};
    p.download(o.state);
    return o;
}

bool same_bits(const std::vector<dvec2>& a, const std::vector<dvec2>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(dvec2)) == 0;
}

TEST(EulerLanes, EightLanePartnerSearchIsTheScalarLoopBitForBit) {
    if (!fs::euler::simd::available()) GTEST_SKIP() << "this host has no AVX-512F: the eight-lane search is not used";
    struct Case {
        int n;
        double distance;
        double cells_per_particle;  // sets the grid: 0 = the grid's own bound only
        bool periodic;
        bool coincident;  // some particles on others (their overlap stat is 1: then a search
                          // that visited a particle itself would go unseen in the stats)
    };
    const Case cases[] = {
        {20000, 0.004, 1.0, true, false},  {20000, 0.004, 1.0, false, false}, {20000, 0.004, 2.0, true, true},
        {3000, 0.03, 1.0, true, true},     {3000, 0.03, 1.0, false, false},   // crowded: dozens a cell
        {400, 0.2, 1.0, true, false},      {400, 0.2, 1.0, false, true},      // 2 x 2 cells: every search wraps
        {2000, 0.07, 1.0, true, false},                                       // 7 x 7 cells: the wrap always taken
    };
    int compared_pairs = 0;
    for (const Case& k : cases) {
        SCOPED_TRACE("n " + std::to_string(k.n) + ", distance " + std::to_string(k.distance) +
                     (k.periodic ? ", periodic" : ", walls"));
        const HostState s = gas(k.n, k.distance, k.coincident, 7u + static_cast<unsigned>(k.n));
        Config c;
        c.boundary = k.periodic ? fs::euler::kPeriodic : fs::euler::kWalls;
        c.detector = fs::euler::kGrid;
        c.distance2 = k.distance * k.distance;
        c.gravity = {0.0, 0.0};
        c.grid = fs::grid::make_grid({0.0, 0.0}, {1.0, 1.0}, k.distance,
                                     static_cast<long long>(k.n * k.cells_per_particle / 2.0));
        const Outcome scalar = collide(s, c, false), lanes = collide(s, c, true);
        EXPECT_EQ(lanes.partners, scalar.partners);
        EXPECT_EQ(lanes.sums.pair_tests, scalar.sums.pair_tests);
        EXPECT_EQ(lanes.sums.contacts, scalar.sums.contacts);
        EXPECT_EQ(lanes.sums.matched, scalar.sums.matched);
        EXPECT_EQ(lanes.sums.max_overlap, scalar.sums.max_overlap);
        if (!k.coincident) {
            EXPECT_LT(scalar.sums.max_overlap, 1.0);
        }
        EXPECT_TRUE(same_bits(lanes.state.vel, scalar.state.vel));
        EXPECT_TRUE(same_bits(lanes.state.pos, scalar.state.pos));
        EXPECT_GT(scalar.sums.matched, 0);  // collisions did happen
        compared_pairs += static_cast<int>(scalar.sums.matched);
    }
    EXPECT_GT(compared_pairs, 1000);
}

TEST(EulerLanes, EightLanePairForcesAreTheScalarLoopBitForBit) {
    if (!fs::euler::simd::available()) GTEST_SKIP() << "this host has no AVX-512F: the eight-lane pair forces are not used";
    // Crowded walled boxes under soft contact and gravity: overlapping, touching, apart and
    // coincident pairs (no force), fast approaches (the dashpot, and forces clamped at zero), and
    // pair counts that are not a multiple of eight (the last lanes masked).
    int touching = 0;
    for (const int n : {3000, 203}) {
        SCOPED_TRACE("n " + std::to_string(n));
        const double d = 0.02;
        const HostState s = gas(n, d, true, 11u + static_cast<unsigned>(n));
        Config c;
        c.boundary = fs::euler::kWalls;
        c.detector = fs::euler::kGrid;
        c.contact = fs::euler::kSoft;
        c.diameter = d;
        c.distance2 = d * d;
        c.stiffness = 1e5;
        c.zeta = 0.3;
        c.tau = 0.002;
        c.substeps = 12;
        c.skin = 0.3 * d;
        c.force_scale = 1099511627776.0 / (c.stiffness * c.diameter);  // 2^40 / (k d), as the solver's
        c.grid = fs::grid::make_grid({0.0, 0.0}, {1.0, 1.0}, d + c.skin, n, 3);
        const Outcome scalar = collide(s, c, false), lanes = collide(s, c, true);
        EXPECT_TRUE(same_bits(lanes.state.vel, scalar.state.vel));
        EXPECT_TRUE(same_bits(lanes.state.pos, scalar.state.pos));
        EXPECT_EQ(lanes.sums.contacts, scalar.sums.contacts);
        EXPECT_EQ(lanes.sums.max_overlap, scalar.sums.max_overlap);
        touching += static_cast<int>(scalar.sums.contacts);
    }
    EXPECT_GT(touching, 100);  // forces did act
}

}  // namespace
