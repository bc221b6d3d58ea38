// The headless program: list scenes and parameters, run a scene writing stats and USD files,
// and benchmark. Each function returns the process exit status (options.hpp).
#pragma once

#include <memory>

#include "core/solver.hpp"
#include "cli/options.hpp"
#include "io/scene.hpp"

namespace fs {

// Loads the scene, builds its solver on the chosen backend with the scene's parameters and the
// --set overrides, and resets it. Throws SceneError (bad input) or CudaError (no usable GPU).
std::unique_ptr<Solver> open_scene(const Options& o, Scene& scene);

int list_scenes();
int list_params(const Options& o);
int run_headless(const Options& o);
int run_bench(const Options& o);

}  // namespace fs
