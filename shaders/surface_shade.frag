#version 330 core
// The liquid's surface, shading (see surface_renderer.hpp), drawn over the scene as it stands.
//   3D: the smoothed depth gives the surface's view-space points, and their finite differences
//       (the smaller of the two one-sided ones, so silhouettes do not bend) its normals (van der
//       Laan, Green & Sainz 2009, section 3.3). The colour mixes, by Schlick's Fresnel factor
//       for water (F0 = 0.02), a reflected sky with the refracted scene behind: the background
//       looked up a little off along the normal and attenuated through the liquid's thickness
//       by Beer-Lambert absorption whose colour is the liquid's (section 4), plus the light of the
//       liquid itself where it is thick, and a specular highlight from a light fixed to the
//       camera. The surface writes its depth, so walls and obstacles in front still hide it.
//   2D: the splatted density cut at half its value at rest, with a one-pixel anti-aliased edge,
//       lit as a height field of that density.
// The liquid's colour is the colour map's at its colour field, or water's blue.

in vec2 v_uv;
uniform bool u_is_3d;
uniform sampler2D u_surface;     // 3D: (smoothed distance, t); 2D: (w, w t)
uniform sampler2D u_thickness;   // 3D: (thickness, -)
uniform sampler2D u_background;  // the scene behind, sRGB
uniform sampler2D u_colormap;
uniform bool u_tinted;           // colour by the field (else water's blue)
uniform mat4 u_proj;
uniform vec2 u_texel;            // one texel
uniform float u_density_at_rest; // 2D: w inside a liquid at rest
uniform float u_opacity;

out vec4 frag_color;

vec3 srgb_to_linear(vec3 c) { return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), step(0.04045, c)); }
vec3 linear_to_srgb(vec3 c) {
    c = clamp(c, 0.0, 1.0);
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, c));
}
vec3 colormap(float t) {
    float n = float(textureSize(u_colormap, 0).x);
    return texture(u_colormap, vec2((clamp(t, 0.0, 1.0) * (n - 1.0) + 0.5) / n, 0.5)).rgb;
}
vec3 liquid_colour(float t) {
    return u_tinted ? srgb_to_linear(colormap(t)) : vec3(0.10, 0.35, 0.75);
}

const vec3 k_light = vec3(-0.4, 0.6, 0.7) / 1.0198039;  // normalised, as particles.frag's

vec3 view_point(vec2 uv, float dist) {
    vec2 ndc = 2.0 * uv - 1.0;
    return vec3(ndc.x * dist / u_proj[0][0], ndc.y * dist / u_proj[1][1], -dist);
}

// The one-sided difference towards the neighbour at +-offs whose depth is nearer this one's.
vec3 tangent(vec2 uv, vec3 p, vec2 offs) {
    float a = texture(u_surface, uv + offs).r, b = texture(u_surface, uv - offs).r;
    vec3 fwd = a > 0.0 ? view_point(uv + offs, a) - p : vec3(0.0);
    vec3 back = b > 0.0 ? p - view_point(uv - offs, b) : vec3(0.0);
    if (a <= 0.0) return back;
    if (b <= 0.0) return fwd;
    return abs(fwd.z) < abs(back.z) ? fwd : back;
}

void shade_3d() {
    vec2 s = texture(u_surface, v_uv).rg;
    if (s.r <= 0.0) discard;
    vec3 p = view_point(v_uv, s.r);
    vec3 dx = tangent(v_uv, p, vec2(u_texel.x, 0.0)), dy = tangent(v_uv, p, vec2(0.0, u_texel.y));
    vec3 n = normalize(cross(dx, dy));
    if (any(isnan(n)) || dot(dx, dx) == 0.0 || dot(dy, dy) == 0.0) n = vec3(0.0, 0.0, 1.0);
    vec3 v = normalize(-p);
    if (dot(n, v) < 0.0) n = -n;

    float thickness = texture(u_thickness, v_uv).r;
    vec3 colour = liquid_colour(s.g);
    // Beer-Lambert: the scene behind fades through the liquid, the channels the liquid's colour
    // lacks first (coefficients per metre: a decimetre of water hides most of what is behind);
    // the liquid's own lit colour shows in proportion.
    vec3 through = exp(-((1.0 - colour) * 14.0 + 4.0) * thickness);
    vec2 bent = v_uv + n.xy * 0.025 * min(thickness * 8.0, 1.0);
    vec3 behind = srgb_to_linear(texture(u_background, bent).rgb);
    float diffuse = max(dot(n, k_light), 0.0);
    vec3 body = colour * (0.35 + 0.65 * diffuse);
    float cover = 1.0 - exp(-12.0 * thickness);
    vec3 refracted = mix(behind * through, body, cover);

    vec3 r = reflect(-v, n);
    vec3 sky = mix(vec3(0.06, 0.07, 0.08), vec3(0.35, 0.42, 0.52), clamp(0.5 + 0.5 * r.y, 0.0, 1.0));
    float fresnel = 0.02 + 0.98 * pow(1.0 - max(dot(n, v), 0.0), 5.0);
    vec3 h = normalize(k_light + v);
    float specular = 0.6 * pow(max(dot(n, h), 0.0), 80.0);
    vec3 c = mix(refracted, sky, fresnel) + vec3(specular);
    frag_color = vec4(linear_to_srgb(c), u_opacity);

    vec4 clip = u_proj * vec4(p, 1.0);
    gl_FragDepth = 0.5 * (gl_DepthRange.diff * (clip.z / clip.w) + gl_DepthRange.near + gl_DepthRange.far);
}

void shade_2d() {
    vec2 s = texture(u_surface, v_uv).rg;
    float rho = s.r / u_density_at_rest;
    float edge = fwidth(rho) + 1e-4;
    float alpha = smoothstep(0.5 - edge, 0.5 + edge, rho);
    if (alpha <= 0.0) discard;
    float t = s.r > 0.0 ? s.g / s.r : 0.5;
    // The density as a height field near the edge: its slope tilts the normal (a rounded rim).
    // Inside, where the density is at rest but for the particles' lattice ripple, it stays flat.
    float l = texture(u_surface, v_uv - vec2(u_texel.x, 0.0)).r, r = texture(u_surface, v_uv + vec2(u_texel.x, 0.0)).r;
    float d = texture(u_surface, v_uv - vec2(0.0, u_texel.y)).r, u = texture(u_surface, v_uv + vec2(0.0, u_texel.y)).r;
    float rim = 6.0 * (1.0 - smoothstep(0.6, 0.9, rho)) / u_density_at_rest;
    vec3 n = normalize(vec3((l - r) * rim, (d - u) * rim, 1.0));
    float diffuse = max(dot(n, k_light), 0.0);
    vec3 h = normalize(k_light + vec3(0.0, 0.0, 1.0));
    float specular = 0.35 * pow(max(dot(n, h), 0.0), 40.0);
    vec3 c = liquid_colour(t) * (0.35 + 0.75 * diffuse) + vec3(specular);
    frag_color = vec4(linear_to_srgb(c), alpha * u_opacity);
    gl_FragDepth = gl_FragCoord.z;
}

void main() {
    if (u_is_3d)
        shade_3d();
    else
        shade_2d();
}
