// The backend-facing half of the Euler solver: EulerSolver (euler_solver.hpp) owns the
// parameters and drives one Engine, which owns the state on one backend. The engine is
// EulerPipeline<Exec> (euler_pipeline.hpp), instantiated once per backend.
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
#include "solvers/euler/euler_kernels.hpp"

namespace fs::euler {

// The Euler solver declared once (solvers/common/declaration.hpp): its stages, and its state and
// fields in HostState. The pipeline (euler_pipeline.hpp) runs each stage and holds each part.

// The stages of one step, in order (the particle tutorial's Euler_step with collisions and the
// search grid); Stage indexes them.
inline constexpr StageDecl kStages[] = {
    {"forces", "particle tutorial, gravity: V += tau F/m (soft contact: in its sub-steps)"},
    {"grid_build", "particle tutorial, search grid (counting sort by cell)"},
    {"collide", "particle tutorial, choc/bounce: impulse along the line of centres; soft "
                "contact: spring-dashpot sub-steps (Cundall & Strack 1979)"},
    {"integrate", "particle tutorial, semi-explicit Euler: x += tau V (soft contact: done in its sub-steps)"},
    {"bounce_on_borders", "particle tutorial, bounce_on_borders"},
};
enum Stage : int { kForces = 0, kGridBuild, kCollide, kIntegrate, kBounce, kStageCount };
static_assert(kStageCount == std::size(kStages));

// The whole state in host memory: how it enters, leaves and moves between backends. The engine
// may keep particles in any order (grid_build sorts them by cell); id names each one.
struct HostState {
    std::vector<dvec2> pos, vel;
    std::vector<double> mass;
    std::vector<int> id;
    // Every part, in checkpoint order (EngineSolver).
    static constexpr auto parts() { return std::tuple{&HostState::pos, &HostState::vel, &HostState::mass, &HostState::id}; }
    template <class S, class F>
    static void each(S& s, F&& f) {
        for_each_part(s, f);
    }
    // The fields the Solver API reads and the window draws.
    static constexpr auto fields() {
        return std::tuple{field("position", "m", "particle position", &HostState::pos),
                          field("velocity", "m/s", "particle velocity", &HostState::vel),
                          norm("speed", "m/s", "|velocity|", &HostState::vel),
                          field("mass", "kg", "particle mass", &HostState::mass),
                          field("id", "", "particle index at creation", &HostState::id)};
    }
};

// The Euler engine: a ParticleEngine (the state in and out, the fields) with its stages and checks.
class Engine : public ParticleEngine<HostState> {
public:
    virtual void run_stage(int stage, const Config& c) = 0;
    virtual Sums sums() = 0;
    // Every pair of ids (i < j) of particles close and approaching now, as the configured
    // detector finds it, sorted. For tests and inspection; allocates.
    virtual std::vector<std::pair<int, int>> candidate_pairs(const Config& c) = 0;
    // partner[k] chosen by the last collide stage, as array indices (-1: none).
    virtual std::vector<int> partners() const = 0;
};

std::unique_ptr<Engine> make_cpu_engine();
// Throws CudaError when the CUDA backend is not built or no GPU is usable.
std::unique_ptr<Engine> make_cuda_engine();

}  // namespace fs::euler
