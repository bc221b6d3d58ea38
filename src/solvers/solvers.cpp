#include "solvers/solvers.hpp"

#include "solvers/euler/euler_solver.hpp"
#include "solvers/flip/flip_solver.hpp"
#include "solvers/ot/ot_solver.hpp"
#include "solvers/sph/sph_solver.hpp"
#include "solvers/vortex/vortex_solver.hpp"

namespace fs {

const std::vector<SolverKind>& solver_kinds() {
    static const std::vector<SolverKind> kinds = {
        {"euler", "2D particles: semi-explicit Euler, gravity, bouncing borders, collisions (grid or brute force)",
         [](Backend b) { return std::make_unique<euler::EulerSolver>(b); }},
        {"sph", "2D SPH: WCSPH (Tait), DFSPH or IISPH pressure, boundary particles, viscosity, a rotating barrier",
         [](Backend b) { return std::make_unique<sph::SphSolver>(b); }},
        {"flip", "3D PIC/FLIP liquid on a MAC grid: Jacobi, red-black Gauss-Seidel or multigrid-preconditioned CG pressure",
         [](Backend b) { return std::make_unique<flip::FlipSolver>(b); }},
        {"vortex", "3D vortex particles and tracers: Biot-Savart or vortex-in-cell, buoyancy, flames, sphere and polytope bodies",
         [](Backend b) { return std::make_unique<vortex::VortexSolver>(b); }},
        {"ot", "2D liquid by optimal transport: Laguerre cells of fixed area, damped Newton on their weights, two densities",
         [](Backend b) { return std::make_unique<ot::OtSolver>(b); }},
    };
    return kinds;
}

std::vector<std::string> solver_names() {
    std::vector<std::string> out;
    for (const auto& k : solver_kinds()) out.push_back(k.name);
    return out;
}

const SolverKind* find_solver_kind(std::string_view name) {
    for (const auto& k : solver_kinds())
        if (k.name == name) return &k;
    return nullptr;
}

}  // namespace fs
