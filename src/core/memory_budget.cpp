#include "core/memory_budget.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>

#include "core/params.hpp"

#ifdef FS_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace fs {

namespace {

constexpr double kUnknown = std::numeric_limits<double>::infinity();

// A number of bytes as the variable gives it: "1000000", "64M", "1.5G" (powers of 1024).
double parse_size(const char* text) {
    char* end = nullptr;
    const double v = std::strtod(text, &end);
    if (end == text || !std::isfinite(v) || v < 0) return kUnknown;
    double unit = 1.0;
    switch (*end) {
        case '\0': break;
        case 'k': case 'K': unit = 1024.0; ++end; break;
        case 'm': case 'M': unit = 1024.0 * 1024.0; ++end; break;
        case 'g': case 'G': unit = 1024.0 * 1024.0 * 1024.0; ++end; break;
        case 't': case 'T': unit = 1024.0 * 1024.0 * 1024.0 * 1024.0; ++end; break;
        default: return kUnknown;
    }
    return *end == '\0' ? v * unit : kUnknown;
}

// The first number of a file (a cgroup's memory.max is "max" when unlimited).
double read_number(const char* path) {
    std::ifstream in(path);
    double v = 0.0;
    return in >> v ? v : kUnknown;
}

double host_available() {
    double available = kUnknown;
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    double kib = 0.0;
    while (meminfo >> key >> kib) {
        if (key == "MemAvailable:") {
            available = kib * 1024.0;
            break;
        }
        meminfo.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
    }
    if (!std::isfinite(available)) {
        const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        if (pages > 0 && page > 0) available = static_cast<double>(pages) * static_cast<double>(page);
    }
    // A container's limit (cgroup v2) may be far below what the machine has free.
    const double max = read_number("/sys/fs/cgroup/memory.max");
    const double current = read_number("/sys/fs/cgroup/memory.current");
    if (std::isfinite(max) && std::isfinite(current)) available = std::min(available, std::max(0.0, max - current));
    return available;
}

}  // namespace

std::string format_bytes(double bytes) {
    static const char* const units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    int u = 0;
    while (bytes >= 1000.0 && u < 6) {
        bytes /= 1000.0;
        ++u;
    }
    char buf[48];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
    return buf;
}

double overlap_in_domain(const double* box, const double* extent, int dims) {
    double measure = 1.0;
    for (int a = 0; a < dims; ++a)
        measure *= std::max(0.0, std::min(box[a + dims], extent[a]) - std::max(box[a], 0.0));
    return measure;
}

MemoryLimit memory_limit(MemorySpace space) {
    MemoryLimit limit{kUnknown, ""};
    if (space == MemorySpace::Host) {
        limit = {host_available(), "of host memory available"};
    } else {
#ifdef FS_HAVE_CUDA
        std::size_t free = 0, total = 0;
        if (cuda_status().usable && cudaMemGetInfo(&free, &total) == cudaSuccess)
            limit = {static_cast<double>(free), "free on the GPU (" + cuda_status().device_name + ")"};
        else
            cudaGetLastError();  // unknown: the allocation itself will report the error
#endif
    }
    if (const char* env = std::getenv("FLUID_SANDBOX_MEMORY_LIMIT")) {
        const double cap = parse_size(env);
        if (cap < limit.bytes) limit = {cap, "allowed by FLUID_SANDBOX_MEMORY_LIMIT=" + std::string(env)};
    }
    return limit;
}

void check_memory(std::string_view key, std::string_view what, double bytes, Backend backend) {
    for (MemorySpace space : {MemorySpace::Host, memory_space_of(backend)}) {
        const MemoryLimit limit = memory_limit(space);
        if (!(bytes <= limit.bytes))
            throw ParamError(std::string(key) + ": " + std::string(what) + " need " + format_bytes(bytes) +
                             ", more than the " + format_bytes(limit.bytes) + " " + limit.what);
    }
}

}  // namespace fs
