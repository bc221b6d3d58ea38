// Where the program finds its bundled data (scenes, shaders) and what it says of itself
// (--version). One rule for the program, its tests and the Python module, built or installed:
//   1. the environment's FLUID_SANDBOX_<KIND> (FLUID_SANDBOX_SCENES, FLUID_SANDBOX_SHADERS) when
//      set and not empty;
//   2. in the browser build, /<kind> in the page's memory file system;
//   3. run from its build tree (this code's own file lies under the build folder): the source
//      tree's folder, so an edited scene or shader is read without reinstalling;
//   4. otherwise the installed folder (<datadir>/fluid-sandbox/<kind>, /usr/share/fluid-sandbox/
//      in the Debian package), or the source tree's where nothing is installed.
#pragma once

#include <string>
#include <string_view>

namespace fs {

// The folder of one kind of bundled data: "scenes" or "shaders".
std::string data_dir(std::string_view kind);

// Whether this code runs from its build tree (rule 3 above) rather than an installed copy.
bool running_from_build_tree();

}  // namespace fs
