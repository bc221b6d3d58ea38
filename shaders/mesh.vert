#version 330 core
// Lit solid triangles (MeshRenderer): world-space positions and normals, RGBA8 colours. The
// model transform is baked into the vertices, so normals pass through unchanged.

layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec4 a_color;

uniform mat4 u_view_proj;

out vec3 v_normal;
out vec4 v_color;

void main() {
    v_normal = a_normal;
    v_color = a_color;
    gl_Position = u_view_proj * vec4(a_position, 1.0);
}
