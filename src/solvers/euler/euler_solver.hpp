// The `euler` solver: 2D particles with gravity, bouncing borders and pairwise collisions found
// by brute force or a uniform grid (seed 000, the Graphite/WarpDrive particle tutorial).
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "core/solver.hpp"
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
    long long grid_side = 0;  // diagnostic
};

class EulerSolver final : public Solver {
public:
    explicit EulerSolver(Backend backend = Backend::Cpu);

    std::string_view kind() const override { return "euler"; }
    int dimension() const override { return 2; }
    const std::vector<StageInfo>& stages() const override;
    std::vector<FieldInfo> fields() const override;
    void read_field(std::string_view name, std::vector<double>& out) const override;
    std::optional<FieldView> field_view(std::string_view name) const override { return engine_->view(name); }
    int particle_count() const override { return engine_ ? engine_->size() : 0; }
    double particle_radius() const override { return 0.5 * s_.collision_distance; }
    void domain(double lo[3], double hi[3]) const override {
        for (int k = 0; k < 3; ++k) {
            lo[k] = 0.0;
            hi[k] = k < 2 ? 1.0 : 0.0;
        }
    }

    // The whole state in host memory, particles in order of id (tests, export).
    HostState state() const;
    // Replaces the state (tests); the particle count becomes the state's.
    void set_state(const HostState& s);
    // Every close, approaching pair of ids (i < j) the current detector finds now, sorted.
    std::vector<std::pair<int, int>> candidate_pairs();
    // The partner each particle chose in the last collide stage, both in the order of state()
    // (-1 for none).
    std::vector<int> partners() const;
    const Settings& settings() const { return s_; }

protected:
    void do_reset() override;
    void run_stage(int index) override;
    double finish_step(Stats& out) override;
    void move_to(Backend to) override;
    void synchronize() override { engine_->synchronize(); }
    void save_state(std::vector<char>& out) const override;
    void load_state(const std::vector<char>& in) override;

private:
    Config config() const;

    Settings s_;
    std::unique_ptr<Engine> engine_;
};

std::unique_ptr<Engine> make_engine(Backend b);

}  // namespace fs::euler
