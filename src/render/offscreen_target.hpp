// An offscreen colour and depth target the size of the window, for a picture drawn once and shown
// many times: the scene view draws the particles into it only when something they show changed
// (a new simulation frame, the camera, a view setting, the window's size) and copies it to the
// window every frame, under the panels. Drawing half a million particles costs ~5 ms of GPU on an
// H100 (whose graphics units are few) and 80 ms with Mesa's software renderer; the copy a fraction
// of that. Needs a current OpenGL 3.3 core context from the first begin() to release().
#pragma once

#include "render/shader.hpp"

namespace fs::render {

class OffscreenTarget {
public:
    OffscreenTarget() = default;
    OffscreenTarget(const OffscreenTarget&) = delete;
    OffscreenTarget& operator=(const OffscreenTarget&) = delete;
    ~OffscreenTarget() = default;  // GL objects go with release() or the context

    // Binds the target for drawing, w x h pixels (allocated on the first call and when the size
    // changes). Returns false when the driver cannot make it complete: then draw to the window.
    bool begin(int w, int h);
    // Copies the target's colour into the window's framebuffer (a full-window draw that samples
    // it: shaders/picture.frag) and binds that again.
    void show();
    // Whether it holds a w x h picture (begun at that size).
    bool holds(int w, int h) const { return fbo_ != 0 && w == w_ && h == h_; }
    void release();  // everything (the context must be current)

private:
    void drop_target();  // the framebuffer and its attachments
    unsigned fbo_ = 0, colour_ = 0, depth_ = 0;  // colour_: a texture, depth_: a renderbuffer
    unsigned vao_ = 0;                            // no attributes: fullscreen.vert needs none
    Shader copy_;
    int w_ = 0, h_ = 0;
};

}  // namespace fs::render
