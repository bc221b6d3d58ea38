#include "io/hand_script.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "core/solver.hpp"

namespace fs {

namespace {

const char* kAllowed =
    "allowed: 'drag X,Y[,Z] to X,Y[,Z] over N', 'push|pull|pour X,Y[,Z] for N', 'wait N' or '+N', separated by ';'";

[[noreturn]] void bad(std::string_view event, const std::string& why) {
    throw std::invalid_argument("--mouse: '" + std::string(event) + "': " + why + " (" + kAllowed + ")");
}

int count_of(std::string_view event, const std::string& word) {
    char* end = nullptr;
    const long n = std::strtol(word.c_str(), &end, 10);
    if (word.empty() || *end != '\0' || n < 1 || n > 1000000) bad(event, "'" + word + "' is not a frame count from 1 to 1000000");
    return static_cast<int>(n);
}

// "x,y" or "x,y,z"; dims is set by the first point and must agree after.
void point_of(std::string_view event, const std::string& word, double out[3], int& dims) {
    std::vector<double> v;
    std::stringstream in(word);
    std::string part;
    while (std::getline(in, part, ',')) {
        char* end = nullptr;
        const double x = std::strtod(part.c_str(), &end);
        if (part.empty() || *end != '\0' || !std::isfinite(x)) bad(event, "'" + word + "' is not a point x,y or x,y,z");
        v.push_back(x);
    }
    if (v.size() != 2 && v.size() != 3) bad(event, "'" + word + "' is not a point x,y or x,y,z");
    if (dims == 0) dims = static_cast<int>(v.size());
    if (static_cast<int>(v.size()) != dims) bad(event, "every point of a script has the same number of coordinates");
    for (int a = 0; a < 3; ++a) out[a] = a < static_cast<int>(v.size()) ? v[a] : 0.0;
}

}  // namespace

std::vector<HandFrame> parse_hand_script(std::string_view script) {
    std::vector<HandFrame> frames;
    int dims = 0;
    std::size_t start = 0;
    while (start <= script.size()) {
        std::size_t end = script.find(';', start);
        if (end == std::string_view::npos) end = script.size();
        const std::string_view event = script.substr(start, end - start);
        start = end + 1;
        std::vector<std::string> w;
        std::stringstream in{std::string(event)};
        for (std::string s; in >> s;) w.push_back(s);
        if (w.empty()) continue;
        if (w.size() == 1 && w[0].size() > 1 && w[0][0] == '+') {
            frames.resize(frames.size() + static_cast<std::size_t>(count_of(event, w[0].substr(1))));
        } else if (w[0] == "wait") {
            if (w.size() != 2) bad(event, "wait takes a frame count");
            frames.resize(frames.size() + static_cast<std::size_t>(count_of(event, w[1])));
        } else if (w[0] == "drag") {
            if (w.size() != 6 || w[2] != "to" || w[4] != "over") bad(event, "a drag reads 'drag X,Y to X,Y over N'");
            double a[3], b[3];
            point_of(event, w[1], a, dims);
            point_of(event, w[3], b, dims);
            const int n = count_of(event, w[5]);
            // The press, n frames of motion ending on the second point, then the release.
            HandFrame f;
            f.tool = Hand::Tool::Drag;
            f.press = true;
            for (int k = 0; k < 3; ++k) f.at[k] = a[k];
            frames.push_back(f);
            f.press = false;
            for (int i = 1; i <= n; ++i) {
                const double s = static_cast<double>(i) / n;
                for (int k = 0; k < 3; ++k) f.at[k] = a[k] + s * (b[k] - a[k]);
                frames.push_back(f);
            }
            HandFrame up;
            for (int k = 0; k < 3; ++k) up.at[k] = b[k];
            frames.push_back(up);
        } else if (w[0] == "push" || w[0] == "pull" || w[0] == "pour") {
            if (w.size() != 4 || w[2] != "for") bad(event, "reads '" + w[0] + " X,Y for N'");
            HandFrame f;
            f.tool = w[0] == "push" ? Hand::Tool::Push : w[0] == "pull" ? Hand::Tool::Pull : Hand::Tool::Pour;
            point_of(event, w[1], f.at, dims);
            const int n = count_of(event, w[3]);
            for (int i = 0; i < n; ++i) {
                f.press = i == 0;
                frames.push_back(f);
            }
            HandFrame up;
            for (int k = 0; k < 3; ++k) up.at[k] = f.at[k];
            frames.push_back(up);
        } else {
            bad(event, "unknown event '" + w[0] + "'");
        }
    }
    return frames;
}

Hand HandScriptPlayer::next(const std::function<std::vector<Obstacle>()>& obstacles, std::string* notice) {
    if (done()) return Hand{};
    const HandFrame& f = frames_[next_++];
    const double axis[3] = {0.0, 0.0, -1.0};
    Hand h;
    if (f.tool == Hand::Tool::Drag) {
        if (f.press) {
            // The ray comes from far in front of the point, as the default view looks.
            const double from[3] = {f.at[0], f.at[1], f.at[2] + 1e3};
            grip_ = grip_obstacle(obstacles(), from, axis);
            // The grip is taken where the ray meets the body; the script's points say how far
            // the cursor moves, so the grab point takes the script's own depth.
            if (grip_.body >= 0) grip_.grab[2] = f.at[2];
            if (grip_.body < 0 && notice)
                *notice = "--mouse: no draggable body under " + std::to_string(f.at[0]) + ", " + std::to_string(f.at[1]);
        }
        return drag_hand(grip_, f.at);
    }
    grip_ = Grip{};
    if (f.tool == Hand::Tool::None) return h;
    h.tool = f.tool;
    for (int a = 0; a < 3; ++a) {
        h.point[a] = f.at[a];
        h.axis[a] = axis[a];
    }
    return h;
}

}  // namespace fs
