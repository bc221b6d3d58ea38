#version 330 core
// Filled convex polygons, each outlined inside its rim: the fill's colour (sRGB, straight alpha)
// darkened towards u_outline over the pixels nearest the rim. The distance to the rim in pixels is
// (1 - rim) over the rim coordinate's change a pixel; neighbouring polygons each darken their own
// side, so a shared edge shows as one line about a pixel wide.

in float v_rim;
in vec4 v_color;

uniform vec4 u_outline;  // sRGB; alpha: how far towards it the rim's pixels go

out vec4 frag_color;

void main() {
    float pixels = (1.0 - v_rim) / max(fwidth(v_rim), 1e-6);
    float line = u_outline.a * clamp(1.0 - pixels, 0.0, 1.0);
    frag_color = vec4(mix(v_color.rgb, u_outline.rgb, line), v_color.a);
}
