// The ThreadGovernor (core/thread_governor.hpp): it steps at the count measured fastest, notices
// when the machine changes, and spends few steps probing. Pure arithmetic: step times are fed in.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <map>
#include <thread>

#include "core/backend.hpp"
#include "core/solver.hpp"
#include "core/thread_governor.hpp"

namespace {

using fs::ThreadGovernor;

// Runs `steps` steps with `cost(threads)` ms each; returns how many ran at each count.
std::map<int, int> run(ThreadGovernor& g, int most, int steps, const std::function<double(int)>& cost) {
    std::map<int, int> used;
    for (int k = 0; k < steps; ++k) {
        const int t = g.begin_step(most);
        ++used[t];
        g.end_step(cost(t));
    }
    return used;
}

TEST(ThreadGovernor, AnIdleMachineStepsOnEveryCoreAndProbesRarely) {
    ThreadGovernor g;
    // 2 threads 1.8x faster (the SPH dam break idle: 13.5 against 24.3 ms).
    const auto used = run(g, 2, 1000, [](int t) { return t == 2 ? 13.5 : 24.3; });
    EXPECT_GT(used.at(2), 960);
    // One probe at 1 thread every 32 x 1.8 steps, plus the first measurement.
    EXPECT_LE(used.at(1), 1 + 1000 / 57 + 1);
    EXPECT_GE(used.at(1), 1000 / 58 - 1);  // and it keeps looking
}

TEST(ThreadGovernor, ABusyMachineStepsOnOneThreadAndProbesTheSlowCountSeldom) {
    ThreadGovernor g;
    // Under a busy loop per core, pinned 2 threads took 140 ms against 25 on 1 (SPH dam break).
    const auto used = run(g, 2, 1000, [](int t) { return t == 2 ? 140.0 : 25.0; });
    EXPECT_GT(used.at(1), 980);
    // The probe of 2 threads comes every 32 x 5.6 = 179 steps: the governed run costs
    // 1 + 4.6 / 179 of the 1-thread run, under 3%.
    EXPECT_LE(used.at(2), 3 + 1000 / 179 + 1);
}

TEST(ThreadGovernor, FollowsTheMachineWhenTheLoadComesAndGoes) {
    ThreadGovernor g;
    bool busy = false;
    auto cost = [&](int t) { return busy ? (t == 2 ? 140.0 : 25.0) : (t == 2 ? 13.5 : 24.3); };
    run(g, 2, 200, cost);
    EXPECT_EQ(g.threads(), 2);
    busy = true;
    // Within one probe gap of the idle machine (32 x 1.8 steps) and the few steps the running
    // mean takes to cross, it has moved to 1 thread.
    run(g, 2, 70, cost);
    const auto busy_used = run(g, 2, 300, cost);
    EXPECT_GT(busy_used.at(1), 295);
    busy = false;
    // Back to idle: found at the next probe of 2 threads (32 x 5.6 = 179 steps away at most).
    run(g, 2, 200, cost);
    const auto idle_used = run(g, 2, 100, cost);
    EXPECT_GT(idle_used.at(2), 90);
}

TEST(ThreadGovernor, OneThreadOrAWiderMachine) {
    ThreadGovernor one;
    EXPECT_EQ(run(one, 1, 50, [](int) { return 1.0; }).size(), 1u);
    // 16 cores: the candidates are 16, 8, 4, 2 and 1; a machine where 4 is fastest settles there.
    ThreadGovernor g;
    run(g, 16, 20, [](int t) { return t == 4 ? 10.0 : 30.0; });
    ASSERT_EQ(g.candidates().size(), 5u);
    const auto used = run(g, 16, 500, [](int t) { return t == 4 ? 10.0 : 30.0; });
    EXPECT_GT(used.at(4), 440);
}

// A solver whose stages only wait, as long as a busy machine made the SPH step's stages take when
// their thread counts differed (docs/benchmarks.md): the first stage is faster on
// 2 threads; the second is fast on 1 thread after a 1-thread stage, slow on 2, and slowest on 1
// right after a 2-thread stage (the team's idle thread still spinning on its core). A governor a
// stage chose 2 then 1 (40 ms a step), then settled on 2 for both (30 ms), against 6 ms a step on
// 1 thread throughout.
class WaitingSolver : public fs::Solver {
public:
    WaitingSolver() : fs::Solver(fs::Backend::Cpu) {}
    std::string_view kind() const override { return "waiting"; }
    int dimension() const override { return 2; }
    const std::vector<fs::StageInfo>& stages() const override { return stages_; }
    std::vector<fs::FieldInfo> fields() const override { return {}; }
    void read_field(std::string_view, std::vector<double>& out) const override { out.clear(); }
    int particle_count() const override { return 0; }
    double particle_radius() const override { return 0.0; }
    void domain(double lo[3], double hi[3]) const override {
        for (int k = 0; k < 3; ++k) lo[k] = 0.0, hi[k] = 1.0;
    }

    std::vector<std::vector<int>> threads_seen;  // each step's stages' loop_threads()

protected:
    void do_reset() override {}
    void run_stage(int index) override {
        const int t = fs::loop_threads();
        if (index == 0) threads_seen.emplace_back();
        threads_seen.back().push_back(t);
        const int ms = index == 0 ? (t == 2 ? 0 : 4) : t == 2 ? 30 : threads_seen.back()[0] == 2 ? 40 : 2;
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    }
    double finish_step(fs::Stats&) override { return 1.0; }
    void move_to(fs::Backend) override {}
    void save_state(std::vector<char>&) const override {}
    void load_state(const std::vector<char>&) override {}

private:
    std::vector<fs::StageInfo> stages_{{"wide", "test"}, {"narrow", "test"}};
};

TEST(ThreadGovernor, AStepsStagesShareTheCountWhoseWholeStepIsFastest) {
    const int before = fs::cpu_threads();
    fs::set_cpu_threads(2);
    WaitingSolver s;
    s.reset();
    for (int k = 0; k < 60; ++k) s.step();
    fs::set_cpu_threads(before);
    fs::set_loop_threads(0);
    int on_one = 0;
    for (const auto& step : s.threads_seen) {
        ASSERT_EQ(step.size(), 2u);
        EXPECT_EQ(step[0], step[1]) << "the stages of one step ran at different counts";
        on_one += step[0] == 1 ? 1 : 0;
    }
    EXPECT_EQ(s.step_threads(), s.threads_seen.back()[0]);
    // 2 warm-up steps, a measurement and one probe at 2 threads (the first, 32 steps after the
    // measurements; the next 160 later, 2 threads being 5x slower); 1 thread otherwise.
    EXPECT_GE(on_one, 55);
}

}  // namespace
