// The preconditioner of the transport's Newton systems: an aggregation multigrid V-cycle, written
// once over an executor (CpuExec or CudaExec).
//
// The Newton matrix is a graph Laplacian over the Laguerre cells' adjacency plus a diagonal
// (ot_kernels.hpp, hessian_weight): y_i = d_i x_i + sum_j c_ij (x_i - x_j). Jacobi-preconditioned
// CG needs iterations in proportion to the cells across the box (measured: 140 at 2 048 cells,
// 300 at 10 000), each a pass over the rows and three reductions. Here the cells are aggregated by
// the search grid the cells were found with: level 1 has one unknown per 2 x 2 block of search-grid
// cells (about four particles), and each further level one per 2 x 2 block of the last, so every
// coarse level is a regular grid whose operator couples a block to its eight neighbours. The
// coarse operators are Galerkin products P^T A P with piecewise-constant P (unsmoothed
// aggregation, Vanek, Mandel & Brezina 1996; Notay 2010 for aggregation as a CG preconditioner):
// the graph Laplacian's weights between two blocks are the sums of the c_ij between their
// members, the diagonals the sums of the d_i, and an edge between blocks that are not neighbours
// (rare: cells a block apart) is left out, which keeps each coarse operator of the same
// symmetric positive form. Each level smooths with a damped Jacobi sweep before and after its
// coarse correction (the same number: the V-cycle is symmetric, as CG needs; one sweep each gave
// 777 ms a step at 1e5 cells against 964 ms with two, more CG iterations but fewer passes over
// the rows); the coarsest (at most 64 unknowns) is solved exactly, by its inverse made on the
// host once a setup (Cholesky) and applied as a dense product, a row a thread. Measured CG
// iterations a Newton solve: about 18 at 1e4 cells, 43 at 1e5 (Jacobi-preconditioned CG: 300 at
// 1e4).
//
// Deterministic: every sum is a gather in a fixed order (no atomics), so results do not depend on
// the thread count or the backend's scheduling.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/buffer.hpp"
#include "core/hd.hpp"
#include "core/memory.hpp"
#include "solvers/common/grid2d.hpp"
#include "solvers/ot/ot_kernels.hpp"

namespace fs::ot {

// The eight neighbours of a block on a coarse level, in a fixed order.
FS_HDI int neighbour_dx(int k) { return k < 3 ? k - 1 : (k < 5 ? (k == 3 ? -1 : 1) : k - 6); }
FS_HDI int neighbour_dy(int k) { return k < 3 ? -1 : (k < 5 ? 0 : 1); }
FS_HDI int neighbour_index(int dx, int dy) {  // inverse of the two above; -1 for (0, 0)
    if (dy == -1) return dx + 1;
    if (dy == 1) return dx + 6;
    return dx == -1 ? 3 : (dx == 1 ? 4 : -1);
}

// A coarse level's operator at block I: d_I x_I + sum_k w_Ik (x_I - x_neighbour k).
struct CoarseOp {
    View<const double> d, w;
    int nx = 1;
    FS_HDI double row(View<const double> x, int I) const {
        const int X = I % nx, Y = I / nx;
        double s = d[I] * x[I];
        for (int k = 0; k < 8; ++k) {
            const double wk = w[8 * I + k];
            if (wk != 0.0) s += wk * (x[I] - x[(Y + neighbour_dy(k)) * nx + X + neighbour_dx(k)]);
        }
        return s;
    }
};

template <class Exec>
class AggregationMultigrid {
public:
    static constexpr MemorySpace kSpace = Exec::space;
    static constexpr int kSweeps = 1;         // Jacobi sweeps before and after each coarse correction
    static constexpr double kOmega = 0.7;     // Jacobi's damping
    static constexpr int kCoarsest = 64;      // unknowns of the level solved directly

    // The fine matrix: row i's edges[i] (neighbour, weight) pairs packed end to end from
    // start[i] (Pipeline::pack_rows), a diagonal part, and each particle's search-grid cell.
    struct Fine {
        int n = 0;
        View<const int> start, edges, nbr;
        View<const double> coef, self;
        double shift = 0.0;
        grid::Grid2 grid;
        View<const int> cell_start, order;  // the search grid's cells
        View<const dvec2> pos;
    };

    // Builds the coarse operators for the matrix `f` (after every change of the cells).
    void setup(Exec& exec, const Fine& f) {
        fine_ = f;
        // The levels' sizes (kept while the search grid keeps its shape: no allocation a step).
        if (levels_.empty() || grid_nx_ != f.grid.nx || grid_ny_ != f.grid.ny) {
            grid_nx_ = f.grid.nx;
            grid_ny_ = f.grid.ny;
            levels_.clear();
            int nx = (f.grid.nx + 1) / 2, ny = (f.grid.ny + 1) / 2;
            for (;;) {
                levels_.emplace_back();
                Level& L = levels_.back();
                L.nx = nx;
                L.ny = ny;
                const std::size_t n = static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny);
                for (Buffer<double>* b : {&L.d, &L.diag, &L.x, &L.t, &L.b, &L.r}) b->resize(n);
                L.w.resize(8 * n);
                if (nx * ny <= kCoarsest) break;
                nx = (nx + 1) / 2;
                ny = (ny + 1) / 2;
            }
        }
        // The fine diagonal (for Jacobi on level 0).
        for (Buffer<double>* b : {&fine_diag_, &fine_t_, &fine_r_}) b->resize(static_cast<std::size_t>(f.n));
        {
            auto diag = fine_diag_.view();
            const Fine ff = f;
            exec.parallel_for(f.n, FS_LAMBDA(int i) {
                double d = ff.shift + ff.self[i];
                for (int e = 0; e < ff.edges[i]; ++e) d += ff.coef[ff.start[i] + e];
                diag[i] = d > 0.0 ? d : 1.0;
            });
        }
        // Level 1 from the particles: block (X, Y) holds the search cells (2X + a, 2Y + b).
        {
            Level& L = levels_[0];
            auto d = L.d.view();
            auto w = L.w.view();
            const Fine ff = f;
            const int lnx = L.nx;
            exec.parallel_for(L.nx * L.ny, FS_LAMBDA(int I) {
                const int X = I % lnx, Y = I / lnx;
                double dd = 0.0;
                double ww[8] = {0, 0, 0, 0, 0, 0, 0, 0};
                for (int b = 0; b < 2; ++b)
                    for (int a = 0; a < 2; ++a) {
                        const int cx = 2 * X + a, cy = 2 * Y + b;
                        if (cx >= ff.grid.nx || cy >= ff.grid.ny) continue;
                        const int g = cy * ff.grid.nx + cx;
                        for (int s = ff.cell_start[g]; s < ff.cell_start[g + 1]; ++s) {
                            const int i = ff.order[s];
                            dd += ff.shift + ff.self[i];
                            for (int e = 0; e < ff.edges[i]; ++e) {
                                const dvec2 pj = ff.pos[ff.nbr[ff.start[i] + e]];
                                const int dx = ff.grid.cx(pj.x) / 2 - X, dy = ff.grid.cy(pj.y) / 2 - Y;
                                if (dx == 0 && dy == 0) continue;  // inside the block
                                if (dx < -1 || dx > 1 || dy < -1 || dy > 1) continue;  // left out
                                ww[neighbour_index(dx, dy)] += ff.coef[ff.start[i] + e];
                            }
                        }
                    }
                d[I] = dd;
                for (int k = 0; k < 8; ++k) w[8 * I + k] = ww[k];
            });
        }
        // Each further level from the last.
        for (std::size_t l = 1; l < levels_.size(); ++l) {
            const Level& F = levels_[l - 1];
            Level& C = levels_[l];
            auto fd = F.d.cview();
            auto fw = F.w.cview();
            auto d = C.d.view();
            auto w = C.w.view();
            const int fnx = F.nx, fny = F.ny, cnx = C.nx;
            exec.parallel_for(C.nx * C.ny, FS_LAMBDA(int K) {
                const int X = K % cnx, Y = K / cnx;
                double dd = 0.0;
                double ww[8] = {0, 0, 0, 0, 0, 0, 0, 0};
                for (int b = 0; b < 2; ++b)
                    for (int a = 0; a < 2; ++a) {
                        const int cx = 2 * X + a, cy = 2 * Y + b;
                        if (cx >= fnx || cy >= fny) continue;
                        const int c = cy * fnx + cx;
                        dd += fd[c];
                        for (int k = 0; k < 8; ++k) {
                            const int nx_ = cx + neighbour_dx(k), ny_ = cy + neighbour_dy(k);
                            if (nx_ < 0 || ny_ < 0 || nx_ >= fnx || ny_ >= fny) continue;
                            const int dx = nx_ / 2 - X, dy = ny_ / 2 - Y;
                            if (dx == 0 && dy == 0) continue;
                            ww[neighbour_index(dx, dy)] += fw[8 * c + k];
                        }
                    }
                d[K] = dd;
                for (int k = 0; k < 8; ++k) w[8 * K + k] = ww[k];
            });
        }
        // The coarse levels' Jacobi diagonals: d + sum w.
        for (Level& L : levels_) {
            auto d = L.d.cview();
            auto w = L.w.cview();
            auto diag = L.diag.view();
            exec.parallel_for(L.nx * L.ny, FS_LAMBDA(int I) {
                double s = d[I];
                for (int k = 0; k < 8; ++k) s += w[8 * I + k];
                diag[I] = s;
            });
        }
        invert_coarsest(exec);
    }

    // z = M^{-1} r: one V-cycle from zero.
    void apply(Exec& exec, View<const double> r, View<double> z) {
        const Fine f = fine_;
        const int n = f.n;
        auto diag = fine_diag_.cview();
        // Pre-smoothing from zero: the first sweep is z = omega D^{-1} r.
        {
            const double om = kOmega;
            exec.parallel_for(n, FS_LAMBDA(int i) { z[i] = om * r[i] / diag[i]; });
        }
        for (int s = 1; s < kSweeps; ++s) fine_sweep(exec, r, z);
        // The residual, restricted to level 1.
        fine_residual(exec, r, z);
        restrict_fine(exec);
        cycle(exec, 0);
        // Prolongation: each particle takes its block's correction.
        {
            const Level& L = levels_[0];
            auto x = L.x.cview();
            const int lnx = L.nx;
            exec.parallel_for(n, FS_LAMBDA(int i) {
                const dvec2 p = f.pos[i];
                z[i] += x[(f.grid.cy(p.y) / 2) * lnx + f.grid.cx(p.x) / 2];
            });
        }
        for (int s = 0; s < kSweeps; ++s) fine_sweep(exec, r, z);
    }

    // (Public: nvcc's host-device lambdas may not be defined in private members.)
    struct Level {
        int nx = 1, ny = 1;
        Buffer<double> d{kSpace}, diag{kSpace};  // the diagonal part d; Jacobi's diagonal d + sum w
        Buffer<double> w{kSpace};                // 8 neighbour weights a block
        Buffer<double> x{kSpace}, t{kSpace}, b{kSpace}, r{kSpace};
        // The coarsest level only: its operator's inverse (n x n, row-major), the operator's
        // parts packed for one read-back, and whether it is singular (no diagonal part).
        Buffer<double> inv{kSpace}, packed{kSpace};
        bool singular = false;
    };

    // The coarsest level's operator inverted once a setup (at most kCoarsest unknowns), so its
    // solve in every V-cycle is a dense product spread over threads. It was 60 symmetric
    // Gauss-Seidel sweeps run by one thread: on an H100 that thread took 1.5-2 ms of every CG
    // iteration at any size (10^4 cells: 73 ms a step, slower than two CPU cores).
    void invert_coarsest(Exec& exec) {
        Level& C = levels_.back();
        const int n = C.nx * C.ny;
        auto packed = C.packed.resized(static_cast<std::size_t>(10 * n));
        auto d = C.d.cview();
        auto diag = C.diag.cview();
        auto w = C.w.cview();
        exec.parallel_for(n, FS_LAMBDA(int I) {
            packed[10 * I] = d[I];
            packed[10 * I + 1] = diag[I];
            for (int k = 0; k < 8; ++k) packed[10 * I + 2 + k] = w[8 * I + k];
        });
        std::vector<double> parts(static_cast<std::size_t>(10 * n));
        mem_copy(parts.data(), MemorySpace::Host, packed.data, kSpace, parts.size() * sizeof(double));
        C.inv.copy_from_host(coarse_inverse(parts, C.nx, C.ny, C.singular));
    }

    // The inverse of a coarse operator given as packed parts (d, diag, 8 weights a block):
    // A_II = diag_I, A_IJ = -w_IK for neighbour J = K of I. Blocks without particles (diag 0)
    // are left out: their rows and columns of the inverse are 0. A singular operator (the
    // constant its null space) is made definite by adding s e e^T, which leaves the solution of
    // a right-hand side orthogonal to e unchanged and orthogonal to e (the minimum-norm one).
    // A is symmetric positive definite then: Cholesky, A = L L^T, and the inverse column by
    // column; symmetrised against rounding (the V-cycle must stay symmetric for CG).
    static std::vector<double> coarse_inverse(const std::vector<double>& parts, int nx, int ny, bool& singular) {
        const int n = nx * ny;
        double dsum = 0.0, diagsum = 0.0;
        std::vector<int> active, slot(static_cast<std::size_t>(n), -1);
        for (int I = 0; I < n; ++I) {
            dsum += parts[10 * I];
            diagsum += parts[10 * I + 1];
            if (parts[10 * I + 1] > 0.0) {
                slot[I] = static_cast<int>(active.size());
                active.push_back(I);
            }
        }
        singular = !(dsum > 1e-9 * diagsum);
        const int m = static_cast<int>(active.size());
        std::vector<double> inv(static_cast<std::size_t>(n) * n, 0.0);
        if (m == 0) return inv;
        auto at = [m](std::vector<double>& M, int r, int c) -> double& { return M[static_cast<std::size_t>(r) * m + c]; };
        std::vector<double> A(static_cast<std::size_t>(m) * m, 0.0);
        for (int a = 0; a < m; ++a) {
            const int I = active[a], X = I % nx, Y = I / nx;
            at(A, a, a) = parts[10 * I + 1];
            for (int k = 0; k < 8; ++k) {
                const double wk = parts[10 * I + 2 + k];
                const int x = X + neighbour_dx(k), y = Y + neighbour_dy(k);
                if (wk == 0.0 || x < 0 || y < 0 || x >= nx || y >= ny || slot[y * nx + x] < 0) continue;
                at(A, a, slot[y * nx + x]) -= wk;
            }
        }
        // s m = the mean diagonal: the null vector's eigenvalue becomes the size of the others.
        if (singular)
            for (double& v : A) v += diagsum / (static_cast<double>(m) * m);
        std::vector<double> L(static_cast<std::size_t>(m) * m, 0.0);
        for (int j = 0; j < m; ++j) {
            double djj = at(A, j, j);
            for (int k = 0; k < j; ++k) djj -= at(L, j, k) * at(L, j, k);
            // Rounding on a nearly singular block: keep the factor real (a tiny pivot then
            // gives that direction a large but finite correction, as the sweeps did).
            at(L, j, j) = std::sqrt(std::max(djj, 1e-14 * at(A, j, j)));
            for (int i = j + 1; i < m; ++i) {
                double s = at(A, i, j);
                for (int k = 0; k < j; ++k) s -= at(L, i, k) * at(L, j, k);
                at(L, i, j) = s / at(L, j, j);
            }
        }
        std::vector<double> col(static_cast<std::size_t>(m)), B(static_cast<std::size_t>(m) * m);
        for (int c = 0; c < m; ++c) {
            for (int i = 0; i < m; ++i) {  // L y = e_c
                double s = i == c ? 1.0 : 0.0;
                for (int k = 0; k < i; ++k) s -= at(L, i, k) * col[k];
                col[i] = s / at(L, i, i);
            }
            for (int i = m - 1; i >= 0; --i) {  // L^T x = y
                double s = col[i];
                for (int k = i + 1; k < m; ++k) s -= at(L, k, i) * col[k];
                col[i] = s / at(L, i, i);
            }
            for (int i = 0; i < m; ++i) at(B, i, c) = col[i];
        }
        for (int a = 0; a < m; ++a)
            for (int b = 0; b < m; ++b)
                inv[static_cast<std::size_t>(active[a]) * n + active[b]] = 0.5 * (at(B, a, b) + at(B, b, a));
        return inv;
    }

    // z += omega D^{-1} (r - A z) on the particles, through fine_t_.
    void fine_sweep(Exec& exec, View<const double> r, View<double> z) {
        const Fine f = fine_;
        auto diag = fine_diag_.cview();
        auto t = fine_t_.view();
        const double om = kOmega;
        exec.parallel_for(f.n, FS_LAMBDA(int i) {
            double az = (f.shift + f.self[i]) * z[i];
            for (int e = 0; e < f.edges[i]; ++e) az += f.coef[f.start[i] + e] * (z[i] - z[f.nbr[f.start[i] + e]]);
            t[i] = z[i] + om * (r[i] - az) / diag[i];
        });
        exec.parallel_for(f.n, FS_LAMBDA(int i) { z[i] = t[i]; });
    }

    void fine_residual(Exec& exec, View<const double> r, View<const double> z) {
        const Fine f = fine_;
        auto res = fine_r_.view();
        exec.parallel_for(f.n, FS_LAMBDA(int i) {
            double az = (f.shift + f.self[i]) * z[i];
            for (int e = 0; e < f.edges[i]; ++e) az += f.coef[f.start[i] + e] * (z[i] - z[f.nbr[f.start[i] + e]]);
            res[i] = r[i] - az;
        });
    }

    void restrict_fine(Exec& exec) {
        const Fine f = fine_;
        Level& L = levels_[0];
        auto b = L.b.view();
        auto res = fine_r_.cview();
        const int lnx = L.nx;
        exec.parallel_for(L.nx * L.ny, FS_LAMBDA(int I) {
            const int X = I % lnx, Y = I / lnx;
            double s = 0.0;
            for (int bb = 0; bb < 2; ++bb)
                for (int a = 0; a < 2; ++a) {
                    const int cx = 2 * X + a, cy = 2 * Y + bb;
                    if (cx >= f.grid.nx || cy >= f.grid.ny) continue;
                    const int g = cy * f.grid.nx + cx;
                    for (int q = f.cell_start[g]; q < f.cell_start[g + 1]; ++q) s += res[f.order[q]];
                }
            b[I] = s;
        });
    }

    // Level l's V-cycle: solves its A x = b approximately from x = 0.
    void cycle(Exec& exec, std::size_t l) {
        Level& L = levels_[l];
        const int n = L.nx * L.ny, lnx = L.nx, lny = L.ny;
        auto diag = L.diag.cview();
        auto d = L.d.cview();
        auto w = L.w.cview();
        auto x = L.x.view();
        auto b = L.b.cview();
        if (l + 1 == levels_.size()) {
            // The coarsest level: x = A^-1 b, the inverse made by setup() (invert_coarsest), one
            // row a thread. Without a diagonal part (full transport) the operator is singular,
            // the constant its null space: the right-hand side's mean is taken out, and the
            // solution's.
            auto inv = L.inv.cview();
            auto t = L.t.view();
            const bool singular = L.singular;
            exec.parallel_for(n, FS_LAMBDA(int I) {
                double bmean = 0.0;
                if (singular) {
                    for (int J = 0; J < n; ++J) bmean += b[J];
                    bmean /= n;
                }
                double s = 0.0;
                for (int J = 0; J < n; ++J) s += inv[I * n + J] * (b[J] - bmean);
                t[I] = s;
            });
            auto tc = L.t.cview();
            exec.parallel_for(n, FS_LAMBDA(int I) {
                double xm = 0.0;
                if (singular) {
                    for (int J = 0; J < n; ++J) xm += tc[J];
                    xm /= n;
                }
                x[I] = tc[I] - xm;
            });
            return;
        }
        const double om = kOmega;
        auto t = L.t.view();
        auto r = L.r.view();
        const CoarseOp op{d, w, lnx};
        exec.parallel_for(n, FS_LAMBDA(int I) { x[I] = om * b[I] / (diag[I] > 0.0 ? diag[I] : 1.0); });
        auto sweep = [&] {
            auto xc = L.x.cview();
            exec.parallel_for(n, FS_LAMBDA(int I) {
                t[I] = xc[I] + om * (b[I] - op.row(xc, I)) / (diag[I] > 0.0 ? diag[I] : 1.0);
            });
            exec.parallel_for(n, FS_LAMBDA(int I) { x[I] = t[I]; });
        };
        for (int s = 1; s < kSweeps; ++s) sweep();
        {
            auto xc = L.x.cview();
            exec.parallel_for(n, FS_LAMBDA(int I) { r[I] = b[I] - op.row(xc, I); });
        }
        Level& C = levels_[l + 1];
        {
            auto cb = C.b.view();
            auto rc = L.r.cview();
            const int cnx = C.nx;
            exec.parallel_for(C.nx * C.ny, FS_LAMBDA(int K) {
                const int X = K % cnx, Y = K / cnx;
                double s = 0.0;
                for (int bb = 0; bb < 2; ++bb)
                    for (int a = 0; a < 2; ++a) {
                        const int cx = 2 * X + a, cy = 2 * Y + bb;
                        if (cx < lnx && cy < lny) s += rc[cy * lnx + cx];
                    }
                cb[K] = s;
            });
        }
        cycle(exec, l + 1);
        {
            auto cx = C.x.cview();
            const int cnx = C.nx;
            exec.parallel_for(n, FS_LAMBDA(int I) { x[I] += cx[((I / lnx) / 2) * cnx + (I % lnx) / 2]; });
        }
        for (int s = 0; s < kSweeps; ++s) sweep();
    }

private:
    Fine fine_;
    Buffer<double> fine_diag_{kSpace}, fine_t_{kSpace}, fine_r_{kSpace};
    std::vector<Level> levels_;
    int grid_nx_ = -1, grid_ny_ = -1;
};

}  // namespace fs::ot
