// The ThreadGovernor (core/thread_governor.hpp): it steps at the count measured fastest, notices
// when the machine changes, and spends few steps probing. Pure arithmetic: step times are fed in.
#include <gtest/gtest.h>

#include <functional>
#include <map>

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

}  // namespace
