// Refusing a state that would not fit, before allocating it. A solver's reset estimates the bytes
// of the state it is about to build and checks them here, so that "resolution = 1024" ends in a
// one-line message naming the key, the bytes and the limit, not in std::bad_alloc, a failed
// cudaMalloc or the kernel's out-of-memory killer halfway through the set-up.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/backend.hpp"

namespace fs {

struct MemoryLimit {
    double bytes = 0.0;  // what may still be allocated; +inf when unknown
    std::string what;    // "of host memory available", "free on the GPU", ...
};

// The host: MemAvailable of /proc/meminfo, lowered to what the process's cgroup still allows.
// The device: cudaMemGetInfo's free bytes (unknown without a usable GPU). The environment
// variable FLUID_SANDBOX_MEMORY_LIMIT (bytes, or with a K, M, G or T suffix: "64M") caps both,
// so tests can exercise the refusal on any machine.
MemoryLimit memory_limit(MemorySpace space);

// Throws ParamError "KEY: WHAT need 1.2 TB, more than the 22.9 GB of host memory available"
// when `bytes` exceeds the host's limit or, on the CUDA backend, the device's. `bytes` is a
// double so that estimates of absurd scenes cannot overflow.
void check_memory(std::string_view key, std::string_view what, double bytes, Backend backend);

// "512 B", "64.0 MB", "1.2 TB" (powers of 1000).
std::string format_bytes(double bytes);

// The length, area or volume (dims = 1, 2, 3) of the part of a box {lo..., hi...} inside
// [0, extent): what a solver's estimate counts of a fluid block before seeding it.
double overlap_in_domain(const double* box, const double* extent, int dims);

}  // namespace fs
