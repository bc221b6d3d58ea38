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

}  // namespace fs::render
