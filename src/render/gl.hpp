// The OpenGL API for the window's code, one header for both targets:
//   desktop: OpenGL 3.3 core through the glad loader (generated into the build tree);
//   browser (Emscripten): OpenGL ES 3.0, which the page runs on WebGL2.
// The code uses what the two share. Where they differ, kGlEs says which one runs; the shaders
// are one source, rewritten from GLSL 3.30 to GLSL ES 3.00 at load (render/shader.cpp).
#pragma once

#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#else
#include <glad/gl.h>
#endif

#include "core/platform.hpp"

namespace fs::render {

inline constexpr bool kGlEs = kInBrowser;  // OpenGL ES 3.0 (WebGL2) in the browser build

// The two calls where the targets part: point sizes from the vertex shader (a switch on the
// desktop, always on in ES) and the largest point size (ES names only the aliased range).
inline void program_point_size(bool on) {
#ifdef __EMSCRIPTEN__
    (void)on;
#else
    if (on)
        glEnable(GL_PROGRAM_POINT_SIZE);
    else
        glDisable(GL_PROGRAM_POINT_SIZE);
#endif
}
inline GLenum point_size_range_name() {
#ifdef __EMSCRIPTEN__
    return GL_ALIASED_POINT_SIZE_RANGE;
#else
    return GL_POINT_SIZE_RANGE;
#endif
}

}  // namespace fs::render
