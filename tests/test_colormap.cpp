// Colour maps (src/render/colormap): names, published end colours, clamping, monotone lightness of
// the perceptual sequential maps, the diverging map's neutral centre, the lookup table.
#include <gtest/gtest.h>

#include <cmath>
#include <glm/glm.hpp>

#include "render/colormap.hpp"

namespace {

using fs::render::Colormap;
using fs::render::colormap_from_name;
using fs::render::colormap_lut;
using fs::render::colormap_names;
using fs::render::colormap_rgb;

constexpr Colormap k_all[] = {Colormap::Viridis, Colormap::Magma, Colormap::Plasma,
                              Colormap::Cividis, Colormap::Coolwarm};
constexpr Colormap k_sequential[] = {Colormap::Viridis, Colormap::Magma, Colormap::Plasma,
                                     Colormap::Cividis};

void expect_rgb(glm::vec3 got, glm::vec3 want, float tol) {
    EXPECT_NEAR(got.r, want.r, tol);
    EXPECT_NEAR(got.g, want.g, tol);
    EXPECT_NEAR(got.b, want.b, tol);
}

// Relative luminance Y of an sRGB colour (IEC 61966-2-1 decoding, Rec. 709 primaries).
double luminance(glm::vec3 srgb) {
    auto lin = [](double c) {
        return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * lin(srgb.r) + 0.7152 * lin(srgb.g) + 0.0722 * lin(srgb.b);
}

TEST(Colormap, NamesRoundTripInEnumOrder) {
    const auto names = colormap_names();
    ASSERT_EQ(names.size(), std::size(k_all));
    for (std::size_t i = 0; i < names.size(); ++i) {
        EXPECT_EQ(colormap_from_name(names[i]), k_all[i]) << names[i];
        EXPECT_EQ(fs::render::colormap_name(k_all[i]), names[i]);
    }
    EXPECT_EQ(colormap_from_name("Viridis"), Colormap::Viridis);
    EXPECT_EQ(colormap_from_name("COOLWARM"), Colormap::Coolwarm);
    EXPECT_FALSE(colormap_from_name("jet").has_value());
    EXPECT_FALSE(colormap_from_name("").has_value());
    EXPECT_FALSE(colormap_from_name("viridis ").has_value());
    EXPECT_TRUE(fs::render::colormap_is_diverging(Colormap::Coolwarm));
    EXPECT_FALSE(fs::render::colormap_is_diverging(Colormap::Viridis));
}

TEST(Colormap, EndpointsArePublishedKeyColours) {
    // First and last entries of the published tables (viridis, magma, plasma: van der Walt &
    // Smith; cividis: Nuñez et al. 2018; cool-warm: Moreland 2009, 8-bit).
    struct Case {
        Colormap map;
        glm::vec3 first, last;
    };
    for (const Case& c : {
             Case{Colormap::Viridis,
                  {0.267004f, 0.004874f, 0.329415f},
                  {0.993248f, 0.906157f, 0.143936f}},
             Case{Colormap::Magma,
                  {0.001462f, 0.000466f, 0.013866f},
                  {0.987053f, 0.991438f, 0.749504f}},
             Case{Colormap::Plasma,
                  {0.050383f, 0.029803f, 0.527975f},
                  {0.940015f, 0.975158f, 0.131326f}},
             Case{Colormap::Cividis,
                  {0.0f, 0.135112f, 0.304751f},
                  {0.995737f, 0.909344f, 0.217772f}},
             Case{Colormap::Coolwarm, glm::vec3{59, 76, 192} / 255.0f,
                  glm::vec3{180, 4, 38} / 255.0f},
         }) {
        expect_rgb(colormap_rgb(c.map, 0.0f), c.first, 1e-6f);
        expect_rgb(colormap_rgb(c.map, 1.0f), c.last, 1e-6f);
    }
}

TEST(Colormap, PublishedMidpoints) {
    // Entry 128 of 256 (t = 128/255) and Moreland's neutral centre.
    expect_rgb(colormap_rgb(Colormap::Viridis, 128.0f / 255.0f), {0.127568f, 0.566949f, 0.550556f},
               1e-5f);
    expect_rgb(colormap_rgb(Colormap::Magma, 128.0f / 255.0f), {0.716387f, 0.214982f, 0.475290f},
               1e-5f);
    expect_rgb(colormap_rgb(Colormap::Coolwarm, 0.5f), glm::vec3(221.0f / 255.0f), 1e-6f);
}

TEST(Colormap, ParameterIsClamped) {
    for (Colormap m : k_all) {
        expect_rgb(colormap_rgb(m, -3.0f), colormap_rgb(m, 0.0f), 0);
        expect_rgb(colormap_rgb(m, 1.5f), colormap_rgb(m, 1.0f), 0);
        expect_rgb(colormap_rgb(m, std::nanf("")), colormap_rgb(m, 0.0f), 0);
        expect_rgb(colormap_rgb(m, INFINITY), colormap_rgb(m, 1.0f), 0);
        for (int i = 0; i <= 100; ++i) {
            const glm::vec3 c = colormap_rgb(m, i / 100.0f);
            for (int k = 0; k < 3; ++k) {
                EXPECT_GE(c[k], 0.0f);
                EXPECT_LE(c[k], 1.0f);
            }
        }
    }
}

TEST(Colormap, SequentialMapsHaveMonotoneLuminance) {
    for (Colormap m : k_sequential) {
        double previous = -1;
        for (int i = 0; i <= 1000; ++i) {
            const double y = luminance(colormap_rgb(m, i / 1000.0f));
            EXPECT_GT(y, previous) << fs::render::colormap_name(m) << " at t = " << i / 1000.0;
            previous = y;
        }
    }
}

TEST(Colormap, CoolwarmIsBlueToNeutralToRedAndContinuous) {
    const glm::vec3 cold = colormap_rgb(Colormap::Coolwarm, 0.1f);
    const glm::vec3 hot = colormap_rgb(Colormap::Coolwarm, 0.9f);
    EXPECT_GT(cold.b, cold.r);
    EXPECT_GT(hot.r, hot.b);
    // Luminance peaks at the neutral centre and falls toward both ends.
    const double centre = luminance(colormap_rgb(Colormap::Coolwarm, 0.5f));
    EXPECT_GT(centre, luminance(colormap_rgb(Colormap::Coolwarm, 0.0f)));
    EXPECT_GT(centre, luminance(colormap_rgb(Colormap::Coolwarm, 1.0f)));
    for (Colormap m : k_all) {
        for (int i = 0; i < 1000; ++i) {
            const glm::vec3 d = colormap_rgb(m, (i + 1) / 1000.0f) - colormap_rgb(m, i / 1000.0f);
            EXPECT_LT(glm::length(d), 0.02f) << fs::render::colormap_name(m) << " jumps at " << i;
        }
    }
}

TEST(Colormap, LutMatchesColormapRgb) {
    for (Colormap m : k_all) {
        for (int n : {256, 17, 2}) {
            const auto lut = colormap_lut(m, n);
            ASSERT_EQ(lut.size(), 3u * n);
            for (int i = 0; i < n; ++i) {
                const glm::vec3 c = colormap_rgb(m, static_cast<float>(i) / (n - 1)) * 255.0f;
                for (int k = 0; k < 3; ++k)
                    EXPECT_LE(std::abs(lut[3 * i + k] - c[k]), 0.5f + 1e-3f);
            }
        }
    }
    const auto viridis = colormap_lut(Colormap::Viridis);
    ASSERT_EQ(viridis.size(), 768u);
    EXPECT_EQ(viridis[0], 68);  // #440154, viridis' first colour
    EXPECT_EQ(viridis[1], 1);
    EXPECT_EQ(viridis[2], 84);
    EXPECT_EQ(viridis[765], 253);  // #fde725, its last
    EXPECT_EQ(viridis[766], 231);
    EXPECT_EQ(viridis[767], 37);
    EXPECT_EQ(colormap_lut(Colormap::Magma, 1).size(), 3u);
    EXPECT_EQ(colormap_lut(Colormap::Magma, 0).size(), 3u);
}

}  // namespace
