// The pressure solve of the FLIP solver (seed 001, "Pressure Projection", step 2), written once
// over an executor (CpuExec or CudaExec): Jacobi with the assignment's relaxation, red-black
// Gauss-Seidel with over-relaxation, and conjugate gradient preconditioned by a geometric
// multigrid V-cycle (MGPCG). Kernel-launching members are public: nvcc's host-device lambdas may
// not be defined in private members.
//
// The system (Bridson, "Fluid Simulation for Computer Graphics", 2nd ed., ch. 5), on fluid cells:
//   (A p)_i = sum over the 6 neighbours n of i that are not solid of (p_i - p_n),
// with p_n = 0 for air neighbours (free surface, Dirichlet) and solid neighbours left out
// (p_solid = p_i, Neumann: seed 001's mirror condition). This is -dx^2 times seed 001's
// discrete Laplacian, so seed 001's  lap(p) = (rho/dt) div(u)  reads  A p = b  with
//   b_i = -(rho dx^2 / dt) div(u)_i.
// A is symmetric; positive definite when every connected fluid region touches air, positive
// semi-definite otherwise (a closed region's pressure is then defined up to a constant).
#pragma once

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "core/buffer.hpp"
#include "core/hd.hpp"
#include "solvers/flip/mac_grid.hpp"

namespace fs::flip {

// The six-neighbour gather that every stencil below shares: `sum` adds x over the fluid
// neighbours, `diag` counts the neighbours that are not solid (the diagonal of A).
struct Neighbours {
    double sum = 0.0;
    int diag = 0;
};

FS_HDI void gather_one(const MacGrid& g, View<const unsigned char> type, View<const double> x,
                       int i, int j, int k, Neighbours& n) {
    const unsigned char t = cell_type(g, type, i, j, k);
    if (t == kSolid) return;
    ++n.diag;
    if (t == kFluid) n.sum += x[g.cell(i, j, k)];
}

FS_HDI Neighbours gather(const MacGrid& g, View<const unsigned char> type, View<const double> x,
                         int i, int j, int k) {
    Neighbours n;
    gather_one(g, type, x, i - 1, j, k, n);
    gather_one(g, type, x, i + 1, j, k, n);
    gather_one(g, type, x, i, j - 1, k, n);
    gather_one(g, type, x, i, j + 1, k, n);
    gather_one(g, type, x, i, j, k - 1, n);
    gather_one(g, type, x, i, j, k + 1, n);
    return n;
}

// Trilinear weights between cell-centred levels (McAdams, Sifakis and Teran 2010, "A parallel
// multigrid Poisson solver for fluids simulation on large grids"): along one axis, fine
// cell 2C + d takes weight 3/4 from coarse cell C for d in {0, 1} and 1/4 for d in {-1, 2}.
FS_HDI double transfer_weight(int d) {
    return (d == 0 || d == 1) ? 0.75 : 0.25;
}

// Two sums in one reduction (one host round trip instead of two).
struct SumPair {
    double a = 0.0;
    double b = 0.0;
};

template <class Exec>
class PressureSolver {
public:
    static constexpr MemorySpace kSpace = Exec::space;

    enum Method { kJacobi = 0, kGaussSeidel = 1, kMgpcg = 2 };

    struct Settings {
        int method = kMgpcg;
        int iterations = 200;       // sweeps of Jacobi and Gauss-Seidel (no early stop)
        double jacobi_alpha = 1.0;  // seed 001: p = alpha p_jacobi + (1 - alpha) p_old
        double sor_omega = 1.7;     // Gauss-Seidel over-relaxation, in (0, 2)
        double tolerance = 1e-6;    // MGPCG: stop at this relative residual
        int max_iterations = 100;   // MGPCG
    };

    // residual: ||b - A p||_2 / ||b||_2 over the fluid cells (0 when b = 0 there).
    struct Result {
        int iterations = 0;
        double residual = 0.0;
    };

    // The multigrid cycle: levels halve each dimension until the largest is at most
    // kCoarsestSize; kSmoothSweeps red-black sweeps before and after the coarse correction,
    // kCoarsestSweeps symmetric pairs of sweeps on the coarsest level.
    static constexpr int kCoarsestSize = 2;
    static constexpr int kSmoothSweeps = 2;
    static constexpr int kCoarsestSweeps = 8;

    // Solves A p = b on the fluid cells of `type`. On entry p holds the initial guess (the last
    // step's pressure); on exit p is 0 on every cell that is not fluid. b is read on fluid cells
    // only. Allocates only when the grid size changes.
    Result solve(Exec& exec, const MacGrid& g, View<const unsigned char> type, View<const double> b,
                 View<double> p, const Settings& s) {
        mask(exec, type, p);
        Result res;
        const double bb = norm2_fluid(exec, g, type, b);
        if (bb == 0.0) {  // A p = 0: p = 0, whatever the method
            fill_zero(exec, p);
            return res;
        }
        switch (s.method) {
            case kJacobi:
                jacobi(exec, g, type, b, p, s);
                res.iterations = s.iterations;
                break;
            case kGaussSeidel:
                for (int it = 0; it < s.iterations; ++it) {
                    rb_sweep(exec, g, type, b, p, 0, s.sor_omega);
                    rb_sweep(exec, g, type, b, p, 1, s.sor_omega);
                }
                res.iterations = s.iterations;
                break;
            default:
                res.iterations = mgpcg(exec, g, type, b, p, s, bb);
                break;
        }
        res.residual = relative_residual(exec, g, type, b, p);
        return res;
    }

    // y = A x on fluid cells, 0 elsewhere (x is read on fluid cells only).
    void apply_laplacian(Exec& exec, const MacGrid& g, View<const unsigned char> type,
                         View<const double> x, View<double> y) {
        exec.parallel_for(g.cells(), FS_LAMBDA(int c) {
            if (type[c] != kFluid) {
                y[c] = 0.0;
                return;
            }
            const glm::ivec3 q = g.cell_coords(c);
            const Neighbours n = gather(g, type, x, q.x, q.y, q.z);
            y[c] = n.diag * x[c] - n.sum;
        });
    }

    // r = b - A x on fluid cells, 0 elsewhere.
    void residual(Exec& exec, const MacGrid& g, View<const unsigned char> type,
                  View<const double> b, View<const double> x, View<double> r) {
        exec.parallel_for(g.cells(), FS_LAMBDA(int c) {
            if (type[c] != kFluid) {
                r[c] = 0.0;
                return;
            }
            const glm::ivec3 q = g.cell_coords(c);
            const Neighbours n = gather(g, type, x, q.x, q.y, q.z);
            r[c] = b[c] - (n.diag * x[c] - n.sum);
        });
    }

    // ||b - A x||_2 / ||b||_2 over fluid cells, in one reduction; 0 when b = 0.
    double relative_residual(Exec& exec, const MacGrid& g, View<const unsigned char> type,
                             View<const double> b, View<const double> x) {
        const SumPair s = exec.transform_reduce(
            g.cells(), SumPair{},
            FS_LAMBDA(int c) {
                if (type[c] != kFluid) return SumPair{};
                const glm::ivec3 q = g.cell_coords(c);
                const Neighbours n = gather(g, type, x, q.x, q.y, q.z);
                const double r = b[c] - (n.diag * x[c] - n.sum);
                return SumPair{r * r, b[c] * b[c]};
            },
            FS_LAMBDA(SumPair u, SumPair v) {
                return SumPair{u.a + v.a, u.b + v.b};
            });
        return s.b > 0.0 ? std::sqrt(s.a / s.b) : 0.0;
    }

    // ||b||_2^2 over the fluid cells.
    double norm2_fluid(Exec& exec, const MacGrid& g, View<const unsigned char> type,
                       View<const double> b) {
        return exec.transform_reduce(
            g.cells(), 0.0, FS_LAMBDA(int c) { return type[c] == kFluid ? b[c] * b[c] : 0.0; },
            FS_LAMBDA(double u, double v) { return u + v; });
    }

    // x = 0 on cells that are not fluid (a warm start may carry pressure from cells that were
    // fluid last step).
    void mask(Exec& exec, View<const unsigned char> type, View<double> x) {
        exec.parallel_for(x.size, FS_LAMBDA(int c) {
            if (type[c] != kFluid) x[c] = 0.0;
        });
    }

    // seed 001, "Jacobi Iteration": the Laplacian solved for the centre, with the solid
    // neighbours mirrored (p_n = p_i taken at the new iterate, which leaves them out and divides
    // by the non-solid count) and air neighbours 0:
    //   p_jacobi = (b_i + sum over fluid n of p_n) / (number of non-solid neighbours);
    // then the assignment's relaxation  p_new = alpha p_jacobi + (1 - alpha) p_old.
    void jacobi_sweep(Exec& exec, const MacGrid& g, View<const unsigned char> type,
                      View<const double> b, View<const double> src, View<double> dst,
                      double alpha) {
        exec.parallel_for(g.cells(), FS_LAMBDA(int c) {
            if (type[c] != kFluid) {
                dst[c] = 0.0;
                return;
            }
            const glm::ivec3 q = g.cell_coords(c);
            const Neighbours n = gather(g, type, src, q.x, q.y, q.z);
            const double pj = n.diag > 0 ? (b[c] + n.sum) / n.diag : 0.0;
            dst[c] = alpha * pj + (1.0 - alpha) * src[c];
        });
    }

    // `iterations` sweeps ping-ponging between p and the scratch buffer; the last lands in p.
    void jacobi(Exec& exec, const MacGrid& g, View<const unsigned char> type, View<const double> b,
                View<double> p, const Settings& s) {
        scratch_.resize(static_cast<std::size_t>(g.cells()));
        View<double> a = p, t = scratch_.view();
        for (int it = 0; it < s.iterations; ++it) {
            jacobi_sweep(exec, g, type, b, a, t, s.jacobi_alpha);
            std::swap(a, t);
        }
        if (a.data != p.data) copy(exec, a, p);
    }

    // One half-sweep of Gauss-Seidel over the cells with (i + j + k) % 2 == color, with
    // successive over-relaxation (Saad, "Iterative Methods for Sparse Linear Systems", 4.1):
    //   x_i <- (1 - omega) x_i + omega (b_i + sum over fluid n of x_n) / diag_i.
    // Cells of one colour only read the other colour, so a half-sweep is a parallel loop and the
    // result does not depend on the visiting order.
    void rb_sweep(Exec& exec, const MacGrid& g, View<const unsigned char> type,
                  View<const double> b, View<double> x, int color, double omega) {
        const int hx = (g.nx + 1) / 2;
        exec.parallel_for(hx * g.ny * g.nz, FS_LAMBDA(int idx) {
            const int row = idx / hx;
            const int j = row % g.ny, k = row / g.ny;
            const int i = 2 * (idx % hx) + ((color + j + k) & 1);
            if (i >= g.nx) return;
            const int c = g.cell(i, j, k);
            if (type[c] != kFluid) return;
            const Neighbours n = gather(g, type, x, i, j, k);
            const double gs = n.diag > 0 ? (b[c] + n.sum) / n.diag : 0.0;
            x[c] = (1.0 - omega) * x[c] + omega * gs;
        });
    }

    void copy(Exec& exec, View<const double> src, View<double> dst) {
        exec.parallel_for(dst.size, FS_LAMBDA(int c) { dst[c] = src[c]; });
    }

    void fill_zero(Exec& exec, View<double> x) {
        exec.parallel_for(x.size, FS_LAMBDA(int c) { x[c] = 0.0; });
    }

    double dot(Exec& exec, View<const double> x, View<const double> y) {
        return exec.transform_reduce(
            x.size, 0.0, FS_LAMBDA(int c) { return x[c] * y[c]; },
            FS_LAMBDA(double u, double v) { return u + v; });
    }

    // ---- multigrid (McAdams, Sifakis and Teran 2010) ----

    // A coarse cell is air if any of its children is air, else fluid if any child is fluid, else
    // solid (McAdams et al. 2010: Dirichlet, then interior, then Neumann). Children
    // outside the fine grid are solid.
    void coarsen_types(Exec& exec, const MacGrid& fg, View<const unsigned char> ftype,
                       const MacGrid& cg, View<unsigned char> ctype) {
        exec.parallel_for(cg.cells(), FS_LAMBDA(int c) {
            const glm::ivec3 q = cg.cell_coords(c);
            bool air = false, fluid = false;
            for (int dk = 0; dk < 2; ++dk)
                for (int dj = 0; dj < 2; ++dj)
                    for (int di = 0; di < 2; ++di) {
                        const unsigned char t =
                            cell_type(fg, ftype, 2 * q.x + di, 2 * q.y + dj, 2 * q.z + dk);
                        air = air || t == kAir;
                        fluid = fluid || t == kFluid;
                    }
            ctype[c] = air ? kAir : (fluid ? kFluid : kSolid);
        });
    }

    // Coarse right-hand side from the fine residual r: the transpose of prolongation scaled by
    // 1/8 (McAdams et al. 2010), times 4 because A is the Laplacian times dx^2 and the
    // coarse dx is twice the fine one: b_C = (4/8) sum_f w(f, C) r_f.
    void restrict_residual(Exec& exec, const MacGrid& fg, View<const double> r, const MacGrid& cg,
                           View<const unsigned char> ctype, View<double> cb) {
        exec.parallel_for(cg.cells(), FS_LAMBDA(int c) {
            if (ctype[c] != kFluid) {
                cb[c] = 0.0;
                return;
            }
            const glm::ivec3 q = cg.cell_coords(c);
            double s = 0.0;
            for (int dk = -1; dk <= 2; ++dk) {
                const int fk = 2 * q.z + dk;
                if (fk < 0 || fk >= fg.nz) continue;
                for (int dj = -1; dj <= 2; ++dj) {
                    const int fj = 2 * q.y + dj;
                    if (fj < 0 || fj >= fg.ny) continue;
                    const double wjk = transfer_weight(dj) * transfer_weight(dk);
                    for (int di = -1; di <= 2; ++di) {
                        const int fi = 2 * q.x + di;
                        if (fi < 0 || fi >= fg.nx) continue;
                        s += transfer_weight(di) * wjk * r[fg.cell(fi, fj, fk)];
                    }
                }
            }
            cb[c] = 0.5 * s;
        });
    }

    // x_f += trilinear interpolation of the coarse correction at fluid fine cells (McAdams et al.
    // 2010). The coarse solution is 0 on non-fluid coarse cells, so this is exactly the
    // transpose of restrict_residual up to its scale.
    void prolong_add(Exec& exec, const MacGrid& cg, View<const double> cx, const MacGrid& fg,
                     View<const unsigned char> ftype, View<double> fx) {
        exec.parallel_for(fg.cells(), FS_LAMBDA(int f) {
            if (ftype[f] != kFluid) return;
            const glm::ivec3 q = fg.cell_coords(f);
            const int c0[3] = {q.x / 2, q.y / 2, q.z / 2};
            const int c1[3] = {(q.x & 1) ? c0[0] + 1 : c0[0] - 1,
                               (q.y & 1) ? c0[1] + 1 : c0[1] - 1,
                               (q.z & 1) ? c0[2] + 1 : c0[2] - 1};
            double s = 0.0;
            for (int a = 0; a < 2; ++a) {
                const int ck = a ? c1[2] : c0[2];
                if (ck < 0 || ck >= cg.nz) continue;
                for (int bb = 0; bb < 2; ++bb) {
                    const int cj = bb ? c1[1] : c0[1];
                    if (cj < 0 || cj >= cg.ny) continue;
                    const double wjk = (a ? 0.25 : 0.75) * (bb ? 0.25 : 0.75);
                    for (int d = 0; d < 2; ++d) {
                        const int ci = d ? c1[0] : c0[0];
                        if (ci < 0 || ci >= cg.nx) continue;
                        s += (d ? 0.25 : 0.75) * wjk * cx[cg.cell(ci, cj, ck)];
                    }
                }
            }
            fx[f] += s;
        });
    }

    // z = M^-1 r: one V-cycle from a zero guess. Red-black Gauss-Seidel smoothing, red then
    // black on the way down and black then red on the way up, and a palindromic sweep sequence
    // on the coarsest level, so M is symmetric positive definite and CG applies.
    void vcycle(Exec& exec, int l) {
        Level& L = levels_[static_cast<std::size_t>(l)];
        fill_zero(exec, L.x);
        if (l + 1 == static_cast<int>(levels_.size())) {
            for (int s = 0; s < kCoarsestSweeps; ++s) {
                rb_sweep(exec, L.g, L.type, L.b, L.x, 0, 1.0);
                rb_sweep(exec, L.g, L.type, L.b, L.x, 1, 1.0);
            }
            for (int s = 0; s < kCoarsestSweeps; ++s) {
                rb_sweep(exec, L.g, L.type, L.b, L.x, 1, 1.0);
                rb_sweep(exec, L.g, L.type, L.b, L.x, 0, 1.0);
            }
            return;
        }
        for (int s = 0; s < kSmoothSweeps; ++s) {
            rb_sweep(exec, L.g, L.type, L.b, L.x, 0, 1.0);
            rb_sweep(exec, L.g, L.type, L.b, L.x, 1, 1.0);
        }
        residual(exec, L.g, L.type, L.b, L.x, L.t);
        Level& C = levels_[static_cast<std::size_t>(l) + 1];
        restrict_residual(exec, L.g, L.t, C.g, C.type, C.b);
        vcycle(exec, l + 1);
        prolong_add(exec, C.g, C.x, L.g, L.type, L.x);
        for (int s = 0; s < kSmoothSweeps; ++s) {
            rb_sweep(exec, L.g, L.type, L.b, L.x, 1, 1.0);
            rb_sweep(exec, L.g, L.type, L.b, L.x, 0, 1.0);
        }
    }

    // The grids below the fine one and the CG vectors; allocates only when the grid size changes.
    void prepare(const MacGrid& g) {
        const int n = g.cells();
        r_.resize(static_cast<std::size_t>(n));
        z_.resize(static_cast<std::size_t>(n));
        d_.resize(static_cast<std::size_t>(n));
        q_.resize(static_cast<std::size_t>(n));
        if (!levels_.empty() && levels_[0].g.nx == g.nx && levels_[0].g.ny == g.ny &&
            levels_[0].g.nz == g.nz)
            return;
        levels_.clear();
        MacGrid lg = g;
        while (true) {
            levels_.emplace_back();
            Level& L = levels_.back();
            L.g = lg;
            const auto m = static_cast<std::size_t>(lg.cells());
            L.t_buf.resize(m);
            L.t = L.t_buf.view();
            if (levels_.size() > 1) {
                L.type_buf.resize(m);
                L.b_buf.resize(m);
                L.x_buf.resize(m);
                L.type = L.type_buf.view();
                L.b = L.b_buf.view();
                L.x = L.x_buf.view();
            }
            if (std::max({lg.nx, lg.ny, lg.nz}) <= kCoarsestSize) break;
            lg.nx = (lg.nx + 1) / 2;
            lg.ny = (lg.ny + 1) / 2;
            lg.nz = (lg.nz + 1) / 2;
            lg.dx *= 2.0;
        }
    }

    // Preconditioned conjugate gradient (Saad, "Iterative Methods for Sparse Linear Systems",
    // Algorithm 9.1) with M^-1 = one V-cycle (McAdams et al. 2010). Returns the number of
    // iterations. Two host round trips per iteration: d.q, then (r.r, r.z) in one reduction.
    int mgpcg(Exec& exec, const MacGrid& g, View<const unsigned char> type, View<const double> b,
              View<double> p, const Settings& s, double bb) {
        prepare(g);
        View<double> r = r_.view(), z = z_.view(), d = d_.view(), q = q_.view();
        Level& L0 = levels_[0];
        L0.type = type;
        L0.b = r;
        L0.x = z;
        for (std::size_t l = 1; l < levels_.size(); ++l)
            coarsen_types(exec, levels_[l - 1].g, levels_[l - 1].type, levels_[l].g,
                          levels_[l].type_buf.view());

        residual(exec, g, type, b, p, r);  // r0 = b - A p0 (0 off the fluid)
        const double target2 = s.tolerance * s.tolerance * bb;
        if (dot(exec, r, r) <= target2) return 0;

        vcycle(exec, 0);   // z0 = M^-1 r0
        copy(exec, z, d);  // d0 = z0
        double rz = dot(exec, r, z);
        int it = 0;
        while (it < s.max_iterations) {
            ++it;
            apply_laplacian(exec, g, type, d, q);
            const double dq = dot(exec, d, q);
            if (!(dq > 0.0)) break;  // A is only semi-definite: d lies in its null space
            const double alpha = rz / dq;
            // p += alpha d, r -= alpha q
            exec.parallel_for(g.cells(), FS_LAMBDA(int c) {
                p[c] += alpha * d[c];
                r[c] -= alpha * q[c];
            });
            vcycle(exec, 0);  // z = M^-1 r
            const SumPair rr = exec.transform_reduce(
                g.cells(), SumPair{},
                FS_LAMBDA(int c) { return SumPair{r[c] * r[c], r[c] * z[c]}; },
                FS_LAMBDA(SumPair u, SumPair v) { return SumPair{u.a + v.a, u.b + v.b}; });
            if (rr.a <= target2) break;
            const double beta = rr.b / rz;
            rz = rr.b;
            exec.parallel_for(g.cells(), FS_LAMBDA(int c) { d[c] = z[c] + beta * d[c]; });
        }
        return it;
    }

private:
    // One level of the hierarchy. Level 0's type, b and x are the caller's cell types and CG's
    // r and z; the coarser levels own theirs.
    struct Level {
        MacGrid g;
        Buffer<unsigned char> type_buf{kSpace};
        Buffer<double> b_buf{kSpace}, x_buf{kSpace}, t_buf{kSpace};
        View<const unsigned char> type;
        View<double> b, x, t;
    };

    std::vector<Level> levels_;
    Buffer<double> r_{kSpace}, z_{kSpace}, d_{kSpace}, q_{kSpace}, scratch_{kSpace};
};

}  // namespace fs::flip
