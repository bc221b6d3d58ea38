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

class EulerSolver final : public EngineSolver<EulerSolver, Engine, HostState, make_cpu_engine, make_cuda_engine> {
public:
    explicit EulerSolver(Backend backend = Backend::Cpu);

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

// The step and the state's hooks (core/solver.hpp, engine_solver.hpp): private, as the class is final.
private:
    // After every upload: the lightest mass and the fastest speed the next steps start from.
    void on_upload() override;
    // The particle tutorial's initialisation: positions in the spawn box, random speeds and masses.
    void do_reset() override;
    // A declared stage (euler_engine.hpp) on the engine, with this step's Config.
    void run_stage(int index) override;
    // The step's sums: a NaN, or a particle that crossed the box in one step, fails it.
    double finish_step(Stats& out) override;
    void initial_stats(Stats& out) override;

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
