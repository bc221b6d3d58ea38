// SimulationHost: runs a solver on its own thread so the window stays responsive however slow a
// step is (or, without threads, within the window's frames: HostConfig::own_thread). The window sends commands (queued, applied between steps) and reads back copies: the
// status (counters, stats, parameter values, errors), the per-step history for plots, and the
// particle data to draw. Nothing here knows of windows or OpenGL.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/frame_publisher.hpp"
#include "app/realtime_pacer.hpp"
#include "app/safety_net.hpp"
#include "core/params.hpp"
#include "core/solver.hpp"
#include "validation/compare.hpp"
#include "io/scene.hpp"
#include "surface/particle_surface.hpp"

namespace fs {

class StatsWriter;
class UsdPointsWriter;

// A registry entry's description, copied so the window can build its panels without touching
// the solver (which lives on the simulation thread).
struct ParamMeta {
    ParamSpec spec;
    ParamType type = ParamType::Real;
    std::vector<std::string> choices;
    int components = 1;
};

struct SimStatus {
    // The running simulation against its scene's known answers (validation/compare.hpp).
    std::vector<Comparison> comparisons;
    std::string scene_path, scene_title, scene_description, solver;
    SolverTraits traits;  // what the window must know of the solver (core/solver.hpp)
    Backend backend = Backend::Cpu;
    bool running = false;
    bool realtime = false;
    int steps_per_frame = 1;
    std::int64_t steps = 0;
    double time = 0.0;
    int next_stage = 0;
    std::vector<StageInfo> stages;
    std::vector<FieldInfo> fields;
    bool has_cells = false;  // the solver has a grid the cell overlay can show
    unsigned hand_tools = 0;  // what the mouse's hands can do here (core/hands.hpp HandTools)
    std::vector<double> stage_ms;
    double step_ms = 0.0;
    double publish_ms = 0.0, publish_ms_max = 0.0;  // reading a frame for the window: the last, the longest
    Stats stats;
    nlohmann::json params;  // current values, name -> value
    std::shared_ptr<const std::vector<ParamMeta>> param_meta;
    bool reset_pending = false;
    int rewind_steps = 0;  // how many steps step_back() can undo
    std::string error;          // the last failure, one line; empty when none
    std::int64_t error_serial = 0;  // increases with each new error (the window shows each once)
    bool error_paused = true;       // whether that error paused the simulation
    std::string message;        // the last notice (saved a file, ...)
    // The last file finished (a saved scene, a closed export), counted: the browser build offers
    // each as a download.
    std::string written_file;
    std::int64_t written_serial = 0;
    // The GPU failed and what it held is lost: set_backend(Backend::Cpu) goes on from the last
    // good state on the CPU (the window offers it); other commands that need the state wait.
    bool device_lost = false;
    bool exporting = false;
    std::string export_path;
};

// Scalar stats of the last steps, for the plots.
struct StatsHistory {
    std::vector<std::string> names;
    std::vector<std::vector<float>> values;  // values[k] is the series of names[k]
    // The step and time of each sample; every series ends at the last step, so series k's
    // sample i belongs to steps[steps.size() - values[k].size() + i].
    std::vector<std::int64_t> steps;
    std::vector<double> times;
};

// Writes the history as CSV: a header (step, time, then the series' names), then a row a step,
// empty where a series has no sample for that step. Throws std::runtime_error naming the file.
void write_csv(const StatsHistory& history, const std::string& path);

struct HostConfig {
    std::string scene;
    Backend backend = Backend::Cpu;
    std::vector<std::string> sets;  // --set overrides for the first scene
    std::string stats_path;         // --stats, every step
    std::string export_path;        // --export
    long long export_every = 1;
    bool start_running = true;
    bool realtime = false;
    // false: no simulation thread; the window's frame_tick() and wait_idle() do the work on the
    // calling thread (the browser build, where a page without cross-origin isolation has no
    // threads). The commands and frames are the same either way.
    bool own_thread = true;
};

class SimulationHost {
public:
    // Loads the first scene on the calling thread: bad input throws SceneError (exit status 2).
    explicit SimulationHost(const HostConfig& config);
    // Runs a solver that already exists (the Python module's show()): config.scene is not read;
    // `scene` is what `solver` was loaded from.
    SimulationHost(const HostConfig& config, std::unique_ptr<Solver> solver, Scene scene);
    ~SimulationHost();
    SimulationHost(const SimulationHost&) = delete;
    SimulationHost& operator=(const SimulationHost&) = delete;

    // Commands; each takes effect between two steps, in the order given.
    void load_scene(const std::string& path);  // on failure the current scene keeps running
    void reset();
    void set_running(bool running);
    void toggle_running();
    void time_step(int steps);  // the TimeStep button: pauses, then runs `steps` whole steps
    void advance_stage();       // one stage of the pipeline (pauses first)
    // Back to the state before the last step (pauses first); up to rewind_depth steps back.
    // Stepping forward again repeats the same steps (bit for bit on the CPU).
    void step_back();
    void set_rewind_depth(int steps);
    void set_param(const std::string& name, const nlohmann::json& value);
    void set_param_text(const std::string& name, const std::string& text);
    // Moves the state to the other backend. After a GPU failure, Backend::Cpu rebuilds the solver
    // on the CPU from the last good state kept on the host (nothing is read from the GPU).
    void set_backend(Backend b);
    void set_steps_per_frame(int n);
    // Real time: each frame runs steps until the simulated time has advanced by the frame's
    // wall-clock time (within a time budget), instead of a fixed number of steps.
    void set_realtime(bool on);
    // Q/E: turns the scene's barrier (the solver's traits().turn_param) by its turn rate
    // (turn_rate_param) times `seconds`, counter-clockwise for direction +1. Returns false when
    // the solver has nothing to turn.
    bool rotate_barrier(double direction, double seconds);
    // The mouse's hand (core/hands.hpp): applied from the next step on until it changes.
    void set_hand(const Hand& hand);
    void set_color_field(const std::string& name);
    // Whether frames carry the solver's grid cells (for the overlay; off costs nothing).
    void set_cell_overlay(bool on);
    // Whether frames carry the liquid's surface mesh, and made how (3D liquids; none: nullopt).
    void set_surface_mesh(std::optional<SurfaceMethod> method);
    // Whether frames carry the particles' velocities (for the vector overlay).
    void set_velocity_overlay(bool on);
    // CUDA-OpenGL interop: on the CUDA backend frames leave the particles on the GPU, for
    // copy_device_frame (off: they come through host memory, as on the CPU backend).
    void set_device_frames(bool on);
    // Writes the scene with the current parameters, and the bodies where hands left them.
    void save_scene(const std::string& path);
    // surface: each exported frame carries the liquid's surface mesh too (3D liquids: flip), made
    // by `method`, with the velocity and the exported fields at its vertices.
    void start_export(const std::string& path, long long every, bool surface = false,
                      SurfaceMethod method = SurfaceMethod::Smooth);
    void stop_export();
    // Runs `f` on the simulation thread with the solver (for solver-specific actions).
    void with_solver(std::function<void(Solver&)> f);

    // Whether the Compare view is shown: profiles (a snapshot of every particle) are only
    // sampled while it is, at most four times a second.
    void show_comparisons(bool on) { compare_visible_ = on; }

    // A window frame began: a running simulation takes its steps for this frame.
    void frame_tick();
    // Blocks until every command sent so far has been applied (tests, --keys scripts).
    void wait_idle();

    // Stops the simulation thread and gives the solver back, as the window left it, with the
    // scene it now runs (another, if the window loaded one). The host is done after it.
    std::unique_ptr<Solver> take_solver(Scene& scene);

    SimStatus status() const;
    StatsHistory history() const;
    // Copies the latest frame into `out` when it is newer than out.version; returns whether it did.
    bool take_frame(FrameData& out) const;
    // The latest device frame's particles, copied on the GPU into device memory (OpenGL buffers
    // mapped for CUDA): xyz 3 floats each, scalar 1, room for `capacity`. Returns how many it
    // copied (0: no device frame, or more than capacity) and sets their colour range.
    int copy_device_frame(float* xyz, float* scalar, int capacity, ScalarRange& range) const;

private:
    void run();
    void serve(std::unique_lock<std::mutex>& lock);
    void serve_here();  // serve() on the calling thread, when there is work (no own thread)
    void post(std::function<void()> command);
    void apply_param(const std::string& name, const std::function<void(Param&)>& set);
    void step_once();
    // Runs a step (or stage) under the safety net.
    bool guarded(const std::function<void()>& advance);
    // Reads the particles to draw, then publishes them with the status.
    void publish();
    void publish_status();  // with mutex_ held
    void finished_file(const std::string& path);  // with mutex_ held: SimStatus::written_file
    // Reports a failure; `pause` stops the simulation (a refused scene does not: the current
    // one keeps running).
    void fail(const std::string& what, bool pause = true);
    void continue_on_cpu();
    void adopt(std::unique_ptr<Solver> solver, Scene scene);
    void start(const HostConfig& config);  // the constructors' common end
    void stop_thread();
    bool drawing_has_a_core() const;  // simulation thread only
    std::unique_ptr<Solver> build(const std::string& path, const std::vector<std::string>& sets,
                                  Scene& scene) const;

    // Simulation thread only.
    Backend initial_backend_ = Backend::Cpu;
    std::unique_ptr<Solver> solver_;
    Scene scene_;
    std::unique_ptr<StatsWriter> stats_writer_;
    std::unique_ptr<UsdPointsWriter> usd_;
    long long export_every_ = 1;
    std::vector<std::string> usd_fields_;  // the solver's fields the export writes as primvars
    bool usd_surface_ = false;             // the export carries the surface mesh too
    SurfaceMethod usd_surface_method_ = SurfaceMethod::Smooth;
    void export_frame();                   // the current state into usd_ (and its surface)
    SafetyNet safety_{[this](const std::string& what) { fail(what); }};
    std::shared_ptr<const std::vector<ParamMeta>> meta_;
    // The scene's comparisons with known answers, sampled as frames are published; started
    // over when the scene is reset or time goes back (step back).
    std::vector<std::unique_ptr<Comparer>> comparers_;
    std::vector<Comparison> compared_;
    double compared_time_ = 0.0;
    std::chrono::steady_clock::time_point last_snapshot_{};
    void sample_comparisons();

    FramePublisher frames_;  // its contents: simulation thread only; the frames: under its lock

    // Shared, under mutex_.
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable idle_;
    std::deque<std::function<void()>> queue_;
    bool busy_ = false;
    std::atomic<bool> compare_visible_{false};
    bool quit_ = false;
    bool running_ = true;
    int steps_per_frame_ = 1;
    bool realtime_ = false;
    double wall_pending_ = 0.0;   // wall seconds of the frame ticks not yet taken by the worker
    double frame_interval_ = 1.0 / 60.0;  // between the last two frame ticks
    bool restart_pacer_ = false;  // set when running starts or stops
    std::chrono::steady_clock::time_point last_tick_{};
    int frames_pending_ = 0;
    std::optional<double> barrier_target_;  // the angle Q/E last asked for
    SimStatus status_;
    StatsHistory history_;

    RealTimePacer pacer_;  // worker thread only

    std::thread thread_;
};

}  // namespace fs
