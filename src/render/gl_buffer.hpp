// Internal to src/render (include it from .cpp files only: it pulls in the GL loader): a vertex
// buffer upload that reallocates only when it must grow, and then by half again, so buffers that
// change size a little every frame settle, as core/buffer.hpp does on the host. Needs a current
// GL context.
#pragma once

#include "render/gl.hpp"

#include <algorithm>
#include <cstddef>

namespace fs::render::detail {

// Uploads `bytes` from `data` (may be null: only ensures the size) into GL buffer `buffer`,
// growing its store to max(bytes, 1.5 capacity) first when capacity_bytes is too small. Returns
// true when the store was reallocated (its contents are then lost, and a CUDA registration of the
// buffer must be renewed).
inline bool upload_growing(unsigned buffer, std::size_t& capacity_bytes, const void* data,
                           std::size_t bytes) {
    glBindBuffer(GL_ARRAY_BUFFER, buffer);
    bool grew = false;
    if (bytes > capacity_bytes) {
        capacity_bytes = std::max(bytes, capacity_bytes + capacity_bytes / 2);
        glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(capacity_bytes), nullptr,
                     GL_DYNAMIC_DRAW);
        grew = true;
    }
    if (data && bytes > 0)
        glBufferSubData(GL_ARRAY_BUFFER, 0, static_cast<GLsizeiptr>(bytes), data);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    return grew;
}

// The state lines and meshes draw with: depth-tested (less-or-equal, so shapes drawn again at the
// same depth still show), both sides of a face, alpha blended over what is there.
inline void depth_tested_blending() {
    glDisable(GL_CULL_FACE);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glDepthMask(GL_TRUE);
    glEnable(GL_BLEND);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
}

}  // namespace fs::render::detail
