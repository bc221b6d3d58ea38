// The headless program end to end: run bundled scenes, read back the stats lines and the USD
// file, check the benchmark report.
#include <gtest/gtest.h>

#include "solvers/solvers.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "program.hpp"

namespace {

using fs_test::run_program;
using fs_test::TempDir;
using fs_test::count_lines;

std::vector<nlohmann::json> read_lines(const std::string& path) {
    std::ifstream in(path);
    std::vector<nlohmann::json> out;
    std::string line;
    while (std::getline(in, line)) out.push_back(nlohmann::json::parse(line));
    return out;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

TEST(Headless, GasWritesOneStatsLinePerStepWithMomentumAndEnergyConserved) {
    TempDir dir("gas");
    const std::string stats = dir / "s.jsonl";
    const auto r = run_program(std::string(FS_SOURCE_DIR) + "/scenes/euler_gas.json --headless --steps 100 --stats " + stats);
    ASSERT_EQ(r.status, 0) << r.output;
    const auto lines = read_lines(stats);
    ASSERT_EQ(lines.size(), 101u) << "step 0, the initial state, then one line per step";
    for (const char* key : {"step", "t", "dt", "n_particles", "kinetic_energy", "momentum",
                            "max_speed", "step_ms", "stages_ms", "collisions", "pair_tests"})
        EXPECT_TRUE(lines[0].contains(key)) << key;
    for (const char* stage : {"forces", "grid_build", "collide", "integrate", "bounce_on_borders"})
        EXPECT_TRUE(lines[0]["stages_ms"].contains(stage)) << stage;
    const double n = lines[0]["n_particles"].get<double>();
    EXPECT_EQ(n, 100000);
    const double e0 = lines[0]["kinetic_energy"].get<double>();
    long long collisions = 0;
    for (std::size_t k = 0; k < lines.size(); ++k) {
        const auto& l = lines[k];
        EXPECT_EQ(l["step"].get<long long>(), static_cast<long long>(k));
        EXPECT_NEAR(l["t"].get<double>(), 0.0002 * static_cast<double>(k), 1e-12);
        // Periodic box, elastic disks: both conserved up to round-off. The scale of the
        // cancelling terms is N * max_speed.
        const double scale = n * l["max_speed"].get<double>();
        for (int c = 0; c < 2; ++c)
            EXPECT_NEAR(l["momentum"][c].get<double>(), lines[0]["momentum"][c].get<double>(), 1e-13 * scale);
        EXPECT_NEAR(l["kinetic_energy"].get<double>(), e0, 1e-11 * e0);
        collisions += l["collisions"].get<long long>();
    }
    EXPECT_GT(collisions, 10000) << "a gas that never collides tests nothing";
}

TEST(Headless, ExportWritesAUsdPointsPrimWithOneSamplePerFrame) {
    TempDir dir("usd");
    const std::string usd = dir / "out.usda";
    const auto r = run_program("euler_tutorial --headless --steps 10 --export " + usd + " --export-every 2");
    ASSERT_EQ(r.status, 0) << r.output;
    const std::string text = read_file(usd);
    ASSERT_EQ(text.rfind("#usda 1.0\n", 0), 0u) << "not a USD ASCII layer";
    EXPECT_NE(text.find("defaultPrim = \"World\""), std::string::npos);
    EXPECT_NE(text.find("endTimeCode = 5"), std::string::npos);
    EXPECT_NE(text.find("def Xform \"World\""), std::string::npos);
    EXPECT_NE(text.find("def Points \"particles\""), std::string::npos);
    // Balanced braces and brackets: the file parses as a tree.
    long depth = 0, brackets = 0;
    for (char c : text) {
        depth += (c == '{') - (c == '}');
        brackets += (c == '[') - (c == ']');
        ASSERT_GE(depth, 0);
    }
    EXPECT_EQ(depth, 0);
    EXPECT_EQ(brackets, 0);
    // Each attribute: frames 0..5, 1000 values each.
    for (const char* attr : {"point3f[] points", "vector3f[] velocities", "float[] widths", "int64[] ids"}) {
        const auto at = text.find(std::string(attr) + ".timeSamples = {");
        ASSERT_NE(at, std::string::npos) << attr;
        const auto end = text.find("\n        }", at);
        const std::string block = text.substr(at, end - at);
        for (int f = 0; f <= 5; ++f)
            EXPECT_NE(block.find("\n            " + std::to_string(f) + ": ["), std::string::npos) << attr << " frame " << f;
        EXPECT_EQ(block.find("\n            6: ["), std::string::npos) << attr;
        const std::string first = block.substr(block.find("0: ["), block.find("\n", block.find("0: [")) - block.find("0: ["));
        const bool tuples = std::string(attr).find("3f") != std::string::npos;
        const auto count = tuples ? std::count(first.begin(), first.end(), '(')
                                  : std::count(first.begin(), first.end(), ',') + 0;
        EXPECT_EQ(count, tuples ? 1000 : 1000) << attr;  // 999 separators + the trailing one
    }
    EXPECT_FALSE(std::filesystem::exists(usd + ".points.part")) << "temporary parts left behind";
}

TEST(Headless, DefaultSceneRunsWhenNoneIsNamed) {
    const auto r = run_program("--headless --steps 5");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("default.json"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("5 steps"), std::string::npos) << r.output;
}

TEST(Headless, BenchPrintsMediansAndWritesJson) {
    TempDir dir("bench");
    const std::string json = dir / "b.json";
    const auto r = run_program("euler_tutorial --bench --steps 5 --warmup 1 --bench-json " + json);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("ms/step"), std::string::npos);
    const auto report = nlohmann::json::parse(read_file(json));
    EXPECT_EQ(report["steps"], 5);
    EXPECT_EQ(report["n_particles"], 1000);
    EXPECT_GT(report["median_step_ms"].get<double>(), 0.0);
    EXPECT_GT(report["particle_steps_per_second"].get<double>(), 0.0);
    EXPECT_TRUE(report["median_stage_ms"].contains("collide"));
}

TEST(Headless, SetOverridesTheScene) {
    TempDir dir("set");
    const std::string stats = dir / "s.jsonl";
    const auto r = run_program("euler_tutorial --headless --steps 3 --set n_particles=123 --set tau=0.001 --stats " + stats);
    ASSERT_EQ(r.status, 0) << r.output;
    const auto lines = read_lines(stats);
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(lines[3]["n_particles"], 123);
    EXPECT_DOUBLE_EQ(lines[3]["dt"].get<double>(), 0.001);
}

TEST(Headless, ABlowUpExitsWithStatus1NamingTheStepAndQuantityAndKeepsTheStats) {
    TempDir dir("blowup");
    const std::string stats = dir / "s.jsonl";
    const auto r = run_program("euler_tutorial --headless --steps 100 --set gravity=1000 --set tau=0.01 "
                               "--set boundary=open --stats " + stats);
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("simulation failed: step "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("max_speed"), std::string::npos) << r.output;
    const auto lines = read_lines(stats);
    const auto at = r.output.find("step ");
    ASSERT_NE(at, std::string::npos);
    EXPECT_EQ(static_cast<long long>(lines.size()), std::stoll(r.output.substr(at + 5)))
        << "step 0's and every good step's line are kept";
}

TEST(Headless, ThreadsOptionGivesTheSameResults) {
    TempDir dir("threads");
    const auto a = run_program("euler_tutorial --headless --steps 50 --threads 1 --stats " + (dir / "a.jsonl"));
    const auto b = run_program("euler_tutorial --headless --steps 50 --threads 2 --stats " + (dir / "b.jsonl"));
    ASSERT_EQ(a.status, 0) << a.output;
    ASSERT_EQ(b.status, 0) << b.output;
    const auto la = read_lines(dir / "a.jsonl"), lb = read_lines(dir / "b.jsonl");
    ASSERT_EQ(la.size(), lb.size());
    for (std::size_t k = 0; k < la.size(); ++k) {
        EXPECT_EQ(la[k]["kinetic_energy"], lb[k]["kinetic_energy"]) << k;
        EXPECT_EQ(la[k]["momentum"], lb[k]["momentum"]) << k;
        EXPECT_EQ(la[k]["collisions"], lb[k]["collisions"]) << k;
    }
}

}  // namespace

namespace {

// The file's text with its header's `doc` line (which names the command's scene path) removed.
std::string usd_body(const std::string& path) {
    std::string text = read_file(path);
    const auto doc = text.find("    doc = ");
    if (doc != std::string::npos) text.erase(doc, text.find('\n', doc) - doc);
    return text;
}

}  // namespace

// Students of the PIC-FLIP assignment type its command line; it must do what ours does.
TEST(Headless, TheAssignmentsFlagsAreAliasesOfOurs) {
    TempDir dir("aliases");
    const auto ours = run_program("flip_hydrostatic --headless --backend cpu --steps 3 --set resolution=12 --export " +
                                  (dir / "ours.usda"));
    const auto theirs = run_program("--scene flip_hydrostatic --device cpu --num_steps 3 --set resolution=12 "
                                    "--usd_output " + (dir / "theirs.usd"));
    ASSERT_EQ(ours.status, 0) << ours.output;
    ASSERT_EQ(theirs.status, 0) << theirs.output << " (--usd_output runs headless, as in the assignment)";
    EXPECT_NE(theirs.output.find("3 steps"), std::string::npos) << theirs.output;
    const std::string a = usd_body(dir / "ours.usda"), b = usd_body(dir / "theirs.usd");
    ASSERT_FALSE(a.empty());
    EXPECT_EQ(a, b) << "the same run, the same file";
    // Warp's device name: on a machine without a GPU it is refused like --backend cuda.
    const auto cuda = run_program("--scene euler_tutorial --device cuda:0 --num_steps 1 --headless");
    const auto plain = run_program("euler_tutorial --backend cuda --steps 1 --headless");
    EXPECT_EQ(cuda.status, plain.status) << cuda.output;
    const auto other = run_program("--scene euler_tutorial --device cuda:1 --headless");
    EXPECT_EQ(other.status, 2) << other.output;
}

// A mistyped bundled scene is refused in one line that names the scene it is closest to; a name
// close to none keeps the loader's "cannot open"; --help introduces all five solvers.
TEST(Headless, AMistypedSceneSuggestsTheBundledOneAndHelpNamesEverySolver) {
    const auto typo = run_program("flip_dam_brake --headless --steps 1");
    EXPECT_EQ(typo.status, 2) << typo.output;
    EXPECT_NE(typo.output.find("flip_dam_brake: no such scene file"), std::string::npos) << typo.output;
    EXPECT_NE(typo.output.find("did you mean 'flip_dam_break'?"), std::string::npos) << typo.output;
    EXPECT_EQ(count_lines(typo.output), 1) << typo.output;
    const auto far = run_program("qqqqqqqqqqqq --headless --steps 1");
    EXPECT_EQ(far.status, 2) << far.output;
    EXPECT_NE(far.output.find("cannot open the scene file"), std::string::npos) << far.output;
    EXPECT_EQ(far.output.find("did you mean"), std::string::npos) << far.output;
    const auto help = run_program("--help");
    EXPECT_EQ(help.status, 0) << help.output;
    for (const fs::SolverKind& k : fs::solver_kinds())  // the catalogue, each with its line
        EXPECT_NE(help.output.find("  " + k.name + ": " + k.description), std::string::npos)
            << k.name << " missing from --help";
}

// The window's flags with --headless are refused in one line that says what to do instead.
TEST(Headless, WindowFlagsWithHeadlessAreRefusedSayingWhatToDo) {
    const auto r = run_program("euler_tutorial --headless --screenshot x.png");
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_EQ(count_lines(r.output), 1) << r.output;
    EXPECT_NE(r.output.find("need the window: drop --headless"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("--compare"), std::string::npos) << r.output;
}

// A long run on a terminal shows where it is; in a log (a pipe, a file) only the summary.
TEST(Headless, ProgressLineOnATerminalOnly) {
    if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "no `script` to give a terminal";
    const std::string args = "euler_tutorial --headless --steps 40";
    const auto piped = run_program(args);
    ASSERT_EQ(piped.status, 0) << piped.output;
    EXPECT_EQ(piped.output.find('\r'), std::string::npos) << "no progress line in a pipe";
    EXPECT_EQ(piped.output.find("ms/step  "), std::string::npos) << piped.output;
    // script(1) runs the command on a pseudo-terminal.
    const auto tty = fs_test::run_program_with_prefix(
        "script -qec \"", args + "\" /dev/null");
    ASSERT_EQ(tty.status, 0) << tty.output;
    EXPECT_NE(tty.output.find("step 40/40  t = "), std::string::npos) << tty.output;
    EXPECT_NE(tty.output.find("\r\033[K"), std::string::npos) << "the line is rewritten in place and cleared";
    EXPECT_NE(tty.output.find("40 steps, t = "), std::string::npos) << "the summary still follows";
}

// Every solver field goes out as a per-point primvar (a renderer colours by it; a student checks
// a pressure profile without recomputing it), selectable with --export-fields.
TEST(Headless, ExportCarriesTheSolversFieldsAsPrimvars) {
    TempDir dir("primvars");
    const std::string sph = dir / "sph.usda", vortex = dir / "vortex.usda", none = dir / "none.usda";
    ASSERT_EQ(run_program("sph_hydrostatic --headless --steps 4 --set spacing=0.02 --export " + sph +
                          " --export-every 2").status, 0);
    ASSERT_EQ(run_program("vortex_ring --headless --steps 1 --set ring_tracers=10 --export " + vortex).status, 0);
    ASSERT_EQ(run_program("sph_hydrostatic --headless --steps 1 --set spacing=0.02 --export " + none +
                          " --export-fields none").status, 0);
    const std::string text = read_file(sph);
    const std::string points = text.substr(text.find("point3f[] points.timeSamples"));
    const auto per_frame = std::count(points.begin(), points.begin() + points.find("\n", points.find("0: [")), '(');
    for (const char* name : {"speed", "density", "pressure", "kind"}) {
        const std::string decl = std::string("float[] primvars:") + name;
        EXPECT_NE(text.find(decl + " (\n            interpolation = \"vertex\"\n        )"), std::string::npos) << name;
        const auto at = text.find(decl + ".timeSamples = {");
        ASSERT_NE(at, std::string::npos) << name;
        const std::string block = text.substr(at, text.find("\n        }", at) - at);
        for (int f = 0; f <= 2; ++f)
            EXPECT_NE(block.find("\n            " + std::to_string(f) + ": ["), std::string::npos) << name << f;
        const auto line = block.substr(block.find("0: ["), block.find('\n', block.find("0: [")) - block.find("0: ["));
        EXPECT_EQ(std::count(line.begin(), line.end(), ','), per_frame) << name << ": one value per point";
    }
    // At rest the density is rho0 within a few percent: the values are the field's, in its unit.
    const auto at = text.find("float[] primvars:density.timeSamples");
    const std::string first = text.substr(text.find("0: [", at) + 4, 12);
    EXPECT_NEAR(std::stod(first), 1000.0, 50.0) << first;
    EXPECT_NE(read_file(vortex).find("vector3f[] primvars:vorticity.timeSamples"), std::string::npos);
    EXPECT_EQ(read_file(none).find("primvars:"), std::string::npos) << "--export-fields none";
    const auto bad = run_program("euler_tutorial --headless --steps 1 --export " + (dir / "b.usda") +
                                 " --export-fields mass,pressure");
    EXPECT_EQ(bad.status, 2) << bad.output;
    EXPECT_NE(bad.output.find("no field 'pressure' to export (allowed: all, none, or a list of speed, mass)"),
              std::string::npos)
        << bad.output;
}

// The stats file starts with the initial state, step 0, for every solver: what the state holds
// then (a dam break at rest, a ring's enstrophy, which one step barely changes).
TEST(Headless, StatsStartWithStepZeroForEverySolver) {
    TempDir dir("step0");
    for (const char* scene : {"euler_tutorial", "sph_dam_break", "flip_hydrostatic", "vortex_ring"}) {
        const std::string stats = dir / (std::string(scene) + ".jsonl");
        const auto r = run_program(std::string(scene) + " --headless --steps 1 --set " +
                                   (std::string(scene) == "vortex_ring" ? "ring_tracers=10" : "gravity=9.81") +
                                   " --stats " + stats);
        ASSERT_EQ(r.status, 0) << scene << r.output;
        const auto lines = read_lines(stats);
        ASSERT_EQ(lines.size(), 2u) << scene;
        EXPECT_EQ(lines[0]["step"], 0) << scene;
        EXPECT_EQ(lines[0]["t"].get<double>(), 0.0) << scene;
        EXPECT_EQ(lines[0]["n_particles"], lines[1]["n_particles"]) << scene;
        EXPECT_TRUE(lines[0].contains("momentum")) << scene;
        if (std::string(scene) == "vortex_ring") {
            EXPECT_NEAR(lines[0]["enstrophy"].get<double>(), lines[1]["enstrophy"].get<double>(),
                        1e-3 * lines[1]["enstrophy"].get<double>());
            EXPECT_FALSE(lines[0].contains("kinetic_energy")) << "it needs a velocity stage";
        } else if (std::string(scene) != "euler_tutorial") {
            EXPECT_EQ(lines[0]["kinetic_energy"].get<double>(), 0.0) << scene << " starts at rest";
        } else {
            EXPECT_GT(lines[0]["kinetic_energy"].get<double>(), 0.0) << "the tutorial's random velocities";
        }
    }
}
