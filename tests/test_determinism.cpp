// Determinism on the CPU backend, for every solver (issue 7): a scene run for 100 steps with 1 and
// with 2 OpenMP threads gives the same state bit for bit, and so does the same scene run twice.
// The state is every field the solver exports (positions, velocities, vorticity, density, ids,
// ... in the solver's own particle order, so the order must be reproducible too) and every
// number of every step's stats but the timings.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/random.hpp"
#include "io/scene.hpp"
#include "solvers/solvers.hpp"

namespace {

constexpr int kSteps = 100;

struct Outcome {
    std::map<std::string, std::vector<double>> fields;
    std::vector<std::vector<double>> stats;  // per step, the stats' numbers in order, no timings
    double time = 0.0;
};

Outcome run(const std::string& scene_name, const std::vector<std::string>& sets, int threads) {
    const int before = fs::cpu_threads();
    fs::set_cpu_threads(threads);
    const fs::Scene scene =
        fs::load_scene(std::string(FS_SOURCE_DIR) + "/scenes/" + scene_name + ".json", fs::solver_names());
    auto solver = fs::find_solver_kind(scene.solver)->make(fs::Backend::Cpu);
    fs::apply_scene_params(*solver, scene, sets);
    fs::reset_solver(*solver, scene, sets);
    Outcome r;
    for (int k = 0; k < kSteps; ++k) {
        solver->step();
        std::vector<double> numbers;
        for (const fs::Stat& s : solver->stats().items())
            if (!s.name.ends_with("_ms")) numbers.insert(numbers.end(), s.value.begin(), s.value.end());
        r.stats.push_back(std::move(numbers));
    }
    for (const fs::FieldInfo& f : solver->fields()) solver->read_field(f.name, r.fields[f.name]);
    r.time = solver->time();
    fs::set_cpu_threads(before);
    return r;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

void expect_identical(const Outcome& a, const Outcome& b) {
    EXPECT_EQ(std::memcmp(&a.time, &b.time, sizeof a.time), 0) << a.time << " vs " << b.time;
    ASSERT_EQ(a.stats.size(), b.stats.size());
    for (std::size_t k = 0; k < a.stats.size(); ++k)
        ASSERT_TRUE(same_bits(a.stats[k], b.stats[k])) << "the stats differ at step " << k + 1;
    ASSERT_EQ(a.fields.size(), b.fields.size());
    for (const auto& [name, values] : a.fields) {
        ASSERT_TRUE(b.fields.count(name)) << name;
        const std::vector<double>& other = b.fields.at(name);
        ASSERT_EQ(values.size(), other.size()) << name;
        for (std::size_t i = 0; i < values.size(); ++i)
            ASSERT_EQ(std::memcmp(&values[i], &other[i], sizeof(double)), 0)
                << name << "[" << i << "]: " << values[i] << " vs " << other[i];
    }
}

struct Scenario {
    const char* name;  // the test's
    const char* scene;
    std::vector<std::string> sets;  // coarser settings, to keep each case short
};

class Determinism : public ::testing::TestWithParam<Scenario> {};

// A random point's components are drawn in one stated order (the last first), whatever order the
// compiler evaluates a constructor's arguments in: the browser build (clang) and the desktop's
// (GCC) seed the same particles from the same seed.
TEST(Random, APointsComponentsAreDrawnLastFirst) {
    std::mt19937_64 a(42), b(42);
    const glm::dvec3 p = fs::uniform01_3(a);
    const double z = fs::uniform01(b), y = fs::uniform01(b), x = fs::uniform01(b);
    EXPECT_EQ(p, glm::dvec3(x, y, z));
    const glm::dvec2 q = fs::uniform01_2(a);
    const double qy = fs::uniform01(b), qx = fs::uniform01(b);
    EXPECT_EQ(q, glm::dvec2(qx, qy));
    EXPECT_NE(p.x, p.z);  // three different numbers: the order is observable
}

TEST_P(Determinism, OneAndTwoThreadsAndARepeatGiveTheSameStateBitForBit) {
    const Scenario& s = GetParam();
    const Outcome one = run(s.scene, s.sets, 1);
    const Outcome two = run(s.scene, s.sets, 2);
    const Outcome again = run(s.scene, s.sets, 2);
    ASSERT_FALSE(one.fields.at("position").empty());
    // Something happened: a state that stays put is deterministic for free.
    EXPECT_GT(one.stats.back().size(), 0u);
    EXPECT_NE(one.stats.front(), one.stats.back()) << "the scene does not move in " << kSteps << " steps";
    {
        SCOPED_TRACE("1 thread vs 2 threads");
        expect_identical(one, two);
    }
    {
        SCOPED_TRACE("the same run twice");
        expect_identical(two, again);
    }
}

INSTANTIATE_TEST_SUITE_P(
    EverySolver, Determinism,
    ::testing::Values(
        // 3000 particles thrown into a box: gravity, walls and the collision matching.
        Scenario{"euler_default", "default", {}},
        // A dam break with pressure mirroring (about 1500 fluid and wall particles).
        Scenario{"sph_dam_break", "sph_dam_break", {"spacing=0.02"}},
        // Water against the barrier, with the assignment's boundary model.
        Scenario{"sph_barrier", "sph_barrier", {"spacing=0.02", "boundary_model=assignment"}},
        // A FLIP dam break on a 16-cell grid with MGPCG, and one into the obstacle box with
        // red-black Gauss-Seidel and quadratic transfers.
        Scenario{"flip_dam_break", "flip_dam_break", {"resolution=16"}},
        Scenario{"flip_obstacle", "flip_obstacle", {"resolution=16", "pressure_solver=gauss_seidel", "transfer=quadratic"}},
        // APIC's affine transfers.
        Scenario{"flip_apic", "flip_dam_break", {"resolution=16", "transfer_scheme=apic"}},
        // The optimal-transport liquid: Laguerre cells and Newton (its pressure and area_error
        // fields read the cells), two densities; and the tutorial's random speeds.
        Scenario{"ot_rayleigh_taylor", "ot_rayleigh_taylor", {"resolution=12"}},
        Scenario{"ot_tutorial", "ot_tutorial", {"resolution=12"}},
        // The free surface (cells cut by disks) and the viscosity between cells.
        Scenario{"ot_dam_break", "ot_dam_break", {"resolution=32", "viscosity=0.001"}},
        // A vortex ring (direct Biot-Savart, tracers on a coarse vortex-in-cell grid).
        Scenario{"vortex_ring", "vortex_ring", {"ring_tracers=2000", "grid_cells=16"}},
        // Flames, buoyancy and a plate that takes the fluid's impulse (emission, bodies).
        Scenario{"vortex_plate_flames", "vortex_plate_flames", {"max_vortons=300", "max_tracers=2000", "grid_cells=16"}}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
