// Reproducible random numbers for initial states.
#pragma once

#include <cstdint>
#include <random>

#include <glm/glm.hpp>

namespace fs {

// Uniform double in [0, 1) from the top 53 bits of a 64-bit Mersenne Twister: the same numbers
// on every platform (the standard distributions are implementation-defined).
inline double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// A point of uniform numbers in [0, 1)^2 or ^3, drawn in a fixed order: the last component first.
// An expression such as dvec3(uniform01(rng), uniform01(rng), uniform01(rng)) leaves the order to
// the compiler (GCC draws right to left, clang left to right), so the same seed gave the desktop
// and the browser (clang) builds different particles. The order is the one GCC used, so that the
// desktop's runs and the figures published from them stay as they were.
inline glm::dvec2 uniform01_2(std::mt19937_64& rng) {
    const double y = uniform01(rng);
    const double x = uniform01(rng);
    return {x, y};
}
inline glm::dvec3 uniform01_3(std::mt19937_64& rng) {
    const double z = uniform01(rng);
    const double y = uniform01(rng);
    const double x = uniform01(rng);
    return {x, y, z};
}

}  // namespace fs
