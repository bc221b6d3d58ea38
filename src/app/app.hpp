// The desktop sandbox: an SDL2 window with OpenGL 3.3 and Dear ImGui, drawing the simulation
// that a SimulationHost runs on its own thread.
#pragma once

#include "cli/options.hpp"

namespace fs {

// Opens the window on o.scene and runs until it is closed (or --frames N have been drawn with
// --screenshot/--record). Returns the process exit status.
int run_app(const Options& o);

}  // namespace fs
