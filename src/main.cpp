// fluid-sandbox: the program's entry point. It opens the desktop window on a scene, or runs it
// headless (--headless), benchmarks it (--bench) or lists what there is (--list-scenes,
// --list-params). The headless contract is documented in the README.
#include <cstdio>

#include "headless/options.hpp"
#include "headless/runner.hpp"

int main(int argc, char** argv) {
    int code = fs::kExitOk;
    const auto options = fs::parse_options(argc, argv, code);
    if (!options) return code;
    const fs::Options& o = *options;
    if (o.list_scenes) return fs::list_scenes();
    if (o.list_params) return fs::list_params(o);
    if (o.bench) return fs::run_bench(o);
    if (!o.screenshot_path.empty() || !o.record_path.empty()) {
        std::fprintf(stderr,
                     "fluid-sandbox: --screenshot and --record need the desktop window, which this "
                     "build does not have yet; allowed: --headless with --stats/--export\n");
        return fs::kExitBadInput;
    }
    if (!o.headless)
        std::printf("fluid-sandbox: the desktop window is not built yet; running the scene "
                    "headless.\n");
    return fs::run_headless(o);
}
