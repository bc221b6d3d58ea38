// SafetyNet: what lets a session survive a bad step: the states kept before the last steps (Step
// back, and where a failed step returns to), and going on after the GPU failed.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <string>

#include "core/solver.hpp"

namespace fs {

// Lives on the simulation thread. Failures go to `fail`, which reports them and pauses.
class SafetyNet {
public:
    explicit SafetyNet(std::function<void(const std::string&)> fail) : fail_(std::move(fail)) {}

    // Runs a step (or a stage) of `solver`, keeping the state before it when one is due
    // (`running`: the simulation steps on its own). On failure returns the solver to that state,
    // or after a GPU failure keeps it for continue_on_cpu; reports and returns false.
    bool guarded(Solver& solver, bool running, const std::function<void()>& advance);
    // Back to the state before the last step, when one is kept.
    void step_back(Solver& solver);
    void set_depth(int steps);
    void clear();       // forgets the kept states (a reset)
    void start_over();  // a new solver: nothing kept, nothing lost
    int kept() const { return static_cast<int>(rewind_.size()); }

    bool device_lost() const { return device_lost_; }
    // A CUDA call failed: reports it, and from now on the solver's device state is not touched.
    void lose_device(const std::string& what);
    // Refuses a command while the device is lost (reports it); returns whether it refused.
    bool refuse_while_device_lost(const char* command);
    // After losing the device: `solver` built again on the CPU with its current parameters, from
    // the last kept state. Returns the notice saying from where; throws when that fails.
    std::string continue_on_cpu(std::unique_ptr<Solver>& solver, const std::string& kind);

private:
    bool checkpoint_due(const Solver& solver, bool running) const;

    std::function<void(const std::string&)> fail_;
    // The states before the last few steps, oldest first (the last one is where a failed step
    // returns to).
    std::deque<Solver::Checkpoint> rewind_;
    int rewind_depth_ = 8;
    double checkpoint_ms_ = 0.0;  // what the last checkpoint took
    int steps_since_checkpoint_ = 0;
    bool device_lost_ = false;
};

}  // namespace fs
