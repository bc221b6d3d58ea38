// Internal to src/render: packs a [0, 1] RGBA colour into the 4 bytes a vertex stores.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <glm/glm.hpp>

namespace fs::render::detail {

inline void pack_rgba8(glm::vec4 color, std::uint8_t out[4]) {
    for (int k = 0; k < 4; ++k)
        out[k] = static_cast<std::uint8_t>(std::lround(std::clamp(color[k], 0.0f, 1.0f) * 255.0f));
}

}  // namespace fs::render::detail
