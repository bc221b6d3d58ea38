#include "render/offscreen_target.hpp"

#include "render/gl.hpp"

namespace fs::render {

bool OffscreenTarget::begin(int w, int h) {
    if (!holds(w, h)) {
        drop_target();
        glGenFramebuffers(1, &fbo_);
        glGenTextures(1, &colour_);
        glGenRenderbuffers(1, &depth_);
        glBindTexture(GL_TEXTURE_2D, colour_);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glBindTexture(GL_TEXTURE_2D, 0);
        glBindRenderbuffer(GL_RENDERBUFFER, depth_);
        glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, w, h);
        glBindRenderbuffer(GL_RENDERBUFFER, 0);
        glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, colour_, 0);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth_);
        const bool complete = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        if (!complete) {
            drop_target();
            return false;
        }
        w_ = w;
        h_ = h;
    }
    glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
    return true;
}

void OffscreenTarget::show() {
    if (!copy_) {
        copy_ = Shader("fullscreen.vert", "picture.frag");
        glGenVertexArrays(1, &vao_);
    }
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(0, 0, w_, h_);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_BLEND);
    copy_.use();
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, colour_);
    copy_.set("u_picture", 0);
    glBindVertexArray(vao_);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glBindVertexArray(0);
    glBindTexture(GL_TEXTURE_2D, 0);
    glUseProgram(0);
}

void OffscreenTarget::drop_target() {
    if (fbo_) glDeleteFramebuffers(1, &fbo_);
    if (colour_) glDeleteTextures(1, &colour_);
    if (depth_) glDeleteRenderbuffers(1, &depth_);
    fbo_ = colour_ = depth_ = 0;
    w_ = h_ = 0;
}

void OffscreenTarget::release() {
    drop_target();
    if (vao_) glDeleteVertexArrays(1, &vao_);
    vao_ = 0;
    copy_ = Shader();
}

}  // namespace fs::render
