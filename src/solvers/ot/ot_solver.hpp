// The `ot` solver: a 2D liquid by optimal transport (the particle tutorial's last chapter;
// the scheme of Gallouet & Merigot 2018). Each particle is a Laguerre cell of fixed area; every
// step projects the configuration back onto the incompressible ones (damped Newton on the cells'
// weights, Kitagawa, Merigot & Thibert 2019), and the cells' centroids pull their particles.
#pragma once

#include <vector>

#include "core/solver.hpp"
#include "solvers/common/engine_solver.hpp"
#include "solvers/ot/ot_engine.hpp"

namespace fs::ot {

enum Scenario : int { kRayleighTaylor = 0, kTutorial = 1, kDamBreak = 2, kDrop = 3 };

struct Settings {
    int scenario = kRayleighTaylor;
    double box_size[2] = {1.0, 2.0};
    long long resolution = 32;  // particles across the box
    double jitter = 0.2;        // of the spacing
    long long seed = 1;
    double atwood = 0.5;
    double perturbation = 0.02;  // m
    long long mode = 1;          // wavelengths across the box
    double initial_speed = 0.0;
    double liquid_size[2] = {0.4, 0.8};  // dam break: the column at the box's left
    double pool_depth = 0.3;             // drop: the pool's depth, the drop's radius and its centre's height
    double drop_radius = 0.12;
    double drop_height = 0.75;
    double dt = 0.002;
    double gravity = 9.81;
    double gravity_direction[2] = {0.0, -1.0};
    double epsilon = 0.01;
    double viscosity = 0.0;  // m^2/s
    double newton_tolerance = 1e-7;
    long long max_newton = 30;
    long long grid_side = 0;  // diagnostic
};

class OtSolver final : public EngineSolver<Engine, HostState, make_cpu_engine, make_cuda_engine> {
public:
    explicit OtSolver(Backend backend = Backend::Cpu);

    std::string_view kind() const override { return "ot"; }
    SolverTraits traits() const override {
        SolverTraits t;
        t.liquid = true;
        t.instability_advice = "try a smaller time step, a larger epsilon, or more Newton iterations";
        t.stat_scales = {{"total_energy", "J/m", 1e-9},
                         {"transport_energy", "J/m", 1e-9},
                         {"area_error", "", 1e-9},
                         {"total_area", "m^2", 1e-9},
                         {"interface_amplitude", "m", 1e-6},
                         {"newton_iterations", "", 1, true},
                         {"cg_iterations", "", 1, true},
                         {"step_halvings", "", 1, true},
                         {"newton_restarts", "", 1, true},
                         {"cell_passes", "", 1, true},
                         {"cells_ms", "ms", 0.01},
                         {"solve_ms", "ms", 0.01}};
        return t;
    }
    int dimension() const override { return 2; }
    const std::vector<StageInfo>& stages() const override;
    std::vector<FieldInfo> fields() const override;
    void read_field(std::string_view name, std::vector<double>& out) const override;
    // Hands (core/hands.hpp): push and pull.
    unsigned hand_tools() const override { return kHandPushPull; }
    // Refuses a resolution whose steps would take minutes (the cells a step builds and solves).
    void check_params() const override;
    double particle_radius() const override;
    void domain(double lo[3], double hi[3]) const override {
        lo[0] = lo[1] = lo[2] = 0.0;
        hi[0] = s_.box_size[0];
        hi[1] = s_.box_size[1];
        hi[2] = 0.0;
    }
    const Settings& settings() const { return s_; }
    // The cells at the current weights, in the order of state(): cell k is the polygon
    // vertices[start[k] .. start[k+1]) cut by the disk of radius radius[k] > 0 about its particle
    // (a free surface; 0: no disk) (tests).
    void cells(std::vector<dvec2>& vertices, std::vector<int>& start, std::vector<double>& radius);
    bool free_surface() const { return s_.scenario == kDamBreak || s_.scenario == kDrop; }
    Config config() const;
    void cell_polygons(std::vector<float>& xy, std::vector<int>& start) const override;

protected:
    void do_reset() override;
    void run_stage(int index) override;
    double finish_step(Stats& out) override;
    void initial_stats(Stats& out) override;
    void on_upload() override;

private:
    void report(const Sums& s, Stats& out) const;
    void check_transport(const std::string& when);
    void settle();
    void start_run();
    HostState bent(HostState flat) const;
    Settings s_;
    HandSettings hands_;
    double rho_min_ = 1.0;
    double rho_pull_ = 1.0;
    double rho_ref_ = 0.0;
    double mode_flat_ = 0.0;  // the Rayleigh-Taylor mode's sum for the settled, flat interface
    HostState start_flat_;         // the reset's lattice before the bend, until the first step
    bool start_pending_ = false;   // the first step settles and projects the start (start_run)
    bool internal_upload_ = false; // set_state from do_reset / start_run (keeps start_pending_)
};

}  // namespace fs::ot
