// Capture: the back buffer read into pixels, timestamped and never-overwriting file names, and
// one or more ffmpeg recordings fed the same frames.
#include "app/capture.hpp"

#include "render/gl.hpp"
#include "app/page.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <stdexcept>

namespace fs {

std::vector<std::string> fresh_paths(const char* prefix, const std::vector<std::string>& exts) {
    const std::time_t now = std::time(nullptr);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", std::localtime(&now));
    const std::string stem = (std::filesystem::current_path() / (std::string(prefix) + "-" + buf)).string();
    auto taken = [&](const std::string& name) {
        for (const std::string& ext : exts)
            if (std::filesystem::exists(name + ext)) return true;
        return false;
    };
    std::string name = stem;
    for (int k = 2; taken(name); ++k) name = stem + "-" + std::to_string(k);
    std::vector<std::string> out;
    for (const std::string& ext : exts) out.push_back(name + ext);
    return out;
}

std::vector<unsigned char> Capture::read_pixels(int& w, int& h) const {
    SDL_GL_GetDrawableSize(window_, &w, &h);
    // RGBA, the one format OpenGL ES (WebGL2) must read, and dropped to RGB here: one path
    // for both targets.
    // (rgba_ is kept: a recording reads every frame.)
    const std::size_t n = static_cast<std::size_t>(w) * h;
    rgba_.resize(n * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba_.data());
    std::vector<unsigned char> rgb(n * 3);
    for (std::size_t i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c) rgb[3 * i + c] = rgba_[4 * i + c];
    return rgb;
}

void Capture::screenshot(const std::string& path) const {
    int w = 0, h = 0;
    const auto rgb = read_pixels(w, h);
    write_png(path, w, h, rgb);
}

void Capture::start(const std::vector<std::string>& paths, bool print) {
    stop();
    if constexpr (kInBrowser) {
        // The browser records its canvas itself (MediaRecorder); the video is a download.
        if (const std::string why = page::start_canvas_recording(kVideoFps); !why.empty())
            throw std::runtime_error("recording: " + why);
        page_stem_ = std::filesystem::path(paths.empty() ? "recording" : paths.front()).stem().string();
        print_ = print;
        return;
    }
    int w = 0, h = 0;
    SDL_GL_GetDrawableSize(window_, &w, &h);
    for (const std::string& path : paths) {
        auto recorder = std::make_unique<VideoRecorder>();
        try {
            recorder->start(path, w, h, kVideoFps);
        } catch (const std::exception&) {
            recorders_.clear();  // none of a set, rather than some (their files are closed)
            throw;
        }
        recorders_.push_back(std::move(recorder));
    }
    print_ = print;
}

int Capture::frames_due(double seconds) const {
    const long long due = static_cast<long long>(seconds * kVideoFps) + 1;  // the first at 0 s
    return static_cast<int>(std::max(0LL, due - frames()));
}

void Capture::add_frame(int copies) {
    if (copies <= 0 || !page_stem_.empty()) return;
    int w = 0, h = 0;
    const auto rgb = read_pixels(w, h);
    std::string problem;
    for (auto it = recorders_.begin(); it != recorders_.end();) {
        if (w != (*it)->width() || h != (*it)->height()) {
            ++it;
            continue;
        }
        try {
            for (int k = 0; k < copies; ++k) (*it)->add_frame(rgb);
            ++it;
        } catch (const std::exception& e) {
            if (problem.empty()) problem = e.what();
            it = recorders_.erase(it);
        }
    }
    if (!problem.empty()) throw std::runtime_error(problem);
}

std::string Capture::paths() const {
    std::string out;
    for (const auto& r : recorders_) out += (out.empty() ? "" : " and ") + r->path();
    return out;
}

std::string Capture::stop() {
    if (!page_stem_.empty()) {
        const std::string name = page::stop_canvas_recording(page_stem_);
        page_stem_.clear();
        return name.empty() ? std::string("the recording was empty") : "recorded " + name + " (a download)";
    }
    if (recorders_.empty()) return {};
    const std::string all = paths();
    const int count = frames();
    std::string failed;
    for (const auto& r : recorders_) {
        const std::string path = r->path();
        if (r->stop() == 0) continue;
        std::cerr << "fluid-sandbox: ffmpeg failed to finish " << path << '\n';
        failed += (failed.empty() ? "" : " and ") + path;
    }
    recorders_.clear();
    if (!failed.empty()) return "ffmpeg failed to finish " + failed;
    const std::string done = "recorded " + all + " (" + std::to_string(count) + " frames)";
    if (print_) std::printf("%s\n", done.c_str());
    return done;
}

}  // namespace fs
