// Scene files: JSON documents naming a solver and its parameters, e.g.
//   { "solver": "euler", "title": "...", "description": "...", "params": { "tau": 0.005 } }
// Every error is a SceneError whose message is one line naming the file, the key path, what was
// found and what is allowed (the headless contract; the program exits with status 2).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/solver.hpp"

namespace fs {

// Text as one printable line: control characters and bytes that are not UTF-8 become \n, \t or
// \xHH. Messages quote what the user wrote, and a newline in a key must not break the one-line rule.
std::string one_line(std::string_view text);

struct SceneError : std::runtime_error {
    explicit SceneError(const std::string& what) : std::runtime_error(one_line(what)) {}
};

struct Scene {
    std::string path;  // as given, for messages
    std::string solver;
    std::string title;
    std::string description;
    std::string color_field;  // the field the window colours the particles by at first ("" : speed)
    nlohmann::json params = nlohmann::json::object();
};

// The largest scene file read (a scene with a long vertex list is a few hundred kilobytes).
constexpr std::uintmax_t kMaxSceneBytes = 16u << 20;

// Reads and checks a scene file against the solvers in `solver_names`. Throws SceneError.
Scene load_scene(const std::string& path, const std::vector<std::string>& solver_names);
// Parses scene text (path is used in messages only). Throws SceneError.
Scene parse_scene(const std::string& text, const std::string& path,
                  const std::vector<std::string>& solver_names);

// Applies the scene's params, then the NAME=VALUE overrides (as given to --set), then `values`
// ({name: value}, the Python module's set=, taken as a scene file's params are), to a solver's
// registry. Throws SceneError ("FILE: params.KEY: ...", "--set KEY=VALUE: ..." or "set['KEY']: ...").
void apply_scene_params(Solver& solver, const Scene& scene, const std::vector<std::string>& sets,
                        const nlohmann::json& values = nullptr);

// Rebuilds the solver's state (Solver::reset) and names where a refused value came from: a
// reset's "KEY: ..." becomes "set['KEY']: ..." or "--set KEY=VALUE: ..." when `values` or a --set
// gave KEY, else "FILE: params.KEY: ..."; a state that does not fit in memory after all
// (std::bad_alloc) is bad input too. Throws SceneError.
void reset_solver(Solver& solver, const Scene& scene, const std::vector<std::string>& sets,
                  const nlohmann::json& values = nullptr);

// The scene as it would be saved now: the solver's current parameters under the scene's title.
nlohmann::json scene_to_json(const Solver& solver, const Scene& scene);

}  // namespace fs
