// The desktop window under Xvfb (Mesa's software OpenGL): it opens the default scene, draws
// particles, answers keys from a script, records video. Each test runs the real program.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>

#include "program.hpp"

namespace {

using fs_test::TempDir;

fs_test::Result run_window(const std::string& args) {
    return fs_test::run_program_with_prefix("xvfb-run -a -s '-screen 0 1600x1000x24'", args);
}

TEST(Window, OpensTheDefaultSceneAndDrawsParticles) {
    TempDir dir("window");
    const std::string png = dir / "shot.png";
    const auto r = run_window("--size 1280x800 --frames 30 --screenshot " + png);
    ASSERT_EQ(r.status, 0) << r.output;
    int w = 0, h = 0, c = 0;
    unsigned char* px = stbi_load(png.c_str(), &w, &h, &c, 3);
    ASSERT_NE(px, nullptr) << "no readable PNG";
    EXPECT_EQ(w, 1280);
    EXPECT_EQ(h, 800);
    std::set<int> colours;
    long coloured = 0;  // saturated pixels in the middle of the window, where the scene is drawn
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const unsigned char* p = px + 3 * (y * w + x);
            colours.insert(p[0] << 16 | p[1] << 8 | p[2]);
            const int sat = std::max({p[0], p[1], p[2]}) - std::min({p[0], p[1], p[2]});
            if (x > 420 && x < 860 && y > 100 && y < 700 && sat > 50) ++coloured;
        }
    stbi_image_free(px);
    EXPECT_GT(colours.size(), 50u) << "the screenshot looks blank";
    EXPECT_GT(coloured, 5000) << "no coloured particles in the scene area";
}

TEST(Window, KeyDTurnsGravityToTheRight) {
    // Open box, no collisions: momentum changes only through gravity, by M g tau per step.
    TempDir dir("keys");
    const std::string stats = dir / "s.jsonl";
    const auto r = run_window("--size 800x600 --step-per-frame --keys '+5 D' --frames 90 --set boundary=open "
                              "--set collisions=false --stats " + stats);
    ASSERT_EQ(r.status, 0) << r.output;
    std::ifstream in(stats);
    std::vector<nlohmann::json> lines;
    std::string line;
    while (std::getline(in, line)) lines.push_back(nlohmann::json::parse(line));
    ASSERT_GT(lines.size(), 20u) << "too few steps were taken";
    const double per_step = 3000 * 9.81 * 0.002;  // default scene: N = 3000, m = 1, tau = 0.002
    auto change = [&](std::size_t k, int c) {
        return lines[k]["momentum"][c].get<double>() - lines[k - 1]["momentum"][c].get<double>();
    };
    EXPECT_NEAR(change(1, 0), 0.0, 1e-6 * per_step) << "gravity started sideways";
    EXPECT_NEAR(change(1, 1), -per_step, 1e-6 * per_step) << "gravity did not start downwards";
    const std::size_t last = lines.size() - 1;
    EXPECT_NEAR(change(last, 0), per_step, 1e-6 * per_step) << "D did not turn gravity right";
    EXPECT_NEAR(change(last, 1), 0.0, 1e-6 * per_step);
}

TEST(Window, QRotatesTheBarrierInTheSphScene) {
    // Q held for 30 frames of a key script (1/30 s each): +45 degrees at 45 deg/s.
    TempDir dir("barrier");
    const std::string stats = dir / "s.jsonl";
    const auto r = run_window("sph_barrier --size 800x600 --step-per-frame --keys 'Q*30 +3' --stats " + stats);
    ASSERT_EQ(r.status, 0) << r.output;
    std::ifstream in(stats);
    std::string line, last;
    while (std::getline(in, line)) last = line;
    ASSERT_FALSE(last.empty());
    EXPECT_NEAR(nlohmann::json::parse(last)["barrier_angle"].get<double>(), 30.0 + 45.0, 1e-9);
}

TEST(Window, RecordsGifAndMp4) {
    TempDir dir("record");
    for (const char* ext : {".gif", ".mp4"}) {
        const std::string video = dir / (std::string("clip") + ext);
        const auto r = run_window("--size 640x400 --frames 15 --record " + video);
        ASSERT_EQ(r.status, 0) << r.output;
        std::ifstream in(video, std::ios::binary);
        std::string head(12, '\0');
        in.read(head.data(), 12);
        ASSERT_TRUE(in) << video << " is missing or empty";
        if (std::string(ext) == ".gif")
            EXPECT_EQ(head.substr(0, 6), "GIF89a");
        else
            EXPECT_EQ(head.substr(4, 4), "ftyp");
    }
}

TEST(Window, BadKeyScriptIsBadInput) {
    const auto r = run_window("--keys 'D +x' --frames 2");
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find("--keys"), std::string::npos) << r.output;
}

}  // namespace
