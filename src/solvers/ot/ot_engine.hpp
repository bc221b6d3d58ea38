// The backend-facing half of the optimal-transport liquid: OtSolver (ot_solver.hpp) owns the
// parameters and drives one Engine, which owns the state on one backend (Pipeline<Exec>,
// ot_pipeline.hpp, instantiated once per backend).
#pragma once

#include <iterator>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "core/frame_pack.hpp"
#include "solvers/common/declaration.hpp"
#include "solvers/common/particle_engine.hpp"
#include "solvers/ot/ot_kernels.hpp"

namespace fs::ot {

// The OT liquid declared once (solvers/common/declaration.hpp): its stages, and its state and
// fields in HostState. The pipeline (ot_pipeline.hpp) runs each stage and holds each part.
class OtSolver;

// The stages of one step (Gallouet & Merigot 2018, the scheme a la Brenier):
// x += dt v; the cells projected back to their areas (optimal transport); v += dt (the
// centroids' pull + gravity). Stage indexes them.
inline constexpr StageDecl kStages[] = {
    {"advect", "Gallouet & Merigot 2018, (1.6): x += dt v"},
    {"transport", "Laguerre cells (Ray et al. 2018) and damped Newton on their weights (Kitagawa, Merigot & "
                  "Thibert 2019): every cell back to its area"},
    {"pressure", "Gallouet & Merigot 2018, (1.6): v += dt (c - x) rho_pull / (eps^2 rho)"},
    {"forces", "gravity, v += dt g, and viscosity between neighbouring cells (finite volumes on the cells)"},
};
enum Stage : int { kAdvect = 0, kTransport, kPressure, kForces, kStageCount };
static_assert(kStageCount == std::size(kStages));

struct HostState;
// The fields read from the cells as the last transport left them (ot_solver.cpp).
void read_pull_potential(const OtSolver& solver, const HostState& s, std::vector<double>& out);
void read_area_error(const OtSolver& solver, const HostState& s, std::vector<double>& out);

// The whole state in host memory. Weights travel with it: the next step's Newton starts from them.
struct HostState {
    std::vector<dvec2> pos, vel;
    std::vector<double> weight, target, density;
    std::vector<int> id;
    // The weights of the step before, which the next transport extrapolates from (Pipeline::
    // transport); empty where there are none (after a reset, or a step that started over from
    // equal weights). Part of the state, so that a restored run repeats its steps bit for bit.
    std::vector<double> weight_prev;
    // Every part, in checkpoint order (EngineSolver).
    static constexpr auto parts() {
        return std::tuple{&HostState::pos,     &HostState::vel, &HostState::weight,     &HostState::target,
                          &HostState::density, &HostState::id,  &HostState::weight_prev};
    }
    // The fields the Solver API reads and the window draws.
    static constexpr auto fields() {
        return std::tuple{
            field("position", "m", "particle position", &HostState::pos),
            field("velocity", "m/s", "particle velocity", &HostState::vel),
            norm("speed", "m/s", "|velocity|", &HostState::vel),
            field("density", "kg/m^2", "the liquid's density (mass per area)", &HostState::density),
            computed("pressure", "m^2/s^2", "the pull's potential |c - x|^2 / (2 eps^2): where the liquid is pressed", 1,
                     &read_pull_potential),
            computed("area_error", "", "(area - target) / target of the cell", 1, &read_area_error),
            field("weight", "m^2", "the cell's Laguerre weight", &HostState::weight),
            field("id", "", "particle index at creation", &HostState::id)};
    }
};

// What the last transport stage did.
struct TransportReport {
    int newton_iterations = 0;
    int cg_iterations = 0;        // summed over the Newton iterations
    int step_halvings = 0;        // of the damped Newton steps
    double max_area_error = 0.0;  // after the last iteration
    bool converged = true;
    bool restarted = false;       // the last step's weights left a cell empty: Newton began from equal weights
    bool empty_cells = false;     // even equal weights leave a cell empty: particles coincide
    long long overflow = 0;
    int cell_passes = 0;     // computations of every cell (one, then one a trial step)
    double cells_ms = 0.0;   // their time
    double solve_ms = 0.0;   // the linear solves' time
};

// The ot engine: a ParticleEngine (the state in and out, the fields) with its stages and cells.
class Engine : public ParticleEngine<HostState> {
public:
    // Runs a stage; the transport stage's tolerance and iteration caps come with it.
    virtual void run_stage(int stage, const Config& c, double tolerance, int max_newton) = 0;
    virtual const TransportReport& report() const = 0;
    virtual Sums sums(const Config& c) = 0;
    // The cells at the current weights (computed anew), as polygons in the order of the state's
    // arrays: cell k is the polygon vertices[start[k] .. start[k+1]), cut by the disk of radius
    // radius[k] about its particle where that is > 0 (a free surface). For tests and drawing;
    // allocates.
    virtual void cells(const Config& c, std::vector<dvec2>& vertices, std::vector<int>& start,
                       std::vector<double>& radius) = 0;
    // The cells' areas, centroids and pressures (per particle) as the last transport left them.
    virtual void cell_fields(std::vector<double>& area, std::vector<dvec2>& centroid) const = 0;
};

std::unique_ptr<Engine> make_cpu_engine();
std::unique_ptr<Engine> make_cuda_engine();

}  // namespace fs::ot
