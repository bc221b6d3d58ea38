#version 330 core
// Filled convex polygons as fans (PolygonRenderer): world-space positions, the rim coordinate
// (0 at the fan's centre, 1 on the polygon's rim), RGBA8 colours.

layout(location = 0) in vec3 a_position;
layout(location = 1) in float a_rim;
layout(location = 2) in vec4 a_color;

uniform mat4 u_view_proj;

out float v_rim;
out vec4 v_color;

void main() {
    v_rim = a_rim;
    v_color = a_color;
    gl_Position = u_view_proj * vec4(a_position, 1.0);
}
