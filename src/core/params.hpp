// The parameter registry: every tunable number of a solver is registered once, with its name,
// label, group, unit, range and description. The GUI builds its panels from it, `--set NAME=VALUE`
// and the scene file's "params" object go through it, and its setters validate. Entries bind to
// the solver's own parameter struct, so kernels read plain members, never the registry.
#pragma once

#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace fs {

// A parameter value was refused. what() is the reason alone ("expected ..., got ..."); callers
// prefix where it came from (file and key path, or the --set option).
struct ParamError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class ParamType { Real, Int, Bool, Choice, Vec };

using ParamValue = std::variant<double, long long, bool, std::string, std::vector<double>>;

struct ParamSpec {
    std::string name;         // snake_case; the scene key and the --set name
    std::string label;        // what the GUI shows
    std::string group;        // GUI section
    std::string unit;         // SI unit, empty when dimensionless
    std::string description;  // tooltip; cites the source of the equation it enters
    double min = -std::numeric_limits<double>::infinity();
    double max = std::numeric_limits<double>::infinity();
    bool read_only = false;    // a diagnostic the solver writes (iterations used, residual, ...)
    bool needs_reset = false;  // takes effect when the state is rebuilt (Reset)
};

class Param {
public:
    const ParamSpec& spec() const { return spec_; }
    ParamType type() const { return type_; }
    const std::string& name() const { return spec_.name; }
    const std::vector<std::string>& choices() const { return choices_; }
    // A Vec's length; 0 for a list (variable length, in groups of stride()).
    int components() const { return components_; }
    int stride() const { return stride_; }

    ParamValue get() const { return get_(); }
    // Validates, then stores. Throws ParamError naming what is allowed.
    void set(const ParamValue& v);
    void set_json(const nlohmann::json& j);
    void set_text(std::string_view text);  // "0.5", "true", "grid", "0,-1"

    nlohmann::json to_json() const;
    std::string to_text() const;
    std::string allowed() const;  // "a number in [0, 1] (m/s)", "one of: grid, brute_force", ...

private:
    friend class ParamRegistry;
    ParamSpec spec_;
    ParamType type_ = ParamType::Real;
    std::vector<std::string> choices_;
    int components_ = 1;
    int stride_ = 0;      // lists only
    int max_groups_ = 0;  // lists only
    std::function<ParamValue()> get_;
    std::function<void(const ParamValue&)> set_;
    bool* reset_flag_ = nullptr;
};

class ParamRegistry {
public:
    ParamRegistry() = default;
    ParamRegistry(const ParamRegistry&) = delete;
    ParamRegistry& operator=(const ParamRegistry&) = delete;

    Param& add_real(ParamSpec spec, double* value);
    Param& add_int(ParamSpec spec, long long* value);
    Param& add_bool(ParamSpec spec, bool* value);
    // The value is an index into `choices`.
    Param& add_choice(ParamSpec spec, std::vector<std::string> choices, int* index);
    // A fixed-length vector, each component within [min, max].
    Param& add_vec(ParamSpec spec, double* values, int components);
    // A variable-length list of numbers in groups of `stride` (at most `max_groups` groups, none
    // allowed), each number within [min, max]: e.g. a polytope's planes as nx, ny, nz, d.
    Param& add_list(ParamSpec spec, std::vector<double>* values, int stride, int max_groups);

    const std::vector<std::unique_ptr<Param>>& all() const { return params_; }
    Param* find(std::string_view name) const;
    // Like find, but throws ParamError "unknown parameter 'x'; did you mean 'y'?".
    Param& at(std::string_view name) const;
    std::vector<std::string> names() const;

    // Applies a JSON object of name -> value. Errors name the key: "taux: unknown parameter ...".
    void set_json_object(const nlohmann::json& obj);
    // Every settable parameter's current value, for saving a scene that loads back the same.
    nlohmann::json to_json() const;

    // Parameters changed since the last clear_reset_pending() that take effect on Reset.
    bool reset_pending() const { return reset_pending_; }
    void clear_reset_pending() { reset_pending_ = false; }

private:
    Param& add(ParamSpec spec, ParamType type);
    std::vector<std::unique_ptr<Param>> params_;
    bool reset_pending_ = false;
};

// The closest of `candidates` to `word` by edit distance, or "" when none is close.
// A number as messages write it (%.10g).
std::string number_text(double v);
// An estimate's size for a message, two digits: 1.0e10, 2.5e-3.
std::string scientific_text(double v);
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);
std::string join(const std::vector<std::string>& words, std::string_view sep = ", ");

}  // namespace fs
