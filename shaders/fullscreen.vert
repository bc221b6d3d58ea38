#version 330 core
// One triangle that covers the viewport (corners (-1,-1), (3,-1), (-1,3) in clip space), from
// gl_VertexID alone: the screen-space passes of the liquid's surface (surface_renderer.hpp).
out vec2 v_uv;  // 0..1 across the viewport

void main() {
    vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    v_uv = p;
    gl_Position = vec4(2.0 * p - 1.0, 0.0, 1.0);
}
