// Multigrid-preconditioned conjugate gradient (MGPCG, McAdams, Sifakis and Teran 2010) for the
// FLIP pressure system: the level hierarchy, the V-cycle and the CG iteration it preconditions.
//
// MGPCG works on lists of each level's fluid cells rather than on whole grids: the water is
// a fraction of the box (a quarter in the dam break), and a cell's stencil, A's row, is
// classified once per solve instead of at every sweep. Every vector stays 0 off the fluid
// (zeroed once per solve, then written on fluid cells only), which is what the transfers
// between levels, reading whole blocks of cells, rely on.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "core/buffer.hpp"
#include "core/hd.hpp"
#include "solvers/flip/mac_grid.hpp"
#include "solvers/flip/pressure_operator.hpp"

namespace fs::flip {

// Trilinear weights between cell-centred levels (McAdams, Sifakis and Teran 2010, "A parallel
// multigrid Poisson solver for fluids simulation on large grids"): along one axis, fine
// cell 2C + d takes weight 3/4 from coarse cell C for d in {0, 1} and 1/4 for d in {-1, 2}.
FS_HDI double transfer_weight(int d) {
    return (d == 0 || d == 1) ? 0.75 : 0.25;
}

// Kernel-launching members are public: nvcc's host-device lambdas may not be defined in private
// members.
template <class Exec>
class Mgpcg {
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
        FluidCells<Exec> fluid;
    };

    // The multigrid cycle: levels halve each dimension until the largest is at most
    // kCoarsestSize; kSmoothSweeps red-black sweeps before and after the coarse correction,
    // kCoarsestSweeps symmetric pairs of sweeps on the coarsest level.
    static constexpr int kCoarsestSize = 2;
    static constexpr int kSmoothSweeps = 2;
    static constexpr int kCoarsestSweeps = 8;

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

    // One half-sweep of Gauss-Seidel (Relaxation::gauss_seidel_sweep with omega = 1) over one
    // colour's fluid cells, [from, to) of the list. Cells of one colour only read the other
    // colour.
    void sweep(Exec& exec, const Level& L, int from, int to) {
        auto cells = L.fluid.cells;
        auto b = View<const double>(L.b);
        auto x = L.x;
        const int sy = L.fluid.sy, sz = L.fluid.sz;
        exec.parallel_for(to - from, FS_LAMBDA(int n) { relax_cell(cells[from + n], b, x, sy, sz); });
    }

    // Gauss-Seidel's update of one fluid cell (omega = 1).
    static FS_HDI void relax_cell(const FluidCell& fc, View<const double> b, View<double> x, int sy, int sz) {
        const int c = fc.cell;
        const double sum = fluid_neighbour_sum(View<const double>(x), c, fc.stencil, sy, sz);
        x[c] = (b[c] + sum) / stencil_diag(fc.stencil);
    }

    // The coarsest level's whole palindromic sequence (first_sweep's red half, then
    // kCoarsestSweeps pairs down and kCoarsestSweeps pairs up) in one work item: the level has at
    // most kCoarsestSize^3 cells, so the 32 launches this took as separate sweeps cost far more
    // on a GPU than the arithmetic (a launch is ~2 us; an MGPCG iteration at 128^3 was 0.32 ms
    // for ~90 launches). Cells of one colour read only the other colour, so visiting a colour in
    // list order gives exactly what the parallel half-sweeps give.
    void coarsest_solve(Exec& exec, const Level& L) {
        auto cells = L.fluid.cells;
        auto b = View<const double>(L.b);
        auto x = L.x;
        const int sy = L.fluid.sy, sz = L.fluid.sz, red = L.fluid.red, all = L.fluid.count;
        exec.parallel_for(1, FS_LAMBDA(int) {
            for (int n = 0; n < all; ++n) {  // first_sweep
                const FluidCell fc = cells[n];
                x[fc.cell] = n < red ? b[fc.cell] / stencil_diag(fc.stencil) : 0.0;
            }
            for (int pass = 0; pass < 2 * kCoarsestSweeps; ++pass) {
                // down: (red,) black; up: black, red (the first down pass skips the red half,
                // which first_sweep did)
                const bool down = pass < kCoarsestSweeps;
                for (int half = 0; half < 2; ++half) {
                    const bool black = down ? half == 1 : half == 0;
                    if (down && pass == 0 && !black) continue;
                    const int from = black ? red : 0, to = black ? all : red;
                    for (int n = from; n < to; ++n) relax_cell(cells[n], b, x, sy, sz);
                }
            }
        });
    }

    // The first half-sweep from x = 0: the red cells get b / diag (their neighbours are black,
    // still 0), the black ones 0. Replaces zeroing x and sweeping the red cells.
    void first_sweep(Exec& exec, const Level& L) {
        auto cells = L.fluid.cells;
        auto b = View<const double>(L.b);
        auto x = L.x;
        const int red = L.fluid.red;
        exec.parallel_for(L.fluid.count, FS_LAMBDA(int n) {
            const FluidCell fc = cells[n];
            x[fc.cell] = n < red ? b[fc.cell] / stencil_diag(fc.stencil) : 0.0;
        });
    }

    // Coarse right-hand side from the fine residual r: the transpose of prolongation scaled by
    // 1/8 (McAdams et al. 2010), times 4 because A is the Laplacian times dx^2 and the
    // coarse dx is twice the fine one: b_C = (4/8) sum_f w(f, C) r_f. r is 0 off the fine fluid;
    // fine cells beyond the grid get weight 0 (and read a cell inside).
    void restrict_residual(Exec& exec, const MacGrid& fg, View<const double> r, const Level& C) {
        const MacGrid cg = C.g;
        const CellCoords coords(cg);
        auto cells = C.fluid.ordered;
        auto cb = C.b;
        exec.parallel_for(C.fluid.count, FS_LAMBDA(int n) {
            const int c = cells[n].cell;
            const glm::ivec3 q = coords(c);
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
        const CellCoords coords(fg);
        auto cells = F.fluid.ordered;
        auto fx = F.x;
        exec.parallel_for(F.fluid.count, FS_LAMBDA(int n) {
            const int f = cells[n].cell;
            const glm::ivec3 q = coords(f);
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
        const int red = L.fluid.red, all = L.fluid.count;
        if (l + 1 == static_cast<int>(levels_.size())) {
            coarsest_solve(exec, L);
            return;
        }
        first_sweep(exec, L);  // x = 0, then the first red half-sweep
        for (int s = 0; s < kSmoothSweeps; ++s) {
            if (s > 0) sweep(exec, L, 0, red);
            sweep(exec, L, red, all);
        }
        residual(exec, L.fluid, L.b, L.x, L.t);
        const Level& C = levels_[static_cast<std::size_t>(l) + 1];
        restrict_residual(exec, L.g, L.t, C);
        vcycle(exec, l + 1);
        prolong_add(exec, C.g, C.x, L);
        for (int s = 0; s < kSmoothSweeps; ++s) {
            sweep(exec, L, red, all);
            sweep(exec, L, 0, red);
        }
    }

    bool prepared_for(const MacGrid& g) const {
        return !levels_.empty() && levels_[0].g.nx == g.nx && levels_[0].g.ny == g.ny && levels_[0].g.nz == g.nz;
    }

    // The grids below the fine one and the CG vectors; allocates only when the grid size changes.
    void prepare(const MacGrid& g) {
        const int n = g.cells();
        r_.resize(static_cast<std::size_t>(n));
        z_.resize(static_cast<std::size_t>(n));
        d_.resize(static_cast<std::size_t>(n));
        q_.resize(static_cast<std::size_t>(n));
        if (prepared_for(g)) return;
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
        auto cells = levels_[0].fluid.ordered;
        return exec.transform_reduce(
            levels_[0].fluid.count, 0.0,
            FS_LAMBDA(int n) {
                const int c = cells[n].cell;
                return x[c] * y[c];
            },
            FS_LAMBDA(double u, double v) { return u + v; });
    }

    // One CG iteration's scalars as its reductions leave them: r.r and r.z (one SumPair), d.q.
    struct CgScalars {
        double rr, rz, dq;
    };
    static_assert(sizeof(SumPair) == 2 * sizeof(double) && offsetof(CgScalars, rz) == sizeof(double),
                  "r.r and r.z are written as one SumPair {a, b}");

    // Preconditioned conjugate gradient (Saad, "Iterative Methods for Sparse Linear Systems",
    // Algorithm 9.1) with M^-1 = one V-cycle (McAdams et al. 2010): solves A p = b on the fluid
    // cells of `type` from the guess in p, to ||b - A p||^2 <= tolerance^2 bb (bb = ||b||^2 > 0).
    // Returns the number of iterations. One host round trip per iteration (below). same_cells: `type` is what the last solve on this grid was given, so its
    // hierarchy (each level's types and fluid-cell lists, a round trip a level) still holds, and
    // its vectors are still 0 off the fluid (every write since was to fluid cells).
    int solve(Exec& exec, const MacGrid& g, View<const unsigned char> type, View<const double> b, View<double> p,
              double tolerance, int max_iterations, double bb, bool same_cells = false) {
        const bool rebuild = !same_cells || !prepared_for(g);
        prepare(g);
        View<double> r = r_.view(), z = z_.view(), d = d_.view(), q = q_.view();
        Level& L0 = levels_[0];
        L0.type = type;
        L0.b = r;
        L0.x = z;
        if (rebuild) {
            for (std::size_t l = 1; l < levels_.size(); ++l)
                coarsen_types(exec, levels_[l - 1].g, levels_[l - 1].type, levels_[l].g,
                              levels_[l].type_buf.view());
            for (Level& L : levels_) {
                L.fluid.build(exec, L.g, L.type);
                fill_zero(exec, L.x);  // 0 off the fluid from here on (level 0: z)
                fill_zero(exec, L.t);
            }
            fill_zero(exec, r);
        }
        auto cells = L0.fluid.ordered;
        const int count = L0.fluid.count;

        residual(exec, L0.fluid, b, p, r);  // r0 = b - A p0 (0 off the fluid)
        const double target2 = tolerance * tolerance * bb;
        if (dot_fluid(exec, r, r) <= target2) return 0;

        // z0 = M^-1 r0. The V-cycle's launches are the same at every iteration of a solve: they
        // are recorded here and replayed below (one graph launch on the GPU instead of ~90).
        exec.replay(vcycle_graph_, true, [&] { vcycle(exec, 0); });
        exec.parallel_for(count, FS_LAMBDA(int n) {  // d0 = z0
            const int c = cells[n].cell;
            d[c] = z[c];
        });
        // The CG scalars stay on the device: each iteration reads back one record {r.r, r.z, d.q}
        // (one round trip instead of two; the GPU goes on meanwhile), and the kernels take alpha
        // and beta from the records. Two records, alternating, so that an iteration's kernels
        // read the previous r.z while its reduction writes the new one.
        CgScalars* rec = scalars_.resized(2).data;
        exec.transform_reduce_into(
            count, SumPair{},
            FS_LAMBDA(int n) {
                const int c = cells[n].cell;
                return SumPair{0.0, r[c] * z[c]};
            },
            SumPairOp{}, reinterpret_cast<SumPair*>(&rec[0].rr));  // rec[0].rz = r0.z0
        int it = 0;
        while (it < max_iterations) {
            ++it;
            CgScalars* now = rec + (it & 1);
            const CgScalars* before = rec + ((it + 1) & 1);
            apply_laplacian(exec, L0.fluid, d, q);
            exec.transform_reduce_into(
                count, 0.0,
                FS_LAMBDA(int n) {
                    const int c = cells[n].cell;
                    return d[c] * q[c];
                },
                FS_LAMBDA(double u, double v) { return u + v; }, &now->dq);
            // p += alpha d, r -= alpha q, alpha = r.z / d.q (0 when d.q <= 0: A is only
            // semi-definite, and d may lie in its null space; the loop then stops below)
            exec.parallel_for(count, FS_LAMBDA(int n) {
                const double dq = now->dq;
                const double alpha = dq > 0.0 ? before->rz / dq : 0.0;
                const int c = cells[n].cell;
                p[c] += alpha * d[c];
                r[c] -= alpha * q[c];
            });
            exec.replay(vcycle_graph_, false, [&] { vcycle(exec, 0); });  // z = M^-1 r
            exec.transform_reduce_into(
                count, SumPair{},
                FS_LAMBDA(int n) {
                    const int c = cells[n].cell;
                    return SumPair{r[c] * r[c], r[c] * z[c]};
                },
                SumPairOp{}, reinterpret_cast<SumPair*>(&now->rr));
            CgScalars host;
            mem_copy(&host, MemorySpace::Host, now, kSpace, sizeof(CgScalars));
            if (!(host.dq > 0.0)) break;
            if (host.rr <= target2) break;
            exec.parallel_for(count, FS_LAMBDA(int n) {  // d = z + beta d, beta = new r.z / old
                const int c = cells[n].cell;
                d[c] = z[c] + (now->rz / before->rz) * d[c];
            });
        }
        return it;
    }

private:
    std::vector<Level> levels_;
    Buffer<double> r_{kSpace}, z_{kSpace}, d_{kSpace}, q_{kSpace};
    Buffer<CgScalars> scalars_{kSpace};
    typename Exec::Graph vcycle_graph_;
};

}  // namespace fs::flip
