// The SPH density and force stages with and without sph_simd.hpp's eight-lane loops, timed in
// one process, alternating call by call, so a machine whose speed drifts from one minute to the
// next (a shared virtual machine) treats both the same. Not a test: it reports, never asserts.
//
//   sph_lanes_bench [particles] [rounds] [threads]     (defaults 1000000 20 1)
//
// The state: a block of fluid at the rest spacing with a little jitter, support two spacings (the
// bundled scenes'), after one density and pressure pass so the force stage has pressures.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/exec_cpu.hpp"
#include "core/random.hpp"
#include "solvers/sph/sph_pipeline.hpp"

using namespace fs;
using namespace fs::sph;

namespace {

double ms_of(Pipeline<CpuExec>& p, int stage, const Config& c) {
    const auto t0 = std::chrono::steady_clock::now();
    p.run_stage(stage, c);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const long long n = argc > 1 ? std::atoll(argv[1]) : 1000000;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 20;
    const int threads = argc > 3 ? std::atoi(argv[3]) : 1;
    omp_set_num_threads(threads);
    if (!simd::available()) {
        std::printf("this host has no AVX-512F: only the scalar loops run here\n");
        return 0;
    }
    Config c;
    c.spacing = 0.001;
    c.h = 2.0 * c.spacing;
    c.mass = c.rho0 * c.spacing * c.spacing;
    c.B = c.rho0 * c.c_s * c.c_s / c.gamma;
    const int side = static_cast<int>(std::sqrt(static_cast<double>(n)));
    const double extent = side * c.spacing;
    c.grid = grid::make_grid({-c.h, -c.h}, {extent + c.h, extent + c.h}, c.h, static_cast<long long>(side) * side,
                             argc > 4 ? std::atoi(argv[4]) : 3);
    HostState s;
    std::mt19937_64 rng(7);
    for (int y = 0; y < side; ++y)
        for (int x = 0; x < side; ++x) {
            const double jx = (uniform01(rng) - 0.5) * 0.2 * c.spacing, jy = (uniform01(rng) - 0.5) * 0.2 * c.spacing;
            s.pos.push_back({(x + 0.5) * c.spacing + jx, (y + 0.5) * c.spacing + jy});
            // A smooth flow (a slow vortex) with a little noise, as a settling fluid's.
            const double px = (x + 0.5) * c.spacing, py = (y + 0.5) * c.spacing;
            s.vel.push_back({std::sin(6.0 * py) + 0.01 * (uniform01(rng) - 0.5), -std::sin(6.0 * px) + 0.01 * (uniform01(rng) - 0.5)});
            s.offset.push_back({0.0, 0.0});
            s.density.push_back(c.rho0);
            s.pressure.push_back(0.0);
            s.kind.push_back(kFluid);
            s.id.push_back(static_cast<int>(s.id.size()));
        }
    Pipeline<CpuExec> p;
    p.upload(s);
    p.run_stage(kNeighborSearch, c);
    p.run_stage(kDensity, c);
    p.run_stage(kPressure, c);
    std::vector<double> d[2], a[2];
    for (int r = 0; r < rounds; ++r)
        for (int wide = 0; wide < 2; ++wide) {
            p.set_simd(wide == 1);
            d[wide].push_back(ms_of(p, kDensity, c));
            a[wide].push_back(ms_of(p, kAccelerations, c));
        }
    std::printf("%lld particles, %d rounds, %d thread(s); ms a stage, min / median\n", static_cast<long long>(side) * side,
                rounds, threads);
    for (int wide = 0; wide < 2; ++wide)
        std::printf("  %-8s density %6.1f / %6.1f   accelerations %6.1f / %6.1f\n", wide ? "8 lanes" : "scalar",
                    *std::min_element(d[wide].begin(), d[wide].end()), median(d[wide]),
                    *std::min_element(a[wide].begin(), a[wide].end()), median(a[wide]));
    return 0;
}
