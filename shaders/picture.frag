#version 330 core
// The scene's cached picture shown in the window (OffscreenTarget::show): its texels copied one
// to one. A draw rather than glBlitFramebuffer, which WebGL2 in Chromium (ANGLE) was seen to
// ignore when the target is the page's canvas: one path for both builds.
uniform sampler2D u_picture;
out vec4 frag_color;

void main() {
    frag_color = vec4(texelFetch(u_picture, ivec2(gl_FragCoord.xy), 0).rgb, 1.0);
}
