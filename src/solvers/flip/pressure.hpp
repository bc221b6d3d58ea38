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

// A fluid cell and its row of A, classified once per solve: bit n of `stencil` is set when
// neighbour n (in gather's order -x, +x, -y, +y, -z, +z) is fluid, and bits 6 and up hold the
// number of neighbours that are not solid (the diagonal).
struct FluidCell {
    int cell = 0;
    int stencil = 0;
};

FS_HDI FluidCell classify_cell(const MacGrid& g, View<const unsigned char> type, int c) {
    const glm::ivec3 q = g.cell_coords(c);
    const int d[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
    int fluid = 0, diag = 0;
    for (int n = 0; n < 6; ++n) {
        const unsigned char t = cell_type(g, type, q.x + d[n][0], q.y + d[n][1], q.z + d[n][2]);
        if (t != kSolid) ++diag;
        if (t == kFluid) fluid |= 1 << n;
    }
    return {c, fluid | diag << 6};
}

FS_HDI int stencil_diag(int stencil) { return stencil >> 6; }

// sum of x over the fluid neighbours of cell c (gather's sum, in its order); sy and sz are the
// index strides of y and z.
FS_HDI double fluid_neighbour_sum(View<const double> x, int c, int stencil, int sy, int sz) {
    double s = 0.0;
    if (stencil & 1) s += x[c - 1];
    if (stencil & 2) s += x[c + 1];
    if (stencil & 4) s += x[c - sy];
    if (stencil & 8) s += x[c + sy];
    if (stencil & 16) s += x[c - sz];
    if (stencil & 32) s += x[c + sz];
    return s;
}

// The cells of both colours of a red-black ordering, as one index range: m in [0, half) walks
// the red cells ((i + j + k) even) in grid order, m in [half, 2 half) the black ones; -1 for the
// slots of odd rows that fall off the grid, and for m = 2 half.
FS_HDI int red_black_half(const MacGrid& g) { return (g.nx + 1) / 2 * g.ny * g.nz; }
FS_HDI int red_black_cell(const MacGrid& g, int half, int m) {
    if (m >= 2 * half) return -1;
    const int color = m >= half ? 1 : 0;
    const int idx = m - color * half, hx = (g.nx + 1) / 2;
    const int row = idx / hx;
    const int j = row % g.ny, k = row / g.ny;
    const int i = 2 * (idx % hx) + ((color + j + k) & 1);
    return i < g.nx ? g.cell(i, j, k) : -1;
}

// Two sums in one reduction (one host round trip instead of two).
struct SumPair {
    double a = 0.0;
    double b = 0.0;
};
struct SumPairOp {
    FS_HDI SumPair operator()(const SumPair& u, const SumPair& v) const { return SumPair{u.a + v.a, u.b + v.b}; }
};

template <class Exec>
class PressureSolver {
public:
    static constexpr MemorySpace kSpace = Exec::space;

    // One level of the hierarchy. Level 0's type, b and x are the caller's cell types and CG's
    // r and z; the coarser levels own theirs. Public because kernel-launching members take it
    // (nvcc's host-device lambdas need their enclosing function's signature accessible).
    struct Level {
        MacGrid g;
        Buffer<unsigned char> type_buf{kSpace};
        Buffer<double> b_buf{kSpace}, x_buf{kSpace}, t_buf{kSpace};
        View<const unsigned char> type;
        View<double> b, x, t;
        // The fluid cells (list_fluid_cells): red ones in [0, red), black ones in [red, count).
        Buffer<FluidCell> cells_buf{kSpace};
        Buffer<int> slot_buf{kSpace};
        View<const FluidCell> cells;
        int red = 0, count = 0;
    };

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
            SumPairOp{});
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

    // ---- multigrid (McAdams, Sifakis and Teran 2010) ----
    //
    // MGPCG works on lists of each level's fluid cells rather than on whole grids: the water is
    // a fraction of the box (a quarter in the dam break), and a cell's stencil, A's row, is
    // classified once per solve instead of at every sweep. Every vector stays 0 off the fluid
    // (zeroed once per solve, then written on fluid cells only), which is what the transfers
    // between levels, reading whole blocks of cells, rely on.

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

    // The level's fluid cells, red ((i + j + k) even) first, each colour in grid order, with
    // their stencils; red_ and count_ of the level say where the colours end.
    void list_fluid_cells(Exec& exec, Level& L) {
        const MacGrid g = L.g;
        const int half = red_black_half(g);
        auto type = L.type;
        auto slot = L.slot_buf.resized(static_cast<std::size_t>(2 * half) + 1);
        exec.parallel_for(2 * half + 1, FS_LAMBDA(int m) {
            const int c = red_black_cell(g, half, m);
            slot[m] = c >= 0 && type[c] == kFluid ? 1 : 0;
        });
        exec.exclusive_scan(View<const int>(slot), slot);
        int ends[2] = {0, 0};
        mem_copy(&ends[0], MemorySpace::Host, slot.data + half, kSpace, sizeof(int));
        mem_copy(&ends[1], MemorySpace::Host, slot.data + 2 * half, kSpace, sizeof(int));
        L.red = ends[0];
        L.count = ends[1];
        auto list = L.cells_buf.resized(static_cast<std::size_t>(L.count));
        exec.parallel_for(2 * half, FS_LAMBDA(int m) {
            const int c = red_black_cell(g, half, m);
            if (c >= 0 && type[c] == kFluid) list[slot[m]] = classify_cell(g, type, c);
        });
        L.cells = L.cells_buf.cview();
    }

    // One half-sweep of Gauss-Seidel (rb_sweep, with omega = 1) over one colour's fluid cells,
    // [from, to) of the list. Cells of one colour only read the other colour.
    void sweep_list(Exec& exec, const Level& L, int from, int to) {
        auto cells = L.cells;
        auto b = View<const double>(L.b);
        auto x = L.x;
        const int sy = L.g.nx, sz = L.g.nx * L.g.ny;
        exec.parallel_for(to - from, FS_LAMBDA(int n) {
            const FluidCell fc = cells[from + n];
            const int c = fc.cell;
            const double sum = fluid_neighbour_sum(View<const double>(x), c, fc.stencil, sy, sz);
            x[c] = (b[c] + sum) / stencil_diag(fc.stencil);
        });
    }

    // The first half-sweep from x = 0: the red cells get b / diag (their neighbours are black,
    // still 0), the black ones 0. Replaces zeroing x and sweeping the red cells.
    void first_sweep_list(Exec& exec, const Level& L) {
        auto cells = L.cells;
        auto b = View<const double>(L.b);
        auto x = L.x;
        const int red = L.red;
        exec.parallel_for(L.count, FS_LAMBDA(int n) {
            const FluidCell fc = cells[n];
            x[fc.cell] = n < red ? b[fc.cell] / stencil_diag(fc.stencil) : 0.0;
        });
    }

    // y = A x on the level's fluid cells (apply_laplacian on the list).
    void laplacian_list(Exec& exec, const Level& L, View<const double> x, View<double> y) {
        auto cells = L.cells;
        const int sy = L.g.nx, sz = L.g.nx * L.g.ny;
        exec.parallel_for(L.count, FS_LAMBDA(int n) {
            const FluidCell fc = cells[n];
            const int c = fc.cell;
            y[c] = stencil_diag(fc.stencil) * x[c] - fluid_neighbour_sum(x, c, fc.stencil, sy, sz);
        });
    }

    // r = b - A x on the level's fluid cells (residual on the list).
    void residual_list(Exec& exec, const Level& L, View<const double> b, View<const double> x,
                       View<double> r) {
        auto cells = L.cells;
        const int sy = L.g.nx, sz = L.g.nx * L.g.ny;
        exec.parallel_for(L.count, FS_LAMBDA(int n) {
            const FluidCell fc = cells[n];
            const int c = fc.cell;
            r[c] = b[c] - (stencil_diag(fc.stencil) * x[c] - fluid_neighbour_sum(x, c, fc.stencil, sy, sz));
        });
    }

    // Coarse right-hand side from the fine residual r: the transpose of prolongation scaled by
    // 1/8 (McAdams et al. 2010), times 4 because A is the Laplacian times dx^2 and the
    // coarse dx is twice the fine one: b_C = (4/8) sum_f w(f, C) r_f. r is 0 off the fine fluid;
    // fine cells beyond the grid get weight 0 (and read a cell inside).
    void restrict_residual(Exec& exec, const MacGrid& fg, View<const double> r, const Level& C) {
        const MacGrid cg = C.g;
        auto cells = C.cells;
        auto cb = C.b;
        exec.parallel_for(C.count, FS_LAMBDA(int n) {
            const int c = cells[n].cell;
            const glm::ivec3 q = cg.cell_coords(c);
            int ix[4], iy[4], iz[4];
            double wx[4], wy[4], wz[4];
            for (int d = 0; d < 4; ++d) {
                const glm::ivec3 f = 2 * q + glm::ivec3(d - 1);
                const bool inx = f.x >= 0 && f.x < fg.nx, iny = f.y >= 0 && f.y < fg.ny, inz = f.z >= 0 && f.z < fg.nz;
                ix[d] = inx ? f.x : 2 * q.x;
                iy[d] = (iny ? f.y : 2 * q.y) * fg.nx;
                iz[d] = (inz ? f.z : 2 * q.z) * fg.nx * fg.ny;
                wx[d] = inx ? transfer_weight(d - 1) : 0.0;
                wy[d] = iny ? transfer_weight(d - 1) : 0.0;
                wz[d] = inz ? transfer_weight(d - 1) : 0.0;
            }
            double s = 0.0;
            for (int dk = 0; dk < 4; ++dk)
                for (int dj = 0; dj < 4; ++dj) {
                    const int row = iz[dk] + iy[dj];
                    const double t = wx[0] * r[row + ix[0]] + wx[1] * r[row + ix[1]] + wx[2] * r[row + ix[2]] +
                                     wx[3] * r[row + ix[3]];
                    s += wz[dk] * wy[dj] * t;
                }
            cb[c] = 0.5 * s;
        });
    }

    // x_f += trilinear interpolation of the coarse correction at fluid fine cells (McAdams et al.
    // 2010): weight 3/4 from the nearer coarse cell along each axis, 1/4 from the other one
    // (weight 0 beyond the coarse grid). The coarse solution is 0 on non-fluid coarse cells, so
    // this is exactly the transpose of restrict_residual up to its scale.
    void prolong_add(Exec& exec, const MacGrid& cg, View<const double> cx, const Level& F) {
        const MacGrid fg = F.g;
        auto cells = F.cells;
        auto fx = F.x;
        exec.parallel_for(F.count, FS_LAMBDA(int n) {
            const int f = cells[n].cell;
            const glm::ivec3 q = fg.cell_coords(f);
            const glm::ivec3 c0 = q / 2;
            const glm::ivec3 c1 = c0 + glm::ivec3((q.x & 1) ? 1 : -1, (q.y & 1) ? 1 : -1, (q.z & 1) ? 1 : -1);
            const bool inx = c1.x >= 0 && c1.x < cg.nx, iny = c1.y >= 0 && c1.y < cg.ny, inz = c1.z >= 0 && c1.z < cg.nz;
            const int ox = inx ? c1.x - c0.x : 0;
            const int oy = iny ? (c1.y - c0.y) * cg.nx : 0;
            const int oz = inz ? (c1.z - c0.z) * cg.nx * cg.ny : 0;
            const double wx = inx ? 0.25 : 0.0, wy = iny ? 0.25 : 0.0, wz = inz ? 0.25 : 0.0;
            const int base = cg.cell(c0.x, c0.y, c0.z);
            auto row = [&](int at) { return 0.75 * cx[at] + wx * cx[at + ox]; };
            const double near = 0.75 * row(base) + wy * row(base + oy);
            const double far = 0.75 * row(base + oz) + wy * row(base + oz + oy);
            fx[f] += 0.75 * near + wz * far;
        });
    }

    // z = M^-1 r: one V-cycle from a zero guess. Red-black Gauss-Seidel smoothing, red then
    // black on the way down and black then red on the way up, and a palindromic sweep sequence
    // on the coarsest level, so M is symmetric positive definite and CG applies.
    void vcycle(Exec& exec, int l) {
        const Level& L = levels_[static_cast<std::size_t>(l)];
        const int red = L.red, all = L.count;
        first_sweep_list(exec, L);  // x = 0, then the first red half-sweep
        if (l + 1 == static_cast<int>(levels_.size())) {
            for (int s = 0; s < kCoarsestSweeps; ++s) {
                if (s > 0) sweep_list(exec, L, 0, red);
                sweep_list(exec, L, red, all);
            }
            for (int s = 0; s < kCoarsestSweeps; ++s) {
                sweep_list(exec, L, red, all);
                sweep_list(exec, L, 0, red);
            }
            return;
        }
        for (int s = 0; s < kSmoothSweeps; ++s) {
            if (s > 0) sweep_list(exec, L, 0, red);
            sweep_list(exec, L, red, all);
        }
        residual_list(exec, L, L.b, L.x, L.t);
        const Level& C = levels_[static_cast<std::size_t>(l) + 1];
        restrict_residual(exec, L.g, L.t, C);
        vcycle(exec, l + 1);
        prolong_add(exec, C.g, C.x, L);
        for (int s = 0; s < kSmoothSweeps; ++s) {
            sweep_list(exec, L, red, all);
            sweep_list(exec, L, 0, red);
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

    // sum x_c y_c over the fine fluid cells.
    double dot_fluid(Exec& exec, View<const double> x, View<const double> y) {
        auto cells = levels_[0].cells;
        return exec.transform_reduce(
            levels_[0].count, 0.0,
            FS_LAMBDA(int n) {
                const int c = cells[n].cell;
                return x[c] * y[c];
            },
            FS_LAMBDA(double u, double v) { return u + v; });
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
        for (Level& L : levels_) {
            list_fluid_cells(exec, L);
            fill_zero(exec, L.x);  // 0 off the fluid from here on (level 0: z)
            fill_zero(exec, L.t);
        }
        fill_zero(exec, r);
        auto cells = L0.cells;
        const int count = L0.count;

        residual_list(exec, L0, b, p, r);  // r0 = b - A p0 (0 off the fluid)
        const double target2 = s.tolerance * s.tolerance * bb;
        if (dot_fluid(exec, r, r) <= target2) return 0;

        vcycle(exec, 0);  // z0 = M^-1 r0
        exec.parallel_for(count, FS_LAMBDA(int n) {  // d0 = z0
            const int c = cells[n].cell;
            d[c] = z[c];
        });
        double rz = dot_fluid(exec, r, z);
        int it = 0;
        while (it < s.max_iterations) {
            ++it;
            laplacian_list(exec, L0, d, q);
            const double dq = dot_fluid(exec, d, q);
            if (!(dq > 0.0)) break;  // A is only semi-definite: d lies in its null space
            const double alpha = rz / dq;
            // p += alpha d, r -= alpha q
            exec.parallel_for(count, FS_LAMBDA(int n) {
                const int c = cells[n].cell;
                p[c] += alpha * d[c];
                r[c] -= alpha * q[c];
            });
            vcycle(exec, 0);  // z = M^-1 r
            const SumPair rr = exec.transform_reduce(
                count, SumPair{},
                FS_LAMBDA(int n) {
                    const int c = cells[n].cell;
                    return SumPair{r[c] * r[c], r[c] * z[c]};
                },
                SumPairOp{});
            if (rr.a <= target2) break;
            const double beta = rr.b / rz;
            rz = rr.b;
            exec.parallel_for(count, FS_LAMBDA(int n) {
                const int c = cells[n].cell;
                d[c] = z[c] + beta * d[c];
            });
        }
        return it;
    }

private:
    std::vector<Level> levels_;
    Buffer<double> r_{kSpace}, z_{kSpace}, d_{kSpace}, q_{kSpace}, scratch_{kSpace};
};

}  // namespace fs::flip
