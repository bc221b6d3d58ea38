// The catalogue of solvers: what a scene's "solver" key may name.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/solver.hpp"

namespace fs {

struct SolverKind {
    std::string name;         // the scene's "solver" value
    std::string description;  // one line for --help and --list-scenes
    std::function<std::unique_ptr<Solver>(Backend)> make;
};

const std::vector<SolverKind>& solver_kinds();
std::vector<std::string> solver_names();
// nullptr when no solver has that name.
const SolverKind* find_solver_kind(std::string_view name);

}  // namespace fs
