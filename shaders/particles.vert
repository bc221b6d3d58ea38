#version 330 core
// Particles as instanced camera-facing quads: one 4-vertex triangle strip per instance, its corner
// taken from gl_VertexID, so only the per-particle attributes live in buffers.
//   2D: a square of half-side radius + 1 pixel around the centre; particles.frag cuts the disc.
//   3D: the exact screen-space bounding rectangle of the sphere's perspective image;
//       particles.frag ray-casts the sphere inside it and writes the hit's depth.
//   3D with u_points (one GL_POINTS vertex a particle, not instanced): a square point centred on
//       that rectangle and as wide as its longer side. A software rasteriser sets a point up
//       for a fraction of a quad's two triangles (llvmpipe, the FLIP dam break: 31 -> 13 ms a
//       frame for flat-coloured spheres).
// FS_SPRITES (defined by ParticleRenderer for its sprite program): colours decoded with a gamma
// of 2 instead of sRGB's curve, so that particles.frag encodes with one square root.

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
uniform bool u_points;         // 3D: one point a particle instead of a quad
uniform vec4 u_viewport;       // x, y, width, height in pixels (for u_points)

#ifndef FS_SPRITES
out vec2 v_offset;        // 2D: from the disc centre to this fragment, world units
out vec3 v_ray;           // 3D: view-space direction from the eye through this fragment
flat out float v_radius;  // radius as drawn
flat out vec3 v_base;     // the colour map's colour at v_t, sRGB-encoded
#endif
// The sprites' program draws 3D spheres only and takes each fragment's ray from its window
// position, so it passes on only these: a software rasteriser sets up every output of every
// primitive, and a sprite costs little else.
flat out vec3 v_center;   // 3D: view-space sphere centre
flat out float v_t;       // colour-map coordinate in [0, 1]; -1 for NaN
flat out vec3 v_base_linear;  // the colour map's colour in linear values (3D lighting adds up in those)

// The particle's colour, once a particle rather than once a fragment (a texture read and three
// powers a fragment were a large part of a 3D frame on a software rasteriser).
vec3 colormap(float t) {
    if (t < 0.0) return vec3(0.5);  // NaN
    // Texel centres sit at (i + 0.5) / N: t = 0 and t = 1 hit the end entries exactly.
    float n = float(textureSize(u_colormap, 0).x);
    return textureLod(u_colormap, vec2((t * (n - 1.0) + 0.5) / n, 0.5), 0.0).rgb;
}

// IEC 61966-2-1 sRGB decoding: light adds up in linear values, the colour map holds encoded ones.
// The sprites' approximation, a gamma of 2, is undone exactly by particles.frag's square root, so
// a fully lit sprite still shows the colour map's own colour.
vec3 srgb_to_linear(vec3 c) {
#ifdef FS_SPRITES
    return c * c;
#else
    return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), step(0.04045, c));
#endif
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
    vec2 corner = u_points ? vec2(0.0) : k_corners[gl_VertexID & 3];
    float span = u_range_max - u_range_min;
    float t = span != 0.0 ? (a_scalar - u_range_min) / span : 0.5;
    v_t = isnan(a_scalar) ? -1.0 : clamp(t, 0.0, 1.0);
    vec3 base = colormap(v_t);
    v_base_linear = u_is_3d ? srgb_to_linear(base) : base;
    v_center = vec3(0.0);
#ifndef FS_SPRITES
    v_base = base;
    v_offset = vec2(0.0);
    v_ray = vec3(0.0);

    if (!u_is_3d) {
        // Never thinner than a pixel and a half across, so zoomed-out particles stay visible.
        float r = max(u_radius, 0.75 * u_pixel);
        v_radius = r;
        v_offset = corner * (r + u_pixel);  // room for the one-pixel anti-aliased edge
        gl_Position = u_view_proj * vec4(a_center.xy + v_offset, a_center.z, 1.0);
        return;
    }
#endif

    vec3 c = (u_view * vec4(a_center, 1.0)).xyz;
    float r = u_radius;
    v_center = c;
#ifndef FS_SPRITES
    v_radius = r;
#endif
    // Near plane of a glm::perspective matrix: P[3][2] / (P[2][2] - 1). A sphere reaching it
    // has no bounded image (the camera is in or at it); drop it by sending the quad off screen.
    float near = u_proj[3][2] / (u_proj[2][2] - 1.0);
    if (-c.z - r <= near) {
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
        return;
    }
    vec2 bx = sphere_slope_bounds(c.x, c.z, r);
    vec2 by = sphere_slope_bounds(c.y, c.z, r);
    // The quad lies on the plane through the sphere's nearest point (depth depends on view z
    // only): no hit is nearer, which particles.frag's depth_greater declaration relies on, and
    // the sprites keep that depth as the sphere's.
    vec4 front = u_proj * vec4(c.xy, c.z + r, 1.0);
    if (u_points) {
        // Slope (x / depth) to pixels: P[0][0] slope is the NDC x, half the viewport a unit.
        vec2 extent = 0.5 * vec2(u_proj[0][0] * (bx.y - bx.x) * u_viewport.z, u_proj[1][1] * (by.y - by.x) * u_viewport.w);
        gl_PointSize = max(extent.x, extent.y) + 1.0;  // + 1: the rectangle's edges rounded out
        vec2 mid = 0.5 * vec2(bx.x + bx.y, by.x + by.y);
        gl_Position = vec4(vec2(u_proj[0][0], u_proj[1][1]) * mid, front.z / front.w, 1.0);
        return;
    }
    vec2 slope = vec2(corner.x < 0.0 ? bx.x : bx.y, corner.y < 0.0 ? by.x : by.y);
    // The view-space point (slope, -1) lies on this corner's ray. With w = 1 the rasteriser
    // interpolates v_ray linearly on screen, which is right for a direction at fixed z.
#ifndef FS_SPRITES
    v_ray = vec3(slope, -1.0);
#endif
    gl_Position = vec4(vec2(u_proj[0][0], u_proj[1][1]) * slope, front.z / front.w, 1.0);
}
