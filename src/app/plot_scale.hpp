// How the Stats panel plots a quantity: its unit, and the smallest range a plot of it shows, so
// that round-off noise on a constant (a kinetic energy of 1e-16 J at rest, fluid_volume changing in
// its fourth digit) reads as the flat line it is instead of filling the plot. No GL: tested.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/solver.hpp"

namespace fs {

struct PlotScale {
    std::string unit;      // "" for a pure number
    double floor = 0.0;    // the smallest range shown, in the unit
    bool count = false;    // an integer counter
};

// The scale of a stat (by name: the bodies' body<N>_<quantity> by quantity): the ones every
// solver reports, then the solver's own (`own`: its traits' stat_scales); an unknown name gets no
// unit and no floor but the relative one.
PlotScale plot_scale(std::string_view stat, const std::vector<StatScale>& own = {});

// The vertical range to plot `values` in: their extent, widened about its middle to at least the
// quantity's floor and 2% of the values' mean magnitude.
std::pair<double, double> plot_range(const std::vector<float>& values, const PlotScale& scale);

// The narrowest automatic colour range for a field in `unit` (m/s, 1/s, Pa, kg/m^3, K, m): water
// at rest, its speeds all round-off, is drawn in the low colour instead of spread over the whole
// map. 0 for other units (no floor).
double colour_range_floor(std::string_view unit);

// Median of the last `window` values (running median for the per-stage bars); 0 when empty.
double running_median(const std::vector<double>& values, std::size_t window);

}  // namespace fs
