#include "render/depth_order.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fs::render {

void order_front_to_back(const glm::mat4& view, const float* xyz, int n, int bins, FrontToBack& out) {
    n = std::max(n, 0);
    bins = std::max(bins, 1);
    out.order.resize(static_cast<std::size_t>(n));
    out.bin_start.assign(static_cast<std::size_t>(bins) + 1, 0);
    // View depth = -(third row of the view matrix) . (x, y, z, 1).
    const float rx = -view[0][2], ry = -view[1][2], rz = -view[2][2], rw = -view[3][2];
    auto depth_of = [&](int i) {
        const float* p = xyz + 3 * static_cast<std::size_t>(i);
        return rx * p[0] + ry * p[1] + rz * p[2] + rw;
    };
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    for (int i = 0; i < n; ++i) {
        const float z = depth_of(i);
        if (!std::isfinite(z)) continue;
        lo = std::min(lo, z);
        hi = std::max(hi, z);
    }
    out.depth_lo = std::isfinite(lo) ? lo : 0.0f;
    out.bin_width = hi > lo ? (hi - lo) / static_cast<float>(bins) : 0.0f;
    const float scale = out.bin_width > 0.0f ? 1.0f / out.bin_width : 0.0f;
    // Each particle's bin and the bins' counts, their exclusive prefix, then each particle to its
    // bin's next place.
    out.bin_of.resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        const float z = depth_of(i);
        const int b = std::isfinite(z) ? std::clamp(static_cast<int>((z - out.depth_lo) * scale), 0, bins - 1) : bins - 1;
        out.bin_of[static_cast<std::size_t>(i)] = b;
        ++out.bin_start[static_cast<std::size_t>(b) + 1];
    }
    for (int b = 0; b < bins; ++b) out.bin_start[static_cast<std::size_t>(b) + 1] += out.bin_start[static_cast<std::size_t>(b)];
    out.next.assign(out.bin_start.begin(), out.bin_start.end() - 1);
    for (int i = 0; i < n; ++i)
        out.order[static_cast<std::size_t>(out.next[static_cast<std::size_t>(out.bin_of[static_cast<std::size_t>(i)])]++)] = i;
}

float sphere_image_bound_px(float r, float z, float tan_half_x, float tan_half_y, float pixels_per_unit_x,
                            float pixels_per_unit_y) {
    const float inf = std::numeric_limits<float>::infinity();
    if (!(z > r) || !(r >= 0.0f)) return inf;
    const float a = std::asin(r / z);
    auto width = [&](float tan_half, float pixels_per_unit) {
        const float half = std::atan(tan_half);
        if (half + 2.0f * a >= 0.5f * 3.14159265f) return inf;
        return pixels_per_unit * std::sin(2.0f * a) / (std::cos(half + 2.0f * a) * std::cos(half));
    };
    return std::max(width(tan_half_x, pixels_per_unit_x), width(tan_half_y, pixels_per_unit_y));
}

void OcclusionCuller::begin(const glm::mat4& view, const glm::mat4& proj, const int viewport[4]) {
    view_ = view;
    p00_ = proj[0][0];
    p11_ = proj[1][1];
    // Near plane of a perspective matrix: P[3][2] / (P[2][2] - 1) (particles.vert drops a
    // sphere that reaches it).
    near_ = proj[3][2] / (proj[2][2] - 1.0f);
    vx_ = viewport[0];
    vy_ = viewport[1];
    vw_ = std::max(viewport[2], 0);
    vh_ = std::max(viewport[3], 0);
    cover_.assign(static_cast<std::size_t>(vw_) * static_cast<std::size_t>(vh_), std::numeric_limits<float>::infinity());
    marked_ = 0;
}

namespace {

// Pixels: what the culler allows for the difference between its float arithmetic and the
// shader's, on the image's edges (a sphere's pixels are decided by its pixel centres alone).
constexpr float kSlack = 0.05f;

// particles.vert's sphere_slope_bounds: the slopes a / -z of the two tangents from the eye to the
// circle of radius r about (a, z) (Mara & McGuire, JCGT 2(2), 2013).
void slope_bounds(float a, float z, float r, float& lo, float& hi) {
    const float t = std::sqrt(std::max(a * a + z * z - r * r, 0.0f));
    const float s1 = (a * t - z * r) / -(a * r + z * t);
    const float s2 = (a * t + z * r) / (a * r - z * t);
    lo = std::min(s1, s2);
    hi = std::max(s1, s2);
}

}  // namespace

bool OcclusionCuller::offer(const float* xyz, float r) {
    const glm::vec3 c = glm::vec3(view_ * glm::vec4(xyz[0], xyz[1], xyz[2], 1.0f));
    const float front = -c.z - r;  // view depth of the front point, as the sprite is drawn
    if (!(front > near_)) return false;  // dropped by particles.vert (or not a number)
    float xlo, xhi, ylo, yhi;
    slope_bounds(c.x, c.z, r, xlo, xhi);
    slope_bounds(c.y, c.z, r, ylo, yhi);
    // Slopes to window pixels: x = vx + (P00 s + 1) w / 2. The pixels whose centres (x + 0.5)
    // lie in the image's rectangle, give or take kSlack for the shader's rounding, clipped to the
    // viewport (nothing left: off screen, hidden).
    const float sx = 0.5f * static_cast<float>(vw_) * p00_, sy = 0.5f * static_cast<float>(vh_) * p11_;
    const float ox = static_cast<float>(vx_) + 0.5f * static_cast<float>(vw_);
    const float oy = static_cast<float>(vy_) + 0.5f * static_cast<float>(vh_);
    const float fx0 = ox + sx * xlo, fx1 = ox + sx * xhi, fy0 = oy + sy * ylo, fy1 = oy + sy * yhi;
    if (!(fx1 - fx0 < 1e6f && fy1 - fy0 < 1e6f)) return true;  // huge or not finite: draw
    const int x0 = std::max(static_cast<int>(std::ceil(fx0 - 0.5f - kSlack)) - vx_, 0);
    const int x1 = std::min(static_cast<int>(std::floor(fx1 - 0.5f + kSlack)) - vx_, vw_ - 1);
    const int y0 = std::max(static_cast<int>(std::ceil(fy0 - 0.5f - kSlack)) - vy_, 0);
    const int y1 = std::min(static_cast<int>(std::floor(fy1 - 0.5f + kSlack)) - vy_, vh_ - 1);
    if (x0 > x1 || y0 > y1) return false;
    bool hidden = true;
    for (int y = y0; y <= y1 && hidden; ++y) {
        const float* row = &cover_[static_cast<std::size_t>(y) * static_cast<std::size_t>(vw_)];
        for (int x = x0; x <= x1; ++x)
            if (!(row[x] < front)) {
                hidden = false;
                break;
            }
    }
    if (hidden) return false;
    // The disc it surely covers, about the rectangle's centre (the ellipse's), radius tan a in
    // pixels less kSlack; pixel (x, y) has its centre at (x + 0.5, y + 0.5) in window
    // coordinates.
    const float d2 = c.x * c.x + c.y * c.y + c.z * c.z;
    const float tan_a = r / std::sqrt(std::max(d2 - r * r, 1e-30f));
    const float rad = std::min(sx, sy) * tan_a - kSlack;
    if (rad <= 0.0f) return true;
    const float cx = 0.5f * (fx0 + fx1) - static_cast<float>(vx_), cy = 0.5f * (fy0 + fy1) - static_cast<float>(vy_);
    const int mx0 = std::max(static_cast<int>(std::ceil(cx - rad - 0.5f)), 0);
    const int mx1 = std::min(static_cast<int>(std::floor(cx + rad - 0.5f)), vw_ - 1);
    const int my0 = std::max(static_cast<int>(std::ceil(cy - rad - 0.5f)), 0);
    const int my1 = std::min(static_cast<int>(std::floor(cy + rad - 0.5f)), vh_ - 1);
    const float rad2 = rad * rad;
    for (int y = my0; y <= my1; ++y) {
        const float dy = static_cast<float>(y) + 0.5f - cy;
        float* row = &cover_[static_cast<std::size_t>(y) * static_cast<std::size_t>(vw_)];
        for (int x = mx0; x <= mx1; ++x) {
            const float dx = static_cast<float>(x) + 0.5f - cx;
            if (dx * dx + dy * dy <= rad2 && front < row[x]) {
                row[x] = front;
                ++marked_;
            }
        }
    }
    return true;
}

}  // namespace fs::render
