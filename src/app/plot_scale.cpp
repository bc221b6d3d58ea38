#include "app/plot_scale.hpp"

#include <algorithm>
#include <cmath>

namespace fs {

namespace {

struct Entry {
    const char* name;
    const char* unit;
    double floor;
    bool count;
};

// Floors: a little above what round-off leaves on the quantity at rest, in its unit.
constexpr Entry kScales[] = {
    // every solver
    {"kinetic_energy", "J", 1e-9, false},
    {"max_speed", "m/s", 1e-6, false},
    {"step_ms", "ms", 0.01, false},
    {"dt", "s", 1e-9, false},
    {"n_particles", "", 1, true},
    {"poured", "", 1, true},  // hands: particles a pour added (sph, flip)
    // euler
    {"collisions", "", 1, true},
    {"contacts", "", 1, true},
    {"pair_tests", "", 1, true},
    {"max_overlap", "of the diameter", 1e-3, false},
    // sph
    {"density_mean", "kg/m^3", 0.1, false},
    {"density_max_error", "", 1e-4, false},
    {"pressure_max", "Pa", 1.0, false},
    {"neighbors_mean", "", 0.1, false},
    {"front_x", "m", 1e-3, false},
    {"n_fluid", "", 1, true},
    {"barrier_angle", "deg", 0.05, false},
    {"density_error_mean", "", 1e-5, false},
    {"density_iterations", "", 1, true},  // dfsph, iisph
    {"density_residual", "", 1e-6, false},
    {"divergence_iterations", "", 1, true},
    {"divergence_residual", "", 1e-6, false},
    // flip
    {"fluid_volume", "m^3", 1e-9, false},
    {"bulk_density", "particles/cell", 0.01, false},
    {"div_max_before", "1/s", 1e-6, false},
    {"div_max_after", "1/s", 1e-9, false},
    {"pressure_iterations", "", 1, true},
    {"pressure_residual", "", 1e-12, false},
    {"fluid_cells", "", 1, true},
    {"correction_iterations", "", 1, true},
    // vortex
    {"n_vortons", "", 1, true},
    {"n_tracers", "", 1, true},
    {"enstrophy", "m^3/s^2", 1e-9, false},
    {"grid_nodes", "", 1, true},
    {"vorton_contacts", "", 1, true},
    {"heat", "J", 1e-9, false},  // body<N>_heat
    {"lift", "N", 1e-9, false},  // body<N>_lift, body<N>_drag and their coefficients
    {"drag", "N", 1e-9, false},
    {"lift_coefficient", "", 1e-6, false},
    {"drag_coefficient", "", 1e-6, false},
    // ot
    {"total_energy", "J/m", 1e-9, false},
    {"transport_energy", "J/m", 1e-9, false},
    {"area_error", "", 1e-9, false},
    {"total_area", "m^2", 1e-9, false},
    {"newton_iterations", "", 1, true},
    {"cg_iterations", "", 1, true},
    {"step_halvings", "", 1, true},
    {"newton_restarts", "", 1, true},
};

}  // namespace

PlotScale plot_scale(std::string_view stat) {
    // A body's quantities are named body<N>_<quantity>.
    if (stat.substr(0, 4) == "body") {
        const auto cut = stat.find('_');
        if (cut != std::string_view::npos) stat = stat.substr(cut + 1);
    }
    for (const Entry& e : kScales)
        if (stat == e.name) return {e.unit, e.floor, e.count};
    return {};
}

std::vector<std::string> known_plot_stats() {
    std::vector<std::string> out;
    for (const Entry& e : kScales) out.emplace_back(e.name);
    return out;
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
