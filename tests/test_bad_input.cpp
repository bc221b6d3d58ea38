// The bad-input catalogue of issue 7: every file of tests/bad_scenes (and every bad option listed
// beside them in cases.json) makes fluid-sandbox exit with status 2, print nothing on stdout and
// one line on stderr naming the file or option, the key path and what is allowed. Also the good
// inputs next to those edges, and the memory budget that refuses states that would not fit.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/memory_budget.hpp"
#include "core/params.hpp"
#include "io/scene.hpp"
#include "program.hpp"
#include "solvers/solvers.hpp"
#include "solvers/vortex/vortex_solver.hpp"

namespace {

const std::string kDir = std::string(FS_SOURCE_DIR) + "/tests/bad_scenes";

struct Case {
    std::string name, scene, args, env, where, key;
    std::vector<std::string> allowed;
    bool absent = false;
};

std::vector<Case> load_cases() {
    std::ifstream in(kDir + "/cases.json");
    const auto doc = nlohmann::json::parse(in);
    std::vector<Case> out;
    for (const auto& j : doc.at("cases")) {
        Case c;
        c.name = j.at("name");
        c.absent = j.value("absent", false);
        c.scene = j.value("scene", kDir + "/" + c.name + ".json");
        c.args = j.value("args", "");
        c.env = j.value("env", "");
        c.where = j.value("where", c.scene);
        c.key = j.at("key");
        const auto& a = j.at("allowed");
        if (a.is_string())
            c.allowed.push_back(a);
        else
            c.allowed = a.get<std::vector<std::string>>();
        out.push_back(std::move(c));
    }
    return out;
}

struct Output {
    int status = -1;
    std::string out, err;
};

// Runs the program with stdout and stderr apart (program.hpp's helper joins them).
Output run_apart(const std::string& env, const std::string& args) {
    fs_test::TempDir dir("bad-input-stdout");
    const std::string out_file = dir / "stdout";
    const std::string cmd = env + " " + FS_EXE + " " + args + " 2>&1 >'" + out_file + "'";
    Output r;
    std::FILE* p = popen(cmd.c_str(), "r");
    if (!p) return r;
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.err.append(buf, n);
    const int raw = pclose(p);
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    std::stringstream s;
    s << std::ifstream(out_file).rdbuf();
    r.out = s.str();
    return r;
}

class BadInput : public ::testing::TestWithParam<Case> {};

TEST_P(BadInput, ExitsWith2AndOneLineNamingFileKeyAndWhatIsAllowed) {
    const Case& c = GetParam();
    if (c.absent) {
        ASSERT_FALSE(std::filesystem::exists(c.scene)) << c.scene << " must not exist";
    }
    std::string args = "'" + c.scene + "' --headless " + c.args;
    if (c.args.find("--steps") == std::string::npos) args += " --steps 1";
    const Output r = run_apart(c.env, args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(r.out, "") << "bad input prints nothing on stdout";
    ASSERT_FALSE(r.err.empty());
    EXPECT_EQ(fs_test::count_lines(r.err), 1) << r.err;
    EXPECT_EQ(r.err.back(), '\n');
    const std::string line = r.err.substr(0, r.err.size() - 1);
    EXPECT_EQ(fs::one_line(line), line) << "a printable line of UTF-8: " << line;
    EXPECT_EQ(line.rfind("fluid-sandbox: ", 0), 0u) << line;
    EXPECT_NE(line.find(c.where), std::string::npos) << "names " << c.where << ": " << line;
    EXPECT_NE(line.find(c.key), std::string::npos) << "names the key " << c.key << ": " << line;
    for (const std::string& a : c.allowed) EXPECT_NE(line.find(a), std::string::npos) << "says " << a << ": " << line;
}

INSTANTIATE_TEST_SUITE_P(Catalogue, BadInput, ::testing::ValuesIn(load_cases()),
                         [](const auto& info) { return info.param.name; });

// Every file of the folder is a case of the catalogue (a file without one would test nothing).
TEST(BadInputCatalogue, EveryFileHasACase) {
    std::set<std::string> named;
    for (const Case& c : load_cases()) named.insert(c.scene);
    int files = 0;
    for (const auto& f : std::filesystem::directory_iterator(kDir)) {
        if (f.path().filename() == "cases.json") continue;
        ++files;
        EXPECT_TRUE(named.count(f.path().string())) << f.path() << " has no case in cases.json";
    }
    EXPECT_GE(files, 40);
}

// The edges' good side: what the catalogue refuses is refused for a reason, not by accident.
TEST(GoodInput, NonUnitPlaneNormalsAreAcceptedAndNormalised) {
    // A box |x|, |y|, |z| <= 0.5 as planes, once with unit normals and once with each plane
    // multiplied by a different factor: the same body.
    const std::vector<double> unit = {1, 0, 0, 0.5, -1, 0, 0, 0.5, 0, 1, 0, 0.5,
                                      0, -1, 0, 0.5, 0, 0, 1, 0.5, 0, 0, -1, 0.5};
    std::vector<double> scaled = unit;
    for (std::size_t i = 0; i < scaled.size(); ++i) scaled[i] *= 1.0 + static_cast<double>(i / 4);
    auto body = [](const std::vector<double>& planes) {
        auto s = std::make_unique<fs::vortex::VortexSolver>();
        s->params().at("ring_circulation").set(1.0);
        s->params().at("body1_shape").set(std::string("planes"));
        s->params().at("body1_planes").set(planes);
        s->params().at("body1_position").set(std::vector<double>{0, 3, 0});
        s->reset();
        return s;
    };
    const auto a = body(unit), b = body(scaled);
    const fs::vortex::Polytope& pa = a->bodies()[0].poly;
    const fs::vortex::Polytope& pb = b->bodies()[0].poly;
    ASSERT_EQ(pa.count, 6);
    ASSERT_EQ(pb.count, 6);
    for (int i = 0; i < pb.count; ++i) {
        EXPECT_NEAR(glm::length(pb.planes[i].n), 1.0, 1e-15) << i;
        EXPECT_NEAR(pb.planes[i].d, 0.5, 1e-15) << i;
        EXPECT_NEAR(glm::length(pb.planes[i].n - pa.planes[i].n), 0.0, 1e-15) << i;
    }
    EXPECT_NEAR(a->bodies()[0].volume, 1.0, 1e-12);
    EXPECT_NEAR(b->bodies()[0].volume, 1.0, 1e-12);
}

TEST(GoodInput, AFluidBlockPartlyOutsideTheBoxIsClippedToIt) {
    const auto r = fs_test::run_program("sph_dam_break --headless --steps 1 --set fluid_box=-1,-1,0.3,0.3");
    EXPECT_EQ(r.status, 0) << r.output;
}

// Issue 20: a value in range whose steps would never finish is refused before any work, with the
// estimate and what is allowed (at collision_distance 0.5 the 100 000 disks of euler_gas made
// 1e10 pair tests a step: two steps gave no answer in a minute).
TEST(WorkBudget, AStepThatWouldTakeMinutesIsRefusedNamingTheKeyAndTheEstimate) {
    // Each: the command, and what its one line must say.
    const std::pair<const char*, const char*> refused[] = {
        {"euler_gas --headless --steps 2 --set collision_distance=0.5",
         "--set collision_distance=0.5: 0.5 with 100000 particles means about 1.0e10 pair tests a step (each "
         "particle against about 1.0e5 others); allowed: at most 1.0e9 on the CPU backend"},
        {"euler_gas --headless --steps 2 --set detector=brute_force", "--set detector=brute_force: brute_force with"},
        // The vortex solver's direct sums: 1e5 vortons by the midpoint rule, 2e10 interactions.
        {"vortex_ring --headless --steps 1 --set max_vortons=100000",
         "--set max_vortons=100000: direct sums over up to 100000 vortons mean up to 2.0e10 pair interactions a "
         "step; allowed: at most 1.0e10 on the CPU backend"},
    };
    for (const auto& [command, says] : refused) {
        const auto r = fs_test::run_program(command);
        EXPECT_EQ(r.status, 2) << command << ": " << r.output;
        EXPECT_NE(r.output.find(says), std::string::npos) << command << ": " << r.output;
    }
    // Every pair within reach is allowed where there are few enough (3 000 disks: 9e6 tests).
    const auto near = fs_test::run_program(
        "euler_gas --headless --steps 2 --set n_particles=3000 --set collision_distance=0.5");
    EXPECT_EQ(near.status, 0) << near.output;
}

TEST(MemoryBudget, RefusesWhatExceedsTheLimitNamingTheKeyTheBytesAndTheLimit) {
    ::setenv("FLUID_SANDBOX_MEMORY_LIMIT", "1M", 1);
    const fs::MemoryLimit limit = fs::memory_limit(fs::MemorySpace::Host);
    EXPECT_EQ(limit.bytes, 1024.0 * 1024.0);
    EXPECT_NO_THROW(fs::check_memory("n", "a little", 1e6, fs::Backend::Cpu));
    try {
        fs::check_memory("resolution", "a 64x64x64 grid", 2e6, fs::Backend::Cpu);
        ADD_FAILURE() << "2 MB passed a 1 MiB limit";
    } catch (const fs::ParamError& e) {
        EXPECT_STREQ(e.what(),
                     "resolution: a 64x64x64 grid need 2.0 MB, more than the 1.0 MB allowed by "
                     "FLUID_SANDBOX_MEMORY_LIMIT=1M");
    }
    ::unsetenv("FLUID_SANDBOX_MEMORY_LIMIT");
    // Without the variable: this machine's available memory, finite and positive on Linux.
    const fs::MemoryLimit host = fs::memory_limit(fs::MemorySpace::Host);
    EXPECT_TRUE(std::isfinite(host.bytes) && host.bytes > 0) << host.bytes;
    EXPECT_EQ(host.what, "of host memory available");
    EXPECT_THROW(fs::check_memory("n", "everything", 1e30, fs::Backend::Cpu), fs::ParamError);
}

TEST(MemoryBudget, BytesReadAsPeopleWriteThem) {
    EXPECT_EQ(fs::format_bytes(512), "512 B");
    EXPECT_EQ(fs::format_bytes(64e6), "64.0 MB");
    EXPECT_EQ(fs::format_bytes(1.234e12), "1.2 TB");
    const double box[4] = {-1, 0.25, 0.5, 2};  // x0, y0, x1, y1
    const double extent[2] = {1, 1};
    EXPECT_DOUBLE_EQ(fs::overlap_in_domain(box, extent, 2), 0.5 * 0.75);
    const double outside[4] = {2, 2, 3, 3};
    EXPECT_EQ(fs::overlap_in_domain(outside, extent, 2), 0.0);
}

TEST(OneLine, EscapesControlCharactersAndBytesThatAreNotUtf8) {
    EXPECT_EQ(fs::one_line("a\nb\tc"), "a\\nb\\tc");
    EXPECT_EQ(fs::one_line("caf\xe9!"), "caf\\xe9!");
    EXPECT_EQ(fs::one_line("caf\xc3\xa9 \xe2\x86\x92 ok"), "caf\xc3\xa9 \xe2\x86\x92 ok");
    EXPECT_EQ(fs::one_line(std::string("x\0y", 3)), "x\\x00y");
    EXPECT_EQ(fs::one_line("\xe2\x86"), "\\xe2\\x86") << "a sequence cut short";
}

}  // namespace
