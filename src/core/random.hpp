// Reproducible random numbers for initial states.
#pragma once

#include <cstdint>
#include <random>

namespace fs {

// Uniform double in [0, 1) from the top 53 bits of a 64-bit Mersenne Twister: the same numbers
// on every platform (the standard distributions are implementation-defined).
inline double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace fs
