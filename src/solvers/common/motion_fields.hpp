// The motion fields every particle solver offers, read from its host arrays: "position" and
// "velocity" (x, y[, z] per particle, flattened) and "speed" (|v|). One reading for euler, sph,
// ot (dvec2) and flip (dvec3).
#pragma once

#include <cmath>
#include <string_view>
#include <vector>

#include <glm/glm.hpp>

#include "solvers/common/motion_sums.hpp"

namespace fs {

// Fills `out` and returns true when `name` is one of the motion fields; false otherwise.
template <class V>
bool read_motion_field(std::string_view name, const std::vector<V>& pos, const std::vector<V>& vel,
                       std::vector<double>& out) {
    if (name == "position" || name == "velocity") {
        const std::vector<V>& v = name == "position" ? pos : vel;
        out.clear();
        out.reserve(V::length() * v.size());
        for (const V& p : v)
            for (int k = 0; k < V::length(); ++k) out.push_back(p[k]);
        return true;
    }
    if (name == "speed") {
        out.clear();
        out.reserve(vel.size());
        for (const V& v : vel) out.push_back(std::sqrt(speed2(v)));
        return true;
    }
    return false;
}

}  // namespace fs
