// What the window draws, packed where the solver's state lives (core/frame_pack.hpp): on the CPU
// the packed floats equal the host copies read_field gives, field by field, for every solver
// that shows its fields as views; the colour range is the range of the finite values; boundary
// particles are NaN. The CUDA path runs the same kernel bodies into device memory (and on to
// OpenGL through interop): with a GPU, its packed floats equal the CPU's for the same state.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/buffer.hpp"
#include "core/frame_pack.hpp"
#include "core/memory.hpp"
#include "io/scene.hpp"
#include "solvers/solvers.hpp"

namespace {

std::unique_ptr<fs::Solver> open(const std::string& name, fs::Backend backend = fs::Backend::Cpu) {
    const fs::Scene scene = fs::load_scene(std::string(FS_SOURCE_DIR) + "/scenes/" + name + ".json", fs::solver_names());
    auto solver = fs::find_solver_kind(scene.solver)->make(backend);
    fs::apply_scene_params(*solver, scene, {});
    fs::reset_solver(*solver, scene, {});
    for (int k = 0; k < 5; ++k) solver->step();
    return solver;
}

// The floats the window would get from read_field: xyz, or a scalar (a vector's length).
std::vector<float> from_host(const fs::Solver& s, const std::string& field, bool as_xyz) {
    int components = 1;
    for (const auto& f : s.fields())
        if (f.name == field) components = f.components;
    std::vector<double> buf;
    s.read_field(field, buf);
    const std::size_t n = static_cast<std::size_t>(s.particle_count());
    std::vector<float> out;
    for (std::size_t i = 0; i < n; ++i) {
        if (as_xyz) {
            for (int c = 0; c < 3; ++c) out.push_back(c < components ? static_cast<float>(buf[i * components + c]) : 0.0f);
        } else {
            double v = 0.0;
            if (components == 1) {
                v = buf[i];
            } else {
                for (int c = 0; c < components; ++c) v += buf[i * components + c] * buf[i * components + c];
                v = std::sqrt(v);
            }
            out.push_back(static_cast<float>(v));
        }
    }
    return out;
}

class FramePack : public testing::TestWithParam<const char*> {};

TEST_P(FramePack, EqualsTheHostCopiesFieldByField) {
    auto solver = open(GetParam());
    const int n = solver->particle_count();
    ASSERT_GT(n, 0);
    const auto position = solver->field_view("position");
    ASSERT_TRUE(position) << "the window would fall back to host copies";
    std::vector<float> xyz(3 * static_cast<std::size_t>(n));
    fs::pack_positions(fs::Backend::Cpu, *position, xyz.data());
    EXPECT_EQ(xyz, from_host(*solver, "position", true));

    int viewed = 0;
    for (const auto& f : solver->fields()) {
        const auto view = solver->field_view(f.name);
        if (!view) continue;
        ++viewed;
        std::vector<float> packed(static_cast<std::size_t>(n));
        const fs::ScalarRange r = fs::pack_scalar(fs::Backend::Cpu, *view, nullptr, packed.data());
        const std::vector<float> expected = from_host(*solver, f.name, false);
        EXPECT_EQ(packed, expected) << f.name;
        float lo = std::numeric_limits<float>::infinity(), hi = -lo;
        for (float v : expected) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        EXPECT_EQ(r.lo, lo) << f.name;
        EXPECT_EQ(r.hi, hi) << f.name;
    }
    EXPECT_EQ(viewed, static_cast<int>(solver->fields().size())) << "every field of " << GetParam() << " has a view";
}

INSTANTIATE_TEST_SUITE_P(Solvers, FramePack, testing::Values("euler_tutorial", "sph_barrier", "flip_dam_break"));

TEST(FramePackKind, BoundaryParticlesAreNaNAndLeftOutOfTheRange) {
    auto solver = open("sph_barrier");
    const int n = solver->particle_count();
    const auto pressure = solver->field_view("pressure");
    const auto kind = solver->field_view("kind");
    ASSERT_TRUE(pressure && kind);
    std::vector<float> packed(static_cast<std::size_t>(n));
    const fs::ScalarRange r = fs::pack_scalar(fs::Backend::Cpu, *pressure, &*kind, packed.data());
    std::vector<double> kinds;
    solver->read_field("kind", kinds);
    const std::vector<float> expected = from_host(*solver, "pressure", false);
    int boundary = 0;
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    for (int i = 0; i < n; ++i) {
        if (kinds[static_cast<std::size_t>(i)] != 0.0) {
            ++boundary;
            EXPECT_TRUE(std::isnan(packed[static_cast<std::size_t>(i)])) << i;
        } else {
            EXPECT_EQ(packed[static_cast<std::size_t>(i)], expected[static_cast<std::size_t>(i)]) << i;
            lo = std::min(lo, expected[static_cast<std::size_t>(i)]);
            hi = std::max(hi, expected[static_cast<std::size_t>(i)]);
        }
    }
    EXPECT_GT(boundary, 0);
    EXPECT_LT(boundary, n);
    EXPECT_EQ(r.lo, lo);
    EXPECT_EQ(r.hi, hi);
}

TEST(FramePackCuda, PacksOnTheGpuAsOnTheCpu) {
    if (!fs::cuda_status().usable) GTEST_SKIP() << "no usable CUDA GPU: " << fs::cuda_status().reason;
    auto solver = open("sph_barrier", fs::Backend::Cuda);
    const int n = solver->particle_count();
    const auto position = solver->field_view("position");
    const auto speed = solver->field_view("speed");
    const auto kind = solver->field_view("kind");
    ASSERT_TRUE(position && speed && kind);
    fs::Buffer<float> xyz(fs::MemorySpace::Device, 3 * static_cast<std::size_t>(n));
    fs::Buffer<float> scalar(fs::MemorySpace::Device, static_cast<std::size_t>(n));
    fs::pack_positions(fs::Backend::Cuda, *position, xyz.data());
    const fs::ScalarRange r = fs::pack_scalar(fs::Backend::Cuda, *speed, &*kind, scalar.data());
    std::vector<float> host_xyz(xyz.size()), host_scalar(scalar.size());
    fs::mem_copy(host_xyz.data(), fs::MemorySpace::Host, xyz.data(), fs::MemorySpace::Device, xyz.bytes());
    fs::mem_copy(host_scalar.data(), fs::MemorySpace::Host, scalar.data(), fs::MemorySpace::Device, scalar.bytes());
    EXPECT_EQ(host_xyz, from_host(*solver, "position", true));
    // The same state moved to the CPU packs to the same floats.
    solver->set_backend(fs::Backend::Cpu);
    std::vector<float> cpu_scalar(static_cast<std::size_t>(n));
    const auto cpu_kind = solver->field_view("kind");
    const fs::ScalarRange rc =
        fs::pack_scalar(fs::Backend::Cpu, *solver->field_view("speed"), &*cpu_kind, cpu_scalar.data());
    for (int i = 0; i < n; ++i) {
        const float a = host_scalar[static_cast<std::size_t>(i)], b = cpu_scalar[static_cast<std::size_t>(i)];
        EXPECT_TRUE((std::isnan(a) && std::isnan(b)) || a == b) << i;
    }
    EXPECT_EQ(r.lo, rc.lo);
    EXPECT_EQ(r.hi, rc.hi);
}

}  // namespace
