// Mouse scripts (--mouse): the hands' tools run without a person, for tests, demos and recordings.
// World coordinates (metres), one event after another, separated by ';':
//   drag X,Y[,Z] to X,Y[,Z] over N   grab the body under the first point, move it to the second
//                                    over N frames (steps headless), let go
//   push X,Y[,Z] for N               push the liquid away from the point for N frames
//   pull X,Y[,Z] for N               pull it towards the point
//   pour X,Y[,Z] for N               pour at the point
//   wait N                           N frames with the hand off ("+N" says the same)
// A 2D point has two coordinates; a 3D one three. The cursor's ray is the default view's, along
// -z through the point.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <string_view>
#include <vector>

#include "core/hands.hpp"

namespace fs {

struct HandFrame {
    Hand::Tool tool = Hand::Tool::None;  // None: the button is up
    double at[3] = {0.0, 0.0, 0.0};      // the cursor (world)
    bool press = false;                  // the button went down this frame (a drag picks its body)
};

// Throws std::invalid_argument naming the bad event and what is allowed.
std::vector<HandFrame> parse_hand_script(std::string_view script);

// Plays a script on a solver frame by frame (headless: one frame a step): a press picks the body
// under the point along -z, later frames move it by the cursor's motion; other tools set the
// hand at the point. Returns a notice for the log when a drag finds no body under its point.
class HandScriptPlayer {
public:
    explicit HandScriptPlayer(std::vector<HandFrame> frames) : frames_(std::move(frames)) {}
    bool done() const { return next_ >= frames_.size(); }
    std::size_t frames() const { return frames_.size(); }
    // The hand for the next frame. `obstacles` gives the solver's obstacles now; it is called only
    // on a drag's press (building them allocates, and most frames need none).
    Hand next(const std::function<std::vector<Obstacle>()>& obstacles, std::string* notice = nullptr);

private:
    std::vector<HandFrame> frames_;
    std::size_t next_ = 0;
    Grip grip_;
};

}  // namespace fs
