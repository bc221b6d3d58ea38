// The GPU time of the window's scene draw, for the self-closing run's summary (app.cpp).
#pragma once

#include <vector>

#include "render/gl.hpp"

namespace fs {

// The GPU time of the scene's draw (particles, lines, overlays) by OpenGL timer queries, read a
// few frames late so that reading never waits for the GPU. For the self-closing summary: on one
// GPU the window's drawing and a CUDA simulation take turns.
class GpuDrawTimer {
public:
#ifdef __EMSCRIPTEN__
    // WebGL2 has no timer queries (an extension some browsers offer; SwiftShader does not).
    void begin() {}
    void end() {}
    void release() {}
#else
    void begin() {
        if (!made_) {
            glGenQueries(kRing, query_);
            made_ = true;
        }
        GLuint& q = query_[next_ % kRing];
        if (next_ >= kRing) read(q, true);  // issued kRing frames ago: done long since
        glBeginQuery(GL_TIME_ELAPSED, q);
    }
    void end() {
        glEndQuery(GL_TIME_ELAPSED);
        ++next_;
    }
    void release() {
        if (made_) glDeleteQueries(kRing, query_);
        made_ = false;
    }
#endif
    std::vector<double>& ms() { return ms_; }

private:
#ifndef __EMSCRIPTEN__
    void read(GLuint q, bool wait) {
        GLint ready = 0;
        if (!wait) glGetQueryObjectiv(q, GL_QUERY_RESULT_AVAILABLE, &ready);
        if (!wait && !ready) return;
        GLuint64 ns = 0;
        glGetQueryObjectui64v(q, GL_QUERY_RESULT, &ns);
        ms_.push_back(1e-6 * static_cast<double>(ns));
    }
    static constexpr int kRing = 8;
    GLuint query_[kRing] = {};
    bool made_ = false;
    long long next_ = 0;
#endif
    std::vector<double> ms_;
};

}  // namespace fs
