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
using fs::render::OcclusionCuller;
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

// The picture the sprites make: at each pixel centre, the nearest front depth among the spheres
// the pixel's ray meets (the shader's test, here in double), +inf for none. Spheres reaching the
// near plane are not drawn (particles.vert).
std::vector<double> sprite_picture(const std::vector<glm::vec3>& centres, const std::vector<bool>& drawn, float r,
                                   const glm::mat4& view, const glm::mat4& proj, const int vp[4]) {
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> depth(static_cast<std::size_t>(vp[2]) * vp[3], inf);
    const double near = proj[3][2] / (proj[2][2] - 1.0);
    for (std::size_t k = 0; k < centres.size(); ++k) {
        if (!drawn[k]) continue;
        const glm::dvec3 c = glm::dvec3(view * glm::vec4(centres[k], 1.0f));
        const double front = -c.z - r;
        if (!(front > near)) continue;
        // Only the pixels near the image: its bounds in slopes (the tangents from the eye, in
        // double), two pixels wider each way.
        auto bounds = [&](double a, double z, double& lo, double& hi) {
            const double t = std::sqrt(std::max(a * a + z * z - double(r) * r, 0.0));
            const double s1 = (a * t - z * r) / -(a * r + z * t), s2 = (a * t + z * r) / (a * r - z * t);
            lo = std::min(s1, s2);
            hi = std::max(s1, s2);
        };
        double xlo, xhi, ylo, yhi;
        bounds(c.x, c.z, xlo, xhi);
        bounds(c.y, c.z, ylo, yhi);
        auto pixel = [](double slope, double p, int size) { return (p * slope + 1.0) * 0.5 * size; };
        const int x0 = std::max(int(std::floor(pixel(xlo, proj[0][0], vp[2]))) - 2, 0);
        const int x1 = std::min(int(std::ceil(pixel(xhi, proj[0][0], vp[2]))) + 2, vp[2] - 1);
        const int y0 = std::max(int(std::floor(pixel(ylo, proj[1][1], vp[3]))) - 2, 0);
        const int y1 = std::min(int(std::ceil(pixel(yhi, proj[1][1], vp[3]))) + 2, vp[3] - 1);
        for (int y = y0; y <= y1; ++y)
            for (int x = x0; x <= x1; ++x) {
                const glm::dvec2 ndc((x + 0.5) / vp[2] * 2.0 - 1.0, (y + 0.5) / vp[3] * 2.0 - 1.0);
                const glm::dvec3 d = glm::normalize(glm::dvec3(ndc.x / proj[0][0], ndc.y / proj[1][1], -1.0));
                const glm::dvec3 q = c - glm::dot(d, c) * d;
                if (glm::dot(q, q) > double(r) * r) continue;
                double& at = depth[static_cast<std::size_t>(y) * vp[2] + x];
                at = std::min(at, front);
            }
    }
    return depth;
}

TEST(DepthOrder, TheCulledSpheresChangeNoPixel) {
    // A dense block of spheres (a liquid's particles, a few pixels across), some strays, some
    // off the view's edges and some reaching the eye, seen from three places: the spheres the
    // culler drops change no pixel of the picture, and it drops most of the block.
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> jitter(-0.004f, 0.004f), unit(0.0f, 1.0f);
    const float spacing = 0.0125f;
    std::vector<glm::vec3> centres;
    for (int i = 0; i < 24; ++i)
        for (int j = 0; j < 20; ++j)
            for (int k = 0; k < 16; ++k)
                centres.emplace_back(i * spacing + jitter(rng), j * spacing + jitter(rng), k * spacing + jitter(rng));
    for (int s = 0; s < 300; ++s) centres.emplace_back(1.2f * unit(rng) - 0.3f, 0.8f * unit(rng), 0.6f * unit(rng) - 0.1f);
    const int n = static_cast<int>(centres.size());
    std::vector<float> xyz;
    for (const glm::vec3& c : centres) xyz.insert(xyz.end(), {c.x, c.y, c.z});
    const int vp[4] = {0, 0, 192, 128};  // the culler takes the viewport's offset too
    const glm::mat4 proj = glm::perspective(glm::radians(45.0f), 192.0f / 128.0f, 0.02f, 20.0f);
    const glm::vec3 eyes[3] = {glm::vec3(0.45f, 0.5f, 0.75f), glm::vec3(-0.35f, 0.35f, -0.3f), glm::vec3(0.15f, 0.12f, 0.1f)};
    for (const float r : {0.004f, 0.009f, 0.02f})  // images about 2, 5 and 11 pixels across
    for (const glm::vec3& eye : eyes) {
        const glm::mat4 view = glm::lookAt(eye, glm::vec3(0.15f, 0.12f, 0.1f) + 0.01f * eye, glm::vec3(0, 1, 0));
        FrontToBack o;
        order_front_to_back(view, xyz.data(), n, 512, o);
        OcclusionCuller culler;
        culler.begin(view, proj, vp);
        std::vector<bool> kept(static_cast<std::size_t>(n), false);
        int dropped = 0;
        for (int i : o.order) {
            kept[static_cast<std::size_t>(i)] = culler.offer(&xyz[3 * static_cast<std::size_t>(i)], r);
            dropped += kept[static_cast<std::size_t>(i)] ? 0 : 1;
        }
        const std::vector<double> all = sprite_picture(centres, std::vector<bool>(static_cast<std::size_t>(n), true), r, view, proj, vp);
        const std::vector<double> some = sprite_picture(centres, kept, r, view, proj, vp);
        int changed = 0, covered = 0;
        for (std::size_t p = 0; p < all.size(); ++p) {
            changed += all[p] != some[p] ? 1 : 0;
            covered += std::isfinite(all[p]) ? 1 : 0;
        }
        std::printf("r %.3f, eye (%.2f, %.2f, %.2f): %d of %d spheres dropped, %d pixels covered, %d changed\n", r,
                    eye.x, eye.y, eye.z, dropped, n, covered, changed);
        EXPECT_EQ(changed, 0) << "a dropped sphere showed";
        EXPECT_GT(covered, 2000);
        if (eye.z > 0.5f && r > 0.005f) {
            EXPECT_GT(dropped, n / 2) << "the block's inside should be dropped";
        }
    }
}

}  // namespace
