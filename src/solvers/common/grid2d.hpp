// The uniform 2D search grid shared by the particle solvers (euler, sph): cell geometry, and the
// visitor that offers each particle the others within reach. The counting sort that fills it is
// cell_sort.hpp. Host and device.
#pragma once

#include <cmath>

#include <glm/glm.hpp>

#include "core/buffer.hpp"
#include "core/hd.hpp"

namespace fs::grid {

using glm::dvec2;

// nx x ny cells tiling a box exactly (1/inv_cell wide and high), the first one's lower corner
// at `origin`. Points outside are clamped into the border cells; clamping is monotone and never
// moves two points more than one cell apart, so searches stay exact for any positions (and NaN
// lands in cell 0).
struct Grid2 {
    dvec2 origin{0.0, 0.0};
    dvec2 inv_cell{1.0, 1.0};
    int nx = 1, ny = 1;
    // The block of cells a search reads (Neighbors2): 2, the 2x2 block on the particle's side of
    // its cell, for cells over twice the reach wide; 3, the 3x3 block around it, for cells at
    // least the reach wide.
    int block = 2;

    FS_HDI static int clamp_coord(double f, int n) {
        if (!(f >= 0.0)) f = 0.0;  // also catches NaN
        if (f > n - 1) f = n - 1;
        return static_cast<int>(f);
    }
    // Position in cell units (0 at the origin).
    FS_HDI double ux(double x) const { return (x - origin.x) * inv_cell.x; }
    FS_HDI double uy(double y) const { return (y - origin.y) * inv_cell.y; }
    // (clamp_coord sends negatives to 0 and truncates the rest, which is their floor: no
    // std::floor needed, the same cells)
    FS_HDI int cx(double x) const { return clamp_coord(ux(x), nx); }
    FS_HDI int cy(double y) const { return clamp_coord(uy(y), ny); }
    FS_HDI int cell_of(dvec2 p) const { return cy(p.y) * nx + cx(p.x); }
    FS_HDI int cells() const { return nx * ny; }
};

// A grid tiling [lo, hi] whose cells are a little over twice `reach` wide and high (block 2:
// Neighbors2 searches the 2x2 block on the particle's side of its cell) or a little over `reach`
// (block 3: the 3x3 block around it, 9 reach^2 of area against 16), with at most about two
// cells per particle (finer cells past that only cost memory and the time to fill their ranges;
// measured on the Euler gas at N = 1e6). The cells tile the box exactly, so a periodic box wraps
// cell for cell. Sized from the reach, not from the particle count as the tutorial's grid is
// (the particle tutorial: floor(sqrt(N)) * 5 cells a side, 0.0065 wide for N = 1000, under its collision
// distance of 0.032: the cells next to a particle's would not hold all its partners).
// Block 2 reads two rows of two cells, 16 reach^2 of candidates; block 3 three rows of three,
// 9 reach^2: fewer candidates, more runs. SPH's eight-lane loops gain from fewer candidates.
inline Grid2 make_grid(dvec2 lo, dvec2 hi, double reach, long long particles, int block = 2) {
    const dvec2 size = glm::max(hi - lo, dvec2(1e-12));
    double cell = (block == 3 ? 1.000001 : 2.000001) * reach;
    const double most = 2.0 * static_cast<double>(particles > 0 ? particles : 1);
    if (size.x / cell * (size.y / cell) > most) cell = std::sqrt(size.x * size.y / most);
    auto count = [&](double extent) {  // at most 46340 a side: the cell count stays an int
        return static_cast<int>(std::max(1.0, std::min(std::floor(extent / cell), 46340.0)));
    };
    Grid2 g;
    g.block = block == 3 ? 3 : 2;
    g.origin = lo;
    g.nx = count(size.x);
    g.ny = count(size.y);
    g.inv_cell = dvec2(g.nx / size.x, g.ny / size.y);
    return g;
}

// Particles stored in cell order (cell_sort.hpp), each cell a range of the arrays. Cells being
// more than twice the reach wide, everything within reach of a particle lies in the 2x2 block
// of cells on its side: the neighbour column left of its cell if it sits in the left half, right
// of it otherwise, and likewise for rows (16 reach^2 of area against 36 reach^2 for the usual
// 3x3 block of reach-wide cells at the same cell count). The two cells of a row are consecutive
// in memory, so a row is one range. In a periodic grid rows and columns wrap around.
struct Neighbors2 {
    Grid2 grid;
    bool periodic = false;
    View<const int> cell_start;  // cells + 1 entries
    View<const dvec2> pos;

    // run(begin, end) for each run of consecutive slots a search of particle s reads, s among
    // them: two or three rows of the block, each split in two where a periodic row wraps. (A
    // callback, not an array of runs: on the GPU an array indexed at run time lives in local
    // memory, which cost the search kernels a 104-byte stack frame.)
    template <class Run>
    FS_HDI void each_run(int s, Run&& run) const {
        const dvec2 p = pos[s];
        const int nx = grid.nx, ny = grid.ny;
        const int cx = grid.cx(p.x), cy = grid.cy(p.y);
        auto cells = [&](int y, int first, int last) {
            const int row = y * grid.nx;
            run(cell_start[row + first], cell_start[row + last + 1]);
        };
        if (grid.block == 3) {
            // Rows cy - 1 .. cy + 1 and columns cx - 1 .. cx + 1, each once (a periodic grid
            // under three cells wide or high is read whole in that direction).
            const bool all_rows = periodic && ny < 3, all_cols = periodic && nx < 3;
            for (int k = 0; k < (all_rows ? ny : 3); ++k) {
                int row = all_rows ? k : cy - 1 + k;
                if (row < 0 || row >= ny) {
                    if (!periodic) continue;
                    row = row < 0 ? row + ny : row - ny;
                }
                const int first = cx - 1, last = cx + 1;
                if (all_cols) {
                    cells(row, 0, nx - 1);
                } else if (!periodic) {
                    cells(row, first < 0 ? 0 : first, last >= nx ? nx - 1 : last);
                } else if (first < 0) {
                    cells(row, nx - 1, nx - 1);
                    cells(row, 0, last);
                } else if (last >= nx) {
                    cells(row, first, nx - 1);
                    cells(row, 0, 0);
                } else {
                    cells(row, first, last);
                }
            }
            return;
        }
        // First column and row of the 2x2 block: the particle's half of its cell decides. Points
        // clamped into a border cell from outside pick the side that holds their neighbours.
        const int x0 = nx == 1 ? 0 : cx - (grid.ux(p.x) - cx < 0.5 ? 1 : 0);
        const int y0 = ny == 1 ? 0 : cy - (grid.uy(p.y) - cy < 0.5 ? 1 : 0);
        const int rows = ny == 1 ? 1 : 2;
        for (int y = y0; y < y0 + rows; ++y) {
            int row = y;
            if (row < 0 || row >= ny) {
                if (!periodic) continue;
                row = row < 0 ? row + ny : row - ny;
            }
            if (nx == 1) {
                cells(row, 0, 0);
            } else if (x0 >= 0 && x0 + 1 < nx) {
                cells(row, x0, x0 + 1);
            } else if (x0 < 0) {  // the block sticks out on the left
                cells(row, 0, 0);
                if (periodic) cells(row, nx - 1, nx - 1);
            } else {  // on the right
                cells(row, nx - 1, nx - 1);
                if (periodic) cells(row, 0, 0);
            }
        }
    }

    // The same runs as a list (sph_simd.hpp's loops, on the host).
    struct Runs {
        int begin[6];
        int end[6];
        int count = 0;
    };
    Runs runs(int s) const {
        Runs r;
        each_run(s, [&](int begin, int end) {
            r.begin[r.count] = begin;
            r.end[r.count] = end;
            ++r.count;
        });
        return r;
    }

    // visit(j) for every particle j != s that may lie within reach of particle s (and others);
    // returns the count.
    // On the host the runs are listed first and visited by a loop in the caller: each_run is not
    // inlined, and a visit passed into it took the caller's locals it captures into memory, where
    // every store the visit makes (a neighbour list's slot) could alias them, so each candidate
    // waited on a store and reloads (DFSPH's density stage: a quarter of its time). On the GPU the
    // callback stays: an array indexed at run time lives in local memory there (above).
    template <class Visit>
    FS_HDI int for_each(int s, Visit&& visit) const {
        int tests = 0;
#ifdef __CUDA_ARCH__
        each_run(s, [&](int begin, int end) {
            for (int j = begin; j < end; ++j) {
                if (j == s) continue;
                ++tests;
                visit(j);
            }
        });
#else
        const Runs r = runs(s);
        for (int k = 0; k < r.count; ++k)
            for (int j = r.begin[k]; j < r.end[k]; ++j) {
                if (j == s) continue;
                ++tests;
                visit(j);
            }
#endif
        return tests;
    }
};

// Brute force: every other particle (the O(N^2) reference the grid must agree with).
struct AllPairs {
    int count = 0;
    template <class Visit>
    FS_HDI int for_each(int s, Visit&& visit) const {
        for (int j = 0; j < count; ++j)
            if (j != s) visit(j);
        return count - 1;
    }
};

}  // namespace fs::grid
