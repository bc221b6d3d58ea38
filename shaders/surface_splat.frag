#version 330 core
// The liquid's surface, first pass (see surface_renderer.hpp), over particles.vert's quads.
//   3D (u_pass 0): each sphere's nearest point, as the view-space distance to it, the nearest
//       sphere's colour coordinate, and its depth for the depth test (screen-space fluid
//       rendering: van der Laan, Green & Sainz 2009, section 3).
//   3D (u_pass 1): thickness, the length of the ray's chord through each sphere, added up with
//       no depth test (their section 4).
//   2D: a smooth kernel (1 - d^2 / R^2)^3 of the particle's disc of radius R, and the same
//       weight times its colour coordinate, added up: a density field the shading pass cuts at
//       half its value at rest.
// Particles with no colour coordinate (NaN: boundary particles) are not liquid.

in vec2 v_offset;
in vec3 v_ray;
flat in vec3 v_center;
flat in float v_radius;
flat in float v_t;

uniform bool u_is_3d;
uniform int u_pass;
uniform mat4 u_proj;

layout(location = 0) out vec2 o_value;  // 3D pass 0: (distance, t); pass 1: (thickness, 0); 2D: (w, w t)

void main() {
    if (v_t < 0.0) discard;
    if (!u_is_3d) {  // (u_pass 1, into the half-resolution target)
        float s2 = dot(v_offset, v_offset) / (v_radius * v_radius);
        if (s2 >= 1.0) discard;
        float k = 1.0 - s2;
        float w = k * k * k;
        o_value = vec2(w, w * v_t);
        return;
    }
    // Ray from the eye along unit d against the sphere (as particles.frag).
    vec3 d = normalize(v_ray);
    float b = dot(d, v_center);
    vec3 q = v_center - b * d;
    float h2 = v_radius * v_radius - dot(q, q);
    if (h2 < 0.0) discard;
    float h = sqrt(h2);
    if (u_pass == 1) {
        o_value = vec2(2.0 * h, 0.0);
        gl_FragDepth = gl_FragCoord.z;
        return;
    }
    vec3 p = (b - h) * d;
    vec4 clip = u_proj * vec4(p, 1.0);
    gl_FragDepth = 0.5 * (gl_DepthRange.diff * (clip.z / clip.w) + gl_DepthRange.near + gl_DepthRange.far);
    o_value = vec2(-p.z, v_t);
}
