// The motion fields every 2D particle solver offers, read from its host arrays: "position" and
// "velocity" (x, y per particle, flattened) and "speed" (|v|). One reading for euler, sph and ot.
#pragma once

#include <cmath>
#include <string_view>
#include <vector>

#include <glm/glm.hpp>

namespace fs {

// Fills `out` and returns true when `name` is one of the motion fields; false otherwise.
inline bool read_motion_field(std::string_view name, const std::vector<glm::dvec2>& pos,
                              const std::vector<glm::dvec2>& vel, std::vector<double>& out) {
    if (name == "position" || name == "velocity") {
        const std::vector<glm::dvec2>& v = name == "position" ? pos : vel;
        out.clear();
        out.reserve(2 * v.size());
        for (const glm::dvec2& p : v) {
            out.push_back(p.x);
            out.push_back(p.y);
        }
        return true;
    }
    if (name == "speed") {
        out.clear();
        out.reserve(vel.size());
        for (const glm::dvec2& v : vel) out.push_back(std::sqrt(v.x * v.x + v.y * v.y));
        return true;
    }
    return false;
}

}  // namespace fs
