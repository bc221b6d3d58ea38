// Gravity from the two parameters every solver registers: a magnitude and a direction that
// W/A/S/D set (normalised here; a zero direction turns gravity off).
#pragma once

#include <cmath>

#include <glm/glm.hpp>

namespace fs {

template <int N>
glm::vec<N, double> gravity_vector(double magnitude, const double* direction) {
    glm::vec<N, double> dir(0.0);
    for (int k = 0; k < N; ++k) dir[k] = direction[k];
    const double len = std::sqrt(glm::dot(dir, dir));
    return len > 0.0 ? (magnitude / len) * dir : glm::vec<N, double>(0.0);
}

}  // namespace fs
