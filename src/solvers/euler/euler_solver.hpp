// The `euler` solver: 2D particles with gravity, bouncing borders and pairwise collisions found
// by brute force or a uniform grid (the particle tutorial, the Graphite/WarpDrive particle tutorial).
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "core/solver.hpp"
#include "solvers/common/engine_solver.hpp"
#include "solvers/euler/euler_engine.hpp"

namespace fs::euler {

// The registered parameters (defaults: the tutorial's set-up).
struct Settings {
    long long n_particles = 1000;
    long long seed = 1;
    double spawn_min[2] = {0.1, 0.1};
    double spawn_max[2] = {0.9, 0.9};
    double initial_speed = 3.0;
    double mass = 1.0;
    double mass_variation = 0.0;
    double tau = 0.005;
    double gravity = 9.81;
    double gravity_direction[2] = {0.0, -1.0};
    int boundary = kWalls;
    double wall_damping = 0.9;
    bool collisions = true;
    int detector = kGrid;
    double collision_distance = 0.0316227766016838;  // sqrt(0.001), the tutorial's radius2
    double restitution = 0.99;
    int contact = kImpulse;
    double contact_stiffness = 1e6;
    long long grid_side = 0;  // diagnostic
    long long substeps = 1;   // diagnostic
};

class EulerSolver final : public EngineSolver<Engine, HostState, make_cpu_engine, make_cuda_engine> {
public:
    explicit EulerSolver(Backend backend = Backend::Cpu);

    std::string_view kind() const override { return "euler"; }
    SolverTraits traits() const override {
        SolverTraits t;
        t.instability_advice = "try a smaller tau or less gravity";
        t.stat_scales = {{"collisions", "", 1, true},
                         {"contacts", "", 1, true},
                         {"pair_tests", "", 1, true},
                         {"max_overlap", "of the diameter", 1e-3}};
        t.run_totals = {"collisions"};
        return t;
    }
    int dimension() const override { return 2; }
    const std::vector<StageInfo>& stages() const override;
    std::vector<FieldInfo> fields() const override;
    void read_field(std::string_view name, std::vector<double>& out) const override;
    // Hands (core/hands.hpp): push and pull.
    unsigned hand_tools() const override { return kHandPushPull; }
    double particle_radius() const override { return 0.5 * s_.collision_distance; }
    void domain(double lo[3], double hi[3]) const override {
        for (int k = 0; k < 3; ++k) {
            lo[k] = 0.0;
            hi[k] = k < 2 ? 1.0 : 0.0;
        }
    }

    // Every close, approaching pair of ids (i < j) the current detector finds now, sorted.
    std::vector<std::pair<int, int>> candidate_pairs();
    // The partner each particle chose in the last collide stage, both in the order of state()
    // (-1 for none).
    std::vector<int> partners() const;
    const Settings& settings() const { return s_; }
    void refresh_diagnostics() override;

protected:
    void do_reset() override;
    void run_stage(int index) override;
    double finish_step(Stats& out) override;
    void initial_stats(Stats& out) override;
    void on_upload() override;

private:
    Config config() const;
    void check_params() const override;
    void report(const Sums& s, Stats& out) const;

    Settings s_;
    HandSettings hands_;
    // From the last step's sums: the soft contact's sub-step and skin depend on them.
    double min_mass_ = 1.0;
    double max_speed_ = 0.0;
};

}  // namespace fs::euler
