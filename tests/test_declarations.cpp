// Every solver's declaration walked through the Solver API (docs/design.md, Adding a solver): each
// declared stage runs on its own, in order, and completes a step; each declared field reads with
// its declared components for every particle, its view (where the pipeline holds it) covers the
// same particles, and an undeclared name is refused naming the declared ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/params.hpp"
#include "io/scene.hpp"
#include "solvers/solvers.hpp"

namespace {

struct Case {
    const char* scene;
    std::vector<std::string> sets;
};

// A small scene of each solver (every solver in the catalogue must have one here).
const Case kCases[] = {
    {"default", {"n_particles=200"}},
    {"sph_barrier", {"spacing=0.05"}},
    {"flip_dam_break", {"resolution=10"}},
    {"ot_tutorial", {}},
    {"vortex_ring", {"ring_vortons=32", "ring_tracers=20"}},
};

TEST(Declarations, EveryStageRunsAndEveryFieldReadsInEverySolver) {
    std::vector<std::string> covered;
    for (const Case& c : kCases) {
        const fs::Scene scene =
            fs::load_scene(std::string(FS_SOURCE_DIR) + "/scenes/" + c.scene + ".json", fs::solver_names());
        auto solver = fs::find_solver_kind(scene.solver)->make(fs::Backend::Cpu);
        fs::apply_scene_params(*solver, scene, c.sets);
        solver->reset();
        covered.push_back(scene.solver);
        SCOPED_TRACE(c.scene);

        // Each stage alone, in the declared order; the last one completes the step.
        const auto& stages = solver->stages();
        ASSERT_FALSE(stages.empty());
        for (std::size_t k = 0; k < stages.size(); ++k) {
            EXPECT_FALSE(stages[k].name.empty());
            EXPECT_FALSE(stages[k].source.empty()) << stages[k].name << " cites no source";
            EXPECT_EQ(solver->next_stage(), static_cast<int>(k));
            EXPECT_EQ(solver->advance_stage(), k + 1 == stages.size()) << stages[k].name;
        }
        EXPECT_EQ(solver->step_count(), 1);

        const int n = solver->particle_count();
        ASSERT_GT(n, 0);
        std::vector<std::string> names;
        for (const fs::FieldInfo& f : solver->fields()) {
            names.push_back(f.name);
            std::vector<double> values;
            solver->read_field(f.name, values);
            EXPECT_GE(f.components, 1) << f.name;
            EXPECT_EQ(values.size(), static_cast<std::size_t>(f.components) * n) << f.name;
            for (double v : values) ASSERT_TRUE(std::isfinite(v)) << f.name;
            if (const auto view = solver->field_view(f.name)) {
                EXPECT_EQ(view->count, n) << f.name;
                EXPECT_NE(view->data, nullptr) << f.name;
            }
        }
        for (const char* common : {"position", "velocity"})
            EXPECT_NE(std::find(names.begin(), names.end(), common), names.end()) << common;
        // The particle solvers' engines hold their fields where the window draws them from
        // (vortons and tracers are drawn from host copies).
        if (scene.solver != "vortex")
            EXPECT_TRUE(solver->field_view("position")) << "the window would draw from host copies";
        std::vector<double> none;
        try {
            solver->read_field("no_such_field", none);
            ADD_FAILURE() << "an undeclared field was read";
        } catch (const fs::ParamError& e) {
            EXPECT_NE(std::string(e.what()).find(names.front()), std::string::npos) << e.what();
        }
    }
    for (const std::string& kind : fs::solver_names())
        EXPECT_NE(std::find(covered.begin(), covered.end(), kind), covered.end()) << kind << " has no case here";
}

}  // namespace
