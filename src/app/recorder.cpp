#include "app/recorder.hpp"

#include <sys/wait.h>

#include <csignal>
#include <stdexcept>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>

namespace fs {

namespace {
std::string quoted(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}
}  // namespace

void write_png(const std::string& path, int width, int height, const std::vector<unsigned char>& rgb) {
    stbi_flip_vertically_on_write(1);  // GL rows are bottom-up
    if (!stbi_write_png(path.c_str(), width, height, 3, rgb.data(), width * 3))
        throw std::runtime_error(path + ": cannot write the PNG file");
}

std::string ffmpeg_command(const std::string& path, int width, int height, int fps) {
    const bool gif = path.size() > 4 && path.substr(path.size() - 4) == ".gif";
    const bool mp4 = path.size() > 4 && path.substr(path.size() - 4) == ".mp4";
    if (!gif && !mp4)
        throw std::runtime_error(path + ": unknown video format (allowed: .mp4, .gif)");
    std::string cmd = "ffmpeg -loglevel error -y -f rawvideo -pixel_format rgb24 -video_size " +
                      std::to_string(width) + "x" + std::to_string(height) + " -framerate " +
                      std::to_string(fps) + " -i - ";
    if (gif)  // a palette made from the whole clip keeps the colour maps smooth
        cmd += "-vf 'vflip,split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=bayer' ";
    else  // H.264 needs even sizes
        cmd += "-vf 'vflip,pad=ceil(iw/2)*2:ceil(ih/2)*2' -c:v libx264 -pix_fmt yuv420p -preset veryfast -crf 20 ";
    return cmd + quoted(path);
}

VideoRecorder::~VideoRecorder() { stop(); }

void VideoRecorder::start(const std::string& path, int width, int height, int fps) {
    stop();
    const std::string cmd = ffmpeg_command(path, width, height, fps);
    if (std::system("command -v ffmpeg >/dev/null 2>&1") != 0)
        throw std::runtime_error("recording needs ffmpeg, which is not installed (make deps installs it)");
    std::signal(SIGPIPE, SIG_IGN);  // a dead ffmpeg must not kill the sandbox
    pipe_ = popen(cmd.c_str(), "w");
    if (!pipe_) throw std::runtime_error("cannot start ffmpeg for " + path);
    path_ = path;
    width_ = width;
    height_ = height;
    frames_ = 0;
}

void VideoRecorder::add_frame(const std::vector<unsigned char>& rgb) {
    if (!pipe_) return;
    if (rgb.size() != static_cast<std::size_t>(width_) * height_ * 3) return;
    if (std::fwrite(rgb.data(), 1, rgb.size(), pipe_) != rgb.size()) {
        stop();
        throw std::runtime_error("ffmpeg stopped accepting frames for " + path_);
    }
    ++frames_;
}

int VideoRecorder::stop() {
    if (!pipe_) return 0;
    const int raw = pclose(pipe_);
    pipe_ = nullptr;
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : 1;
}

}  // namespace fs
