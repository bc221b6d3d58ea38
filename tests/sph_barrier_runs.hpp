// The SPH barrier scene run two ways, for the tests that compare runs (test_sph.cpp,
// test_sph_viscosity.cpp): with 1 and 2 CPU threads, and on the CPU and on CUDA.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/backend.hpp"
#include "solvers/sph/sph_solver.hpp"

namespace sph_runs {

using Settings = std::vector<std::pair<std::string, std::string>>;

inline void set(fs::sph::SphSolver& s, const std::string& name, const std::string& value) {
    s.params().at(name).set_text(value);
}

// The barrier scene (with `more` set over it) after `steps` steps on the CPU with 1 and with 2 threads.
inline std::pair<fs::sph::HostState, fs::sph::HostState> one_and_two_threads(const Settings& more, int steps) {
    const int before = fs::cpu_threads();
    fs::sph::HostState result[2];
    for (int t = 1; t <= 2; ++t) {
        fs::set_cpu_threads(t);
        fs::sph::SphSolver s;
        set(s, "barrier_length", "0.3");
        set(s, "barrier_center", "0.7,0.3");
        for (const auto& [name, value] : more) set(s, name, value);
        s.reset();
        for (int k = 0; k < steps; ++k) s.step();
        result[t - 1] = s.state();
    }
    fs::set_cpu_threads(before);
    return {result[0], result[1]};
}

// The barrier scene after 10 steps on the CPU and on CUDA: the same iteration counts, positions
// to 1e-9 m, pressures to 1e-6 relative (the reductions sum in another order).
inline void expect_cuda_parity(const Settings& more) {
    fs::sph::SphSolver cpu(fs::Backend::Cpu), gpu(fs::Backend::Cuda);
    for (fs::sph::SphSolver* s : {&cpu, &gpu}) {
        set(*s, "barrier_length", "0.3");
        set(*s, "barrier_center", "0.7,0.3");
        for (const auto& [name, value] : more) set(*s, name, value);
        s->reset();
        for (int k = 0; k < 10; ++k) s->step();
    }
    for (const char* count : {"density_iterations", "viscosity_iterations"})
        EXPECT_EQ(cpu.stats().get(count), gpu.stats().get(count)) << count;
    const fs::sph::HostState a = cpu.state(), b = gpu.state();
    ASSERT_EQ(a.pos.size(), b.pos.size());
    for (std::size_t i = 0; i < a.pos.size(); ++i) {
        ASSERT_NEAR(a.pos[i].x, b.pos[i].x, 1e-9) << i;
        ASSERT_NEAR(a.pos[i].y, b.pos[i].y, 1e-9) << i;
        ASSERT_NEAR(a.pressure[i], b.pressure[i], 1e-6 * (1.0 + std::abs(a.pressure[i]))) << i;
    }
}

}  // namespace sph_runs
