// Screenshots (PNG) and video recording (MP4 or GIF through an ffmpeg process) of the window.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace fs {

// Writes bottom-up RGB8 pixels (as glReadPixels returns them) as a PNG. Throws on failure.
void write_png(const std::string& path, int width, int height, const std::vector<unsigned char>& rgb);

// Pipes frames into ffmpeg. The file is finished (ffmpeg writes its trailer) by stop(), which the
// destructor calls too: on V, Esc and when the window closes.
class VideoRecorder {
public:
    VideoRecorder() = default;
    ~VideoRecorder();
    VideoRecorder(const VideoRecorder&) = delete;
    VideoRecorder& operator=(const VideoRecorder&) = delete;

    // Starts ffmpeg for `path` (.mp4 or .gif) at the given size. Throws std::runtime_error with a
    // one-line reason (unknown extension, ffmpeg missing).
    void start(const std::string& path, int width, int height, int fps = 30);
    // Bottom-up RGB8 pixels of exactly the started size.
    void add_frame(const std::vector<unsigned char>& rgb);
    // Finishes the file; returns ffmpeg's exit status (0 when the file is complete).
    int stop();

    bool recording() const { return pipe_ != nullptr; }
    const std::string& path() const { return path_; }
    int width() const { return width_; }
    int height() const { return height_; }
    int frames() const { return frames_; }

private:
    std::FILE* pipe_ = nullptr;
    std::string path_;
    int width_ = 0, height_ = 0, frames_ = 0;
};

// The ffmpeg command line for a recording (exposed for tests).
std::string ffmpeg_command(const std::string& path, int width, int height, int fps);

}  // namespace fs
