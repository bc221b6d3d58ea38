// Colour maps for scalar fields (speed, density, pressure, vorticity, ...): the perceptually
// uniform sequential maps of matplotlib and a diverging map for signed fields. Plain data and
// maths, no OpenGL: the renderer turns colormap_lut() into a texture, the app draws legends with
// it.
#pragma once

#include <glm/glm.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fs::render {

// Which colour map a field is drawn with. Coolwarm is diverging: centre the range on zero.
enum class Colormap { Viridis, Magma, Plasma, Cividis, Coolwarm };
inline constexpr int colormap_count = 5;

// Lower-case names in enum order ("viridis", ..., "coolwarm"): index i names Colormap(i).
std::vector<std::string> colormap_names();
std::string_view colormap_name(Colormap map);
std::optional<Colormap> colormap_from_name(std::string_view name);  // case-insensitive
bool colormap_is_diverging(Colormap map);

// The colour at t (clamped to [0, 1]; NaN reads as 0), sRGB components in [0, 1].
glm::vec3 colormap_rgb(Colormap map, float t);

// n >= 1 samples at t = i / (n - 1), RGB8 (3 n bytes), for a texture or a legend image.
std::vector<unsigned char> colormap_lut(Colormap map, int n = 256);

}  // namespace fs::render
