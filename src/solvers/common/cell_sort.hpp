// Sort of particles by grid cell, on either executor: after build(), order()[s] is the particle
// that belongs in slot s and cell_start() gives each cell's range of slots. The order is a
// stable radix sort of the particles' cells (the executors' sort_by_key): within a cell,
// particles keep their previous relative order, so the permutation is the same for any thread
// count and on both backends, and the cost stays linear however crowded one cell gets (a pile
// pressed into one row of cells: tests/bench/euler_pile.sh). The cell ranges come from the
// sorted cells. Solvers then permute their own arrays with gather(). On the CPU, a solver that
// did so finds most particles still in their cells at the next build, which then sorts only
// those that moved (CpuExec::sort_by_key_near).
#pragma once

#include <algorithm>
#include <utility>

#include "core/buffer.hpp"
#include "solvers/common/grid2d.hpp"

namespace fs::grid {

template <class Exec>
class CellSort {
public:
    static constexpr MemorySpace kSpace = Exec::space;

    // The cell of a 2D particle, as a functor rather than an extended lambda: this member is
    // instantiated by several .cu files (Euler, SPH, ot), the linker keeps one copy, and an
    // extended lambda made here and captured by the kernel lambda below depends on state nvcc
    // sets up per file. On the GPU that left a null function pointer, called on the host
    // (SPH and ot crashed at their first step; issue 12). A plain functor has no such state.
    struct Grid2CellOf {
        Grid2 grid;
        View<const dvec2> pos;
        FS_HDI int operator()(int i) const { return grid.cell_of(pos[i]); }
    };
    void build(Exec& exec, const Grid2& grid, View<const dvec2> pos) {
        build(exec, grid.cells(), pos.size, Grid2CellOf{grid, pos});
    }

    // Any grid: cell_of(i) gives particle i's cell in [0, cells).
    template <class CellOf>
    void build(Exec& exec, int cells, int n, const CellOf cell_of_particle) {
        cell_start_.resize(static_cast<std::size_t>(cells) + 1);
        // The last sort's cells, in its order (sorted), for the CPU's in-order path; the GPU
        // keeps no copy.
        if constexpr (kSpace == MemorySpace::Host) std::swap(cell_of_, last_cells_);
        cell_of_.resize(static_cast<std::size_t>(n));
        order_.resize(static_cast<std::size_t>(n));
        auto cell_of = cell_of_.view();
        auto order = order_.view();
        exec.parallel_for(n, FS_LAMBDA(int i) {
            cell_of[i] = static_cast<unsigned>(cell_of_particle(i));
            order[i] = i;
        });
        // A solver that keeps its particles in the last sort's order finds most of them still in
        // their cells: on the CPU, the in-order path (CpuExec::sort_by_key_near) sorts only the
        // others. The result is the same either way.
        bool done = false;
        if constexpr (kSpace == MemorySpace::Host) done = exec.sort_by_key_near(cell_of, order, last_cells_.cview());
        if (!done) exec.sort_by_key(cell_of, order);
        // Each cell's first slot from the sorted cells: slot s starts the cells after the one
        // before it up to its own, and the cells after the last particle's start at n. Every
        // cell is written once, by one slot: no atomic counts, no count buffer, no scan over the
        // cells (on the Euler gas at N = 1e6 this fill costs about what those three did).
        if constexpr (kSpace == MemorySpace::Host) {
            fill_starts_in_blocks(exec, cells, n);
        } else {
            auto start = cell_start_.view();
            auto sorted = cell_of_.cview();
            exec.parallel_for(n + 1, FS_LAMBDA(int s) {
                const int from = s == 0 ? 0 : static_cast<int>(sorted[s - 1]) + 1;
                const int to = s == n ? cells : static_cast<int>(sorted[s]);
                for (int c = from; c <= to; ++c) start[c] = s;
            });
        }
    }

    // The same fill on the CPU, by blocks of slots in order. The number of cells a slot writes
    // (none where it shares the cell before it, else one plus the empty cells before it) varies at
    // random, and the loop's branches mispredicted (perf, the Euler gas at N = 1e6: 9.5% of a
    // one-thread step). Here each slot first writes four cells at once, whatever its count: the
    // cells past its own belong to slots after it in the same block, which write them again
    // afterwards. Only the rare longer runs (four empty cells in a row) take the loop. A block
    // writes no cell past its last slot's own, so blocks write disjoint cells, each cell once last
    // by its own slot: the same starts as the loop above.
    void fill_starts_in_blocks(Exec& exec, int cells, int n) {
        int* const start = cell_start_.data();
        const unsigned* const sorted = cell_of_.data();
        constexpr int kSlots = 4096;
        exec.parallel_tasks((n + 1 + kSlots - 1) / kSlots, [=](int b) {
            const int first = b * kSlots, end = std::min(n + 1, first + kSlots);
            // The last cell this block may write: its last slot's own.
            const int bound = end == n + 1 ? cells : static_cast<int>(sorted[end - 1]);
            for (int s = first; s < end; ++s) {
                const int from = s == 0 ? 0 : static_cast<int>(sorted[s - 1]) + 1;
                const int to = s == n ? cells : static_cast<int>(sorted[s]);
                int c = from;
                if (from + 3 <= bound) {
                    start[from] = s;
                    start[from + 1] = s;
                    start[from + 2] = s;
                    start[from + 3] = s;
                    c = from + 4;
                }
                for (; c <= to; ++c) start[c] = s;
            }
        });
    }

    View<const int> order() const { return order_.cview(); }
    View<const int> cell_start() const { return cell_start_.cview(); }

    // data[s] = old data[order[s]], through `scratch` (which ends up holding the old data).
    template <class T>
    void gather(Exec& exec, Buffer<T>& data, Buffer<T>& scratch) const {
        scratch.resize(data.size());
        auto src = data.cview();
        auto dst = scratch.view();
        auto order = order_.cview();
        exec.parallel_for(src.size, FS_LAMBDA(int s) { dst[s] = src[order[s]]; });
        std::swap(data, scratch);
    }

private:
    Buffer<unsigned> cell_of_{kSpace};  // after build(): the particles' cells in slot order
    Buffer<unsigned> last_cells_{kSpace};  // during build(): the last build's (CPU only)
    Buffer<int> cell_start_{kSpace}, order_{kSpace};
};

}  // namespace fs::grid
