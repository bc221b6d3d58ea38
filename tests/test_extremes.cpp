// No value in range freezes the program: every parameter of one scene per solver at each end of
// its range (one at a time, every choice of a choice), from the scene file as a student would set
// it. Each is refused at reset with a one-line ParamError that names a key, or runs two steps,
// which complete or stop with a SimulationError naming the step. The work estimates that refuse
// (Euler's pair tests, SPH's neighbour pairs, the optimal-transport cells, the memory budgets)
// are what keep every accepted value's step short; a value that hung would hit CTest's timeout.
// The slowest case is printed. tests/soak/extremes.sh does the same through the program.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "io/scene.hpp"
#include "solvers/solvers.hpp"

namespace {

struct Case {
    std::string key, value;
};

std::vector<Case> extremes(const fs::Solver& s) {
    std::vector<Case> out;
    for (const auto& p : s.params().all()) {
        const fs::ParamSpec& spec = p->spec();
        if (spec.read_only) continue;
        auto text = [](double v) {
            char b[32];
            std::snprintf(b, sizeof b, "%.17g", v);
            return std::string(b);
        };
        switch (p->type()) {
            case fs::ParamType::Real:
            case fs::ParamType::Int:
                out.push_back({p->name(), text(spec.min)});
                out.push_back({p->name(), text(spec.max)});
                break;
            case fs::ParamType::Vec: {
                if (p->components() <= 0) break;  // a list (polytope planes, vertices): its own tests
                for (double v : {spec.min, spec.max}) {
                    std::string all;
                    for (int k = 0; k < p->components(); ++k) all += (k ? "," : "") + text(v);
                    out.push_back({p->name(), all});
                }
                break;
            }
            case fs::ParamType::Choice:
                for (const auto& c : p->choices()) out.push_back({p->name(), c});
                break;
            case fs::ParamType::Bool:
                out.push_back({p->name(), "true"});
                out.push_back({p->name(), "false"});
                break;
        }
    }
    return out;
}

class Extremes : public ::testing::TestWithParam<const char*> {};

TEST_P(Extremes, EveryParameterAtEachEndIsRefusedOrSteps) {
    const std::string path = std::string(FS_SOURCE_DIR) + "/scenes/" + GetParam() + ".json";
    const fs::Scene scene = fs::load_scene(path, fs::solver_names());
    const auto* kind = fs::find_solver_kind(scene.solver);
    ASSERT_NE(kind, nullptr);
    const auto probe = kind->make(fs::Backend::Cpu);
    const std::vector<Case> cases = extremes(*probe);
    ASSERT_GT(cases.size(), 10u);
    int refused = 0, ran = 0, failed = 0;
    double slowest = 0.0;
    std::string slowest_case;
    for (const Case& c : cases) {
        SCOPED_TRACE(c.key + "=" + c.value);
        auto s = kind->make(fs::Backend::Cpu);
        const auto t0 = std::chrono::steady_clock::now();
        try {
            fs::apply_scene_params(*s, scene, {c.key + "=" + c.value});
            fs::reset_solver(*s, scene, {c.key + "=" + c.value});
        } catch (const fs::SceneError& e) {
            // One line, naming where and what: "--set KEY=VALUE: ..." or "FILE: params.KEY: ...".
            const std::string what = e.what();
            EXPECT_EQ(what.find('\n'), std::string::npos) << what;
            EXPECT_NE(what.find(':'), std::string::npos) << what;
            ++refused;
            continue;
        }
        try {
            s->step();
            s->step();
            ++ran;
        } catch (const fs::SimulationError& e) {
            EXPECT_NE(std::string(e.what()).find("step "), std::string::npos) << e.what();
            ++failed;
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (seconds > slowest) {
            slowest = seconds;
            slowest_case = c.key + "=" + c.value;
        }
    }
    std::printf("%s: %zu cases: %d refused, %d ran, %d stopped with the step named; slowest %s, %.2f s\n",
                GetParam(), cases.size(), refused, ran, failed, slowest_case.c_str(), slowest);
}

INSTANTIATE_TEST_SUITE_P(OneScenePerSolver, Extremes,
                         ::testing::Values("default", "sph_hydrostatic", "flip_hydrostatic", "ot_drop", "vortex_ring"));

}  // namespace
