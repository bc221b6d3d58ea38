// The Euler solver on CUDA against the CPU backend (skipped without a usable GPU).
#include <gtest/gtest.h>

#include <algorithm>

#include "core/backend.hpp"
#include "solvers/euler/euler_solver.hpp"

namespace {

using fs::euler::EulerSolver;

#define FS_REQUIRE_GPU()                                                                  \
    if (!fs::cuda_status().usable) GTEST_SKIP() << "no usable CUDA GPU (" << fs::cuda_status().reason \
                                                << "); CUDA parity not checked"

void configure(EulerSolver& s) {
    s.params().at("n_particles").set_text("20000");
    s.params().at("collision_distance").set_text("0.005");
    s.params().at("mass_variation").set_text("0.5");
    s.params().at("seed").set_text("12");
    s.reset();
}

TEST(EulerCuda, SamePairsAndPartnersAsTheCpu) {
    FS_REQUIRE_GPU();
    for (const char* detector : {"grid", "brute_force"}) {
        EulerSolver cpu(fs::Backend::Cpu), gpu(fs::Backend::Cuda);
        configure(cpu);
        configure(gpu);
        cpu.params().at("detector").set_text(detector);
        gpu.params().at("detector").set_text(detector);
        EXPECT_EQ(cpu.candidate_pairs(), gpu.candidate_pairs()) << detector;
        for (int k = 0; k < 3; ++k) {
            cpu.advance_stage();
            gpu.advance_stage();
        }
        EXPECT_EQ(cpu.partners(), gpu.partners()) << detector;
    }
}

// The parity contract (docs/gpu.md, "The parity contract"): from
// the same state, one step agrees to what rounding explains; chaotic collisions amplify those
// last bits, so a longer run is compared by what the solver conserves and by averages, never
// particle by particle. In lockstep each step starts both backends from the same host arrays.
struct Lockstep {
    double worst_pos = 0, worst_vel = 0;
    bool counts_equal = true;
};

Lockstep lockstep(EulerSolver& cpu, EulerSolver& gpu, int steps, const char* count_stat) {
    Lockstep r;
    for (int k = 0; k < steps; ++k) {
        const auto start = cpu.state();
        cpu.set_state(start);
        gpu.set_state(start);
        cpu.step();
        gpu.step();
        const auto a = cpu.state(), b = gpu.state();
        EXPECT_EQ(a.pos.size(), b.pos.size());
        for (std::size_t i = 0; i < a.pos.size() && i < b.pos.size(); ++i) {
            r.worst_pos = std::max(r.worst_pos, glm::length(a.pos[i] - b.pos[i]));
            r.worst_vel = std::max(r.worst_vel, glm::length(a.vel[i] - b.vel[i]));
        }
        r.counts_equal = r.counts_equal && cpu.stats().get(count_stat) == gpu.stats().get(count_stat);
    }
    return r;
}

TEST(EulerCuda, EachStepFromTheSameStateAgreesToRounding) {
    FS_REQUIRE_GPU();
    EulerSolver cpu(fs::Backend::Cpu), gpu(fs::Backend::Cuda);
    configure(cpu);
    configure(gpu);
    // Hundreds of collisions a step among 20 000 disks; a collision decided differently would
    // move its two disks by about their speed times a step, far above rounding.
    const Lockstep r = lockstep(cpu, gpu, 20, "pair_tests");
    EXPECT_LT(r.worst_pos, 1e-12);
    EXPECT_LT(r.worst_vel, 1e-9);
    EXPECT_TRUE(r.counts_equal);
    EXPECT_GT(cpu.stats().get("collisions"), 100);
}

TEST(EulerCuda, ALongRunKeepsTheEnergyAndTheCollisionRateOfTheCpu) {
    FS_REQUIRE_GPU();
    EulerSolver cpu(fs::Backend::Cpu), gpu(fs::Backend::Cuda);
    for (EulerSolver* s : {&cpu, &gpu}) {  // an elastic gas without gravity or damping walls
        s->params().at("gravity").set_text("0");
        s->params().at("restitution").set_text("1");
        s->params().at("boundary").set_text("periodic");
        configure(*s);
    }
    const double e0 = cpu.stats().get("kinetic_energy");
    double collisions[2] = {0, 0};
    for (int k = 0; k < 300; ++k) {
        cpu.step();
        gpu.step();
        collisions[0] += cpu.stats().get("collisions");
        collisions[1] += gpu.stats().get("collisions");
    }
    // Elastic collisions in a periodic box keep the energy on both backends, whatever the
    // trajectory.
    EXPECT_NEAR(cpu.stats().get("kinetic_energy"), e0, 1e-9 * e0);
    EXPECT_NEAR(gpu.stats().get("kinetic_energy"), e0, 1e-9 * e0);
    // The collision rate is a property of the gas (density, speeds), not of one trajectory:
    // with N collisions counted, two trajectories' totals differ by about sqrt(N), a few per
    // mille of N at the 1e4 and more asked for here.
    EXPECT_GT(collisions[0], 1e4);
    EXPECT_NEAR(collisions[1], collisions[0], 0.02 * collisions[0]);
}

TEST(EulerCuda, SoftContactPileStepsAgreeToRounding) {
    // Soft contact: the same sub-steps, the same fixed-point force sums (exact on both), so from
    // the same state a step differs only by the rounding of sqrt and fused multiply-adds.
    FS_REQUIRE_GPU();
    EulerSolver cpu(fs::Backend::Cpu), gpu(fs::Backend::Cuda);
    for (EulerSolver* s : {&cpu, &gpu}) {
        s->params().at("n_particles").set_text("3000");
        s->params().at("collision_distance").set_text("0.01");
        s->params().at("tau").set_text("0.002");
        s->params().at("contact").set_text("soft");
        s->params().at("restitution").set_text("0.9");
        s->reset();
    }
    for (int k = 0; k < 60; ++k) cpu.step();  // into the pile: many contacts at once
    const Lockstep r = lockstep(cpu, gpu, 20, "contacts");
    EXPECT_LT(r.worst_pos, 1e-9);
    EXPECT_LT(r.worst_vel, 1e-6);
    EXPECT_TRUE(r.counts_equal);
    EXPECT_GT(cpu.stats().get("contacts"), 100);
}

TEST(EulerCuda, SwitchingBackendsMidRunContinuesTheSameSimulation) {
    FS_REQUIRE_GPU();
    EulerSolver stay(fs::Backend::Cpu), hop(fs::Backend::Cpu);
    configure(stay);
    configure(hop);
    for (int k = 0; k < 5; ++k) {
        stay.step();
        hop.step();
    }
    hop.set_backend(fs::Backend::Cuda);
    EXPECT_EQ(hop.state().pos, stay.state().pos);  // the move itself is exact
    hop.step();
    hop.set_backend(fs::Backend::Cpu);
    stay.step();
    EXPECT_EQ(hop.step_count(), stay.step_count());
    EXPECT_NEAR(hop.stats().get("kinetic_energy"), stay.stats().get("kinetic_energy"),
                1e-9 * stay.stats().get("kinetic_energy"));
}

}  // namespace
