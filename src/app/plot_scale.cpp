#include "app/plot_scale.hpp"

#include <algorithm>
#include <cmath>

namespace fs {

namespace {

// The stats every solver reports (core/solver.cpp) and the hands' (core/hands.hpp); each solver
// declares its own in its traits (SolverTraits::stat_scales).
constexpr StatScale kCommon[] = {
    {"kinetic_energy", "J", 1e-9},
    {"max_speed", "m/s", 1e-6},
    {"step_ms", "ms", 0.01},
    {"dt", "s", 1e-9},
    {"n_particles", "", 1, true},
    {"poured", "", 1, true},  // particles a pour added
};

}  // namespace

PlotScale plot_scale(std::string_view stat, const std::vector<StatScale>& own) {
    // A body's quantities are named body<N>_<quantity>.
    if (stat.substr(0, 4) == "body") {
        const auto cut = stat.find('_');
        if (cut != std::string_view::npos) stat = stat.substr(cut + 1);
    }
    for (const StatScale& e : kCommon)
        if (stat == e.name) return {e.unit, e.floor, e.count};
    for (const StatScale& e : own)
        if (stat == e.name) return {e.unit, e.floor, e.count};
    return {};
}

std::pair<double, double> plot_range(const std::vector<float>& values, const PlotScale& scale) {
    if (values.empty()) return {0.0, 1.0};
    double lo = values[0], hi = values[0], mean = 0.0;
    for (float v : values) {
        lo = std::min(lo, static_cast<double>(v));
        hi = std::max(hi, static_cast<double>(v));
        mean += std::fabs(v) / static_cast<double>(values.size());
    }
    const double floor = std::max({scale.floor, 0.02 * mean, 1e-30});
    if (hi - lo < floor) {
        const double mid = 0.5 * (lo + hi);
        lo = mid - 0.5 * floor;
        hi = mid + 0.5 * floor;
        // A non-negative quantity near zero: start the plot at zero rather than below it.
        if (values.front() >= 0 && lo < 0 && *std::min_element(values.begin(), values.end()) >= 0) {
            hi -= lo;
            lo = 0.0;
        }
    }
    return {lo, hi};
}

double colour_range_floor(std::string_view unit) {
    struct Floor {
        const char* unit;
        double floor;
    };
    static constexpr Floor kFloors[] = {{"m/s", 0.01}, {"1/s", 0.01}, {"Pa", 1.0},
                                        {"kg/m^3", 0.1}, {"K", 0.01},  {"m", 1e-3}};
    for (const Floor& f : kFloors)
        if (unit == f.unit) return f.floor;
    return 0.0;
}

double running_median(const std::vector<double>& values, std::size_t window) {
    if (values.empty()) return 0.0;
    const std::size_t n = std::min(window, values.size());
    std::vector<double> last(values.end() - static_cast<std::ptrdiff_t>(n), values.end());
    std::nth_element(last.begin(), last.begin() + static_cast<std::ptrdiff_t>(n / 2), last.end());
    return last[n / 2];
}

}  // namespace fs
