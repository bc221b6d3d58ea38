// The `sph` solver: 2D weakly compressible SPH (the WCSPH assignment) with boundary particles, Monaghan
// artificial viscosity, gravity turned by W/A/S/D and a barrier rotated by Q/E.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "core/solver.hpp"
#include "solvers/common/engine_solver.hpp"
#include "solvers/sph/sph_engine.hpp"

namespace fs::sph {

// The registered parameters (defaults: a block of water in a 1 m box, the assignment's set-up).
struct Settings {
    double spacing = 0.01;                      // particle spacing (m)
    double support_factor = 2.0;                // h / spacing
    double domain_size[2] = {1.0, 1.0};
    double fluid_box[4] = {0.0, 0.0, 0.4, 0.6};  // x0, y0, x1, y1
    double fluid_box_2[4] = {0.0, 0.0, 0.0, 0.0};
    long long boundary_layers = 3;
    int boundary_model = kPressureMirroring;
    double boundary_viscosity = 1.0;           // the walls' viscosity over the fluid's
    double rest_density = 1000.0;
    double speed_of_sound = 35.0;
    double gamma = 7.0;
    double viscosity_alpha = 0.8;
    double viscosity_epsilon = 0.01;
    bool clamp_density = true;
    double gravity = 9.81;
    double gravity_direction[2] = {0.0, -1.0};
    double cfl = 0.8;                           // particle spacings per step
    double max_dt = 1e-3;
    int pressure_solver = kWcsph;
    int viscosity_solver = kExplicitViscosity;  // DFSPH and IISPH: Monaghan explicit (docs/solvers/sph.md: why)
    double dfsph_cfl = 0.4;                     // DFSPH: spacings the fastest particle crosses a step
    double density_tolerance = 1e-3;            // DFSPH: mean compression left, over rho0
    double divergence_tolerance = 1e-3;         // DFSPH: mean compression rate left times dt, over rho0
    long long max_iterations = 100;
    double relaxation = 0.5;                    // DFSPH: omega of the Jacobi updates
    double warm_start = 0.25;                   // DFSPH: the last step's pressure a solve starts from
    int dt_limit = 0;                          // diagnostic: which bound set the last dt
    double barrier_length = 0.0;               // 0: no barrier
    double barrier_center[2] = {0.5, 0.4};
    double barrier_angle = 0.0;                // degrees, counter-clockwise
    double barrier_rotation_rate = 45.0;       // degrees per second while Q/E are held
    double initial_velocity[2] = {0.0, 0.0};
    double velocity_noise = 0.0;               // random initial velocity amplitude (tests)
    long long seed = 1;
    double kinematic_viscosity = 0.0;          // nu (m^2/s); 0: viscosity_alpha applies
    double stiffness = 0.0;                    // diagnostic: B = rho0 c_s^2 / gamma
    double alpha_used = 0.0;                   // diagnostic
    double viscosity_used = 0.0;               // diagnostic: alpha h c_s / 8
    double time_step = 0.0;                    // diagnostic: the last dt
    long long n_fluid = 0;                     // diagnostic
};

class SphSolver final : public EngineSolver<Engine, HostState, make_cpu_engine, make_cuda_engine> {
public:
    explicit SphSolver(Backend backend = Backend::Cpu);

    std::string_view kind() const override { return "sph"; }
    SolverTraits traits() const override {
        SolverTraits t;
        t.liquid = true;
        t.turn_param = "barrier_angle";
        t.turn_rate_param = "barrier_rotation_rate";
        // dt follows the speed of sound (CFL), so a stiffer fluid is slower, not less stable.
        t.instability_advice = "try a larger speed of sound, a smaller CFL number or largest time step, or more "
                               "viscosity";
        t.stat_scales = {{"density_mean", "kg/m^3", 0.1},
                         {"density_max_error", "", 1e-4},
                         {"density_error_mean", "", 1e-5},
                         {"pressure_max", "Pa", 1.0},
                         {"neighbors_mean", "", 0.1},
                         {"front_x", "m", 1e-3},
                         {"n_fluid", "", 1, true},
                         {"barrier_angle", "deg", 0.05},
                         {"density_iterations", "", 1, true},  // dfsph, iisph
                         {"density_residual", "", 1e-6},
                         {"divergence_iterations", "", 1, true},
                         {"divergence_residual", "", 1e-6},
                         {"viscosity_iterations", "", 1, true},  // viscosity_solver implicit
                         {"viscosity_residual", "", 1e-6}};
        return t;
    }
    int dimension() const override { return 2; }
    const std::vector<StageInfo>& stages() const override;
    std::vector<FieldInfo> fields() const override;
    void read_field(std::string_view name, std::vector<double>& out) const override;
    double particle_radius() const override { return 0.5 * s_.spacing; }
    void domain(double lo[3], double hi[3]) const override;
    std::vector<Obstacle> obstacles() const override;
    // Hands (core/hands.hpp): drag the barrier, push and pull the fluid, pour more.
    unsigned hand_tools() const override;
    void keep_body_poses() override;
    // Refuses a spacing whose steps would take minutes (the neighbour pairs a step).
    void check_params() const override;

    // Pairs of ids closer than h, through the grid or by brute force (tests).
    std::vector<std::pair<int, int>> neighbor_pairs(bool grid);
    const Settings& settings() const { return s_; }
    double support_radius() const { return s_.support_factor * s_.spacing; }

protected:
    void do_reset() override;
    void run_stage(int index) override;
    double finish_step(Stats& out) override;
    void initial_stats(Stats& out) override;
    // set_state's velocities bound the next step's dt, as a step's own would.
    void on_written(const HostState& s) override {
        double fastest2 = 0.0;
        for (const auto& v : s.vel) fastest2 = std::max(fastest2, glm::dot(v, v));
        last_max_speed_ = std::sqrt(fastest2);
    }
    void save_extra(std::vector<char>& out) const override {
        blob::put(out, last_max_speed_);
        blob::put(out, last_max_accel_);
        blob::put(out, barrier_pos_);
        blob::put(out, barrier_vel_);
        blob::put(out, pour_carry_);
        blob::put(out, hands_.poured);
        blob::put(out, s_.n_fluid);
    }
    void load_extra(const std::vector<char>& in, std::size_t& at) override {
        blob::get(in, at, last_max_speed_);
        blob::get(in, at, last_max_accel_);
        blob::get(in, at, barrier_pos_);
        blob::get(in, at, barrier_vel_);
        blob::get(in, at, pour_carry_);
        blob::get(in, at, hands_.poured);
        blob::get(in, at, s_.n_fluid);
    }

private:
    Config config() const;
    void report(const Sums& s, Stats& out) const;
    // The time step of the step starting now, and which bound set it (Settings::dt_limit).
    void choose_dt();
    // Monaghan's alpha the viscosity term uses: viscosity_alpha, or the one kinematic_viscosity sets.
    double alpha_used() const;
    // Whether a hand drags the barrier this step.
    bool barrier_dragged() const;
    // The Stage a position in stages() runs, for the pressure solver in use.
    Stage stage_at(int index) const;

    // Pours the liquid a Pour hand has accumulated (before the step's neighbour search).
    void pour();
    double estimated_particles() const;

    Settings s_;
    HandSettings hands_;
    // Where the barrier is and how fast a hand moves it: state (a drag is undone by Step back;
    // Reset puts the barrier back at barrier_center).
    dvec2 barrier_pos_{0.0}, barrier_vel_{0.0};
    double pour_carry_ = 0.0;  // particles owed to the pour, carried to the next step
    long long initial_fluid_ = 0;
    double dt_ = 1e-4;         // the time step of the step in progress
    int solver_ = kWcsph;      // the pressure solver of the step in progress (chosen as it starts)
    double last_max_speed_ = 0.0;
    double last_max_accel_ = 0.0;  // of the fluid, for the force condition on dt
};

}  // namespace fs::sph
