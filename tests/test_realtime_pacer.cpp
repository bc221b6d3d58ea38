// Real-time pacing (app/realtime_pacer.hpp), driven by a simulated clock: whatever the machine,
// the same frames and step costs give the same steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "app/realtime_pacer.hpp"

namespace {

// One frame `wall` seconds after the last; each step advances simulated time by dt(k) and costs
// `cost` wall seconds. Returns the number of steps taken and adds simulated time to `time`.
int run_frame(fs::RealTimePacer& pacer, double wall, double cost, const std::function<double(int)>& dt, double& time,
              int& k, double frame_interval = -1.0) {
    pacer.begin_frame(wall, frame_interval);
    double spent = 0.0;
    int steps = 0;
    while (pacer.want_step(spent)) {
        const double h = dt(k++);
        time += h;
        pacer.stepped(h);
        spent += cost;
        ++steps;
    }
    pacer.end_frame(spent);
    return steps;
}

TEST(RealTimePacer, CheapStepsKeepSimulatedTimeLevelWithTheClock) {
    // A fixed step of 5 ms at 60 frames/s, and a CFL-like step that varies between 2 and 9 ms.
    const std::function<double(int)> fixed = [](int) { return 0.005; };
    const std::function<double(int)> varying = [](int k) { return 0.0055 + 0.0035 * std::sin(0.7 * k); };
    for (const auto* dt : {&fixed, &varying}) {
        fs::RealTimePacer pacer;
        double time = 0.0, wall = 0.0, largest_gap = 0.0;
        int k = 0;
        for (int f = 0; f < 600; ++f) {  // 10 s
            wall += 1.0 / 60.0;
            EXPECT_GE(run_frame(pacer, 1.0 / 60.0, 0.0, *dt, time, k), 1) << "frame " << f;
            // Never behind at the end of a frame, never more than one step (at most 9 ms) ahead.
            EXPECT_GE(time, wall - 1e-12) << "frame " << f;
            largest_gap = std::max(largest_gap, time - wall);
        }
        EXPECT_LE(largest_gap, 0.009 + 1e-12);
        EXPECT_NEAR(time, 10.0, 0.009);
    }
}

TEST(RealTimePacer, FrameRatesDoNotChangeTheRateOfSimulatedTime) {
    // 30, 60, 144 and 240 frames/s: at 240 some frames owe less than a step and take none.
    for (const double hz : {30.0, 60.0, 144.0, 240.0}) {
        fs::RealTimePacer pacer;
        double time = 0.0;
        int k = 0, idle_frames = 0;
        const int frames = static_cast<int>(std::lround(5.0 * hz));
        for (int f = 0; f < frames; ++f)
            idle_frames += run_frame(pacer, 1.0 / hz, 0.0, [](int) { return 0.005; }, time, k) == 0;
        EXPECT_NEAR(time, 5.0, 0.005) << hz << " frames/s";
        EXPECT_EQ(idle_frames > 0, hz > 200.0) << hz << " frames/s";
    }
}

TEST(RealTimePacer, SlowStepsRunSteadilySlowerWithABoundedBacklog) {
    // Steps costing 6 ms of a 16.7 ms frame: three fit in the 80% budget, 15 ms of simulated
    // time per frame, 90% of real time, every frame alike. The debt grows by 1.7 ms a frame up
    // to kMostDebt and no further.
    fs::RealTimePacer pacer;
    const double frame = 1.0 / 60.0, most = fs::RealTimePacer::kMostDebt;
    double time = 0.0;
    int k = 0;
    for (int f = 0; f < 300; ++f) {
        const double before = time;
        EXPECT_EQ(run_frame(pacer, frame, 0.006, [](int) { return 0.005; }, time, k), 3) << "frame " << f;
        EXPECT_NEAR(time - before, 0.015, 1e-12);
        EXPECT_NEAR(pacer.owed(), std::min(most, (f + 1) * (frame - 0.015)), 1e-9) << "frame " << f;
    }
    // When the steps get cheap again the debt is repaid at most kCatchUp times the clock's rate
    // (and one step more), never in a burst: 5 steps of 5 ms a frame (25 ms for 16.7), level
    // with the clock again within 0.25 / (25 - 16.7 ms) = 30 frames.
    int frames = 0;
    while (pacer.owed() > 0.0) {
        const double before = time;
        run_frame(pacer, frame, 0.0, [](int) { return 0.005; }, time, k);
        EXPECT_LE(time - before, fs::RealTimePacer::kCatchUp * frame + 0.005 + 1e-12);
        ASSERT_LT(++frames, 40);
    }
    EXPECT_EQ(frames, 30);
    for (int f = 0; f < 10; ++f) {
        const int steps = run_frame(pacer, frame, 0.0, [](int) { return 0.005; }, time, k);
        EXPECT_GE(steps, 3);
        EXPECT_LE(steps, 4);
    }
}

TEST(RealTimePacer, ASlowFrameAmongFastOnesIsMadeGood) {
    // Steps of 5 ms simulated time costing 2 ms, but every tenth frame's first step costs 40 ms
    // (a rebuild, a heap forming): that frame takes one step and owes the rest. The frames after
    // it repay the debt, so over 10 s simulated time stays level with the clock, within a step,
    // where forgiving each slow frame's debt would lose 11.7 ms every tenth frame (7%).
    fs::RealTimePacer pacer;
    pacer.set_share(fs::RealTimePacer::kOwnCores);
    const double frame = 1.0 / 60.0;
    double time = 0.0;
    for (int f = 0; f < 600; ++f) {
        pacer.begin_frame(frame);
        double spent = 0.0;
        while (pacer.want_step(spent)) {
            spent += f % 10 == 0 && spent == 0.0 ? 0.040 : 0.002;
            time += 0.005;
            pacer.stepped(0.005);
        }
        pacer.end_frame(spent);
    }
    EXPECT_NEAR(time, 10.0, 0.005 + 0.0117);  // within a step, and the last slow frame's debt
}

TEST(RealTimePacer, AStepLongerThanAFrameStillTakesOneStepPerFrame) {
    fs::RealTimePacer pacer;
    double time = 0.0;
    int k = 0;
    for (int f = 0; f < 10; ++f)
        EXPECT_EQ(run_frame(pacer, 1.0 / 60.0, 0.050, [](int) { return 0.005; }, time, k), 1);
    EXPECT_NEAR(time, 0.05, 1e-12);
}

// The browser's steps share the page's frames with the drawing: a step costs what it costs, and
// the frames after one that overran take none until the overrun is repaid, so the steps' time
// stays within the budget on average.
TEST(RealTimePacer, SharedFramesKeepTheBudgetOnAverage) {
    fs::RealTimePacer pacer;
    pacer.set_shared_frames(true);
    double time = 0.0;
    int k = 0;
    const double frame = 1.0 / 60.0, budget = fs::RealTimePacer::kBudget * frame;  // 13.3 ms
    // A 30 ms step (the OT scenes in a browser): one step, then frames without until repaid.
    int steps = 0;
    for (int f = 0; f < 60; ++f) steps += run_frame(pacer, frame, 0.030, [](int) { return 0.002; }, time, k);
    EXPECT_NEAR(steps * 0.030, 60 * budget, 0.030);  // within one step of the budgets' sum
    // One step of 2 s (a scene's first, which settles it): repaid as kMostOverrun at most,
    // 0.25 s, so steps resume within 19 frames of 13.3 ms budgets.
    fs::RealTimePacer slow;
    slow.set_shared_frames(true);
    EXPECT_EQ(run_frame(slow, frame, 2.0, [](int) { return 0.002; }, time, k), 1);
    int idle = 0;
    while (run_frame(slow, frame, 0.001, [](int) { return 0.002; }, time, k) == 0) ++idle;
    EXPECT_EQ(idle, 18);  // 0.25 s / 13.3 ms = 18.75: the 19th frame has budget left
    // 6 ms steps: two fit in 13.3 ms, a third would not.
    fs::RealTimePacer light;
    light.set_shared_frames(true);
    for (int f = 0; f < 10; ++f)
        EXPECT_EQ(run_frame(light, frame, 0.006, [](int) { return 0.001; }, time, k), 2);
}

TEST(RealTimePacer, SkippedFramesAreOwedButTheBudgetStaysOneDisplayFrame) {
    // The worker fell behind by two frames at 60 frames/s: 52 ms are owed. Cheap steps pay all
    // of it at once (ceil(52 / 5) = 11 steps, within kCatchUp's 65 ms); 6 ms steps stop at the
    // budget of one display frame (80% of 16.7 ms), 3 steps, and the rest is still owed.
    const auto dt = [](int) { return 0.005; };
    fs::RealTimePacer cheap, slow;
    double time = 0.0;
    int k = 0;
    EXPECT_EQ(run_frame(cheap, 0.052, 0.0, dt, time, k, 1.0 / 60.0), 11);
    EXPECT_EQ(run_frame(slow, 0.052, 0.006, dt, time, k, 1.0 / 60.0), 3);
    EXPECT_NEAR(slow.owed(), 0.052 - 0.015, 1e-12);
}

TEST(RealTimePacer, ASimulationWithCoresOfItsOwnMayFillTheWholeFrame) {
    // Steps of 5 ms at 60 frames/s. A step starts while the frame's steps have spent no more than
    // the budget: 80% of the frame (13.3 ms) by default, all of it (16.7 ms) with cores of its own.
    const auto dt = [](int) { return 0.005; };
    const double frame = 1.0 / 60.0;
    for (const double cost : {0.0055, 0.007}) {
        fs::RealTimePacer shared, own;
        own.set_share(fs::RealTimePacer::kOwnCores);
        EXPECT_DOUBLE_EQ(shared.share(), fs::RealTimePacer::kBudget);
        double time_shared = 0.0, time_own = 0.0;
        int k = 0, steps_shared = 0, steps_own = 0;
        for (int f = 0; f < 60; ++f) {
            steps_shared += run_frame(shared, frame, cost, dt, time_shared, k);
            steps_own += run_frame(own, frame, cost, dt, time_own, k);
            EXPECT_LE(own.owed(), fs::RealTimePacer::kMostDebt) << cost;  // a bounded backlog
        }
        if (cost == 0.0055) {
            // Default: steps at 0, 5.5 and 11 ms, 3 a frame (0.9x real time). The whole frame
            // fits a fourth where time is owed: level with the clock, within a step.
            EXPECT_EQ(steps_shared, 180);
            EXPECT_NEAR(time_own, 60 * frame, 0.005);
        } else {
            // Default: steps at 0 and 7 ms (14 > 13.3), 2 a frame (0.6x); the whole frame: at
            // 0, 7 and 14 ms, 3 (0.9x).
            EXPECT_EQ(steps_shared, 120);
            EXPECT_EQ(steps_own, 180);
        }
    }
}

TEST(RealTimePacer, AStalledWindowCreditsAtMostTheLongestFrame) {
    // The window was dragged for 5 s: the simulation does not try to run 5 s at once.
    fs::RealTimePacer pacer;
    double time = 0.0;
    int k = 0;
    const int steps = run_frame(pacer, 5.0, 0.0, [](int) { return 0.003; }, time, k);
    EXPECT_EQ(steps, 34);  // ceil(0.1 / 0.003)
    EXPECT_LE(time, fs::RealTimePacer::kLongestFrame + 0.003);
}

TEST(RealTimePacer, AnInterruptedFrameCarriesItsDebtAndRestartForgetsIt) {
    fs::RealTimePacer pacer;
    pacer.begin_frame(1.0 / 60.0);
    ASSERT_TRUE(pacer.want_step(0.0));
    pacer.stepped(0.005);
    pacer.end_frame(0.001);  // a command stopped the steps well within the budget
    EXPECT_NEAR(pacer.owed(), 1.0 / 60.0 - 0.005, 1e-15);
    pacer.begin_frame(1.0 / 60.0);
    EXPECT_NEAR(pacer.owed(), 2.0 / 60.0 - 0.005, 1e-15);
    pacer.restart();
    EXPECT_EQ(pacer.owed(), 0.0);
    EXPECT_FALSE(pacer.want_step(0.0));
}

}  // namespace

// ---- The Stats panel's plot ranges and the colour range's floor (app/plot_scale) -------------

#include "app/plot_scale.hpp"
#include "io/scene.hpp"
#include "solvers/solvers.hpp"

TEST(PlotScale, NoiseOnAConstantStaysAFlatLine) {
    // fluid_volume changing in its fourth digit: the range is at least 2% of the mean, so
    // 0.3% of noise spans less than a sixth of the plot.
    std::vector<float> volume;
    for (int k = 0; k < 100; ++k) volume.push_back(0.0625f * (1.0f + 0.0015f * ((k % 7) - 3) / 3.0f));
    const auto [lo, hi] = fs::plot_range(volume, fs::plot_scale("fluid_volume"));
    const auto [vlo, vhi] = std::minmax_element(volume.begin(), volume.end());
    EXPECT_LT((*vhi - *vlo) / (hi - lo), 1.0 / 6.0);
    EXPECT_LE(lo, *vlo);
    EXPECT_GE(hi, *vhi);
    // A kinetic energy of 1e-16 J at rest: the floor of 1e-9 J, from zero.
    const std::vector<float> ke(50, 7e-16f);
    const auto [klo, khi] = fs::plot_range(ke, fs::plot_scale("kinetic_energy"));
    EXPECT_EQ(klo, 0.0);
    EXPECT_GE(khi - klo, 1e-9);
    // A quantity that really changes keeps its own range.
    const std::vector<float> rising = {0.0f, 10.0f, 20.0f, 30.0f};
    const auto [rlo, rhi] = fs::plot_range(rising, fs::plot_scale("kinetic_energy"));
    EXPECT_EQ(rlo, 0.0);
    EXPECT_EQ(rhi, 30.0);
}

TEST(PlotScale, EveryReportedStatHasItsScaleAndUnit) {
    // Every scalar stat of each solver (a scene of each, every SPH pressure solver, coarsened, two
    // steps) has a floor from the common table or the solver's traits, so no plot rescales
    // round-off to fill itself.
    const std::pair<const char*, std::vector<std::string>> scenes[] = {
        {"default", {"n_particles=300"}},
        {"sph_barrier", {"spacing=0.04"}},
        {"sph_barrier", {"spacing=0.04", "pressure_solver=dfsph", "viscosity_solver=implicit"}},
        {"sph_barrier", {"spacing=0.04", "pressure_solver=iisph"}},
        {"flip_dam_break", {"resolution=12"}},
        {"ot_rayleigh_taylor", {"resolution=12"}},
        {"vortex_plate_flames", {"tracers=100"}}};
    for (const auto& [name, sets] : scenes) {
        const fs::Scene scene = fs::load_scene(std::string(FS_SOURCE_DIR) + "/scenes/" + name + ".json", fs::solver_names());
        auto solver = fs::find_solver_kind(scene.solver)->make(fs::Backend::Cpu);
        fs::apply_scene_params(*solver, scene, sets);
        solver->reset();
        solver->step();
        solver->step();
        const auto own = solver->traits().stat_scales;
        for (const fs::Stat& st : solver->stats().items()) {
            if (st.is_vector || st.name == "step" || st.name == "t") continue;
            const fs::PlotScale scale = fs::plot_scale(st.name, own);
            EXPECT_TRUE(scale.floor > 0) << name << ": " << st.name;
            EXPECT_EQ(scale.count, st.is_count) << name << ": " << st.name;
        }
    }
    EXPECT_EQ(fs::plot_scale("max_speed").unit, "m/s");
    EXPECT_EQ(fs::plot_scale("collisions").floor, 0.0);  // a solver's own: unknown without its traits
    const auto vortex = fs::find_solver_kind("vortex")->make(fs::Backend::Cpu)->traits().stat_scales;
    EXPECT_EQ(fs::plot_scale("body3_heat", vortex).unit, "J");
}

TEST(PlotScale, StillWaterIsDrawnInTheLowColour) {
    // Speeds of round-off (1e-9 to 1e-7 m/s) against the 0.01 m/s floor: all in the lowest
    // hundredth of the map.
    const double floor = fs::colour_range_floor("m/s");
    EXPECT_EQ(floor, 0.01);
    EXPECT_LT((1.08e-7 - 1.35e-9) / floor, 0.01);
    EXPECT_EQ(fs::colour_range_floor("Pa"), 1.0);
    EXPECT_EQ(fs::colour_range_floor(""), 0.0) << "ids and kinds keep their own range";
}

TEST(PlotScale, RunningMedianIgnoresOneSlowStep) {
    std::vector<double> ms(30, 0.014);
    ms.push_back(20.0);  // one step descheduled on a busy machine
    EXPECT_DOUBLE_EQ(fs::running_median(ms, 31), 0.014);
}
