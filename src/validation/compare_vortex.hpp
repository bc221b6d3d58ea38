// The vortex solver's comparisons of bodies under boundary elements (compare_vortex.cpp): a ring
// at a wall against the ring-and-image model, a sphere's added mass against rho V / 2.
#pragma once

#include <memory>
#include <vector>

#include "validation/compare.hpp"

namespace fs {

// Whether the scene has a body (a ring's free speed is then no comparison).
bool vortex_has_bodies(const Solver& s);

// Appends those that apply to the solver's scene as it is now (after reset).
void add_vortex_body_comparers(const Solver& s, std::vector<std::unique_ptr<Comparer>>& out);

}  // namespace fs
