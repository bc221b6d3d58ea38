// Helpers shared by the FLIP tests.
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

#include "solvers/flip/flip_engine.hpp"

namespace fs::test {

// The state with its particles in id order. Each backend keeps its particles in the order its
// own P2G sorted them (the CPU's scatter by rows of half cells, the GPU's gather by half cells),
// so states from the two are compared particle by particle only in this order.
inline flip::HostState in_id_order(const flip::HostState& h) {
    std::vector<std::size_t> order(h.id.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return h.id[x] < h.id[y]; });
    flip::HostState out = h;
    for (std::size_t s = 0; s < order.size(); ++s) {
        out.pos[s] = h.pos[order[s]];
        out.vel[s] = h.vel[order[s]];
        out.id[s] = h.id[order[s]];
        for (int c = 0; c < 3; ++c)
            if (h.affine[c].size() == order.size()) out.affine[c][s] = h.affine[c][order[s]];
    }
    return out;
}

}  // namespace fs::test
