// The relaxation solvers of the FLIP pressure system: the assignment's Jacobi with relaxation and
// red-black Gauss-Seidel with over-relaxation, both sweeping the list of the fluid cells.
#pragma once

#include <utility>

#include "core/buffer.hpp"
#include "core/hd.hpp"
#include "solvers/flip/mac_grid.hpp"
#include "solvers/flip/pressure_operator.hpp"

namespace fs::flip {

// Row c of A x = b solved for x_c, the others held:
//   (b_c + sum over fluid n of x_n) / (number of non-solid neighbours), 0 for a cell walled in.
FS_HDI double solve_row(View<const double> b, View<const double> x, const FluidCell& fc, int sy, int sz) {
    const int diag = stencil_diag(fc.stencil);
    return diag > 0 ? (b[fc.cell] + fluid_neighbour_sum(x, fc.cell, fc.stencil, sy, sz)) / diag : 0.0;
}

// Both solvers run a fixed number of sweeps (no early stop) and leave x alone off the fluid.
// Kernel-launching members are public: nvcc's host-device lambdas may not be defined in private
// members.
template <class Exec>
class Relaxation {
public:
    static constexpr MemorySpace kSpace = Exec::space;

    // the PIC-FLIP assignment, "Jacobi Iteration": the Laplacian solved for the centre, with the solid
    // neighbours mirrored (p_n = p_i taken at the new iterate, which leaves them out and divides
    // by the non-solid count) and air neighbours 0 (solve_row); then the assignment's relaxation
    //   p_new = alpha p_jacobi + (1 - alpha) p_old.
    // The sweeps ping-pong between p and a scratch vector; the last lands in p.
    void jacobi(Exec& exec, const MacGrid& g, View<const unsigned char> type, View<const double> b, View<double> p,
                int iterations, double alpha) {
        fluid_.build(exec, g, type);
        scratch_.resize(static_cast<std::size_t>(g.cells()));
        View<double> a = p, t = scratch_.view();
        for (int it = 0; it < iterations; ++it) {
            jacobi_sweep(exec, b, a, t, alpha);
            std::swap(a, t);
        }
        if (a.data != p.data) copy_fluid(exec, a, p);
    }

    void jacobi_sweep(Exec& exec, View<const double> b, View<const double> src, View<double> dst, double alpha) {
        auto cells = fluid_.cells;
        const int sy = fluid_.sy, sz = fluid_.sz;
        exec.parallel_for(fluid_.count, FS_LAMBDA(int n) {
            const FluidCell fc = cells[n];
            dst[fc.cell] = alpha * solve_row(b, src, fc, sy, sz) + (1.0 - alpha) * src[fc.cell];
        });
    }

    void copy_fluid(Exec& exec, View<const double> src, View<double> dst) {
        auto cells = fluid_.cells;
        exec.parallel_for(fluid_.count, FS_LAMBDA(int n) { dst[cells[n].cell] = src[cells[n].cell]; });
    }

    // Red-black Gauss-Seidel: each iteration a half-sweep over the red cells, then one over the
    // black ones, with successive over-relaxation (Saad, "Iterative Methods for Sparse Linear
    // Systems", 4.1):
    //   x_i <- (1 - omega) x_i + omega (b_i + sum over fluid n of x_n) / diag_i.
    // Cells of one colour only read the other colour, so a half-sweep is a parallel loop and the
    // result does not depend on the visiting order.
    void gauss_seidel(Exec& exec, const MacGrid& g, View<const unsigned char> type, View<const double> b,
                      View<double> x, int iterations, double omega) {
        fluid_.build(exec, g, type);
        for (int it = 0; it < iterations; ++it) {
            gauss_seidel_sweep(exec, b, x, 0, fluid_.red, omega);
            gauss_seidel_sweep(exec, b, x, fluid_.red, fluid_.count, omega);
        }
    }

    // One half-sweep over the fluid cells [from, to) of the list (one colour).
    void gauss_seidel_sweep(Exec& exec, View<const double> b, View<double> x, int from, int to, double omega) {
        auto cells = fluid_.cells;
        const int sy = fluid_.sy, sz = fluid_.sz;
        exec.parallel_for(to - from, FS_LAMBDA(int n) {
            const FluidCell fc = cells[from + n];
            x[fc.cell] = (1.0 - omega) * x[fc.cell] + omega * solve_row(b, View<const double>(x), fc, sy, sz);
        });
    }

private:
    FluidCells<Exec> fluid_;
    Buffer<double> scratch_{kSpace};
};

}  // namespace fs::flip
