// SafetyNet: checkpoints before steps and how often to take them, returning to them (a failed
// step, Step back), and the way on after losing the GPU (Continue on CPU).
#include "app/safety_net.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/memory.hpp"
#include "solvers/solvers.hpp"

namespace fs {

void SafetyNet::clear() {
    rewind_.clear();
}

void SafetyNet::start_over() {
    rewind_.clear();
    device_lost_ = false;
}

void SafetyNet::set_depth(int steps) {
    rewind_depth_ = std::max(0, steps);
    while (static_cast<int>(rewind_.size()) > rewind_depth_) rewind_.pop_front();
}

void SafetyNet::step_back(Solver& solver) {
    if (rewind_.empty() || refuse_while_device_lost("Step back")) return;
    solver.restore(rewind_.back());
    rewind_.pop_back();
}

void SafetyNet::lose_device(const std::string& what) {
    device_lost_ = true;
    std::string message = "CUDA: " + what + "; the state on the GPU is lost. ";
    if (rewind_.empty())
        message += "Continue on CPU starts the scene again on the CPU (no earlier state was kept).";
    else
        message += "Continue on CPU goes on from step " + std::to_string(rewind_.back().steps) +
                   ", the last good state.";
    fail_(message);
}

bool SafetyNet::refuse_while_device_lost(const char* command) {
    if (!device_lost_) return false;
    fail_(std::string(command) + " needs the simulation's state, which was lost with the GPU: choose Continue "
          "on CPU (or open a scene) first");
    return true;
}

std::string SafetyNet::continue_on_cpu(std::unique_ptr<Solver>& solver, const std::string& kind) {
    // The same solver, built again on the CPU with the current parameters; then the last state
    // kept on the host. Nothing is read back from the GPU.
    auto fresh = find_solver_kind(kind)->make(Backend::Cpu);
    for (const auto& p : solver->params().all())
        if (!p->spec().read_only) fresh->params().at(p->name()).set_json(p->to_json());
    fresh->reset();
    std::string from = "from the start: no earlier state was kept (rewind depth 0)";
    if (!rewind_.empty()) {
        fresh->restore(rewind_.back());
        rewind_.pop_back();
        from = "from step " + std::to_string(fresh->step_count()) + ", the last good state";
    }
    solver = std::move(fresh);  // frees what the old one held on the GPU, errors ignored
    device_lost_ = false;
    return "continued on the CPU " + from;
}

bool SafetyNet::checkpoint_due(const Solver& solver, bool running) const {
    // On the GPU a checkpoint is a download of the whole state (with 4 M FLIP particles about as
    // long as a step). While running there, one is kept every k steps, k chosen so that keeping
    // them costs at most a tenth of the stepping; stepping by hand keeps every one. On the CPU
    // a checkpoint is a copy in memory, and every step keeps one.
    if (solver.backend() != Backend::Cuda || rewind_.empty() || !running) return true;
    const double step = std::max(solver.step_ms(), 1e-3);
    const int every = static_cast<int>(std::clamp(std::ceil(checkpoint_ms_ / (0.1 * step)), 1.0, 1000.0));
    return steps_since_checkpoint_ >= every;
}

bool SafetyNet::guarded(Solver& solver, bool running, const std::function<void()>& advance) {
    if (refuse_while_device_lost("Stepping")) return false;
    // The state before a step: where the window returns when the step fails, and what Step
    // back goes to.
    if (solver.next_stage() == 0 && rewind_depth_ > 0 && checkpoint_due(solver, running)) {
        if (static_cast<int>(rewind_.size()) >= rewind_depth_) rewind_.pop_front();
        const auto t0 = std::chrono::steady_clock::now();
        rewind_.push_back(solver.checkpoint());
        checkpoint_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        steps_since_checkpoint_ = 0;
    }
    ++steps_since_checkpoint_;
    try {
        advance();
        return true;
    } catch (const CudaError& e) {
        // Nothing more is read from or written to the GPU: the checkpoint taken above is the
        // last good state, kept for continue_on_cpu().
        lose_device(std::string(e.what()) + " (in step " + std::to_string(solver.step_count() + 1) + ")");
        return false;
    } catch (const std::exception& e) {
        const bool diverged = dynamic_cast<const SimulationError*>(&e) != nullptr;
        std::string what = (diverged ? "simulation failed: " : "") + std::string(e.what());
        if (!rewind_.empty()) {
            solver.restore(rewind_.back());
            rewind_.pop_back();
            what += "; paused at step " + std::to_string(solver.step_count()) + ", the last good state";
            // What usually cures the solver's blow-up (its traits), for the pause message.
            if (const std::string advice = solver.traits().instability_advice; diverged && !advice.empty())
                what += " (" + advice + ")";
        }
        fail_(what);
        return false;
    }
}

}  // namespace fs
