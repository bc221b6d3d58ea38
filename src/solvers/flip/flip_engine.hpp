// The backend-facing half of the FLIP solver: FlipSolver owns the parameters and drives one
// Engine (flip_pipeline.hpp, instantiated once per backend), which owns particles and grid.
#pragma once

#include <iterator>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "core/frame_pack.hpp"
#include "solvers/common/declaration.hpp"
#include "solvers/common/particle_engine.hpp"
#include "solvers/flip/flip_kernels.hpp"

namespace fs::flip {

// The FLIP solver declared once (solvers/common/declaration.hpp): its stages, and its state and
// fields in HostState. The pipeline (flip_pipeline_class.hpp) runs each stage and holds each part.
class FlipSolver;

// The hands first (past the PIC-FLIP assignment: the obstacles a hand drags move and push the particles they
// now cover out, and poured particles join, so the grid stages see the step's bodies and
// particles), then the PIC-FLIP assignment's pipeline, in order; gravity acts on the grid after the
// particle-to-grid transfer (before it, the transfer would overwrite it), and the particles move
// last, through the velocity the step has just made divergence-free (Bridson 2015, 7.1), which
// the grid schemes of `advection` read; the PIC-FLIP assignment lists advection first. Stage indexes them.
inline constexpr StageDecl kStages[] = {
    {"hands", "a dragged obstacle moves toward the cursor by at most drag_speed dt, a moving boundary for the "
              "step (Bridson 2015, 5.1), and pushes the particles it covers out; pouring seeds the "
              "particles_per_cell lattice (as the PIC-FLIP assignment seeds fluid cells) in the empty cells within "
              "the hand's radius"},
    {"p2g", "PIC-FLIP assignment, Particle-to-Grid (APIC: v_p + C_p (x_face - x_p), Jiang et al. 2015)"},
    {"body_forces", "PIC-FLIP assignment, Body Force: u += dt g on the grid; a pushing or pulling hand's force on "
                    "the faces within its radius (after Lague 2023, solvers/common/hands.hpp)"},
    {"occupancy", "PIC-FLIP assignment: fluid / air / solid per cell"},
    {"divergence", "PIC-FLIP assignment, Divergence Operator; before it, where wall_friction > 0, the walls' "
                   "Darcy-Weisbach shear on the faces beside them (Dressler 1952)"},
    {"pressure_solve", "PIC-FLIP assignment, Pressure Projection: A p = -(rho dx^2/dt) div"},
    {"pressure_gradient", "PIC-FLIP assignment, Gradient Operator: u -= dt/rho grad p"},
    {"volume_correction", "crowded particles' displacement d = -grad q, div d = k (n / n0 - 1) (Kugelstadt et "
                          "al. 2019), applied by g2p; only when volume_correction > 0"},
    {"g2p", "PIC-FLIP assignment, Grid-to-Particle: PIC/FLIP blend, or APIC (Jiang et al. 2015); moves the particles by "
            "the volume correction's d"},
    {"advect", "PIC-FLIP assignment, Advection: x += dt v (forward Euler), or through the grid's velocity by RK2 / RK3 "
               "(Bridson 2015, 3.1)"},
};
enum Stage : int {
    kHands = 0,
    kP2G,
    kBodyForces,
    kOccupancy,
    kDivergence,
    kPressureSolve,
    kPressureGradient,
    kVolumeCorrection,  // optional (volume_correction > 0), past the PIC-FLIP assignment; G2P applies it
    kG2P,
    kAdvect,
    kStageCount
};
static_assert(kStageCount == std::size(kStages));

struct HostState;
// The pressure field: the last solve's p in each particle's cell (flip_solver.cpp).
void read_particle_pressure(const FlipSolver& solver, const HostState& s, std::vector<double>& out);

// The particles: positions, velocities, ids and, under APIC, the affine vectors c_x, c_y, c_z
// (affine[a][p]: the gradient of velocity component a carried by particle p, 1/s). `affine` is
// empty while the transfer scheme is pic_flip; empty reads as c = 0.
struct HostState {
    std::vector<dvec3> pos, vel;
    std::vector<int> id;
    std::vector<dvec3> affine[3];
    // Every part, in checkpoint order (EngineSolver).
    static constexpr auto parts() { return std::tuple{&HostState::pos, &HostState::vel, &HostState::id, &HostState::affine}; }
    // The fields the Solver API reads and the window draws.
    static constexpr auto fields() {
        return std::tuple{field("position", "m", "particle position", &HostState::pos),
                          field("velocity", "m/s", "particle velocity", &HostState::vel),
                          norm("speed", "m/s", "|velocity|", &HostState::vel),
                          computed("pressure", "Pa", "pressure of the particle's cell, from the last solve", 1,
                                   &read_particle_pressure),
                          field("id", "", "particle index at creation", &HostState::id)};
    }
};

// What the pressure solve and the divergence checks report for a step.
struct StepReport {
    double div_max_before = 0.0, div_max_after = 0.0;
    int pressure_iterations = 0;
    double pressure_residual = 0.0;
    long long fluid_cells = 0;
    // The particles in the bulk cells (is_bulk_cell) and how many cells those are: the
    // fluid's density, particles per cell, where the cells are full.
    double bulk_particles = 0.0, bulk_cells = 0.0;
    // The volume correction's solve (0 when it is off).
    int correction_iterations = 0;
};

// The FLIP engine: a ParticleEngine (the state in and out, the fields) with its stages, pouring and grids.
class Engine : public ParticleEngine<HostState> {
public:
    virtual void run_stage(int stage, const Config& c, const PressureSettings& ps) = 0;
    // Pouring: the particles now in each cell of the block of `n` cells from cell `lo` (x
    // fastest), and new particles appended at the end of the arrays (ids continue from the
    // largest; APIC's vectors, when carried, start at c = 0). Neither moves the whole state
    // through the host.
    virtual std::vector<int> particles_in_block(const MacGrid& g, ivec3 lo, ivec3 n) = 0;
    virtual void append(const std::vector<dvec3>& pos, const std::vector<dvec3>& vel) = 0;
    virtual Sums sums() = 0;
    virtual StepReport report(const Config& c) = 0;
    // Host copies of the grid (tests): a velocity component's faces after the last stage that
    // wrote them, and the cell types.
    virtual std::vector<double> faces(int axis) const = 0;
    virtual std::vector<unsigned char> cell_types() const = 0;
    // The pressure field: the last solve's p (Pa; 0 in air) in each particle's cell.
    virtual std::vector<double> particle_pressures() const = 0;
};

std::unique_ptr<Engine> make_cpu_engine();
std::unique_ptr<Engine> make_cuda_engine();

}  // namespace fs::flip
