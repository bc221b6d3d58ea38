// The pressure solve of the FLIP solver (the PIC-FLIP assignment, "Pressure Projection", step 2), written once
// over an executor (CpuExec or CudaExec): A p = b (the operator and its boundary conditions:
// pressure_operator.hpp) by Jacobi with the assignment's relaxation, red-black Gauss-Seidel with
// over-relaxation (pressure_relaxation.hpp), or conjugate gradient preconditioned by a geometric
// multigrid V-cycle (MGPCG, pressure_mgpcg.hpp). This file picks one and reports how it did.
#pragma once

#include "core/buffer.hpp"
#include "solvers/flip/mac_grid.hpp"
#include "solvers/flip/pressure_mgpcg.hpp"
#include "solvers/flip/pressure_operator.hpp"
#include "solvers/flip/pressure_relaxation.hpp"

namespace fs::flip {

template <class Exec>
class PressureSolver {
public:
    enum Method { kJacobi = 0, kGaussSeidel = 1, kMgpcg = 2 };

    struct Settings {
        int method = kMgpcg;
        int iterations = 200;       // sweeps of Jacobi and Gauss-Seidel (no early stop)
        double jacobi_alpha = 1.0;  // the PIC-FLIP assignment: p = alpha p_jacobi + (1 - alpha) p_old
        double sor_omega = 1.7;     // Gauss-Seidel over-relaxation, in (0, 2)
        double tolerance = 1e-6;    // MGPCG: stop at this relative residual
        int max_iterations = 100;   // MGPCG
        // MGPCG: which cell types these are (the caller counts its changes; -1: unknown). A
        // solve with the same as the last MGPCG solve keeps that solve's hierarchy (the volume
        // correction after the pressure solve, in one step).
        long long cells_version = -1;
        // Whether to measure the solution's relative residual (an operator application over the
        // grid and a round trip): the pressure's is a stat; the volume correction's is not shown.
        bool measure_residual = true;
    };

    // residual: ||b - A p||_2 / ||b||_2 over the fluid cells (0 when b = 0 there).
    struct Result {
        int iterations = 0;
        double residual = 0.0;
    };

    // Solves A p = b on the fluid cells of `type`. On entry p holds the initial guess (the last
    // step's pressure); on exit p is 0 on every cell that is not fluid. b is read on fluid cells
    // only. Allocates only when the grid size changes.
    Result solve(Exec& exec, const MacGrid& g, View<const unsigned char> type, View<const double> b,
                 View<double> p, const Settings& s) {
        mask_non_fluid(exec, type, p);
        Result res;
        const double bb = norm2_fluid(exec, g, type, b);
        if (bb == 0.0) {  // A p = 0: p = 0, whatever the method
            fill_zero(exec, p);
            return res;
        }
        switch (s.method) {
            case kJacobi:
                relaxation_.jacobi(exec, g, type, b, p, s.iterations, s.jacobi_alpha);
                res.iterations = s.iterations;
                break;
            case kGaussSeidel:
                relaxation_.gauss_seidel(exec, g, type, b, p, s.iterations, s.sor_omega);
                res.iterations = s.iterations;
                break;
            default: {
                const bool same_cells = s.cells_version >= 0 && s.cells_version == mgpcg_cells_;
                mgpcg_cells_ = s.cells_version;
                res.iterations = mgpcg_.solve(exec, g, type, b, p, s.tolerance, s.max_iterations, bb, same_cells);
                break;
            }
        }
        if (s.measure_residual) res.residual = relative_residual(exec, g, type, b, p);
        return res;
    }

private:
    Relaxation<Exec> relaxation_;
    Mgpcg<Exec> mgpcg_;
    long long mgpcg_cells_ = -1;  // the cells_version mgpcg_'s hierarchy was built for
};

}  // namespace fs::flip
