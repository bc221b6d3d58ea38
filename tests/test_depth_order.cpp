// The sprites' front-to-back order and image bound (src/render/depth_order): the order is a
// stable permutation by bins of view depth, and the bound covers every sphere's image in view,
// measured by sampling the sphere's surface.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <glm/gtc/matrix_transform.hpp>
#include <limits>
#include <random>
#include <vector>

#include "render/depth_order.hpp"

namespace {

using fs::render::FrontToBack;
using fs::render::order_front_to_back;
using fs::render::sphere_image_bound_px;

glm::mat4 some_view() {
    return glm::lookAt(glm::vec3(1.7f, 1.1f, 2.3f), glm::vec3(0.5f, 0.3f, 0.2f), glm::vec3(0.0f, 1.0f, 0.0f));
}

float view_depth(const glm::mat4& view, const float* p) {
    return -(view * glm::vec4(p[0], p[1], p[2], 1.0f)).z;
}

TEST(DepthOrder, NearestBinFirstStableWithinABinAndEveryParticleOnce) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-0.5f, 1.5f);
    const int n = 5000;
    std::vector<float> xyz(3 * n);
    for (float& v : xyz) v = u(rng);
    // A few at the same place (ties), one not finite (drawn last).
    for (int k = 0; k < 3; ++k) xyz[3 * 100 + k] = xyz[3 * 200 + k] = xyz[3 * 300 + k];
    xyz[3 * 42 + 1] = std::numeric_limits<float>::quiet_NaN();
    const glm::mat4 view = some_view();
    FrontToBack o;
    for (int bins : {1, 7, 64, 4096}) {
        order_front_to_back(view, xyz.data(), n, bins, o);
        ASSERT_EQ(o.bins(), bins);
        ASSERT_EQ(static_cast<int>(o.order.size()), n);
        std::vector<int> seen(n, 0);
        for (int i : o.order) ++seen[static_cast<std::size_t>(i)];
        EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), n) << "not a permutation with " << bins << " bins";
        const auto at = std::find(o.order.begin(), o.order.end(), 42) - o.order.begin();
        EXPECT_GE(at, o.bin_start[static_cast<std::size_t>(bins) - 1]) << "the particle without a depth goes in the last bin";
        for (int b = 0; b < bins; ++b) {
            for (int k = o.bin_start[b]; k < o.bin_start[b + 1]; ++k) {
                const int i = o.order[static_cast<std::size_t>(k)];
                if (k > o.bin_start[b]) {
                    EXPECT_LT(o.order[static_cast<std::size_t>(k) - 1], i) << "bin " << b;
                }
                if (i == 42) continue;
                const float z = view_depth(view, &xyz[3 * static_cast<std::size_t>(i)]);
                const float slack = 1e-5f * (1.0f + std::abs(z));
                EXPECT_GE(z, o.bin_near_edge(b) - slack) << "particle " << i << " in bin " << b;
                if (b + 1 < bins) {
                    EXPECT_LE(z, o.bin_near_edge(b + 1) + slack) << "particle " << i << " in bin " << b;
                }
            }
        }
    }
    // Nothing, and everything at one depth.
    order_front_to_back(view, xyz.data(), 0, 16, o);
    EXPECT_TRUE(o.order.empty());
    std::vector<float> same(3 * 10, 0.25f);
    order_front_to_back(view, same.data(), 10, 16, o);
    for (int k = 0; k < 10; ++k) EXPECT_EQ(o.order[static_cast<std::size_t>(k)], k);
}

// The slopes x / depth and y / depth spanned by a sphere, by sampling its surface finely (a lower
// bound of the true span, and close to it).
glm::vec4 sampled_slopes(glm::vec3 c, float r) {
    glm::vec4 s(1e30f, -1e30f, 1e30f, -1e30f);  // x lo, x hi, y lo, y hi
    const int m = 180;
    for (int i = 0; i <= m; ++i) {
        const float theta = 3.14159265f * static_cast<float>(i) / m;
        for (int j = 0; j < 2 * m; ++j) {
            const float phi = 3.14159265f * static_cast<float>(j) / m;
            const glm::vec3 p = c + r * glm::vec3(std::sin(theta) * std::cos(phi), std::sin(theta) * std::sin(phi),
                                                  std::cos(theta));
            const float depth = -p.z;
            s = glm::vec4(std::min(s.x, p.x / depth), std::max(s.y, p.x / depth), std::min(s.z, p.y / depth),
                          std::max(s.w, p.y / depth));
        }
    }
    return s;
}

TEST(DepthOrder, TheImageBoundCoversEverySphereInView) {
    const int w = 1440, h = 900;
    const glm::mat4 proj = glm::perspective(glm::radians(45.0f), static_cast<float>(w) / h, 0.01f, 100.0f);
    const float tx = 1.0f / proj[0][0], ty = 1.0f / proj[1][1];
    const float ppx = 0.5f * w * proj[0][0], ppy = 0.5f * h * proj[1][1];
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    int in_view = 0, near_centre = 0;
    double loosest_on_axis = 0.0;
    for (int k = 0; k < 500; ++k) {
        const float r = 0.002f + 0.2f * unit(rng);
        const float z = r * (1.05f + 100.0f * unit(rng) * unit(rng));  // from touching the eye to far off
        // Centres across and somewhat past the view's edges; every fifth near the middle.
        const float spread = k % 5 == 0 ? 0.1f : 1.3f;
        const glm::vec3 c((2.0f * unit(rng) - 1.0f) * spread * tx * z, (2.0f * unit(rng) - 1.0f) * spread * ty * z, -z);
        const glm::vec4 s = sampled_slopes(c, r);
        const bool meets = s.x <= tx && s.y >= -tx && s.z <= ty && s.w >= -ty;
        if (!meets) continue;
        ++in_view;
        const float extent = std::max((s.y - s.x) * ppx, (s.w - s.z) * ppy);
        const float bound = sphere_image_bound_px(r, z, tx, ty, ppx, ppy);
        EXPECT_GE(bound, extent) << "r " << r << " depth " << z << " centre " << c.x << ", " << c.y;
        // Spheres of a particle's size in the view (r / depth under 1/20: a few percent of it).
        if (std::abs(c.x) < 0.1f * tx * z && std::abs(c.y) < 0.1f * ty * z && r < 0.05f * z) {
            ++near_centre;
            loosest_on_axis = std::max(loosest_on_axis, static_cast<double>(bound / extent));
        }
    }
    EXPECT_GT(in_view, 100);
    ASSERT_GT(near_centre, 3);
    // Not so loose that small spheres near the middle of the view would go as quads for nothing:
    // there the bound's slack is the frustum's edge (1 / cos^2 of the wider half-angle, 1.44 here).
    EXPECT_LT(loosest_on_axis, 2.0);
    EXPECT_TRUE(std::isinf(sphere_image_bound_px(0.1f, 0.1f, tx, ty, ppx, ppy))) << "a sphere reaching the eye";
}

}  // namespace
