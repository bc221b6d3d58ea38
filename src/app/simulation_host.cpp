// SimulationHost: the simulation thread and its command queue, frame pacing, the stats history
// and the status the window reads; frames and the safety net are their own classes.
#include "app/simulation_host.hpp"

#include <chrono>
#include <algorithm>
#include <cmath>
#include <limits>
#include <fstream>

#include "io/stats_writer.hpp"
#include "io/usd_writer.hpp"
#include "surface/particle_surface.hpp"
#include "solvers/solvers.hpp"

namespace fs {

namespace {

constexpr std::size_t kHistoryLength = 2000;  // steps kept for the plots

std::shared_ptr<const std::vector<ParamMeta>> describe(const ParamRegistry& reg) {
    auto meta = std::make_shared<std::vector<ParamMeta>>();
    for (const auto& p : reg.all())
        meta->push_back({p->spec(), p->type(), p->choices(), p->components()});
    return meta;
}

}  // namespace

void write_csv(const StatsHistory& history, const std::string& path) {
    std::ofstream out(path);
    if (!out) throw std::runtime_error(path + ": cannot write the stats file");
    out.precision(17);
    out << "step,time";
    for (const auto& name : history.names) out << ',' << name;
    out << '\n';
    const std::size_t rows = history.steps.size();
    for (std::size_t i = 0; i < rows; ++i) {
        out << history.steps[i] << ',' << history.times[i];
        for (const auto& series : history.values) {
            out << ',';
            // Every series ends at the last step: series k's sample j belongs to row rows - size + j.
            if (series.size() + i >= rows) out << series[series.size() + i - rows];
        }
        out << '\n';
    }
    if (!out) throw std::runtime_error(path + ": write failed");
}

SimulationHost::SimulationHost(const HostConfig& config) : initial_backend_(config.backend) {
    Scene scene;
    auto solver = build(config.scene, config.sets, scene);
    adopt(std::move(solver), std::move(scene));
    start(config);
}

SimulationHost::SimulationHost(const HostConfig& config, std::unique_ptr<Solver> solver, Scene scene)
    : initial_backend_(solver->backend()) {
    adopt(std::move(solver), std::move(scene));
    start(config);
}

void SimulationHost::start(const HostConfig& config) {
    if (!config.stats_path.empty()) {
        stats_writer_ = std::make_unique<StatsWriter>(config.stats_path);
        stats_writer_->write(*solver_);  // step 0: the initial state
    }
    running_ = config.start_running;
    realtime_ = config.realtime;
    if (!config.export_path.empty()) {
        export_every_ = std::max(1LL, config.export_every);
        usd_ = std::make_unique<UsdPointsWriter>(config.export_path,
                                                 "fluid-sandbox " + scene_.path + " (" + scene_.solver + ")");
        usd_fields_ = exportable_fields(*solver_);
        usd_surface_ = false;
        export_frame();
        status_.exporting = true;
        status_.export_path = config.export_path;
    }
    publish();
    pacer_.set_shared_frames(!config.own_thread);
    if (config.own_thread) thread_ = std::thread([this] { run(); });
}

void SimulationHost::stop_thread() {
    {
        std::lock_guard lock(mutex_);
        quit_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

SimulationHost::~SimulationHost() {
    stop_thread();
    try {
        if (usd_) usd_->close();
    } catch (const std::exception&) {
        // The destructor cannot report it; stop_export() does.
    }
}

std::unique_ptr<Solver> SimulationHost::take_solver(Scene& scene) {
    stop_thread();
    scene = scene_;
    return std::move(solver_);
}

std::unique_ptr<Solver> SimulationHost::build(const std::string& path,
                                              const std::vector<std::string>& sets,
                                              Scene& scene) const {
    scene = fs::load_scene(path, solver_names());
    // After a GPU failure new scenes open on the CPU.
    const Backend backend = safety_.device_lost() ? Backend::Cpu : solver_ ? solver_->backend() : initial_backend_;
    auto solver = find_solver_kind(scene.solver)->make(backend);
    apply_scene_params(*solver, scene, sets);
    try {
        solver->reset();
    } catch (const ParamError& e) {
        throw SceneError(scene.path + ": params: " + e.what());
    }
    return solver;
}

void SimulationHost::adopt(std::unique_ptr<Solver> solver, Scene scene) {
    solver_ = std::move(solver);
    scene_ = std::move(scene);
    safety_.start_over();
    {
        std::lock_guard lock(mutex_);
        barrier_target_.reset();
    }
    meta_ = describe(solver_->params());
    comparers_ = comparers_for(*solver_);
    compared_.clear();
    // Keep the colour field when the new solver has it, else its speed (or first scalar).
    std::string& color_field = frames_.contents.color_field;
    if (!scene_.color_field.empty()) color_field = scene_.color_field;  // checked against the fields on load
    bool found = false;
    for (const auto& f : solver_->fields()) found |= f.name == color_field;
    if (!found) color_field = "speed";
    std::lock_guard lock(mutex_);
    history_ = {};
}

void SimulationHost::post(std::function<void()> command) {
    {
        std::lock_guard lock(mutex_);
        queue_.push_back(std::move(command));
    }
    wake_.notify_all();
}

void SimulationHost::load_scene(const std::string& path) {
    post([this, path] {
        try {
            Scene scene;
            auto solver = build(path, {}, scene);
            if (usd_) {
                usd_->close();
                usd_.reset();
            }
            adopt(std::move(solver), std::move(scene));
            std::lock_guard lock(mutex_);
            status_.message = "opened " + path;
            status_.exporting = false;
        } catch (const CudaError& e) {
            fail(std::string("CUDA, setting up ") + path + ": " + e.what(), false);
        } catch (const std::exception& e) {
            fail(e.what(), false);  // the current scene keeps running
        }
    });
}

void SimulationHost::reset() {
    post([this] {
        if (safety_.refuse_while_device_lost("Reset")) return;
        try {
            solver_->reset();
            safety_.clear();
            comparers_ = comparers_for(*solver_);
            compared_.clear();
            std::lock_guard lock(mutex_);
            history_ = {};
        } catch (const ParamError& e) {
            fail(scene_.path + ": params: " + e.what());
        } catch (const std::exception& e) {
            fail(e.what());
        }
    });
}

void SimulationHost::set_running(bool running) {
    {
        std::lock_guard lock(mutex_);
        running_ = running;
        frames_pending_ = 0;
        wall_pending_ = 0.0;
        restart_pacer_ = true;
    }
    wake_.notify_all();
}

void SimulationHost::toggle_running() {
    {
        std::lock_guard lock(mutex_);
        running_ = !running_;
        frames_pending_ = 0;
        wall_pending_ = 0.0;
        restart_pacer_ = true;
    }
    wake_.notify_all();
}

void SimulationHost::time_step(int steps) {
    set_running(false);
    post([this, steps] {
        std::int64_t errors = 0;
        {
            std::lock_guard lock(mutex_);
            errors = status_.error_serial;
        }
        for (int k = 0; k < steps; ++k) {
            step_once();
            std::lock_guard lock(mutex_);
            if (running_ || quit_ || status_.error_serial != errors) break;  // Run pressed, or a failure
        }
    });
}

void SimulationHost::advance_stage() {
    set_running(false);
    post([this] {
        bool completed = false;
        if (guarded([&] { completed = solver_->advance_stage(); }) && completed && stats_writer_)
            stats_writer_->write(*solver_);
    });
}

void SimulationHost::set_param(const std::string& name, const nlohmann::json& value) {
    {
        std::lock_guard lock(mutex_);
        if (name == status_.traits.turn_param) barrier_target_.reset();  // a typed angle is where Q/E continue from
    }
    post([this, name, value] { apply_param(name, [&](Param& p) { p.set_json(value); }); });
}

void SimulationHost::set_param_text(const std::string& name, const std::string& text) {
    post([this, name, text] { apply_param(name, [&](Param& p) { p.set_text(text); }); });
}

// Simulation thread: one parameter changed live. A value the solver refuses (out of range, or
// steps that would never finish: Solver::check_params) is undone, so the next step runs with
// the last good one, and the error names the key once.
void SimulationHost::apply_param(const std::string& name, const std::function<void(Param&)>& set) {
    Param* p = nullptr;
    nlohmann::json before;
    try {
        p = &solver_->params().at(name);
        before = p->to_json();
        set(*p);
        solver_->check_params();
        solver_->refresh_diagnostics();
    } catch (const ParamError& e) {
        if (p) p->set_json(before);
        const std::string what = e.what();
        fail(what.rfind(name + ":", 0) == 0 ? what : name + ": " + what);
    }
}

void SimulationHost::set_backend(Backend b) {
    post([this, b] {
        if (safety_.device_lost()) {
            if (b == Backend::Cpu) {
                continue_on_cpu();
            } else {
                fail("the GPU failed earlier; Continue on CPU first, then try CUDA again");
            }
            return;
        }
        if (b == Backend::Cuda && !cuda_status().usable) {
            fail("CUDA backend: " + cuda_status().reason);
            return;
        }
        try {
            // Solver::set_backend only adopts the new engine once the state is there: a GPU that
            // fails while taking the state leaves the solver on the CPU as it was.
            solver_->set_backend(b);
        } catch (const CudaError& e) {
            if (b == Backend::Cuda)
                fail(std::string("moving to the GPU failed: ") + e.what() + "; the simulation stays on the CPU");
            else
                safety_.lose_device(std::string("moving to the CPU failed: ") + e.what());
        } catch (const std::exception& e) {
            fail(std::string("switching backend: ") + e.what());
        }
    });
}

void SimulationHost::continue_on_cpu() {
    try {
        const std::string message = safety_.continue_on_cpu(solver_, scene_.solver);
        std::lock_guard lock(mutex_);
        status_.message = message;
    } catch (const std::exception& e) {
        fail(std::string("continuing on the CPU failed: ") + e.what());
    }
}

void SimulationHost::set_steps_per_frame(int n) {
    std::lock_guard lock(mutex_);
    steps_per_frame_ = std::max(1, n);
}

void SimulationHost::set_realtime(bool on) {
    std::lock_guard lock(mutex_);
    if (on != realtime_) restart_pacer_ = true;  // real time starts level with the clock
    realtime_ = on;
}

bool SimulationHost::rotate_barrier(double direction, double seconds) {
    double angle = 0.0;
    std::string param;
    {
        std::lock_guard lock(mutex_);
        const nlohmann::json& p = status_.params;
        const SolverTraits& t = status_.traits;
        if (t.turn_param.empty() || !p.contains(t.turn_param) || !p.contains(t.turn_rate_param)) return false;
        // Held keys call this every frame, faster than the simulation thread answers: turns add
        // up on the angle last asked for, not on the (possibly older) published one.
        const double base = barrier_target_ ? *barrier_target_ : p[t.turn_param].get<double>();
        angle = base + direction * p[t.turn_rate_param].get<double>() * seconds;
        barrier_target_ = angle;
        param = t.turn_param;
    }
    post([this, angle, param] {
        try {
            solver_->params().at(param).set(angle);
        } catch (const ParamError& e) {
            fail(param + ": " + e.what());
        }
    });
    return true;
}

void SimulationHost::set_hand(const Hand& hand) {
    post([this, hand] { solver_->set_hand(hand); });
}

void SimulationHost::set_color_field(const std::string& name) {
    post([this, name] { frames_.contents.color_field = name; });
}

void SimulationHost::step_back() {
    set_running(false);
    post([this] { safety_.step_back(*solver_); });
}

void SimulationHost::set_rewind_depth(int steps) {
    post([this, steps] { safety_.set_depth(steps); });
}

void SimulationHost::set_cell_overlay(bool on) {
    post([this, on] { frames_.contents.cell_overlay = on; });
}

void SimulationHost::set_surface_mesh(std::optional<SurfaceMethod> method) {
    post([this, method] {
        frames_.contents.surface_mesh = method;
        publish();  // the mesh at once, also while paused
    });
}

void SimulationHost::set_velocity_overlay(bool on) {
    post([this, on] { frames_.contents.velocity_overlay = on; });
}

void SimulationHost::set_device_frames(bool on) {
    post([this, on] { frames_.contents.device_frames = on; });
}

void SimulationHost::with_solver(std::function<void(Solver&)> f) {
    post([this, f = std::move(f)] {
        if (safety_.refuse_while_device_lost("This action")) return;
        try {
            f(*solver_);
        } catch (const std::exception& e) {
            fail(e.what());
        }
    });
}

void SimulationHost::frame_tick() {
    {
        std::lock_guard lock(mutex_);
        const auto now = std::chrono::steady_clock::now();
        const bool first = last_tick_.time_since_epoch().count() == 0;
        const double interval = first ? 1.0 / 60.0 : std::chrono::duration<double>(now - last_tick_).count();
        last_tick_ = now;
        if (running_) {
            ++frames_pending_;
            wall_pending_ += interval;  // frames the worker skips still count, up to the pacer's clamp
            frame_interval_ = interval;
        }
    }
    if (!thread_.joinable()) {
        serve_here();
        return;
    }
    wake_.notify_all();
}

void SimulationHost::serve_here() {
    std::unique_lock lock(mutex_);
    if (!queue_.empty() || (running_ && frames_pending_ > 0)) serve(lock);
}

void SimulationHost::wait_idle() {
    if (!thread_.joinable()) {  // no thread of its own: the work is done here, now
        serve_here();
        return;
    }
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [&] {
        return quit_ || (queue_.empty() && !busy_ && (frames_pending_ == 0 || !running_));
    });
}

void SimulationHost::fail(const std::string& what, bool pause) {
    std::lock_guard lock(mutex_);
    if (pause) running_ = false;
    status_.error = what;
    status_.error_paused = pause;
    status_.device_lost = safety_.device_lost();
    ++status_.error_serial;
}

bool SimulationHost::guarded(const std::function<void()>& advance) {
    bool running = false;
    {
        std::lock_guard lock(mutex_);
        running = running_;
    }
    return safety_.guarded(*solver_, running, advance);
}

void SimulationHost::step_once() {
    if (!guarded([this] { solver_->step(); })) return;
    if (stats_writer_) stats_writer_->write(*solver_);
    if (usd_ && solver_->step_count() % export_every_ == 0) {
        try {
            export_frame();
        } catch (const std::exception& e) {
            fail(std::string("export: ") + e.what());
        }
    }
    std::lock_guard lock(mutex_);
    if (history_.steps.size() >= kHistoryLength) {
        history_.steps.erase(history_.steps.begin(), history_.steps.begin() + kHistoryLength / 4);
        history_.times.erase(history_.times.begin(), history_.times.begin() + kHistoryLength / 4);
    }
    history_.steps.push_back(solver_->step_count());
    history_.times.push_back(solver_->time());
    for (const Stat& s : solver_->stats().items()) {
        if (s.is_vector || s.value.empty() || s.name == "step" || s.name == "t") continue;
        std::size_t k = 0;
        while (k < history_.names.size() && history_.names[k] != s.name) ++k;
        if (k == history_.names.size()) {
            history_.names.push_back(s.name);
            history_.values.emplace_back();
        }
        auto& series = history_.values[k];
        series.push_back(static_cast<float>(s.value[0]));
        if (series.size() > history_.steps.size())  // never longer than the steps it belongs to
            series.erase(series.begin(), series.begin() + static_cast<std::ptrdiff_t>(series.size() - history_.steps.size()));
    }
}

void SimulationHost::run() {
    std::unique_lock lock(mutex_);
    while (!quit_) {
        wake_.wait_for(lock, std::chrono::milliseconds(50), [&] {
            return quit_ || !queue_.empty() || (running_ && frames_pending_ > 0);
        });
        if (quit_) break;
        serve(lock);
    }
    idle_.notify_all();
}

// One round of the simulation's work: the commands sent so far, then the steps of the frames
// that began (a slow simulation skips the frames it missed rather than queueing them up). Called
// with mutex_ held, which it releases while it works.
void SimulationHost::serve(std::unique_lock<std::mutex>& lock) {
    std::deque<std::function<void()>> commands;
    commands.swap(queue_);
    // A slow simulation skips the frames it missed rather than queueing them up.
    const bool take_frame = running_ && frames_pending_ > 0;
    const bool restart_pacer = restart_pacer_;
    restart_pacer_ = false;
    frames_pending_ = 0;
    const int steps = steps_per_frame_;
    const bool realtime = realtime_;
    // Without a thread of its own (the browser) the steps share each frame with the drawing, and
    // a budget that followed the measured frame interval would stretch the frames it measures:
    // there the steps get 80% of 10 ms a frame on average (RealTimePacer's shared frames), 8 ms,
    // whatever the frames take: with the panels and the drawing's calls the page's own work stays
    // within a 60 Hz frame (docs/web.md).
    const double wall_seconds = wall_pending_,
                 frame_interval = thread_.joinable() ? frame_interval_ : std::min(frame_interval_, 0.010);
    wall_pending_ = 0.0;
    busy_ = true;
    lock.unlock();

    const double t_before_commands = solver_->time();
    for (auto& command : commands) command();
    // A resumed run starts level with the clock, and so does a reset, another scene or a step
    // taken by hand: the debt a slow run left (RealTimePacer::kMostDebt) must not hurry the next.
    if (restart_pacer || solver_->time() != t_before_commands) pacer_.restart();
    int stepped = 0;
    if (take_frame) {
        // Real time: simulated time keeps pace with the wall clock as long as the steps fit
        // in most of a frame; past that the simulation runs slower than real time rather
        // than stalling the frames (realtime_pacer.hpp). Otherwise a fixed number of steps.
        const auto start = std::chrono::steady_clock::now();
        const auto spent = [&] {
            return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        };
        if (realtime) {
            pacer_.set_share(drawing_has_a_core() ? RealTimePacer::kOwnCores : RealTimePacer::kBudget);
            pacer_.begin_frame(wall_seconds, frame_interval);
        }
        for (int k = 0; realtime ? pacer_.want_step(spent()) : k < steps; ++k) {
            const double t_before = solver_->time();
            ++stepped;
            step_once();
            if (realtime) {
                // A failed step returns to the last good one (SafetyNet): time went back, and
                // the pacer starts level with the clock again.
                const double advanced = solver_->time() - t_before;
                if (advanced >= 0.0)
                    pacer_.stepped(advanced);
                else
                    pacer_.restart();
            }
            std::lock_guard guard(mutex_);
            if (!running_ || quit_ || !queue_.empty()) break;
        }
        if (realtime) pacer_.end_frame(spent());
    }
    // A frame that took no step (real time ahead of the clock, or repaying a long step) has
    // nothing new to show.
    if (stepped > 0 || !commands.empty()) publish();

    lock.lock();
    busy_ = false;
    idle_.notify_all();
}

// Whether the steps leave the drawing a core of its own: a CPU simulation on a thread of its own,
// its loops on fewer threads than the machine has cores (the window's default: run_app). Its steps
// may then fill the whole frame; otherwise they keep RealTimePacer::kBudget of it, and the rest for
// the drawing's share of the core, the GPU (a CUDA simulation) or the page's frame (the browser).
// Measured on the 2-core machine under Xvfb, one simulation thread (docs/benchmarks.md): `default`
// 0.60x -> 0.68x real time from this alone, 0.85-0.88x with the drawing's threads yielding too
// (app.cpp, yield_software_rasteriser).
bool SimulationHost::drawing_has_a_core() const {
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
    return thread_.joinable() && solver_->backend() == Backend::Cpu && cpu_threads() < cores;
}

void SimulationHost::publish() {
    const auto start = std::chrono::steady_clock::now();
    if (!safety_.device_lost()) {
        try {
            frames_.publish(*solver_);
            sample_comparisons();
        } catch (const CudaError& e) {
            safety_.lose_device(std::string("reading the particles back: ") + e.what());
        }
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::lock_guard lock(mutex_);
    status_.publish_ms = ms;
    status_.publish_ms_max = std::max(status_.publish_ms_max, ms);
    publish_status();
}

void SimulationHost::sample_comparisons() {
    if (solver_->time() < compared_time_) comparers_ = comparers_for(*solver_);  // stepped back
    compared_time_ = solver_->time();
    const auto now = std::chrono::steady_clock::now();
    const bool snapshot = compare_visible_ && now - last_snapshot_ > std::chrono::milliseconds(250);
    if (snapshot) last_snapshot_ = now;
    compared_.clear();
    for (auto& c : comparers_) {
        if (!c->snapshot() || snapshot) c->sample(*solver_);
        compared_.push_back(c->result());
    }
}

int SimulationHost::copy_device_frame(float* xyz, float* scalar, int capacity, ScalarRange& range) const {
    return frames_.copy_device_frame(xyz, scalar, capacity, range);
}

void SimulationHost::publish_status() {
    SimStatus& s = status_;
    s.device_lost = safety_.device_lost();
    s.scene_path = scene_.path;
    s.scene_title = scene_.title;
    s.scene_description = scene_.description;
    s.solver = std::string(solver_->kind());
    s.traits = solver_->traits();
    s.backend = solver_->backend();
    s.running = running_;
    s.realtime = realtime_;
    s.steps_per_frame = steps_per_frame_;
    s.steps = solver_->step_count();
    s.time = solver_->time();
    s.next_stage = solver_->next_stage();
    s.stages = solver_->stages();
    s.fields = solver_->fields();
    s.has_cells = solver_->has_cell_grid();
    s.hand_tools = solver_->hand_tools();
    s.rewind_steps = safety_.kept();
    s.stage_ms = solver_->stage_ms();
    s.step_ms = solver_->step_ms();
    s.stats = solver_->stats();
    s.comparisons = compared_;
    s.params = nlohmann::json::object();
    for (const auto& p : solver_->params().all()) s.params[p->name()] = p->to_json();
    s.param_meta = meta_;
    s.reset_pending = solver_->params().reset_pending();
}

SimStatus SimulationHost::status() const {
    std::lock_guard lock(mutex_);
    SimStatus s = status_;
    s.running = running_;
    s.realtime = realtime_;
    s.steps_per_frame = steps_per_frame_;
    return s;
}

StatsHistory SimulationHost::history() const {
    std::lock_guard lock(mutex_);
    return history_;
}

bool SimulationHost::take_frame(FrameData& out) const {
    return frames_.take(out);
}

}  // namespace fs
