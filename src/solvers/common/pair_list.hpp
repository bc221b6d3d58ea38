// Lists of particle pairs found on the device, for tests and inspection: each particle counts
// its pairs, an exclusive scan gives where each writes, then each writes them; the result is
// copied to the host and sorted. Allocates: never used inside a step. Also the id order that
// solvers hand their particles out in.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include "core/buffer.hpp"

namespace fs::grid {

// Array positions in order of increasing id: solvers keep particles in cell order, and hand them
// out in id order.
inline std::vector<std::size_t> order_by_id(const std::vector<int>& id) {
    std::vector<std::size_t> order(id.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return id[a] < id[b]; });
    return order;
}

// Every pair of ids (id_i < id_j) of particles i, j that the neighbour visitor `nb` offers each
// other and `pair_of(i, j)` accepts, sorted. Runs on the executor's device.
template <class Exec, class Neighbors, class PairOf>
std::vector<std::pair<int, int>> collect_pairs(Exec& exec, int n, const Neighbors nb, View<const int> id,
                                               const PairOf pair_of) {
    constexpr MemorySpace space = Exec::space;
    Buffer<int> counts(space, static_cast<std::size_t>(n) + 1);
    Buffer<int> offsets(space, static_cast<std::size_t>(n) + 1);
    auto cnt = counts.view();
    exec.parallel_for(n + 1, FS_LAMBDA(int i) {
        int k = 0;
        if (i < n) nb.for_each(i, [&](int j) { k += id[j] > id[i] && pair_of(i, j); });
        cnt[i] = k;
    });
    exec.exclusive_scan(counts.cview(), offsets.view());
    std::vector<int> host_offsets;
    offsets.copy_to_host(host_offsets);
    const int total = host_offsets[static_cast<std::size_t>(n)];
    Buffer<int> first(space, static_cast<std::size_t>(total));
    Buffer<int> second(space, static_cast<std::size_t>(total));
    auto off = offsets.cview();
    auto fa = first.view();
    auto fb = second.view();
    exec.parallel_for(n, FS_LAMBDA(int i) {
        int k = off[i];
        nb.for_each(i, [&](int j) {
            if (id[j] > id[i] && pair_of(i, j)) {
                fa[k] = id[i];
                fb[k] = id[j];
                ++k;
            }
        });
    });
    std::vector<int> a, b;
    first.copy_to_host(a);
    second.copy_to_host(b);
    std::vector<std::pair<int, int>> pairs(a.size());
    for (std::size_t k = 0; k < a.size(); ++k) pairs[k] = {a[k], b[k]};
    std::sort(pairs.begin(), pairs.end());
    return pairs;
}

}  // namespace fs::grid
