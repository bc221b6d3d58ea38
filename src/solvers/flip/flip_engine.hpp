// The backend-facing half of the FLIP solver: FlipSolver owns the parameters and drives one
// Engine (flip_pipeline.hpp, instantiated once per backend), which owns particles and grid.
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "core/frame_pack.hpp"
#include "solvers/common/particle_engine.hpp"
#include "solvers/flip/flip_kernels.hpp"

namespace fs::flip {

// The hands first (past the PIC-FLIP assignment: the obstacles a hand drags move and push the particles they
// now cover out, and poured particles join, so the grid stages see the step's bodies and
// particles), then the PIC-FLIP assignment's pipeline, in order; gravity acts on the grid after the
// particle-to-grid transfer (before it, the transfer would overwrite it), and the particles move
// last, through the velocity the step has just made divergence-free (Bridson 2015, 7.1), which
// the grid schemes of `advection` read; the PIC-FLIP assignment lists advection first.
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

// The particles: positions, velocities, ids and, under APIC, the affine vectors c_x, c_y, c_z
// (affine[a][p]: the gradient of velocity component a carried by particle p, 1/s). `affine` is
// empty while the transfer scheme is pic_flip; empty reads as c = 0.
struct HostState {
    std::vector<dvec3> pos, vel;
    std::vector<int> id;
    std::vector<dvec3> affine[3];
    // Every part, in checkpoint order (EngineSolver).
    template <class S, class F>
    static void each(S& s, F&& f) {
        f(s.pos);
        f(s.vel);
        f(s.id);
        for (auto& c : s.affine) f(c);
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
