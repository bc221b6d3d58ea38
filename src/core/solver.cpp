#include "core/solver.hpp"

#include "core/memory.hpp"

#include <chrono>
#include <string>
#include <numeric>
#include <stdexcept>

namespace fs {

namespace {
double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

void Solver::write_field(std::string_view name, const std::vector<double>& /*values*/) {
    const std::vector<std::string> allowed = writable_fields();
    throw std::invalid_argument("the " + std::string(kind()) + " solver's field '" + std::string(name) +
                                "' cannot be set (settable: " + (allowed.empty() ? "none" : join(allowed)) + ")");
}

void Solver::reset() {
    check_params();
    hand_ = Hand{};
    do_reset();
    params_.clear_reset_pending();
    next_stage_ = 0;
    time_ = 0.0;
    steps_ = 0;
    stage_ms_.assign(stages().size(), 0.0);
    pending_ms_.assign(stages().size(), 0.0);
    step_ms_ = 0.0;
    Stats s;
    initial_stats(s);
    set_stats(s, 0.0);
}

bool Solver::advance_stage() {
    const int n = static_cast<int>(stages().size());
    if (static_cast<int>(pending_ms_.size()) != n) pending_ms_.assign(stages().size(), 0.0);
    // The step's CPU threads: all of them, or fewer where its governor measured fewer faster (a
    // busy machine). One count serves every stage of a step. Stages at different counts (tried:
    // a governor a stage) let the team's idle thread, still spinning after a 2-thread stage,
    // take the CPU from the next 1-thread stage on a loaded machine; each stage's governor saw
    // only its own time and missed that cost, and the SPH step on 2 governed threads ran 1.5x
    // slower than on 1 (docs/benchmarks.md).
    const bool cpu = backend_ == Backend::Cpu;
    const bool governed = cpu && governed_threads();
    if (next_stage_ == 0) threads_ = !cpu ? 0 : governed ? governor_.begin_step(cpu_threads()) : cpu_threads();
    if (cpu) set_loop_threads(threads_);
    const auto t0 = std::chrono::steady_clock::now();
    try {
        run_stage(next_stage_);
        synchronize();
    } catch (const CudaError& e) {
        // A GPU failure names the stage it surfaced in (with FS_CUDA_SYNC=1 that is the stage
        // whose kernel failed, and the message names the launch's source line too).
        throw CudaError(std::string(e.what()) + " (stage '" + stages()[static_cast<std::size_t>(next_stage_)].name +
                        "')");
    }
    pending_ms_[next_stage_] = ms_since(t0);
    if (++next_stage_ < n) return false;

    next_stage_ = 0;
    Stats s;
    const auto t_stats = std::chrono::steady_clock::now();
    const double dt = finish_step(s);
    const double stats_ms = ms_since(t_stats);
    time_ += dt;
    ++steps_;
    stage_ms_ = pending_ms_;
    step_ms_ = std::accumulate(stage_ms_.begin(), stage_ms_.end(), stats_ms);
    step_threads_ = threads_;
    if (governed) governor_.end_step(step_ms_);
    set_stats(s, dt);
    return true;
}

// The common stats lead, in the order of the headless contract.
void Solver::set_stats(const Stats& own, double dt) {
    stats_.clear();
    stats_.set_count("step", steps_);
    stats_.set("t", time_);
    stats_.set("dt", dt);
    stats_.set_count("n_particles", particle_count());
    for (const auto& st : own.items()) stats_.put(st);
    stats_.set("step_ms", step_ms_);
}

void Solver::step() {
    while (!advance_stage()) {
    }
}

Solver::Checkpoint Solver::checkpoint() const {
    Checkpoint c;
    save_state(c.state);
    c.time = time_;
    c.steps = steps_;
    c.stats = stats_;
    return c;
}

void Solver::restore(const Checkpoint& c) {
    load_state(c.state);
    time_ = c.time;
    steps_ = c.steps;
    stats_ = c.stats;
    next_stage_ = 0;
}

void Solver::set_backend(Backend b) {
    if (b == backend_) return;
    // Stages leave derived data (a sorted grid, a pressure field) for the next stage; rather
    // than move that too, a step in progress is finished first.
    if (next_stage_ != 0) step();
    move_to(b);
    backend_ = b;
}

}  // namespace fs
