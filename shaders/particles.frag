#version 330 core
// Particle fragments (see particles.vert): 2D anti-aliased discs with a darker rim, 3D ray-cast
// sphere impostors with their true depth, Lambert + ambient + a little Blinn-Phong specular.

//
// FS_SPRITES (ParticleRenderer's sprite program, for software rasterisers): the 3D spheres keep
// the depth of their front point, which the rasteriser writes itself, instead of the hit's.
// A shader that writes gl_FragDepth anywhere is shaded before its depth test, and llvmpipe
// applies no conservative-depth hint; without it, and with the particles drawn nearest first
// (depth_order.hpp), hidden fragments are rejected before they run. What it gives up: where two
// spheres cross, the nearer front point wins the whole overlap instead of the curve where they
// meet, which at a few pixels a sphere is not seen. Light is also encoded with a gamma of 2
// (one square root) instead of sRGB's curve (three powers).

#ifndef FS_SPRITES
// Writing gl_FragDepth normally turns early depth testing off. The impostor quad lies on the
// plane of the sphere's nearest point, so every depth written is >= the quad's own: declaring
// that lets the GPU still reject hidden fragments before they run (where supported).
#ifdef GL_ARB_conservative_depth
#extension GL_ARB_conservative_depth : enable
layout(depth_greater) out float gl_FragDepth;
#endif
#endif

#ifndef FS_SPRITES
in vec2 v_offset;
in vec3 v_ray;
flat in float v_radius;
flat in vec3 v_base;         // sRGB-encoded (particles.vert)
#else
#define v_radius u_radius    // the sprites' outputs are fewer (particles.vert)
#endif
flat in vec3 v_center;
flat in float v_t;
flat in vec3 v_base_linear;  // linear

uniform bool u_is_3d;
uniform mat4 u_proj;
uniform float u_pixel;
uniform bool u_boundary_only;  // only the particles with no colour (NaN: walls), under a liquid's surface
uniform float u_radius;        // world units (particles.vert)
uniform vec4 u_viewport;       // x, y, width, height in pixels (sprites)

out vec4 frag_color;

// IEC 61966-2-1 sRGB encoding of the lit colour (the framebuffer holds encoded values); the
// sprites' gamma of 2 inverts particles.vert's decoding exactly.
vec3 linear_to_srgb(vec3 c) {
    c = clamp(c, 0.0, 1.0);
#ifdef FS_SPRITES
    return sqrt(c);
#else
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, c));
#endif
}

#ifndef FS_SPRITES
void disc() {
    float d = length(v_offset);
    float r = v_radius;
    // Pixel coverage approximated by a one-pixel linear ramp across the edge.
    float alpha = clamp((r - d) / u_pixel + 0.5, 0.0, 1.0);
    if (alpha <= 0.0) discard;
    // A thin darker rim tells touching discs apart; it fades out on discs only a few pixels
    // across, where it would swallow the fill.
    float rim_width = max(0.12 * r, u_pixel);
    float rim = clamp((d - (r - rim_width)) / u_pixel + 0.5, 0.0, 1.0) *
                smoothstep(2.0, 4.0, r / u_pixel);
    vec3 base = v_base;
    frag_color = vec4(mix(base, 0.55 * base, rim), alpha);
    gl_FragDepth = gl_FragCoord.z;  // written on every path, as GLSL asks once it is written at all
}
#endif

void sphere() {
    // Ray from the eye (view-space origin) along unit d against |p - c| = r. Stable form (Haines
    // et al., "Precision Improvements for Ray/Sphere Intersection", Ray Tracing Gems, ch. 7,
    // 2019): b = d.c is the distance to the closest approach, and the squared miss distance is
    // |c - b d|^2 taken from the difference vector, not |c|^2 - b^2, which cancels badly for
    // small spheres far away.
#ifdef FS_SPRITES
    // A point has no interpolated ray: the view-space direction through this pixel, for the
    // symmetric frustum of particles.vert ((ndc.x / P[0][0], ndc.y / P[1][1], -1)).
    vec2 ndc = (gl_FragCoord.xy - u_viewport.xy) / u_viewport.zw * 2.0 - 1.0;
    vec3 ray = vec3(ndc.x / u_proj[0][0], ndc.y / u_proj[1][1], -1.0);
#else
    vec3 ray = v_ray;
#endif
    vec3 d = ray * inversesqrt(dot(ray, ray));
    float b = dot(d, v_center);
    vec3 q = v_center - b * d;
    float h2 = v_radius * v_radius - dot(q, q);
    if (h2 < 0.0) discard;
    vec3 p = (b - sqrt(h2)) * d;  // the nearer hit
    vec3 n = (p - v_center) / v_radius;

#ifndef FS_SPRITES
    // Depth of the hit, as the fixed pipeline would have computed it for a real surface there:
    // for a perspective P, ndc_z = (P[2][2] z + P[3][2]) / -z = -P[2][2] + P[3][2] / -z, and
    // window depth = near + (far - near) (ndc_z + 1) / 2.
    gl_FragDepth = 0.5 * (gl_DepthRange.diff * (-u_proj[2][2] + u_proj[3][2] / -p.z) + gl_DepthRange.near +
                          gl_DepthRange.far);
#endif

    // A key light fixed to the camera (upper left, in front), so the shading reads the same from
    // every orbit angle. Fully lit points show the colour-map colour itself.
    const vec3 light = normalize(vec3(-0.4, 0.6, 0.7));
    vec3 h = normalize(light - d);
    float diffuse = max(dot(n, light), 0.0);
    // (n.h)^48 as x^16 x^32 by squaring: a software rasteriser's pow is an exp2 and a log2.
    float x2 = max(dot(n, h), 0.0);
    x2 *= x2;
    float x4 = x2 * x2, x8 = x4 * x4, x16 = x8 * x8;
    float specular = diffuse > 0.0 ? 0.25 * x16 * x16 * x16 : 0.0;
    vec3 base = v_base_linear;
    frag_color = vec4(linear_to_srgb(base * (0.2 + 0.8 * diffuse) + vec3(specular)), 1.0);
}

void main() {
    if (u_boundary_only && v_t >= 0.0) discard;
#ifdef FS_SPRITES
    sphere();
#else
    if (u_is_3d)
        sphere();
    else
        disc();
#endif
}
