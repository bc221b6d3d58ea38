#version 330 core
// Coloured line segments: the vertex colour as it is (sRGB, straight alpha).

in vec4 v_color;

out vec4 frag_color;

void main() { frag_color = v_color; }
