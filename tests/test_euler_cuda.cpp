// The Euler solver on CUDA against the CPU backend (skipped without a usable GPU).
#include <gtest/gtest.h>

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

TEST(EulerCuda, StatesAgreeWithTheCpuOverSteps) {
    FS_REQUIRE_GPU();
    EulerSolver cpu(fs::Backend::Cpu), gpu(fs::Backend::Cuda);
    configure(cpu);
    configure(gpu);
    for (int k = 0; k < 20; ++k) {
        cpu.step();
        gpu.step();
    }
    const auto a = cpu.state(), b = gpu.state();
    ASSERT_EQ(a.pos.size(), b.pos.size());
    double worst = 0;
    for (std::size_t i = 0; i < a.pos.size(); ++i) {
        worst = std::max(worst, glm::length(a.pos[i] - b.pos[i]));
        ASSERT_TRUE(std::isfinite(b.pos[i].x) && std::isfinite(b.vel[i].x)) << "particle " << i;
    }
    EXPECT_LT(worst, 1e-9);
    EXPECT_NEAR(cpu.stats().get("kinetic_energy"), gpu.stats().get("kinetic_energy"),
                1e-9 * cpu.stats().get("kinetic_energy"));
    EXPECT_EQ(cpu.stats().get("pair_tests"), gpu.stats().get("pair_tests"));
}

TEST(EulerCuda, SoftContactPileAgreesWithTheCpu) {
    // Soft contact: the same sub-steps, the same fixed-point force sums (exact on both), so the
    // two differ only by the rounding of sqrt and fused multiply-adds; a settling pile over
    // 100 steps (1500 sub-steps) stays within a micrometre.
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
    for (int k = 0; k < 100; ++k) {
        cpu.step();
        gpu.step();
    }
    const auto a = cpu.state(), b = gpu.state();
    double worst = 0;
    for (std::size_t i = 0; i < a.pos.size(); ++i) worst = std::max(worst, glm::length(a.pos[i] - b.pos[i]));
    EXPECT_LT(worst, 1e-6);
    EXPECT_NEAR(cpu.stats().get("max_overlap"), gpu.stats().get("max_overlap"), 1e-6);
    EXPECT_EQ(cpu.stats().get("contacts"), gpu.stats().get("contacts"));
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
