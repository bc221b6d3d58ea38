// The backend-facing half of the SPH solver: SphSolver owns the parameters and drives one
// Engine (sph_pipeline.hpp, instantiated once per backend), which owns the particles.
#pragma once

#include <iterator>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "core/frame_pack.hpp"
#include "solvers/common/declaration.hpp"
#include "solvers/common/particle_engine.hpp"
#include "solvers/sph/sph_kernels.hpp"

namespace fs::sph {

// The SPH solver declared once (solvers/common/declaration.hpp): every stage a step may run, and
// its state and fields in HostState. Each pressure solver runs its own list of these stages,
// with its own source for each (sph_solver.cpp); the pipeline (sph_pipeline.hpp) runs each stage
// and holds each part.

// Every stage, in Stage order (the WCSPH assignment, section 2, then the pressure solvers' own).
inline constexpr StageDecl kStages[] = {
    {"neighbor_search", "counting sort by cell (the grid of the euler solver)"},
    {"density", "WCSPH assignment, 2.1: rho_i = sum_j m_j W_ij"},
    {"pressure", "WCSPH assignment, 2.2: Tait p = B((rho/rho0)^7 - 1); boundary 2.4 / Adami 2012"},
    {"accelerations", "WCSPH assignment, 2.3 + 2.5"},
    {"integrate", "semi-implicit Euler: v += dt a, x += dt v"},
    {"boundary", "WCSPH assignment, 3: the barrier follows its angle"},
    {"divergence_solve", "DFSPH (Bender & Koschier 2017, Alg. 1)"},
    {"pressure_solve", "DFSPH (Bender & Koschier 2017, Alg. 1); IISPH (Ihmsen et al. 2014)"},
    {"viscosity_solve", "Weiler et al. 2018: implicit viscosity by conjugate gradients (viscosity_solver)"},
};
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
static_assert(kStageCount == std::size(kStages));

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
    static constexpr auto parts() {
        return std::tuple{&HostState::pos,      &HostState::vel,   &HostState::offset, &HostState::density,
                          &HostState::pressure, &HostState::kappa, &HostState::kind,   &HostState::id};
    }
    // The fields the Solver API reads and the window draws.
    static constexpr auto fields() {
        return std::tuple{
            field("position", "m", "particle position", &HostState::pos),
            field("velocity", "m/s", "particle velocity", &HostState::vel),
            norm("speed", "m/s", "|velocity|", &HostState::vel),
            field("density", "kg/m^3",
                  "SPH density: the kernel sum, unclamped (WCSPH's pressure takes max(rho0, rho) under clamp_density)",
                  &HostState::density),
            field("pressure", "Pa", "WCSPH: the Tait pressure; DFSPH and IISPH: rho^2 P, the pressure the solves applied",
                  &HostState::pressure),
            field("kind", "", "0 fluid, 1 wall, 2 barrier", &HostState::kind),
            field("id", "", "particle index at creation", &HostState::id)};
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
