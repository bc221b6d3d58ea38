// Fresh random test inputs from a fixed seed (never all zeros: zeros hide unwritten outputs).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace fs_test {

template <class T>
std::vector<T> random_ints(int n, T lo, T hi, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<T> dist(lo, hi);
    std::vector<T> v(static_cast<std::size_t>(n));
    for (T& x : v) x = dist(rng);
    return v;
}

inline std::vector<double> random_doubles(int n, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> dist(0.0, 1.0);
    std::vector<double> v(static_cast<std::size_t>(n));
    for (double& x : v) x = dist(rng);
    return v;
}

}  // namespace fs_test
