// The `flip` solver: PIC/FLIP liquid on a 3D staggered (MAC) grid (the PIC-FLIP assignment), with Jacobi,
// red-black Gauss-Seidel and multigrid-preconditioned CG pressure solvers.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "core/solver.hpp"
#include "solvers/common/engine_solver.hpp"
#include "solvers/flip/flip_engine.hpp"

namespace fs::flip {

struct Settings {
    double domain_size[3] = {1.0, 0.6, 0.4};
    long long resolution = 40;          // cells along the longest side
    double fluid_box[6] = {0.0, 0.0, 0.0, 0.35, 0.4, 0.4};
    double fluid_box_2[6] = {0, 0, 0, 0, 0, 0};
    long long particles_per_cell = 8;   // 2x2x2
    double jitter = 0.5;                // of a particle's sub-cell
    long long seed = 1;
    double obstacle_box[6] = {0, 0, 0, 0, 0, 0};
    double obstacle_sphere[4] = {0, 0, 0, 0};
    double flip_ratio = 0.95;
    double volume_correction = 0.0;
    double wall_friction = 0.0;         // Darcy f; 0: free-slip walls
    int transfer = kLinear;
    int transfer_scheme = kPicFlip;
    int advection = kForwardEuler;
    int pressure_solver = 2;            // mgpcg
    long long jacobi_iterations = 500;  // the PIC-FLIP assignment, Jacobi Iteration: "~500-1000 iterations"
    double jacobi_relaxation = 1.0;
    long long gauss_seidel_iterations = 100;
    double sor_omega = 1.7;
    double mgpcg_tolerance = 1e-6;
    long long mgpcg_max_iterations = 100;
    double density = 1000.0;
    double gravity = 9.81;
    double gravity_direction[3] = {0.0, -1.0, 0.0};
    double cfl = 1.0;
    double max_dt = 1.0 / 60.0;
    // diagnostics
    double time_step = 0.0;
    int dt_limit = 0;  // diagnostic: 0 max_dt, 1 cfl
    long long pressure_iterations = 0;
    double pressure_residual = 0.0;
};

class FlipSolver final : public EngineSolver<Engine, HostState, make_cpu_engine, make_cuda_engine> {
public:
    explicit FlipSolver(Backend backend = Backend::Cpu);

    std::string_view kind() const override { return "flip"; }
    SolverTraits traits() const override {
        SolverTraits t;
        t.liquid = t.surface_mesh = true;
        t.instability_advice = "try a smaller CFL number or time step, or more pressure iterations";
        t.stat_scales = {{"fluid_volume", "m^3", 1e-9},
                         {"bulk_density", "particles/cell", 0.01},
                         {"div_max_before", "1/s", 1e-6},
                         {"div_max_after", "1/s", 1e-9},
                         {"pressure_iterations", "", 1, true},
                         {"pressure_residual", "", 1e-12},
                         {"fluid_cells", "", 1, true},
                         {"correction_iterations", "", 1, true}};
        return t;
    }
    int dimension() const override { return 3; }
    const std::vector<StageInfo>& stages() const override;
    std::vector<FieldInfo> fields() const override;
    void read_field(std::string_view name, std::vector<double>& out) const override;
    double particle_radius() const override;
    void domain(double lo[3], double hi[3]) const override;
    // The box (when there is one) and then the sphere, where they are now; both draggable.
    std::vector<Obstacle> obstacles() const override;
    bool has_cell_grid() const override { return true; }
    void cell_grid(CellGrid& out) const override;

    // Drag the box and the sphere, push and pull the liquid's faces, pour particles.
    unsigned hand_tools() const override { return kHandDrag | kHandPushPull | kHandPour; }
    void keep_body_poses() override;
    // Refuses a particle budget (max_particles) that pouring could not allocate.
    void check_params() const override;

    MacGrid grid() const;
    const Settings& settings() const { return s_; }
    // What the stages get now (tests drive the engine's stages with these).
    Config config() const;
    PressureSettings pressure_settings() const;

protected:
    void do_reset() override;
    void run_stage(int index) override;
    double finish_step(Stats& out) override;
    void initial_stats(Stats& out) override;
    void report_motion(const Sums& s, Stats& out) const;
    // set_state's velocities bound the next step's dt, as a step's own would.
    void on_written(const HostState& s) override {
        double fastest2 = 0.0;
        for (const auto& v : s.vel) fastest2 = std::max(fastest2, glm::dot(v, v));
        last_max_speed_ = std::sqrt(fastest2);
    }
    void save_extra(std::vector<char>& out) const override;
    void load_extra(const std::vector<char>& in, std::size_t& at) override;

private:
    // Where the obstacles are: state, so a checkpoint (Step back) undoes a drag and Reset places
    // them from the parameters again; a change of obstacle_box or obstacle_sphere places them
    // anew too (the panel and --set move them). Velocities are those of the step in progress.
    struct Bodies {
        double box[6] = {0, 0, 0, 0, 0, 0};  // x0, y0, z0, x1, y1, z1
        double sphere[3] = {0, 0, 0};        // centre (the radius is the parameter's)
        dvec3 box_velocity{0.0}, sphere_velocity{0.0};
        double placed_box[6] = {0, 0, 0, 0, 0, 0};  // the parameters they were last placed from
        double placed_sphere[3] = {0, 0, 0};
    };
    // bodies_, placed anew where the parameters changed since.
    Bodies bodies_now() const;
    bool has_box(const Bodies& b) const;
    // The hands stage's host part: a dragged obstacle moves (drag_velocity, kept in the domain),
    // and pouring picks and appends its particles.
    void move_bodies();
    void pour();

    Settings s_;
    HandSettings hands_;
    Bodies bodies_;
    double pour_carry_ = 0.0;          // the fraction of a particle the pour owes the next step
    long long initial_particles_ = 0;  // seeded at reset (max_particles = 0 allows twice as many)
    double dt_ = 1e-3;
    double last_max_speed_ = 0.0;
};

}  // namespace fs::flip
