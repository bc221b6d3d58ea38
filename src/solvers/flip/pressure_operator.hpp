// The FLIP pressure system's matrix A, the 7-point operator, written once (each fluid cell's row
// classified into a stencil), applied on the whole grid or over the list of the fluid cells.
//
// The system (Bridson, "Fluid Simulation for Computer Graphics", 2nd ed., ch. 5), on fluid cells:
//   (A p)_i = sum over the 6 neighbours n of i that are not solid of (p_i - p_n),
// with p_n = 0 for air neighbours (free surface, Dirichlet) and solid neighbours left out
// (p_solid = p_i, Neumann: the PIC-FLIP assignment's mirror condition). This is -dx^2 times the PIC-FLIP assignment's
// discrete Laplacian, so the PIC-FLIP assignment's  lap(p) = (rho/dt) div(u)  reads  A p = b  with
//   b_i = -(rho dx^2 / dt) div(u)_i.
// A is symmetric; positive definite when every connected fluid region touches air, positive
// semi-definite otherwise (a closed region's pressure is then defined up to a constant).
#pragma once

#include <cmath>

#include "core/buffer.hpp"
#include "core/hd.hpp"
#include "solvers/flip/mac_grid.hpp"

namespace fs::flip {

// A fluid cell and its row of A: bit n of `stencil` is set when neighbour n (in the order -x,
// +x, -y, +y, -z, +z) is fluid, and bits 6 and up hold the number of neighbours that are not
// solid (the diagonal).
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

// sum of x over the fluid neighbours of cell c, in the stencil's order; sy and sz are the index
// strides of y and z.
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

// (A x)_c, row c of A with the given stencil.
FS_HDI double apply_row(View<const double> x, int c, int stencil, int sy, int sz) {
    return stencil_diag(stencil) * x[c] - fluid_neighbour_sum(x, c, stencil, sy, sz);
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

// The fluid cells of a grid with their rows of A, classified once per solve, so that the solvers
// visit only the fluid (a fraction of the box: a quarter in the dam break) and read each row's
// stencil instead of its neighbours' types. Red cells ((i + j + k) even) come first, in
// [0, red), then the black ones in [red, count), each colour in grid order. `ordered` holds the
// same cells in grid order, for the loops whose order does not matter (A x, residuals, the level
// transfers, CG's vector updates and sums): the colours' lists each touch every cache line of a
// grid-sized vector, so a loop over both read every line twice, and the vectors (2 MB each at
// 64^3) do not stay in the cache between the two.
template <class Exec>
struct FluidCells {
    static constexpr MemorySpace kSpace = Exec::space;
    Buffer<FluidCell> cells_buf{kSpace}, ordered_buf{kSpace};
    Buffer<int> slot_buf{kSpace}, order_slot_buf{kSpace};
    Buffer<int> ends_buf{kSpace};  // the red count and the whole count, for one read-back
    View<const FluidCell> cells, ordered;
    int red = 0, count = 0;
    int sy = 0, sz = 0;  // the grid's index strides of y and z

    void build(Exec& exec, const MacGrid& g, View<const unsigned char> type) {
        const int half = red_black_half(g);
        auto slot = slot_buf.resized(static_cast<std::size_t>(2 * half) + 1);
        exec.parallel_for(2 * half + 1, FS_LAMBDA(int m) {
            const int c = red_black_cell(g, half, m);
            slot[m] = c >= 0 && type[c] == kFluid ? 1 : 0;
        });
        exec.exclusive_scan(View<const int>(slot), slot);
        // Both counts read back in one copy (a GPU round trip a level and solve, not two).
        auto both = ends_buf.resized(2);
        exec.parallel_for(1, FS_LAMBDA(int) {
            both[0] = slot[half];
            both[1] = slot[2 * half];
        });
        int ends[2] = {0, 0};
        mem_copy(ends, MemorySpace::Host, both.data, kSpace, sizeof(ends));
        red = ends[0];
        count = ends[1];
        // The cells in grid order, each classified once; the colours' list then copies them.
        const int n = g.cells();
        auto at = order_slot_buf.resized(static_cast<std::size_t>(n) + 1);
        exec.parallel_for(n + 1, FS_LAMBDA(int c) { at[c] = c < n && type[c] == kFluid ? 1 : 0; });
        exec.exclusive_scan(View<const int>(at), at);
        auto in_order = ordered_buf.resized(static_cast<std::size_t>(count));
        exec.parallel_for(n, FS_LAMBDA(int c) {
            if (type[c] == kFluid) in_order[at[c]] = classify_cell(g, type, c);
        });
        auto list = cells_buf.resized(static_cast<std::size_t>(count));
        exec.parallel_for(2 * half, FS_LAMBDA(int m) {
            const int c = red_black_cell(g, half, m);
            if (c >= 0 && type[c] == kFluid) list[slot[m]] = in_order[at[c]];
        });
        cells = cells_buf.cview();
        ordered = ordered_buf.cview();
        sy = g.nx;
        sz = g.nx * g.ny;
    }
};

template <class Exec>
void fill_zero(Exec& exec, View<double> x) {
    exec.parallel_for(x.size, FS_LAMBDA(int c) { x[c] = 0.0; });
}

// x = 0 on cells that are not fluid (a warm start may carry pressure from cells that were fluid
// last step).
template <class Exec>
void mask_non_fluid(Exec& exec, View<const unsigned char> type, View<double> x) {
    exec.parallel_for(x.size, FS_LAMBDA(int c) {
        if (type[c] != kFluid) x[c] = 0.0;
    });
}

// ||b||_2^2 over the fluid cells.
template <class Exec>
double norm2_fluid(Exec& exec, const MacGrid& g, View<const unsigned char> type, View<const double> b) {
    return exec.transform_reduce(
        g.cells(), 0.0, FS_LAMBDA(int c) { return type[c] == kFluid ? b[c] * b[c] : 0.0; },
        FS_LAMBDA(double u, double v) { return u + v; });
}

// y = A x on fluid cells, 0 elsewhere (x is read on fluid cells only).
template <class Exec>
void apply_laplacian(Exec& exec, const MacGrid& g, View<const unsigned char> type, View<const double> x,
                     View<double> y) {
    const int sy = g.nx, sz = g.nx * g.ny;
    exec.parallel_for(g.cells(), FS_LAMBDA(int c) {
        y[c] = type[c] == kFluid ? apply_row(x, c, classify_cell(g, type, c).stencil, sy, sz) : 0.0;
    });
}

// ||b - A x||_2 / ||b||_2 over fluid cells, in one reduction over the grid in grid order (so the
// sum's order is the same whichever solver ran); 0 when b = 0.
template <class Exec>
double relative_residual(Exec& exec, const MacGrid& g, View<const unsigned char> type, View<const double> b,
                         View<const double> x) {
    const int sy = g.nx, sz = g.nx * g.ny;
    const SumPair s = exec.transform_reduce(
        g.cells(), SumPair{},
        FS_LAMBDA(int c) {
            if (type[c] != kFluid) return SumPair{};
            const double r = b[c] - apply_row(x, c, classify_cell(g, type, c).stencil, sy, sz);
            return SumPair{r * r, b[c] * b[c]};
        },
        SumPairOp{});
    return s.b > 0.0 ? std::sqrt(s.a / s.b) : 0.0;
}

// y = A x on the listed fluid cells (y elsewhere is left alone).
template <class Exec>
void apply_laplacian(Exec& exec, const FluidCells<Exec>& f, View<const double> x, View<double> y) {
    auto cells = f.ordered;
    const int sy = f.sy, sz = f.sz;
    exec.parallel_for(f.count, FS_LAMBDA(int n) {
        const FluidCell fc = cells[n];
        y[fc.cell] = apply_row(x, fc.cell, fc.stencil, sy, sz);
    });
}

// r = b - A x on the listed fluid cells (r elsewhere is left alone).
template <class Exec>
void residual(Exec& exec, const FluidCells<Exec>& f, View<const double> b, View<const double> x, View<double> r) {
    auto cells = f.ordered;
    const int sy = f.sy, sz = f.sz;
    exec.parallel_for(f.count, FS_LAMBDA(int n) {
        const FluidCell fc = cells[n];
        r[fc.cell] = b[fc.cell] - apply_row(x, fc.cell, fc.stencil, sy, sz);
    });
}

}  // namespace fs::flip
