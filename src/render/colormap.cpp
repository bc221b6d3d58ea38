#include "render/colormap.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <span>

namespace fs::render {

namespace {

// A key colour: position t in [0, 1] and sRGB components in [0, 1]. Between stops the map is
// interpolated linearly in sRGB; 17 stops keep it within about 1/255 of the published tables.
struct Stop {
    float t, r, g, b;
};

// viridis, magma, plasma: van der Walt & Smith (2015), cividis: Nuñez, Anderton & Renslow (2018),
// "Optimizing colormaps with consideration for color vision deficiency", PLoS ONE 13(8). Key
// colours are the published 256-entry tables (as shipped in matplotlib's _cm_listed.py) at
// entries 0, 16, ..., 240 and 255, so entry i sits at t = i / 255.
constexpr Stop k_viridis[] = {
    {0 / 255.0f, 0.267004f, 0.004874f, 0.329415f},
    {16 / 255.0f, 0.282327f, 0.094955f, 0.417331f},
    {32 / 255.0f, 0.278826f, 0.175490f, 0.483397f},
    {48 / 255.0f, 0.258965f, 0.251537f, 0.524736f},
    {64 / 255.0f, 0.229739f, 0.322361f, 0.545706f},
    {80 / 255.0f, 0.199430f, 0.387607f, 0.554642f},
    {96 / 255.0f, 0.172719f, 0.448791f, 0.557885f},
    {112 / 255.0f, 0.149039f, 0.508051f, 0.557250f},
    {128 / 255.0f, 0.127568f, 0.566949f, 0.550556f},
    {144 / 255.0f, 0.120638f, 0.625828f, 0.533488f},
    {160 / 255.0f, 0.157851f, 0.683765f, 0.501686f},
    {176 / 255.0f, 0.246070f, 0.738910f, 0.452024f},
    {192 / 255.0f, 0.369214f, 0.788888f, 0.382914f},
    {208 / 255.0f, 0.515992f, 0.831158f, 0.294279f},
    {224 / 255.0f, 0.678489f, 0.863742f, 0.189503f},
    {240 / 255.0f, 0.845561f, 0.887322f, 0.099702f},
    {255 / 255.0f, 0.993248f, 0.906157f, 0.143936f},
};
constexpr Stop k_magma[] = {
    {0 / 255.0f, 0.001462f, 0.000466f, 0.013866f},
    {16 / 255.0f, 0.039608f, 0.031090f, 0.133515f},
    {32 / 255.0f, 0.113094f, 0.065492f, 0.276784f},
    {48 / 255.0f, 0.211718f, 0.061992f, 0.418647f},
    {64 / 255.0f, 0.316654f, 0.071690f, 0.485380f},
    {80 / 255.0f, 0.414709f, 0.110431f, 0.504662f},
    {96 / 255.0f, 0.512831f, 0.148179f, 0.507648f},
    {112 / 255.0f, 0.613617f, 0.181811f, 0.498536f},
    {128 / 255.0f, 0.716387f, 0.214982f, 0.475290f},
    {144 / 255.0f, 0.816914f, 0.255895f, 0.436461f},
    {160 / 255.0f, 0.904281f, 0.319610f, 0.388137f},
    {176 / 255.0f, 0.960949f, 0.418323f, 0.359630f},
    {192 / 255.0f, 0.986700f, 0.535582f, 0.382210f},
    {208 / 255.0f, 0.996096f, 0.653659f, 0.446213f},
    {224 / 255.0f, 0.996898f, 0.769591f, 0.534892f},
    {240 / 255.0f, 0.992440f, 0.884330f, 0.640099f},
    {255 / 255.0f, 0.987053f, 0.991438f, 0.749504f},
};
constexpr Stop k_plasma[] = {
    {0 / 255.0f, 0.050383f, 0.029803f, 0.527975f},
    {16 / 255.0f, 0.193374f, 0.018354f, 0.590330f},
    {32 / 255.0f, 0.299855f, 0.009561f, 0.631624f},
    {48 / 255.0f, 0.399411f, 0.000859f, 0.656133f},
    {64 / 255.0f, 0.494877f, 0.011990f, 0.657865f},
    {80 / 255.0f, 0.584391f, 0.068579f, 0.632812f},
    {96 / 255.0f, 0.665129f, 0.138566f, 0.585582f},
    {112 / 255.0f, 0.736019f, 0.209439f, 0.527908f},
    {128 / 255.0f, 0.798216f, 0.280197f, 0.469538f},
    {144 / 255.0f, 0.853319f, 0.351553f, 0.413734f},
    {160 / 255.0f, 0.901807f, 0.425087f, 0.359688f},
    {176 / 255.0f, 0.942598f, 0.502639f, 0.305816f},
    {192 / 255.0f, 0.973416f, 0.585761f, 0.251540f},
    {208 / 255.0f, 0.991365f, 0.675355f, 0.198453f},
    {224 / 255.0f, 0.993033f, 0.771720f, 0.154808f},
    {240 / 255.0f, 0.974443f, 0.874622f, 0.144061f},
    {255 / 255.0f, 0.940015f, 0.975158f, 0.131326f},
};
constexpr Stop k_cividis[] = {
    {0 / 255.0f, 0.000000f, 0.135112f, 0.304751f},
    {16 / 255.0f, 0.000000f, 0.178802f, 0.414764f},
    {32 / 255.0f, 0.103401f, 0.220406f, 0.435790f},
    {48 / 255.0f, 0.195057f, 0.264372f, 0.425924f},
    {64 / 255.0f, 0.263738f, 0.307831f, 0.422789f},
    {80 / 255.0f, 0.324250f, 0.351289f, 0.426250f},
    {96 / 255.0f, 0.380830f, 0.395164f, 0.435653f},
    {112 / 255.0f, 0.435168f, 0.439763f, 0.451134f},
    {128 / 255.0f, 0.488697f, 0.485318f, 0.471008f},
    {144 / 255.0f, 0.547840f, 0.531895f, 0.471704f},
    {160 / 255.0f, 0.609105f, 0.579816f, 0.463638f},
    {176 / 255.0f, 0.671991f, 0.629316f, 0.448018f},
    {192 / 255.0f, 0.736488f, 0.680629f, 0.424028f},
    {208 / 255.0f, 0.802667f, 0.733978f, 0.390153f},
    {224 / 255.0f, 0.870717f, 0.789572f, 0.343333f},
    {240 / 255.0f, 0.941147f, 0.847530f, 0.275815f},
    {255 / 255.0f, 0.995737f, 0.909344f, 0.217772f},
};
// Moreland (2009), "Diverging Color Maps for Scientific Visualization", ISVC: the smooth
// cool-warm map, every other entry of its 33-entry 8-bit table (t = k / 32).
constexpr Stop k_coolwarm[] = {
    {0 / 16.0f, 59 / 255.0f, 76 / 255.0f, 192 / 255.0f},
    {1 / 16.0f, 77 / 255.0f, 104 / 255.0f, 215 / 255.0f},
    {2 / 16.0f, 98 / 255.0f, 130 / 255.0f, 234 / 255.0f},
    {3 / 16.0f, 119 / 255.0f, 154 / 255.0f, 247 / 255.0f},
    {4 / 16.0f, 141 / 255.0f, 176 / 255.0f, 254 / 255.0f},
    {5 / 16.0f, 163 / 255.0f, 194 / 255.0f, 255 / 255.0f},
    {6 / 16.0f, 184 / 255.0f, 208 / 255.0f, 249 / 255.0f},
    {7 / 16.0f, 204 / 255.0f, 217 / 255.0f, 238 / 255.0f},
    {8 / 16.0f, 221 / 255.0f, 221 / 255.0f, 221 / 255.0f},
    {9 / 16.0f, 236 / 255.0f, 211 / 255.0f, 197 / 255.0f},
    {10 / 16.0f, 245 / 255.0f, 196 / 255.0f, 173 / 255.0f},
    {11 / 16.0f, 247 / 255.0f, 177 / 255.0f, 148 / 255.0f},
    {12 / 16.0f, 244 / 255.0f, 154 / 255.0f, 123 / 255.0f},
    {13 / 16.0f, 236 / 255.0f, 127 / 255.0f, 99 / 255.0f},
    {14 / 16.0f, 222 / 255.0f, 96 / 255.0f, 77 / 255.0f},
    {15 / 16.0f, 203 / 255.0f, 62 / 255.0f, 56 / 255.0f},
    {16 / 16.0f, 180 / 255.0f, 4 / 255.0f, 38 / 255.0f},
};

struct Entry {
    Colormap map;
    std::string_view name;
    std::span<const Stop> stops;
    bool diverging;
};

constexpr std::array<Entry, 5> k_maps{{
    {Colormap::Viridis, "viridis", k_viridis, false},
    {Colormap::Magma, "magma", k_magma, false},
    {Colormap::Plasma, "plasma", k_plasma, false},
    {Colormap::Cividis, "cividis", k_cividis, false},
    {Colormap::Coolwarm, "coolwarm", k_coolwarm, true},
}};

static_assert(k_maps.size() == colormap_count);

const Entry& entry(Colormap map) {
    const auto i = static_cast<std::size_t>(map);
    return k_maps[i < k_maps.size() ? i : 0];
}

}  // namespace

std::vector<std::string> colormap_names() {
    std::vector<std::string> names;
    for (const Entry& e : k_maps) names.emplace_back(e.name);
    return names;
}

std::string_view colormap_name(Colormap map) {
    return entry(map).name;
}

std::optional<Colormap> colormap_from_name(std::string_view name) {
    for (const Entry& e : k_maps) {
        if (std::equal(name.begin(), name.end(), e.name.begin(), e.name.end(), [](char a, char b) {
                return std::tolower(static_cast<unsigned char>(a)) == b;
            }))
            return e.map;
    }
    return std::nullopt;
}

bool colormap_is_diverging(Colormap map) {
    return entry(map).diverging;
}

glm::vec3 colormap_rgb(Colormap map, float t) {
    const std::span<const Stop> s = entry(map).stops;
    t = t > 0.0f ? std::min(t, 1.0f) : 0.0f;  // also sends NaN to 0
    // The first stop whose t is >= the query closes the segment.
    const auto hi = std::lower_bound(s.begin() + 1, s.end() - 1, t,
                                     [](const Stop& a, float v) { return a.t < v; });
    const Stop& b = *hi;
    const Stop& a = *(hi - 1);
    const float u = std::clamp((t - a.t) / (b.t - a.t), 0.0f, 1.0f);
    return glm::mix(glm::vec3(a.r, a.g, a.b), glm::vec3(b.r, b.g, b.b), u);
}

std::vector<unsigned char> colormap_lut(Colormap map, int n) {
    n = std::max(n, 1);
    std::vector<unsigned char> lut(3 * static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        const float t = n > 1 ? static_cast<float>(i) / static_cast<float>(n - 1) : 0.0f;
        const glm::vec3 c = colormap_rgb(map, t);
        for (int k = 0; k < 3; ++k)
            lut[3 * static_cast<std::size_t>(i) + k] =
                static_cast<unsigned char>(std::lround(std::clamp(c[k], 0.0f, 1.0f) * 255.0f));
    }
    return lut;
}

}  // namespace fs::render
