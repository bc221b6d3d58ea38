// The command line of fluid-sandbox, the window's and the headless program's alike (the headless
// contract, docs/command-line.md): main.cpp parses it once and hands it to either.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/backend.hpp"
#include "core/cuda_fault.hpp"

namespace fs {

struct Options {
    std::string scene;  // resolved path; empty until resolved
    bool headless = false;
    bool bench = false;
    bool version = false;  // --version: print the build (version, commit, backends) and exit
    bool list_scenes = false;
    bool list_params = false;
    long long steps = 100;
    long long warmup = 5;
    Backend backend = Backend::Cpu;
    int threads = 0;  // 0: all cores
    bool pin_threads = false;  // --pin-threads: every step on exactly --threads (no ThreadGovernor)
    std::vector<std::string> sets;
    nlohmann::json set_values;  // {name: value} over the scene's params, after sets (the Python module's set=)
    std::string stats_path;
    std::string export_path;
    long long export_every = 1;
    std::string export_fields = "all";  // --export-fields: all, none or a comma-separated list
    bool surface = false;      // --surface: the liquid's surface mesh in each --export frame
    std::string export_mesh;   // --export-mesh: a folder for one PLY surface mesh per exported frame
    double surface_cell = 1.0;  // --surface-cell: the surface's level-set cell, in particle spacings
    std::string surface_method = "smooth";  // --surface-method: smooth or zhu_bridson
    std::string compare_path;  // --compare: the comparisons with known answers, as JSON
    std::string bench_json;
    std::string screenshot_path;
    long long frames = 0;  // window: close after this many frames (0: when the user closes it)
    double seconds = 0.0;  // window: close after this many seconds of wall time (0: no limit)
    int max_fps = -1;      // window: frames per second at most (-1: the display's rate; 0: no cap)
    std::string spheres = "auto";  // window: how 3D spheres are drawn: auto, exact, sprites
    std::string record_path;
    bool video = false;  // window: record an MP4 and a GIF of the run (the WCSPH assignment's flag)
    std::string keys;  // a key script for the window (tests, demos)
    std::string mouse;  // a mouse script (io/hand_script.hpp): headless one frame a step, or the window's
    bool paused = false;       // window: open paused at step 0
    bool fixed_steps = false;  // window: one step per frame instead of real time (reproducible scripts)
    int width = 1440, height = 900;
    CudaFault cuda_fault;  // --cuda-fault (debug): none unless given
};

// Exit statuses of the headless contract.
constexpr int kExitOk = 0;
constexpr int kExitSimulationFailed = 1;
constexpr int kExitBadInput = 2;

// Parses argv. On --help prints the help (with `solvers`, the catalogue's lines, under it) and
// returns kExitOk through `exit_code`; on bad input prints one line to stderr and returns
// kExitBadInput. Otherwise returns the options.
std::optional<Options> parse_options(int argc, char** argv, int& exit_code, const std::string& solvers = "");

// The folder of bundled scenes, and the scene opened when none is named.
std::string scenes_dir();
std::string default_scene();
// A scene argument as given: a path, or the name of a bundled scene ("euler_gas").
std::string resolve_scene(const std::string& arg);
// The bundled scenes' names (the files of scenes/ without ".json"), sorted.
std::vector<std::string> bundled_scene_names();
// For a bare name that is neither a file nor a bundled scene but close to one: the one-line
// error with a did-you-mean (flip_dam_brake -> flip_dam_break); nothing otherwise.
std::optional<std::string> unknown_scene(const std::string& arg);

}  // namespace fs
