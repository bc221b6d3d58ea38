#version 330 core
// The liquid's surface, smoothing (see surface_renderer.hpp): one axis of a separable bilateral
// filter of the spheres' depth (van der Laan, Green & Sainz 2009, section 3.2, whose Gaussian
// they replace by curvature flow; the bilateral form is their comparison's and the common one).
// Its radius is a fixed size in the world, so its width in pixels falls with distance; depths
// further than u_range from the centre's belong to another surface and do not mix in.

in vec2 v_uv;
uniform sampler2D u_depth;   // (view-space distance, t); 0 where there is no liquid
uniform vec2 u_step;         // one texel along this pass's axis
uniform float u_pixels;      // pixels per world unit at distance 1
uniform float u_world;       // the filter's radius, world units
uniform float u_range;       // world units

layout(location = 0) out vec2 o_value;

void main() {
    vec2 c = texture(u_depth, v_uv).rg;
    if (c.r <= 0.0) {
        o_value = vec2(0.0);
        return;
    }
    float radius = clamp(u_world * u_pixels / c.r, 1.0, 24.0);
    int n = int(ceil(radius));
    float inv2s2 = 2.0 / (radius * radius);  // a Gaussian with sigma = radius / 2
    float sum = 0.0, weight = 0.0;
    // Every other texel once the radius passes 8 (the Gaussian still sampled densely enough):
    // half the taps on wide, near surfaces.
    int stride = radius > 8.0 ? 2 : 1;
    for (int i = -n; i <= n; i += stride) {
        float z = texture(u_depth, v_uv + float(i) * u_step).r;
        if (z <= 0.0) continue;
        float dz = (z - c.r) / u_range;
        float w = exp(-float(i * i) * inv2s2 - dz * dz);
        sum += w * z;
        weight += w;
    }
    o_value = vec2(sum / weight, c.g);
}
