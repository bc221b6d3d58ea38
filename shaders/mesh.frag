#version 330 core
// Lit solid triangles: ambient + two-sided Lambert from one directional light, computed on
// linear values (IEC 61966-2-1 sRGB decoding and encoding); a face the light hits head-on shows
// its colour unchanged.

in vec3 v_normal;
in vec4 v_color;

uniform vec3 u_light_dir;  // unit, world space, toward the light

out vec4 frag_color;

vec3 srgb_to_linear(vec3 c) {
    return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), step(0.04045, c));
}
vec3 linear_to_srgb(vec3 c) {
    c = clamp(c, 0.0, 1.0);
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, c));
}

void main() {
    float len = length(v_normal);
    vec3 n = len > 0.0 ? v_normal / len : vec3(0.0, 0.0, 1.0);
    // Two-sided: obstacles are seen from inside too, and 2D shapes may come in either winding.
    float lambert = abs(dot(n, u_light_dir));
    vec3 lit = srgb_to_linear(v_color.rgb) * (0.3 + 0.7 * lambert);
    frag_color = vec4(linear_to_srgb(lit), v_color.a);
}
