// The boundary elements' per-step costs on a sphere (body_model boundary_elements): the solve
// alone (PanelSystem::solve, the float inverse's product), and the panels' sums at tracers and
// at vortons on one lane and on the host's widest (panel_lanes.hpp), alternating call by call so
// a machine whose speed drifts from one minute to the next treats both the same. Not a test: it
// reports, never asserts.
//
//   vortex_panels_bench [subdivision] [rounds] [threads] [tracers] [vortons]
//                       (defaults 10 200 2 49000 1000: 2 000 panels)
//
// The sphere (R = 1 m) moves at 1 m/s; the tracers and vortons lie at random in the shell from
// 1.02 R to 4 R (the tracers' multipole takes those beyond 3 R).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include "core/backend.hpp"
#include "core/exec_cpu.hpp"
#include "core/random.hpp"
#include "solvers/vortex/boundary_elements.hpp"

using namespace fs;
using namespace fs::vortex;

namespace {

template <class F>
double ms_of(F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

std::vector<dvec3> shell(int n, std::mt19937_64& rng) {
    std::vector<dvec3> out;
    while (static_cast<int>(out.size()) < n) {
        const dvec3 p = 8.0 * uniform01_3(rng) - dvec3(4.0);
        const double r = glm::length(p);
        if (r > 1.02 && r < 4.0) out.push_back(p);
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    const int k = argc > 1 ? std::atoi(argv[1]) : 10;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 200;
    const int threads = argc > 3 ? std::atoi(argv[3]) : 2;
    const int ntracers = argc > 4 ? std::atoi(argv[4]) : 49000;
    const int nvortons = argc > 5 ? std::atoi(argv[5]) : 1000;
    set_cpu_threads(threads);
    const double R = 1.0, edge = R * 2.0 / std::sqrt(1.0 + 0.25 * (1.0 + std::sqrt(5.0)) * (1.0 + std::sqrt(5.0)));
    std::shared_ptr<const PanelSystem> system;
    const double build_ms =
        ms_of([&] { system = std::make_shared<const PanelSystem>(sphere_panels(R, edge / k * 1.0001), 1.0 / R); });
    const int n = static_cast<int>(system->panels().size());
    std::printf("sphere of %d panels on %d thread(s): matrix built, factored and inverted in %.0f ms\n", n, threads,
                build_ms);

    std::vector<double> rhs(n), q(n);
    for (int i = 0; i < n; ++i) rhs[i] = system->panels()[i].normal.y;  // moving at 1 m/s along y
    std::vector<double> solve;
    for (int r = 0; r < rounds; ++r) solve.push_back(ms_of([&] { system->solve(rhs.data(), q.data()); }));
    std::printf("solve: %.3f ms (median of %d)\n", median(solve), rounds);

    BodyShape body;
    body.kind = kSphere;
    body.radius = R;
    body.velocity = dvec3(0.0, 1.0, 0.0);
    CpuExec exec;
    BoundaryElements<CpuExec> be;
    be.set_systems({system});
    be.place({body});
    auto uc = be.centre_velocity();
    for (int i = 0; i < uc.size; ++i) uc[i] = dvec3(0.0);
    be.solve({body});
    std::mt19937_64 rng(7);
    const std::vector<dvec3> tpos = shell(ntracers, rng), vpos = shell(nvortons, rng);
    std::vector<dvec3> omega(vpos.size());
    for (dvec3& w : omega) w = 2.0 * uniform01_3(rng) - dvec3(1.0);
    Buffer<dvec3> tp(MemorySpace::Host), tv(MemorySpace::Host), vp(MemorySpace::Host), vw(MemorySpace::Host),
        vv(MemorySpace::Host), vs(MemorySpace::Host);
    Buffer<double> vr(MemorySpace::Host);
    tp.copy_from_host(tpos);
    tv.copy_from_host(std::vector<dvec3>(tpos.size(), dvec3(0.0)));
    vp.copy_from_host(vpos);
    vw.copy_from_host(omega);
    vr.copy_from_host(std::vector<double>(vpos.size(), 0.05));
    vv.copy_from_host(std::vector<dvec3>(vpos.size(), dvec3(0.0)));
    vs.copy_from_host(std::vector<dvec3>(vpos.size(), dvec3(0.0)));
    std::vector<double> t_ms[2], v_ms[2];
    const int sums = std::max(3, rounds / 20);
    for (int r = 0; r < sums; ++r)
        for (int one = 0; one < 2; ++one) {
            be.one_lane(one == 1);
            t_ms[one].push_back(ms_of([&] { be.add_to_tracers(exec, tp.cview(), tv.view()); }));
            v_ms[one].push_back(
                ms_of([&] { be.add_to_vortons(exec, vp.cview(), vw.cview(), vr.cview(), 1.0, vv.view(), vs.view()); }));
        }
    be.one_lane(false);
    std::printf("panels at %d tracers: %.2f ms on %s, %.2f ms on one lane\n", ntracers, median(t_ms[0]),
                be.wide_lanes() ? "four lanes" : "one lane (no AVX2)", median(t_ms[1]));
    std::printf("panels at %d vortons: %.2f ms on %s, %.2f ms on one lane\n", nvortons, median(v_ms[0]),
                be.wide_lanes() ? "four lanes" : "one lane (no AVX2)", median(v_ms[1]));
    return 0;
}
