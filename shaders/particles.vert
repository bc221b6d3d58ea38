#version 330 core
// Particles as instanced camera-facing quads: one 4-vertex triangle strip per instance, its corner
// taken from gl_VertexID, so only the per-particle attributes live in buffers.
//   2D: a square of half-side radius + 1 pixel around the centre; particles.frag cuts the disc.
//   3D: the exact screen-space bounding rectangle of the sphere's perspective image;
//       particles.frag ray-casts the sphere inside it and writes the hit's depth.

layout(location = 0) in vec3 a_center;   // per instance, world space
layout(location = 1) in float a_scalar;  // per instance, the field the colour shows

uniform bool u_is_3d;
uniform mat4 u_view_proj;  // 2D: world -> clip
uniform mat4 u_view;       // 3D: world -> view space (rigid: eye at the origin, looking down -z)
uniform mat4 u_proj;       // 3D: view -> clip, a symmetric perspective frustum
uniform float u_radius;    // world units
uniform float u_pixel;     // 2D: world units per pixel
uniform float u_range_min;
uniform float u_range_max;
uniform sampler2D u_colormap;  // N x 1, sRGB entries at t = i / (N - 1)

out vec2 v_offset;        // 2D: from the disc centre to this fragment, world units
out vec3 v_ray;           // 3D: view-space direction from the eye through this fragment
flat out vec3 v_center;   // 3D: view-space sphere centre
flat out float v_radius;  // radius as drawn
flat out float v_t;       // colour-map coordinate in [0, 1]; -1 for NaN
flat out vec3 v_base;     // the colour map's colour at v_t, sRGB-encoded
flat out vec3 v_base_linear;  // the same in linear values (3D lighting adds up in those)

// The particle's colour, once a particle rather than once a fragment (a texture read and three
// powers a fragment were a large part of a 3D frame on a software rasteriser).
vec3 colormap(float t) {
    if (t < 0.0) return vec3(0.5);  // NaN
    // Texel centres sit at (i + 0.5) / N: t = 0 and t = 1 hit the end entries exactly.
    float n = float(textureSize(u_colormap, 0).x);
    return textureLod(u_colormap, vec2((t * (n - 1.0) + 0.5) / n, 0.5), 0.0).rgb;
}

// IEC 61966-2-1 sRGB decoding: light adds up in linear values, the colour map holds encoded ones.
vec3 srgb_to_linear(vec3 c) {
    return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), step(0.04045, c));
}

const vec2 k_corners[4] = vec2[4](vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(-1.0, 1.0),
                                  vec2(1.0, 1.0));

// Bounds of a / -z over a sphere of radius r centred at (a, z) in view space, where a is x or y.
// A plane through the eye that contains the other screen axis is at distance |a + s z| /
// sqrt(1 + s^2) from the centre, whatever the other coordinate: the bounds are the slopes of the
// two lines from the eye tangent to the circle (a, z; r), i.e. the centre direction turned by
// +-asin(r / d), d = |(a, z)| (as in Mara & McGuire, "2D Polyhedral Bounds of a Clipped,
// Perspective-Projected 3D Sphere", JCGT 2(2), 2013).
vec2 sphere_slope_bounds(float a, float z, float r) {
    float t = sqrt(max(a * a + z * z - r * r, 0.0));  // tangent length, d cos(asin(r / d))
    float s1 = (a * t - z * r) / -(a * r + z * t);
    float s2 = (a * t + z * r) / (a * r - z * t);
    return vec2(min(s1, s2), max(s1, s2));
}

void main() {
    vec2 corner = k_corners[gl_VertexID];
    float span = u_range_max - u_range_min;
    float t = span != 0.0 ? (a_scalar - u_range_min) / span : 0.5;
    v_t = isnan(a_scalar) ? -1.0 : clamp(t, 0.0, 1.0);
    v_base = colormap(v_t);
    v_base_linear = u_is_3d ? srgb_to_linear(v_base) : v_base;
    v_offset = vec2(0.0);
    v_ray = vec3(0.0);
    v_center = vec3(0.0);

    if (!u_is_3d) {
        // Never thinner than a pixel and a half across, so zoomed-out particles stay visible.
        float r = max(u_radius, 0.75 * u_pixel);
        v_radius = r;
        v_offset = corner * (r + u_pixel);  // room for the one-pixel anti-aliased edge
        gl_Position = u_view_proj * vec4(a_center.xy + v_offset, a_center.z, 1.0);
        return;
    }

    vec3 c = (u_view * vec4(a_center, 1.0)).xyz;
    float r = u_radius;
    v_center = c;
    v_radius = r;
    // Near plane of a glm::perspective matrix: P[3][2] / (P[2][2] - 1). A sphere reaching it
    // has no bounded image (the camera is in or at it); drop it by sending the quad off screen.
    float near = u_proj[3][2] / (u_proj[2][2] - 1.0);
    if (-c.z - r <= near) {
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
        return;
    }
    vec2 bx = sphere_slope_bounds(c.x, c.z, r);
    vec2 by = sphere_slope_bounds(c.y, c.z, r);
    vec2 slope = vec2(corner.x < 0.0 ? bx.x : bx.y, corner.y < 0.0 ? by.x : by.y);
    // The view-space point (slope, -1) lies on this corner's ray. With w = 1 the rasteriser
    // interpolates v_ray linearly on screen, which is right for a direction at fixed z.
    v_ray = vec3(slope, -1.0);
    // The quad lies on the plane through the sphere's nearest point (depth depends on view z
    // only): no hit is nearer, which particles.frag's depth_greater declaration relies on.
    vec4 front = u_proj * vec4(c.xy, c.z + r, 1.0);
    gl_Position = vec4(vec2(u_proj[0][0], u_proj[1][1]) * slope, front.z / front.w, 1.0);
}
