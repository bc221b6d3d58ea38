// Comparisons of a running simulation with a known answer: what the window's Compare view plots
// and what `--compare` writes headless. Each comparison applies to the scenes where its answer
// holds (a surge front for a column twice as high as wide, a ring alone in still fluid, ...),
// samples the solver as it runs (its stats, and fields where it must), and reports two curves
// (the simulation and the answer), the source of the answer, and one line with the figure.
// Knows solvers only through the Solver API: parameters, stats and fields by name.
#pragma once

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/solver.hpp"

namespace fs {

struct CompareCurve {
    std::string label;
    std::vector<double> x, y;
    bool dots = false;  // samples as points (the simulation) or a line (the answer)
};

struct Comparison {
    std::string name;   // "surge_front", "hydrostatic", "ring_speed", "free_fall"
    std::string title;  // what is compared, for the heading
    std::string source; // where the answer comes from, for under the plot
    std::string x_label, y_label;
    CompareCurve simulation, reference;
    std::string verdict;  // one line: the figure (empty until there is one)
    // The headline deviation (relative, signed where a sign means something); NaN until measured.
    double deviation = std::numeric_limits<double>::quiet_NaN();
    // Over the reference's whole range (every mark, layer or sample it has, not the headline's
    // summary): the mean and the largest relative deviation, unsigned, and where the largest is
    // (in the x axis's unit); NaN until measured.
    double mean = std::numeric_limits<double>::quiet_NaN();
    double worst = std::numeric_limits<double>::quiet_NaN();
    double worst_at = std::numeric_limits<double>::quiet_NaN();
};

nlohmann::json to_json(const Comparison& c);

class Comparer {
public:
    virtual ~Comparer() = default;
    // Called after steps (every step headless; once a frame in the window); reads stats and,
    // where the comparison needs them, fields.
    virtual void sample(const Solver& s) = 0;
    // The comparison from the samples so far.
    virtual Comparison result() const = 0;
    // True when only the latest sample counts (a profile, not a history): sampled when shown.
    virtual bool snapshot() const { return false; }
};

// Every comparison that applies to the solver's scene as it is now (after reset); none for a
// scene without a known answer.
std::vector<std::unique_ptr<Comparer>> comparers_for(const Solver& s);

// One paragraph naming the known answers there are and the bundled scenes that have them (the
// Compare panel's text for a scene without one).
std::string known_answers();

}  // namespace fs
