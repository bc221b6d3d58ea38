// The backend-facing half of the SPH solver: SphSolver owns the parameters and drives one
// Engine (sph_pipeline.hpp, instantiated once per backend), which owns the particles.
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "core/frame_pack.hpp"
#include "solvers/common/particle_engine.hpp"
#include "solvers/sph/sph_kernels.hpp"

namespace fs::sph {

// The stages of one step (the WCSPH assignment, section 2, in order).
enum Stage : int {
    kNeighborSearch = 0,
    kDensity,
    kPressure,
    kAccelerations,
    kIntegrate,
    kBoundary,
    // DFSPH's own (Bender & Koschier 2017, Algorithm 1): the divergence solve, and the density
    // solve (which predicts the velocities first); its density stage also finds each particle's
    // factor alpha, its accelerations stage the non-pressure forces, its integrate x += dt v.
    kDivergenceSolve,
    kPressureSolve,
    // Weiler et al. 2018's implicit viscosity (sph_viscosity.hpp), under viscosity_solver = implicit.
    kViscositySolve,
    kStageCount
};

// What the last step's implicit solves did (DFSPH; zero for WCSPH).
struct SolveReport {
    int density_iterations = 0;
    double density_residual = 0.0;     // mean compression left, over rho0
    int divergence_iterations = 0;
    double divergence_residual = 0.0;  // mean compression rate left, times dt, over rho0
    int viscosity_iterations = 0;      // the implicit viscosity's conjugate gradients
    double viscosity_residual = 0.0;   // |r| / |b| left
};

// All particles in host memory, fluid and boundary alike. `offset` is a barrier particle's
// position relative to the barrier's centre at angle 0 (unused for the others). `kappa` holds
// DFSPH's pressures p / rho^2 of the last step, density solve's and divergence solve's, from
// which the next step's solves start (Bender & Koschier 2017's warm start).
struct HostState {
    std::vector<dvec2> pos, vel, offset;
    std::vector<double> density, pressure;
    std::vector<dvec2> kappa;
    std::vector<int> kind, id;
    // Every part, in checkpoint order (EngineSolver).
    template <class S, class F>
    static void each(S& s, F&& f) {
        f(s.pos);
        f(s.vel);
        f(s.offset);
        f(s.density);
        f(s.pressure);
        f(s.kappa);
        f(s.kind);
        f(s.id);
    }
};

// The SPH engine: a ParticleEngine (the state in and out, the fields) with its stages and checks.
class Engine : public ParticleEngine<HostState> {
public:
    virtual void run_stage(int stage, const Config& c) = 0;
    virtual Sums sums(const Config& c) = 0;
    virtual SolveReport solve_report() const = 0;
    // Every pair of ids (i < j) closer than h, found through the grid (grid = true) or by
    // brute force, sorted. For tests; allocates.
    virtual std::vector<std::pair<int, int>> neighbor_pairs(const Config& c, bool grid) = 0;
};

std::unique_ptr<Engine> make_cpu_engine();
std::unique_ptr<Engine> make_cuda_engine();

}  // namespace fs::sph
