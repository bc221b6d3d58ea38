#include "cli/options.hpp"

#include "io/hand_script.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <unistd.h>

#include <CLI/CLI.hpp>

#include "core/cuda_fault.hpp"
#include "core/data_dirs.hpp"
#include "io/scene.hpp"

namespace fs {

std::string scenes_dir() { return data_dir("scenes"); }

std::string default_scene() { return scenes_dir() + "/default.json"; }

std::string resolve_scene(const std::string& arg) {
    namespace stdfs = std::filesystem;
    if (arg.empty()) return default_scene();
    if (stdfs::exists(arg)) return arg;
    // A bare name ("euler_gas" or "euler_gas.json") of a bundled scene.
    if (arg.find('/') == std::string::npos) {
        const std::string name = arg.ends_with(".json") ? arg : arg + ".json";
        const std::string bundled = scenes_dir() + "/" + name;
        if (stdfs::exists(bundled)) return bundled;
    }
    return arg;  // the loader reports it missing
}

std::vector<std::string> bundled_scene_names() {
    namespace stdfs = std::filesystem;
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : stdfs::directory_iterator(scenes_dir(), ec))
        if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::optional<std::string> unknown_scene(const std::string& arg) {
    namespace stdfs = std::filesystem;
    std::error_code ec;
    if (arg.empty() || arg.find('/') != std::string::npos || stdfs::exists(arg, ec)) return std::nullopt;
    const std::string name = arg.ends_with(".json") ? arg.substr(0, arg.size() - 5) : arg;
    const std::string guess = did_you_mean(name, bundled_scene_names());
    if (guess.empty()) return std::nullopt;  // nothing close: the loader's "cannot open" says it
    return arg + ": no such scene file, nor a bundled scene of that name; did you mean '" + guess +
           "'? (--list-scenes lists the bundled scenes)";
}

// Why a file cannot be written at `path`, or nothing when it can: found before the run starts,
// so a long run never ends in a write error the user could have been told of at once.
std::optional<std::string> unwritable(const std::string& path) {
    namespace stdfs = std::filesystem;
    std::error_code ec;
    const stdfs::path p(path);
    if (stdfs::is_directory(p, ec)) return "is a folder (expected a file name)";
    const stdfs::path folder = p.has_parent_path() ? p.parent_path() : stdfs::path(".");
    if (!stdfs::exists(folder, ec)) return "the folder " + folder.string() + " does not exist";
    if (!stdfs::is_directory(folder, ec)) return folder.string() + " is not a folder";
    if (::access(folder.c_str(), W_OK) != 0) return "the folder " + folder.string() + " is not writable";
    if (stdfs::exists(p, ec) && ::access(p.c_str(), W_OK) != 0) return "the file exists and is not writable";
    return std::nullopt;
}

// Why the folder `path` cannot be made (with its missing parents) and written into, or nothing.
std::optional<std::string> uncreatable_folder(const std::string& path) {
    namespace stdfs = std::filesystem;
    std::error_code ec;
    stdfs::path p = stdfs::absolute(path, ec);
    if (ec) return "cannot be resolved";
    if (stdfs::exists(p, ec)) {
        if (!stdfs::is_directory(p, ec)) return "exists and is not a folder";
        if (::access(p.c_str(), W_OK) != 0) return "the folder is not writable";
        return std::nullopt;
    }
    // The nearest existing ancestor is where the missing folders would be made.
    stdfs::path at = p.parent_path();
    while (!stdfs::exists(at, ec) && at.has_relative_path()) at = at.parent_path();
    if (!stdfs::is_directory(at, ec)) return "cannot create the folder: " + at.string() + " is not a folder";
    if (::access(at.c_str(), W_OK) != 0) return "cannot create the folder: " + at.string() + " is not writable";
    return std::nullopt;
}

std::optional<Options> parse_options(int argc, char** argv, int& exit_code, const std::string& solvers) {
    Options o;
    std::string scene_arg, backend = "cpu";
    CLI::App app{
        "fluid-sandbox: an interactive fluid sandbox (--list-scenes names each bundled scene with its solver).\n"
        "Without --headless it opens the scene in the desktop window (press F1 there for the keys).",
        "fluid-sandbox"};
    app.add_option("scene,--scene", scene_arg,
                   "Scene file (JSON), or the name of a bundled scene (see --list-scenes); "
                   "default: scenes/default.json. --scene FILE is the PIC-FLIP assignment's form");
    app.add_flag("--headless", o.headless, "Run without a window: step, write files, print a summary");
    app.add_option("--steps,--num_steps", o.steps,
                   "Steps to run (headless and --bench); --num_steps is the PIC-FLIP assignment's name")
        ->check(CLI::Range(0LL, 1000000000LL))
        ->capture_default_str();
    app.add_option("--backend,--device", backend,
                   "Where the solver runs: cpu (OpenMP) or cuda; --device is the PIC-FLIP assignment's "
                   "name, and takes Warp's cuda:0 too")
        ->check(CLI::IsMember({"cpu", "cuda", "cuda:0"}))
        ->capture_default_str();
    app.add_flag("--pin-threads", o.pin_threads,
                 "CPU backend: every step on exactly --threads threads (by default a step uses fewer when "
                 "fewer were measured faster, as on a busy machine; the results are the same)");
    app.add_option("--threads", o.threads, "OpenMP threads of the CPU backend (default: all cores)")
        ->check(CLI::Range(1, 4096));
    app.add_option("--set", o.sets,
                   "NAME=VALUE: override a parameter after the scene (repeatable; see --list-params)")
        ->allow_extra_args(false);
    app.add_option("--stats", o.stats_path, "Write one JSON object per step to FILE.jsonl");
    app.add_option("--export", o.export_path,
                   "Write particles to FILE.usda (USD ASCII, time-sampled points/velocities/widths)");
    std::string usd_output;
    app.add_option("--usd_output", usd_output,
                   "The PIC-FLIP assignment's form of a headless run writing USD: --headless --export FILE")
        ->excludes("--export");
    app.add_option("--export-fields", o.export_fields,
                   "Fields --export writes as per-point primvars: all (default), none, or a comma-separated "
                   "list of the solver's fields (see the scene's --list-params for the solver)");
    app.add_flag("--surface", o.surface,
                 "Headless, with --export: add the liquid's surface, a closed triangle mesh, to each exported "
                 "frame as the Mesh /World/surface (3D liquids)");
    app.add_option("--export-mesh", o.export_mesh,
                   "Headless: write the liquid's surface as one binary PLY file per exported frame, "
                   "DIR/surface_0001.ply, surface_0002.ply, ... numbered by exported frame from 1 as Blender "
                   "numbers a sequence's frames (the step and time are in each file's comment), making DIR; "
                   "with or without --export, every --export-every steps (3D liquids)");
    app.add_option("--surface-method", o.surface_method,
                   "With --surface or --export-mesh: smooth (default: the level set's mesh smoothed where the "
                   "liquid is thick, so still water is flat and splashes keep their shape) or zhu_bridson (the "
                   "level set's mesh as it is, a bump over every particle)")
        ->check(CLI::IsMember({"smooth", "zhu_bridson"}));
    app.add_option("--surface-cell", o.surface_cell,
                   "With --surface or --export-mesh: the level set's cell in particle spacings (default 1; 2 "
                   "surfaces a FLIP liquid on its own grid, about 7 times faster and a little smoother-edged)")
        ->check(CLI::Range(0.25, 8.0));
    app.add_option("--compare", o.compare_path,
                   "Headless: compare the run with the scene's known answers (surge front, hydrostatic "
                   "pressure, ring speed, free fall, Rayleigh-Taylor growth) and write them to FILE.json; the "
                   "summary gives each figure with its mean and worst over the whole range");
    app.add_option("--export-every", o.export_every, "Export a frame every K steps (default 1)")
        ->check(CLI::Range(1LL, 1000000000LL));
    app.add_option("--screenshot", o.screenshot_path,
                   "Desktop window: save FILE.png after --frames frames, then exit");
    app.add_option("--frames", o.frames,
                   "Desktop window: close after N frames (with --screenshot: take it then; default 1)")
        ->check(CLI::Range(1LL, 1000000000LL));
    app.add_option("--seconds", o.seconds,
                   "Desktop window: close after S seconds of wall time (a key script then runs until "
                   "then; with --screenshot: take it then)")
        ->check(CLI::Range(0.001, 1e9));
    app.add_option("--max-fps", o.max_fps,
                   "Desktop window: draw at most N frames per second (default: the display's refresh rate, 60 "
                   "where unknown; 0: no cap). Where vsync holds frames back anyway this changes nothing; "
                   "without it (no display, a driver forcing vsync off) it keeps the window from taking "
                   "the GPU from a CUDA simulation")
        ->check(CLI::Range(0, 1000));
    app.add_option("--spheres", o.spheres,
                   "Desktop window: how 3D particles' spheres are drawn: exact (each pixel's depth), sprites "
                   "(sorted nearest first, the front point's depth: fast on a software rasteriser), auto "
                   "(default: sprites on a software rasteriser, else exact); also in the View menu")
        ->check(CLI::IsMember({"auto", "exact", "sprites"}));
    auto* record = app.add_option("--record", o.record_path,
                                  "Desktop window: record FILE.mp4 or FILE.gif from the start (until --frames, "
                                  "V, Esc or closing the window)");
    app.add_flag("--video", o.video,
                 "Desktop window: record video-DATE-TIME.mp4 and .gif in the working directory from the "
                 "start (until --frames, V, Esc or closing the window) and print their names")
        ->excludes(record);
    app.add_option("--keys", o.keys,
                   "Desktop window: a key script, e.g. \"D +30 Q*10 F12\" (a key per frame; +N waits N "
                   "frames; KEY*N holds it N frames, each counted as 1/30 s); the window closes when "
                   "the script ends unless --frames says later");
    app.add_option("--mouse", o.mouse,
                   "A mouse script: the hands' tools without a person, in world coordinates, e.g. \"drag 0.3,0.3 "
                   "to 0.6,0.3 over 60; wait 30; push 0.5,0.4 for 40; pull X,Y for N; pour X,Y for N\" (3D points "
                   "take x,y,z; the cursor looks along -z). Headless one frame is one step; in the window, a frame, "
                   "and the window closes when the script ends unless --frames says later");
    app.add_flag("--step-per-frame", o.fixed_steps,
                 "Desktop window: one step per frame instead of real time, each frame waiting for its step "
                 "(a key script then gives the same run every time)");
    app.add_flag("--paused", o.paused,
                 "Window: open paused at step 0 (P runs, Space steps); the browser's ?args=--paused");
    std::string size;
    app.add_option("--size", size, "Desktop window size WIDTHxHEIGHT (default 1440x900)");
    app.add_flag("--bench", o.bench,
                 "Benchmark: run --warmup then --steps steps, print median ms per step and per "
                 "stage, write JSON (--bench-json)");
    app.add_option("--warmup", o.warmup, "Steps run before timing in --bench (default 5)")
        ->check(CLI::Range(0LL, 1000000LL));
    app.add_option("--bench-json", o.bench_json,
                   "Where --bench writes its JSON report (default: bench-SCENE-BACKEND.json)");
    std::string cuda_fault;
    app.add_option("--cuda-fault", cuda_fault,
                   "Debug: make the CUDA backend fail on purpose to try the recovery paths: init "
                   "(the GPU does not initialise), alloc[:N] (the N-th device allocation runs out of "
                   "memory), launch[:N] (the N-th kernel launch fails and breaks the context)");
    app.add_flag("--version", o.version, "Print the version, the commit it was built from and the backends built in");
    app.add_flag("--list-scenes", o.list_scenes, "List the bundled scenes, one line each");
    app.add_flag("--list-params", o.list_params,
                 "List the parameters of the scene's solver: name, value, allowed values, unit");
    app.footer(
        (solvers.empty() ? "" : "Solvers (a scene's \"solver\"):\n" + solvers + "\n") +
        "Exit status: 0 success, 1 the simulation failed (the message names the step and the\n"
        "quantity), 2 bad input (the message names the file or option, the key, what is allowed).\n"
        "Scenes folder: " + scenes_dir() + " (override with FLUID_SANDBOX_SCENES).");

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        exit_code = app.exit(e);
        return std::nullopt;
    } catch (const CLI::ParseError& e) {
        std::cerr << "fluid-sandbox: " << one_line(e.what()) << " (see --help)\n";
        exit_code = kExitBadInput;
        return std::nullopt;
    }
    o.backend = *backend_from_string(backend == "cuda:0" ? "cuda" : backend);
    if (!usd_output.empty()) {
        // The assignment's runs with --usd_output are headless.
        o.export_path = usd_output;
        o.headless = true;
    }
    for (const auto& [option, path] : {std::pair<const char*, const std::string&>{"--stats", o.stats_path},
                                       {usd_output.empty() ? "--export" : "--usd_output", o.export_path},
                                       {"--bench-json", o.bench_json},
                                       {"--compare", o.compare_path},
                                       {"--screenshot", o.screenshot_path},
                                       {"--record", o.record_path}}) {
        if (path.empty()) continue;
        if (const auto why = unwritable(path)) {
            std::cerr << "fluid-sandbox: " << option << ' ' << one_line(path) << ": " << *why << '\n';
            exit_code = kExitBadInput;
            return std::nullopt;
        }
    }
    if (o.surface && o.export_path.empty()) {
        std::cerr << "fluid-sandbox: --surface adds the surface mesh to the USD export, and there is none; "
                     "allowed: --surface with --export FILE.usda, or --export-mesh DIR for PLY files\n";
        exit_code = kExitBadInput;
        return std::nullopt;
    }
    if (!o.export_mesh.empty()) {
        if (const auto why = uncreatable_folder(o.export_mesh)) {
            std::cerr << "fluid-sandbox: --export-mesh " << one_line(o.export_mesh) << ": " << *why
                      << " (expected a folder that exists or can be made)\n";
            exit_code = kExitBadInput;
            return std::nullopt;
        }
    }
    if ((o.surface || !o.export_mesh.empty()) && !o.headless && !o.bench && !o.list_scenes && !o.list_params) {
        std::cerr << "fluid-sandbox: " << (o.surface ? "--surface" : "--export-mesh")
                  << " belongs to headless runs (the window exports particles only); allowed: with --headless\n";
        exit_code = kExitBadInput;
        return std::nullopt;
    }
    if (!o.mouse.empty()) {
        try {
            parse_hand_script(o.mouse);
        } catch (const std::invalid_argument& e) {
            std::cerr << "fluid-sandbox: " << one_line(e.what()) << '\n';
            exit_code = kExitBadInput;
            return std::nullopt;
        }
    }
    if (!size.empty()) {
        int w = 0, h = 0;
        char x = 0;
        if (std::sscanf(size.c_str(), "%d%c%d", &w, &x, &h) != 3 || x != 'x' || w < 64 || h < 64 ||
            w > 16384 || h > 16384) {
            std::cerr << "fluid-sandbox: --size " << size << ": expected WIDTHxHEIGHT, each 64 to 16384\n";
            exit_code = kExitBadInput;
            return std::nullopt;
        }
        o.width = w;
        o.height = h;
    }
    if (!cuda_fault.empty()) {
        const auto fault = parse_cuda_fault(cuda_fault);
        if (!fault) {
            std::cerr << "fluid-sandbox: --cuda-fault " << one_line(cuda_fault) << ": allowed: " << kCudaFaultAllowed
                      << '\n';
            exit_code = kExitBadInput;
            return std::nullopt;
        }
        o.cuda_fault = *fault;
    }
    o.scene = resolve_scene(scene_arg);
    if (o.scene == scene_arg)
        if (const auto why = unknown_scene(scene_arg)) {
            std::cerr << "fluid-sandbox: " << one_line(*why) << '\n';
            exit_code = kExitBadInput;
            return std::nullopt;
        }
    if (o.export_every < 1) o.export_every = 1;
    if (!o.screenshot_path.empty() && o.frames == 0 && o.seconds == 0) o.frames = 1;
    exit_code = kExitOk;
    return o;
}

}  // namespace fs
