// ThreadGovernor: how many threads a CPU step uses (every stage of it: Solver::advance_stage),
// chosen by measurement. On an idle machine
// every core helps. On a busy one (a browser, an editor, a build) the OS deschedules some of the
// step's threads, every loop's barrier then waits a time slice for them while the others spin,
// and fewer threads finish sooner: measured on the 2-core machine with a busy loop per core, the
// SPH dam break at 10^5 particles took 140 ms a step on 2 threads against 25 ms on 1, FLIP 64^3
// 891 ms against 205 (docs/benchmarks.md).
//
// The governor keeps a running mean of the step time at each candidate count (all the threads
// allowed, half, ..., 1), steps at the fastest, and every so often takes one step at another
// count, so that it notices when the machine gets busy or idle again. The further the other count
// lies behind, the rarer its probe (32 steps times the ratio, at most 256), so probing costs at
// most 1/32 of the time (3%). A probe's step replaces that count's mean (the machine may have
// changed since); the count in use follows its steps by a running mean. Another count takes over
// only when 10% faster, so the noise of a busy machine does not make the choice flap. Results never depend on the thread count (core/exec_cpu.hpp), so the choice
// changes no bit of the simulation. Pure arithmetic: the caller times the steps (tested exactly).
#pragma once

#include <vector>

namespace fs {

class ThreadGovernor {
public:
    static constexpr int kWarmSteps = 2;     // the first steps allocate: not measured
    static constexpr int kProbeEvery = 32;   // steps between probes when the counts are close
    static constexpr int kLongestGap = 256;  // ... and at most, however far behind the other is
    static constexpr double kMargin = 0.9;   // another count takes over when 10% faster

    // The thread count for the next step, `most` the most allowed (cpu_threads()).
    int begin_step(int most);
    // The step begun last took `ms` milliseconds.
    void end_step(double ms);

    // The counts tried, and their running means (0 until measured); for reports and tests.
    struct Candidate {
        int threads = 1;
        double mean_ms = 0.0;
        int samples = 0;
        long long last_step = -1;  // when it was last measured
    };
    const std::vector<Candidate>& candidates() const { return c_; }
    int threads() const { return c_.empty() ? 0 : c_[static_cast<std::size_t>(current_)].threads; }

private:
    int best() const;

    std::vector<Candidate> c_;
    int most_ = 0;
    int current_ = 0;          // the candidate of the step in progress
    int chosen_ = -1;          // the count stepped at between probes
    long long steps_ = 0;      // steps begun since the candidates were made
    long long next_probe_ = 0;
};

}  // namespace fs
