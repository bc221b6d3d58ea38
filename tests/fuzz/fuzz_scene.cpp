// libFuzzer target over the scene loader, the parameter registry and the solvers' reset checks
// (issue 7). Whatever the bytes, the outcome is a solver or a SceneError whose message is one
// printable line naming the file or the --set option; never a crash, a sanitizer report, a hang
// or another exception. A scene that loads also saves to JSON that loads back to the same
// parameters (the window's "Save scene as").
//
// Input: the scene text, then optionally a NUL byte and --set assignments, one NAME=VALUE a line.
// The state the reset may build is capped by FLUID_SANDBOX_MEMORY_LIMIT (see LLVMFuzzerInitialize)
// so that every input runs in milliseconds.
//
//   make fuzz                          # builds it (clang) and runs it for FUZZ_SECONDS on scenes/
//   build-fuzz/fuzz_scene CORPUS scenes tests/bad_scenes tests/fuzz/seeds -max_total_time=60
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/params.hpp"
#include "io/scene.hpp"
#include "solvers/solvers.hpp"

namespace {

// A refusal must read as the contract says; anything else is a finding.
void check_message(const fs::SceneError& e) {
    const std::string what = e.what();
    const bool named = what.starts_with("fuzz.json: ") || what.starts_with("--set ");
    if (!named || fs::one_line(what) != what) {
        std::fprintf(stderr, "fuzz_scene: a message that breaks the contract: [%s]\n", what.c_str());
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    // Enough for a few hundred thousand particles: the checks run, the big states are refused.
    setenv("FLUID_SANDBOX_MEMORY_LIMIT", "32M", 1);
    fs::set_cpu_threads(1);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    const std::size_t nul = input.find('\0');
    const std::string text = input.substr(0, nul);
    std::vector<std::string> sets;
    for (std::size_t at = nul; at != std::string::npos && at < input.size();) {
        const std::size_t end = input.find('\n', at + 1);
        sets.push_back(input.substr(at + 1, end == std::string::npos ? std::string::npos : end - at - 1));
        at = end;
    }

    fs::Scene scene;
    std::unique_ptr<fs::Solver> solver;
    try {
        scene = fs::parse_scene(text, "fuzz.json", fs::solver_names());
        solver = fs::find_solver_kind(scene.solver)->make(fs::Backend::Cpu);
        fs::apply_scene_params(*solver, scene, sets);
        fs::reset_solver(*solver, scene, sets);
    } catch (const fs::SceneError& e) {
        check_message(e);
        return 0;
    }

    // Saved and loaded back: the same parameters (throws, and so fails, if it does not load).
    const std::string saved = fs::scene_to_json(*solver, scene).dump(2);
    const fs::Scene again = fs::parse_scene(saved, "saved.json", fs::solver_names());
    auto twin = fs::find_solver_kind(again.solver)->make(fs::Backend::Cpu);
    fs::apply_scene_params(*twin, again, {});
    if (twin->params().to_json() != solver->params().to_json()) {
        std::fprintf(stderr, "fuzz_scene: the saved scene loads back different:\n%s\n", saved.c_str());
        std::abort();
    }
    return 0;
}
