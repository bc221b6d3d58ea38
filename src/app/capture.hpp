// Capture: screenshots and recordings of the window: reading back what was drawn, file names
// that carry the time, and recordings fed to one ffmpeg per file (recorder.hpp).
#pragma once

#include <SDL.h>

#include <memory>
#include <string>
#include <vector>

#include "app/recorder.hpp"

namespace fs {

// New files in the working directory, one per extension and all of one name:
// PREFIX-YYYYmmdd-HHMMSS.EXT, numbered -2, -3, ... while any of them exists already, so quick
// presses (two screenshots in a second) and earlier runs are never overwritten. Absolute paths:
// a notice says where the file is.
std::vector<std::string> fresh_paths(const char* prefix, const std::vector<std::string>& exts);

class Capture {
public:
    void attach(SDL_Window* window) { window_ = window; }  // once the window is open

    // Writes what was drawn last (the back buffer) as a PNG; throws std::runtime_error.
    void screenshot(const std::string& path) const;

    // Starts recording into every path at once (the same frames in each); throws
    // std::runtime_error with a one-line reason. `print`: say on stdout what was written.
    void start(const std::vector<std::string>& paths, bool print);
    // Adds what was drawn last `copies` times (0: not at all), unless the window changed size
    // since start; throws when ffmpeg stopped taking frames (that file is then given up, the
    // others go on).
    void add_frame(int copies = 1);
    // Video frames (at kVideoFps) owed after `seconds` of wall time since the recording began,
    // less those written: the copies that keep a real-time recording in step with the clock.
    int frames_due(double seconds) const;
    static constexpr int kVideoFps = 30;
    // Finishes the files; returns the window's notice (empty when nothing was recording).
    std::string stop();

    bool recording() const { return !recorders_.empty() || !page_stem_.empty(); }
    int frames() const { return recorders_.empty() ? 0 : recorders_.front()->frames(); }
    std::string paths() const;  // "a" or "a and b"

private:
    std::vector<unsigned char> read_pixels(int& w, int& h) const;

    SDL_Window* window_ = nullptr;
    std::vector<std::unique_ptr<VideoRecorder>> recorders_;
    bool print_ = false;
    std::string page_stem_;  // the browser's recording of its canvas, named so (page.hpp)
    mutable std::vector<unsigned char> rgba_;  // read_pixels' scratch
};

}  // namespace fs
