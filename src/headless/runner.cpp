#include "headless/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include <unistd.h>

#include "core/memory.hpp"
#include "io/hand_script.hpp"
#include "io/ply_writer.hpp"
#include "io/stats_writer.hpp"
#include "io/usd_writer.hpp"
#include "validation/compare.hpp"
#include "solvers/solvers.hpp"
#include "surface/particle_surface.hpp"

namespace fs {

namespace {

std::string fmt(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

std::string backend_label(Backend b) {
    if (b == Backend::Cuda) return "cuda backend, " + cuda_status().device_name;
    return "cpu backend, " + std::to_string(cpu_threads()) + " thread(s)";
}

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown CPU";
}

// The GPU failed while the scene was being set up (exit status 2, like other set-up problems).
struct CudaSetupError : CudaError {
    using CudaError::CudaError;
};

// Runs `body`, turning the errors of the contract into a message and an exit status.
template <class Body>
int guarded(const Body& body) {
    try {
        return body();
    } catch (const CudaSetupError& e) {
        std::cerr << "fluid-sandbox: " << cuda_setup_message(e.what()) << '\n';
        return kExitBadInput;
    } catch (const SceneError& e) {
        std::cerr << "fluid-sandbox: " << e.what() << '\n';
        return kExitBadInput;
    } catch (const SimulationError& e) {
        std::cerr << "fluid-sandbox: simulation failed: " << e.what() << '\n';
        return kExitSimulationFailed;
    } catch (const CudaError& e) {
        std::cerr << "fluid-sandbox: CUDA: " << e.what() << '\n';
        return kExitSimulationFailed;
    } catch (const std::exception& e) {
        std::cerr << "fluid-sandbox: " << e.what() << '\n';
        return kExitSimulationFailed;
    }
}

// One step. A GPU failure names the step it broke (a diverging step names it itself).
void step_named(Solver& solver) {
    try {
        solver.step();
    } catch (const CudaError& e) {
        throw CudaError(std::string(e.what()) + " (in step " + std::to_string(solver.step_count() + 1) + ")");
    }
}

// One updating line on a terminal while a headless run goes (never when stderr is a file or a
// pipe: logs and tests read only the summary): step, simulated time, ms per step, time left.
class Progress {
public:
    explicit Progress(long long steps) : steps_(steps), on_(steps > 0 && ::isatty(STDERR_FILENO) == 1) {}
    ~Progress() { clear(); }
    void update(const Solver& solver, long long done) {
        if (!on_) return;
        const auto now = std::chrono::steady_clock::now();
        if (done < steps_ && now - last_ < std::chrono::milliseconds(250)) return;
        last_ = now;
        const double spent = std::chrono::duration<double>(now - start_).count();
        const double per_step = spent / static_cast<double>(done);
        std::fprintf(stderr, "\r\033[K  step %lld/%lld  t = %.4g s  %.3g ms/step  %.0f s left", done, steps_,
                     solver.time(), 1e3 * per_step, per_step * static_cast<double>(steps_ - done));
        std::fflush(stderr);
        shown_ = true;
    }
    void clear() {
        if (!shown_) return;
        std::fprintf(stderr, "\r\033[K");
        std::fflush(stderr);
        shown_ = false;
    }

private:
    long long steps_;
    bool on_;
    bool shown_ = false;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_ = start_;
};

// --export-fields against the solver's fields: all, none or a list of them (bad input otherwise).
std::vector<std::string> export_fields(const std::string& choice, const Solver& solver) {
    try {
        return chosen_fields(choice, solver);
    } catch (const std::invalid_argument& e) {
        throw SceneError("--export-fields " + choice + ": " + e.what());
    }
}

// --surface and --export-mesh: the liquid's surface of every exported frame, into the USD file
// and one PLY file a frame.
class SurfaceExport {
public:
    // Refuses (bad input) a solver whose particles are not a 3D liquid, and a surface grid too
    // large, before any file is written: the initial state's surface is made here.
    SurfaceExport(const Options& o, const Solver& solver, std::string comment, std::vector<std::string> fields)
        : usd_(o.surface), folder_(o.export_mesh), comment_(std::move(comment)) {
        settings_.cell_scale = o.surface_cell;
        settings_.method = surface_method_from(o.surface_method).value_or(SurfaceMethod::Smooth);
        // The velocity at every vertex (a renderer's motion blur), and --export-fields' fields.
        fields_ = {"velocity"};
        for (std::string& f : fields) fields_.push_back(std::move(f));
        option_ = o.surface && !folder_.empty() ? "--surface and --export-mesh"
                  : o.surface                   ? "--surface"
                                                : "--export-mesh";
        if (!on()) return;
        if (const auto why = no_surface_mesh(solver)) throw SceneError(option_ + ": " + *why);
        try {
            pending_ = make(solver);
        } catch (const std::invalid_argument& e) {
            throw SceneError(option_ + ": " + e.what());
        }
        if (!folder_.empty()) std::filesystem::create_directories(folder_);
    }
    bool on() const { return usd_ || !folder_.empty(); }

    // The surface of the frame just exported (after add_solver_frame, if there is a USD file).
    void add(const Solver& solver, UsdPointsWriter* usd) {
        if (!on()) return;
        SurfaceMesh mesh;
        if (pending_) {
            mesh = std::move(*pending_);
            pending_.reset();
        } else {
            mesh = make(solver);
        }
        if (usd_ && usd) usd->add_surface(mesh);
        if (!folder_.empty()) {
            const long long step = solver.step_count();
            char name[40];
            std::snprintf(name, sizeof name, "surface_%04d.ply", files_ + 1);
            write_ply((std::filesystem::path(folder_) / name).string(), mesh,
                      comment_ + ", step " + std::to_string(step) + ", t = " + fmt("%.6g", solver.time()) + " s");
            ++files_;
        }
        triangles_ = mesh.triangle_count();
        ++meshes_;
    }

    // The summary's line.
    void print() const {
        if (!on()) return;
        std::printf("  surface (%s): %d mesh(es), the last %d triangles, %.3g ms each (median)", to_string(settings_.method),
                    meshes_, triangles_, median(ms_));
        if (usd_) std::printf("; in the export as /World/surface");
        if (!folder_.empty()) std::printf("; %d PLY file(s) in %s", files_, folder_.c_str());
        std::printf("\n");
    }

private:
    SurfaceMesh make(const Solver& solver) {
        const auto start = std::chrono::steady_clock::now();
        SurfaceMesh mesh = solver_surface(solver, settings_, fields_);
        ms_.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        return mesh;
    }

    bool usd_;
    SurfaceSettings settings_;
    std::vector<std::string> fields_;
    std::string folder_, comment_, option_;
    std::optional<SurfaceMesh> pending_;  // the initial state's, made by the constructor
    int meshes_ = 0, files_ = 0, triangles_ = 0;
    std::vector<double> ms_;
};

}  // namespace

std::unique_ptr<Solver> open_scene(const Options& o, Scene& scene) {
    if (o.backend == Backend::Cuda && !cuda_status().usable)
        throw SceneError("--backend cuda: " + cuda_status().reason + "; allowed here: cpu");
    if (o.threads > 0) set_cpu_threads(o.threads);
    if (o.pin_threads) set_governed_threads(false);
    scene = load_scene(o.scene, solver_names());
    const SolverKind* kind = find_solver_kind(scene.solver);
    try {
        std::unique_ptr<Solver> solver = kind->make(o.backend);
        apply_scene_params(*solver, scene, o.sets, o.set_values);
        reset_solver(*solver, scene, o.sets, o.set_values);
        return solver;
    } catch (const CudaError& e) {
        throw CudaSetupError(e.what());
    }
}

int list_scenes() {
    std::error_code ec;
    if (!std::filesystem::is_directory(scenes_dir(), ec)) {
        std::cerr << "fluid-sandbox: " << scenes_dir() << ": cannot list the scenes folder\n";
        return kExitBadInput;
    }
    for (const std::string& name : bundled_scene_names()) {
        std::string line;
        try {
            const Scene s = load_scene(scenes_dir() + "/" + name + ".json", solver_names());
            line = "[" + s.solver + "] " + (s.title.empty() ? "" : s.title + ": ") + s.description;
        } catch (const SceneError& e) {
            line = std::string("(cannot be loaded: ") + e.what() + ")";
        }
        std::printf("%-22s %s\n", name.c_str(), line.c_str());
    }
    return kExitOk;
}

int list_params(const Options& o) {
    return guarded([&] {
        Scene scene;
        auto solver = open_scene(o, scene);
        std::printf("%s (%s)\n", scene.path.c_str(), scene.solver.c_str());
        std::string group;
        for (const auto& p : solver->params().all()) {
            const ParamSpec& s = p->spec();
            if (s.group != group) std::printf("[%s]\n", (group = s.group).c_str());
            std::printf("  %-20s = %-14s %s%s%s\n      %s\n", s.name.c_str(), p->to_text().c_str(),
                        s.read_only ? "read-only diagnostic" : p->allowed().c_str(),
                        s.needs_reset ? "; applies on reset" : "", "", s.description.c_str());
        }
        return kExitOk;
    });
}

namespace {

// The headless run's closing summary: steps and time, the first and last step's energy, momentum
// and speed, the mouse script, the solver's per-run totals (traits().run_totals), the medians of
// the step and its stages.
void print_run(const Options& o, const Solver& solver, const Stats& first, const std::vector<double>& step_ms,
               const std::vector<std::vector<double>>& stage_ms, const std::vector<std::string>& totalled,
               const std::vector<double>& totals, std::size_t mouse_frames) {
    const Stats& last = solver.stats();
    std::printf("  %lld steps, t = %.4g s\n", o.steps, solver.time());
    if (o.steps > 0) {
        auto vec = [](const Stats& s, const char* name) {
            const Stat* st = s.find(name);
            std::string out = "(";
            for (std::size_t i = 0; st && i < st->value.size(); ++i)
                out += (i ? ", " : "") + fmt("%.6g", st->value[i]);
            return out + ")";
        };
        std::printf("  kinetic energy %.6g -> %.6g J, momentum %s -> %s kg m/s, max speed %.4g m/s\n",
                    first.get("kinetic_energy"), last.get("kinetic_energy"),
                    vec(first, "momentum").c_str(), vec(last, "momentum").c_str(),
                    last.get("max_speed"));
        if (mouse_frames > 0) {
            std::printf("  mouse script: %zu frames played of %zu",
                        std::min<std::size_t>(mouse_frames, static_cast<std::size_t>(o.steps)), mouse_frames);
            if (last.get("poured") > 0) std::printf(", %.0f particles poured", last.get("poured"));
            std::printf("\n");
        }
        for (std::size_t k = 0; k < totalled.size(); ++k)
            if (last.find(totalled[k]))
                std::printf("  %.0f %s (%.4g per step)\n", totals[k], totalled[k].c_str(),
                            totals[k] / static_cast<double>(o.steps));
        std::printf("  %.4g ms/step (median);", median(step_ms));
        for (std::size_t s = 0; s < stage_ms.size(); ++s)
            std::printf(" %s %.3g", solver.stages()[s].name.c_str(), median(stage_ms[s]));
        std::printf(" ms\n");
    }
}

// Each comparison's verdict, and all of them as JSON in `path`.
void write_comparisons(const std::string& path, const std::vector<std::unique_ptr<Comparer>>& comparers) {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& c : comparers) {
        const Comparison r = c->result();
        std::printf("  compare %s: %s\n", r.name.c_str(), r.verdict.empty() ? "nothing to compare yet" : r.verdict.c_str());
        all.push_back(to_json(r));
    }
    if (comparers.empty()) std::printf("  compare: this scene has no known answer to compare with\n");
    std::ofstream out(path);
    out << all.dump(1) << "\n";
    if (!out) throw std::runtime_error(path + ": cannot write the comparisons");
    std::printf("  comparisons: %s\n", path.c_str());
}

}  // namespace

int run_headless(const Options& o) {
    return guarded([&] {
        Scene scene;
        auto solver = open_scene(o, scene);
        const std::string comment = "fluid-sandbox " + scene.path + " (" + scene.solver + ")";
        SurfaceExport surface(o, *solver, comment, export_fields(o.export_fields, *solver));
        std::unique_ptr<StatsWriter> stats;
        if (!o.stats_path.empty()) {
            stats = std::make_unique<StatsWriter>(o.stats_path);
            stats->write(*solver);  // step 0: the initial state
        }
        std::unique_ptr<UsdPointsWriter> usd;
        std::vector<std::string> primvars;
        if (!o.export_path.empty()) {
            primvars = export_fields(o.export_fields, *solver);
            usd = std::make_unique<UsdPointsWriter>(o.export_path, comment);
            add_solver_frame(*usd, *solver, primvars);
        }
        surface.add(*solver, usd.get());
        std::vector<std::unique_ptr<Comparer>> comparers;
        if (!o.compare_path.empty()) comparers = comparers_for(*solver);
        auto sample = [&](bool last) {
            for (auto& c : comparers)
                if (last || !c->snapshot()) c->sample(*solver);
        };
        sample(o.steps == 0);
        std::printf("fluid-sandbox: %s: %s (%s, %s), %d particles\n", scene.path.c_str(),
                    scene.title.empty() ? scene.solver.c_str() : scene.title.c_str(),
                    scene.solver.c_str(), backend_label(solver->backend()).c_str(),
                    solver->particle_count());

        std::vector<double> step_ms;
        std::vector<std::vector<double>> stage_ms(solver->stages().size());
        Stats first;
        const std::vector<std::string> totalled = solver->traits().run_totals;
        std::vector<double> totals(totalled.size(), 0.0);
        Progress progress(o.steps);
        // A mouse script plays one frame a step, from the first.
        std::optional<HandScriptPlayer> hands;
        if (!o.mouse.empty()) hands.emplace(parse_hand_script(o.mouse));
        for (long long k = 0; k < o.steps; ++k) {
            if (hands) {
                std::string notice;
                solver->set_hand(hands->next([&] { return solver->obstacles(); }, &notice));
                if (!notice.empty()) {
                    progress.clear();
                    std::fprintf(stderr, "fluid-sandbox: step %lld: %s\n", k + 1, notice.c_str());
                }
            }
            try {
                step_named(*solver);
            } catch (...) {
                progress.clear();
                if (stats) stats->flush();  // keep every line written so far
                throw;
            }
            progress.update(*solver, k + 1);
            if (k == 0) first = solver->stats();
            if (stats) stats->write(*solver);
            if ((k + 1) % o.export_every == 0) {
                if (usd) add_solver_frame(*usd, *solver, primvars);
                surface.add(*solver, usd.get());
            }
            sample(k + 1 == o.steps);
            step_ms.push_back(solver->step_ms());
            for (std::size_t s = 0; s < stage_ms.size(); ++s)
                stage_ms[s].push_back(solver->stage_ms()[s]);
            for (std::size_t j = 0; j < totalled.size(); ++j) totals[j] += solver->stats().get(totalled[j]);
        }
        progress.clear();
        if (usd) usd->close();

        print_run(o, *solver, first, step_ms, stage_ms, totalled, totals, hands ? hands->frames() : 0);
        if (!o.stats_path.empty()) std::printf("  stats: %s\n", o.stats_path.c_str());
        if (usd) std::printf("  export: %s (%d frames)\n", o.export_path.c_str(), usd->frames());
        surface.print();
        if (!o.compare_path.empty()) write_comparisons(o.compare_path, comparers);
        return kExitOk;
    });
}

int run_bench(const Options& o) {
    return guarded([&] {
        Scene scene;
        auto solver = open_scene(o, scene);
        for (long long k = 0; k < o.warmup; ++k) step_named(*solver);
        std::vector<double> step_ms;
        std::vector<std::vector<double>> stage_ms(solver->stages().size());
        std::map<int, long long> threads_used;  // steps at each thread count (ThreadGovernor)
        for (long long k = 0; k < o.steps; ++k) {
            step_named(*solver);
            ++threads_used[solver->step_threads()];
            step_ms.push_back(solver->step_ms());
            for (std::size_t s = 0; s < stage_ms.size(); ++s)
                stage_ms[s].push_back(solver->stage_ms()[s]);
        }
        const double med = median(step_ms);
        const int n = solver->particle_count();
        const double rate = med > 0 ? n / (med * 1e-3) : 0.0;

        nlohmann::ordered_json report;
        report["scene"] = scene.path;
        report["solver"] = scene.solver;
        report["backend"] = std::string(to_string(solver->backend()));
        report["device"] = solver->backend() == Backend::Cuda ? cuda_status().device_name : cpu_model();
        report["threads"] = cpu_threads();
        nlohmann::ordered_json used = nlohmann::ordered_json::object();
        for (const auto& [t, n] : threads_used) used[std::to_string(t)] = n;
        report["steps_at_threads"] = used;
        report["pinned_threads"] = !governed_threads();
        report["n_particles"] = n;
        report["warmup"] = o.warmup;
        report["steps"] = o.steps;
        report["median_step_ms"] = med;
        report["min_step_ms"] = step_ms.empty() ? 0.0 : *std::min_element(step_ms.begin(), step_ms.end());
        report["particle_steps_per_second"] = rate;
        nlohmann::ordered_json stages = nlohmann::ordered_json::object();
        for (std::size_t s = 0; s < stage_ms.size(); ++s)
            stages[solver->stages()[s].name] = median(stage_ms[s]);
        report["median_stage_ms"] = stages;
        nlohmann::ordered_json params = nlohmann::ordered_json::object();
        for (const auto& p : solver->params().all()) params[p->name()] = p->to_json();
        report["params"] = params;

        std::printf("bench %s (%s, %s): %d particles, %lld steps after %lld warm-up\n",
                    scene.path.c_str(), scene.solver.c_str(), backend_label(solver->backend()).c_str(),
                    n, o.steps, o.warmup);
        std::printf("  median %.4g ms/step, %.4g particle-steps/s\n", med, rate);
        if (solver->backend() == Backend::Cpu) {
            std::printf("  steps at");
            for (const auto& [t, n] : threads_used) std::printf(" %d thread(s): %lld;", t, n);
            std::printf("%s\n", governed_threads() ? " (governed: fewer threads where fewer were faster)" : " (pinned)");
        }
        for (std::size_t s = 0; s < stage_ms.size(); ++s)
            std::printf("  %-20s %.4g ms\n", solver->stages()[s].name.c_str(), median(stage_ms[s]));

        std::string path = o.bench_json;
        if (path.empty())
            path = "bench-" + std::filesystem::path(scene.path).stem().string() + "-" +
                   std::string(to_string(solver->backend())) + ".json";
        std::ofstream out(path);
        out << report.dump(2) << '\n';
        if (!out) throw std::runtime_error(path + ": cannot write the benchmark report");
        std::printf("  report: %s\n", path.c_str());
        return kExitOk;
    });
}

}  // namespace fs
