// fluid-sandbox: the program's entry point. It opens the desktop window on a scene, or runs it
// headless (--headless), benchmarks it (--bench) or lists what there is (--list-scenes,
// --list-params). The headless contract is documented in docs/command-line.md.
#include <cstdio>
#include <string>

#include "cli/options.hpp"
#include "core/version.hpp"
#include "headless/runner.hpp"
#include "solvers/solvers.hpp"
#if FS_HAVE_APP
#include "app/app.hpp"
#else
#define FS_HAVE_APP 0
#endif

int main(int argc, char** argv) {
    int code = fs::kExitOk;
    std::string solvers;  // --help lists the catalogue
    for (const fs::SolverKind& k : fs::solver_kinds()) solvers += "  " + k.name + ": " + k.description + "\n";
    auto options = fs::parse_options(argc, argv, code, solvers);
#ifdef __EMSCRIPTEN__
    // The browser build's arguments come from the page's URL (src/web/shell.html). Ones it cannot
    // take (an unknown scene, a bad --set) were printed, and the page shows them; it opens the
    // default scene instead of a blank page.
    if (!options && code == fs::kExitBadInput) {
        char name[] = "fluid-sandbox";
        char* none[] = {name, nullptr};
        options = fs::parse_options(1, none, code);
    }
#endif
    if (!options) return code;
    const fs::Options& o = *options;
    if (o.cuda_fault.site != fs::CudaFaultSite::None) fs::set_cuda_fault(o.cuda_fault);
    if (o.version) {
        std::fputs(fs::version_text(FS_HAVE_APP).c_str(), stdout);
        return fs::kExitOk;
    }
    if (o.list_scenes) return fs::list_scenes();
    if (o.list_params) return fs::list_params(o);
    if (o.bench) return fs::run_bench(o);
    if (o.headless) {
        if (!o.screenshot_path.empty() || !o.record_path.empty() || o.video || !o.keys.empty() || o.seconds > 0) {
            std::fprintf(stderr,
                         "fluid-sandbox: --screenshot, --record, --video, --keys and --seconds need the window: drop "
                         "--headless (xvfb-run -a gives a display where there is none); headless runs write "
                         "--stats, --export, --export-mesh and --compare\n");
            return fs::kExitBadInput;
        }
        return fs::run_headless(o);
    }
#if FS_HAVE_APP
    return fs::run_app(o);
#else
    std::fprintf(stderr,
                 "fluid-sandbox: this build has no desktop window (FS_BUILD_APP=OFF); use --headless\n");
    return fs::kExitBadInput;
#endif
}
