// Scene loading and the bad-input rules of the headless contract: every error class exits with
// status 2 and one line naming the file (or option), the key and what is allowed.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <regex>

#include "core/backend.hpp"
#include "core/data_dirs.hpp"
#include "io/scene.hpp"
#include "program.hpp"
#include "solvers/euler/euler_solver.hpp"
#include "solvers/solvers.hpp"

namespace {

using fs_test::run_program;

std::string load_error(const std::string& text) {
    try {
        fs::parse_scene(text, "s.json", fs::solver_names());
    } catch (const fs::SceneError& e) {
        return e.what();
    }
    return "";
}

std::string apply_error(const std::string& text, const std::vector<std::string>& sets = {}) {
    try {
        const fs::Scene scene = fs::parse_scene(text, "s.json", fs::solver_names());
        fs::euler::EulerSolver solver;
        fs::apply_scene_params(solver, scene, sets);
    } catch (const fs::SceneError& e) {
        return e.what();
    }
    return "";
}

void expect_has(const std::string& msg, const std::string& part) {
    EXPECT_NE(msg.find(part), std::string::npos) << "message: " << msg << "\nexpected to contain: " << part;
}

TEST(Scene, ValidSceneLoads) {
    const fs::Scene s = fs::parse_scene(
        R"({"solver":"euler","title":"T","description":"D","params":{"tau":0.001}})", "s.json",
        fs::solver_names());
    EXPECT_EQ(s.solver, "euler");
    EXPECT_EQ(s.title, "T");
    EXPECT_EQ(s.params["tau"], 0.001);
}

TEST(Scene, SyntaxErrorsGiveLineAndColumn) {
    expect_has(load_error(""), "s.json: empty file");
    expect_has(load_error("{\"solver\": \"euler\",\n \"params\": {"), "s.json: not valid JSON at line 2");
    expect_has(load_error("{\"solver\": euler}"), "line 1, column 12");
    expect_has(load_error("[1, 2]"), "expected a JSON object at the top level, got an array");
}

TEST(Scene, KeysAreCheckedWithDidYouMean) {
    const std::string top = load_error(R"({"solver":"euler","parms":{}})");
    expect_has(top, "s.json: parms: unknown key; did you mean 'params'?");
    expect_has(top, "allowed: solver, title, description, color_field, params");
    expect_has(load_error(R"({"params":{}})"), "s.json: solver: missing");
    expect_has(load_error(R"({"solver":"eulr"})"), "unknown solver \"eulr\"; did you mean \"euler\"?");
    expect_has(load_error(R"({"solver":3})"), "s.json: solver: expected a string, got a number");
    expect_has(load_error(R"({"solver":"euler","params":[1]})"), "s.json: params: expected an object");
    const std::string param = apply_error(R"({"solver":"euler","params":{"tauu":0.1}})");
    expect_has(param, "s.json: params.tauu: unknown parameter 'tauu'; did you mean 'tau'?");
}

TEST(Scene, ValuesAreCheckedAgainstTheRegistry) {
    expect_has(apply_error(R"({"solver":"euler","params":{"tau":"fast"}})"),
               "s.json: params.tau: expected a finite number in [1e-07, 0.1] (s), got a string");
    expect_has(apply_error(R"({"solver":"euler","params":{"tau":-1}})"),
               "s.json: params.tau: expected a finite number in [1e-07, 0.1] (s), got -1");
    expect_has(apply_error(R"({"solver":"euler","params":{"n_particles":0}})"),
               "params.n_particles: expected an integer in [1, 100000000], got 0");
    expect_has(apply_error(R"({"solver":"euler","params":{"tau":1e999}})"),
               "s.json: not valid JSON: number overflow parsing '1e999' (numbers must be finite)");
    expect_has(apply_error(R"({"solver":"euler","params":{"detector":"octree"}})"),
               "params.detector: expected one of: grid, brute_force");
    expect_has(apply_error(R"({"solver":"euler","params":{"grid_side":3}})"), "read-only");
    expect_has(apply_error(R"({"solver":"euler"})", {"restitution=2"}),
               "--set restitution=2: expected a finite number in [0, 1], got 2");
    expect_has(apply_error(R"({"solver":"euler"})", {"restitutoin=1"}), "did you mean 'restitution'?");
    expect_has(apply_error(R"({"solver":"euler"})", {"tau"}), "--set tau: expected NAME=VALUE");
}

TEST(Scene, SavedSceneLoadsBackToTheSameParameters) {
    fs::euler::EulerSolver a;
    const fs::Scene original = fs::parse_scene(
        R"({"solver":"euler","title":"T","params":{"tau":0.003,"detector":"brute_force","gravity_direction":[1,0]}})",
        "s.json", fs::solver_names());
    fs::apply_scene_params(a, original, {"n_particles=77"});
    const std::string saved = fs::scene_to_json(a, original).dump(2);
    const fs::Scene again = fs::parse_scene(saved, "saved.json", fs::solver_names());
    fs::euler::EulerSolver b;
    fs::apply_scene_params(b, again, {});
    EXPECT_EQ(a.params().to_json(), b.params().to_json());
    a.reset();
    b.reset();
    const auto sa = a.state(), sb = b.state();
    ASSERT_EQ(sa.pos.size(), 77u);
    EXPECT_EQ(sa.pos, sb.pos);
    EXPECT_EQ(sa.vel, sb.vel);
}

// The program itself: exit status 2 and a single line for each class of bad input.
struct BadInput {
    const char* name;
    const char* scene_text;  // nullptr: the file does not exist
    const char* extra_args;
    const char* expected;    // part of the message
};

class ProgramBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(ProgramBadInput, ExitsWithStatus2AndOneLineNamingTheKey) {
    const BadInput& c = GetParam();
    fs_test::TempDir dir(std::string("bad-") + c.name);
    const std::string path = c.scene_text ? dir.file("scene.json", c.scene_text) : dir / "missing.json";
    const auto r = run_program("'" + path + "' --headless --steps 1 " + c.extra_args);
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_EQ(fs_test::count_lines(r.output), 1) << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos) << r.output;
}

INSTANTIATE_TEST_SUITE_P(
    Contract, ProgramBadInput,
    ::testing::Values(
        BadInput{"missing", nullptr, "", "missing.json: cannot open the scene file"},
        BadInput{"empty", "", "", "scene.json: empty file"},
        BadInput{"not_json", "solver = euler", "", "scene.json: not valid JSON at line 1"},
        BadInput{"truncated", "{\"solver\": \"euler\", \"params\": {\"tau\": 0.1", "", "not valid JSON"},
        BadInput{"unknown_key", R"({"solver":"euler","params":{"gravty":1}})", "",
                 "params.gravty: unknown parameter 'gravty'; did you mean 'gravity'?"},
        BadInput{"wrong_type", R"({"solver":"euler","params":{"collisions":"yes"}})", "",
                 "params.collisions: expected true or false, got a string"},
        BadInput{"out_of_range", R"({"solver":"euler","params":{"wall_damping":1.5}})", "",
                 "params.wall_damping: expected a finite number in [0, 1], got 1.5"},
        BadInput{"unknown_solver", R"({"solver":"lbm"})", "", "solver: unknown solver \"lbm\""},
        BadInput{"inverted_box", R"({"solver":"euler","params":{"spawn_min":[0.9,0.1],"spawn_max":[0.1,0.9]}})",
                 "", "spawn_min must not exceed spawn_max"},
        BadInput{"bad_set", R"({"solver":"euler"})", "--set tau=abc", "--set tau=abc: expected a finite number"},
        BadInput{"bad_option", R"({"solver":"euler"})", "--backend gpu", "--backend"},
        BadInput{"bad_threads", R"({"solver":"euler"})", "--threads 0", "--threads"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(Program, CudaBackendWithoutAGpuIsBadInput) {
    if (fs::cuda_status().usable) GTEST_SKIP() << "a CUDA GPU is usable here; the refusal cannot happen";
    const auto r = run_program("euler_tutorial --headless --steps 1 --backend cuda");
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_EQ(fs_test::count_lines(r.output), 1) << r.output;
    EXPECT_NE(r.output.find("--backend cuda: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("allowed here: cpu"), std::string::npos) << r.output;
}

TEST(Program, HelpAndListScenes) {
    const auto help = run_program("--help");
    EXPECT_EQ(help.status, 0);
    for (const char* opt : {"--headless", "--steps", "--backend", "--threads", "--set", "--stats",
                            "--export", "--export-every", "--bench", "--list-scenes"})
        EXPECT_NE(help.output.find(opt), std::string::npos) << opt;
    const auto list = run_program("--list-scenes");
    EXPECT_EQ(list.status, 0) << list.output;
    for (const char* scene : {"default", "euler_tutorial", "euler_gas"})
        EXPECT_NE(list.output.find(scene), std::string::npos) << scene;
    EXPECT_EQ(list.output.find("cannot be loaded"), std::string::npos) << list.output;
}

TEST(Program, VersionNamesTheCommitAndTheBackends) {
    const auto r = run_program("--version");
    ASSERT_EQ(r.status, 0) << r.output;
    std::smatch m;
    // X.Y.Z at a tag, X.Y.Z+gitN.HASH between (src/package/version.cmake), then the full commit.
    ASSERT_TRUE(std::regex_search(r.output, m,
                                  std::regex(R"(^fluid-sandbox (\d+\.\d+\.\d+)(\+git\d+\.([0-9a-f]{7}))?\ncommit (\S+) )")))
        << r.output;
    const std::string commit = m[4];
    if (m[2].matched) {
        EXPECT_EQ(commit.substr(0, 7), m[3].str()) << "the version's hash is not the commit's";
    }
    // Built from a git checkout, it names a commit of that checkout (HEAD when built; a later
    // commit without a rebuild leaves the program naming the one it was built from).
    if (commit != "unknown" && std::system(("git -C \"" + std::string(FS_SOURCE_DIR) + "\" rev-parse -q --verify >/dev/null "
                                            "2>&1 HEAD").c_str()) == 0) {
        EXPECT_EQ(std::system(("git -C \"" + std::string(FS_SOURCE_DIR) + "\" cat-file -e " + commit + "^{commit}")
                                  .c_str()),
                  0)
            << "the version names no commit of the source tree: " << r.output;
    }
    EXPECT_NE(r.output.find("\nbackends: cpu (OpenMP"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find(", cuda (") != std::string::npos, fs::cuda_status().built) << r.output;
}

// The program and the tests of a build tree read the source tree's scenes and shaders (an
// installed copy reads /usr/share/fluid-sandbox: tests/package/install_test.sh); the environment
// overrides both, an empty variable does not.
TEST(DataDirs, ABuildTreeReadsTheSourceTreeAndTheEnvironmentOverrides) {
    ASSERT_TRUE(fs::running_from_build_tree());
    unsetenv("FLUID_SANDBOX_SCENES");
    EXPECT_EQ(fs::data_dir("scenes"), std::string(FS_SOURCE_DIR) + "/scenes");
    setenv("FLUID_SANDBOX_SHADERS", "", 1);
    EXPECT_EQ(fs::data_dir("shaders"), std::string(FS_SOURCE_DIR) + "/shaders");
    setenv("FLUID_SANDBOX_SCENES", "/elsewhere/scenes", 1);
    EXPECT_EQ(fs::data_dir("scenes"), "/elsewhere/scenes");
    unsetenv("FLUID_SANDBOX_SCENES");
    unsetenv("FLUID_SANDBOX_SHADERS");
    const auto help = run_program("--help");
    EXPECT_NE(help.output.find("Scenes folder: " + std::string(FS_SOURCE_DIR) + "/scenes"), std::string::npos)
        << help.output;
}

}  // namespace
