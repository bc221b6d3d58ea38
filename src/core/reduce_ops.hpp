// The binary operations of the executors' reductions that every solver needs (sum, largest,
// smallest of plain numbers), host and device. Solvers' own reductions of several quantities
// at once (their Sums) keep their own operations beside their structs.
#pragma once

#include "core/hd.hpp"

namespace fs {

struct Plus {
    template <class T>
    FS_HDI T operator()(T a, T b) const { return a + b; }
};
struct Largest {
    template <class T>
    FS_HDI T operator()(T a, T b) const { return a > b ? a : b; }
};
struct Smallest {
    template <class T>
    FS_HDI T operator()(T a, T b) const { return a < b ? a : b; }
};

}  // namespace fs
