// Real-time pacing of the simulation: which steps a frame takes so that simulated time keeps
// pace with the wall clock. Pure arithmetic, no clock and no threads, so it is tested exactly.
//
// An accumulator of simulated time owed (the fixed-step game loop's "accumulator", here with
// the solver's own, possibly varying dt):
//   - each frame is credited with the wall time since the previous frame;
//   - the frame steps while time is owed, and each step pays its dt; a step that overshoots
//     leaves a small credit for the next frame, so on average simulated time equals wall time
//     and is never more than one step ahead of it;
//   - steps may spend at most a share of a display frame's time (its budget). A frame cut short
//     by the budget keeps what it still owes, up to kMostDebt (0.25 s of simulated time), and
//     forgives the rest: a simulation that keeps pace on average makes good a slow stretch (a
//     heap forming, a slow frame among fast ones) instead of losing it for good, and one slower
//     than real time runs steadily slower instead of piling up a backlog. A debt is repaid at
//     most kCatchUp times the clock's rate (a frame advances at most 1.25 times the wall time it
//     was credited, and one step more), so catching up never shows as a jump. The share is
//     kBudget (80%: the rest of the frame for the drawing) where the steps
//     and the drawing share a core, a GPU or a frame; the whole frame (kOwnCores) where the
//     simulation has cores of its own (set_share: SimulationHost decides). (The fixed-step game
//     loop's accumulator with its clamp; a frame's wall time is clamped as well, kLongestFrame.)
//   - shared frames (set_shared_frames: the browser, whose steps run in the page's frames): the
//     budget holds on average, not frame by frame. A step runs whole, so a frame whose steps
//     overran pays the excess from the next frames' budgets (taking no step while it pays), and
//     a frame takes another step only when one more of the last one's cost still fits: a step
//     longer than the budget then runs every few frames and the frames in between stay light
//     (at most kMostOverrun of overrun is repaid).
#pragma once

#include <algorithm>

namespace fs {

class RealTimePacer {
public:
    static constexpr double kBudget = 0.8;       // share of a frame the steps may use, by default
    static constexpr double kOwnCores = 1.0;     // ... and where the drawing has a core of its own
    static constexpr double kShortestFrame = 1e-3;  // frame intervals are clamped to this range:
    static constexpr double kLongestFrame = 0.1;    // a stall (a dragged window) credits at most 0.1 s
    static constexpr double kMostOverrun = 0.25;    // shared frames: the longest overrun repaid
    static constexpr double kMostDebt = 0.25;       // simulated seconds still owed after a frame, at most
    static constexpr double kCatchUp = 1.25;        // a frame advances at most this times its wall time

    // Starts a frame: `wall_seconds` since the last frame whose steps ran (more than one display
    // frame when the worker fell behind and frames were skipped), `frame_interval` the display's
    // last frame interval, which sets the budget (by default the same).
    void begin_frame(double wall_seconds, double frame_interval = -1.0) {
        const double credit = std::clamp(wall_seconds, kShortestFrame, kLongestFrame);
        owed_ += credit;
        advance_ = kCatchUp * credit;
        frame_ = std::clamp(frame_interval < 0.0 ? wall_seconds : frame_interval, kShortestFrame, kLongestFrame);
        budget_ = share_ * frame_;
        if (shared_) {
            const double pay = std::min(overrun_, budget_);
            overrun_ -= pay;
            budget_ -= pay;
        }
        last_spent_ = 0.0;
        last_step_ = 0.0;
    }
    // Whether to take another step, `spent_seconds` of wall time into the frame's steps.
    bool want_step(double spent_seconds) {
        last_step_ = spent_seconds - last_spent_;  // the cost of the step just taken (0 before the first)
        last_spent_ = spent_seconds;
        if (owed_ <= 0.0 || advance_ <= 0.0) return false;
        return shared_ ? budget_ > 0.0 && (spent_seconds == 0.0 || spent_seconds + last_step_ <= budget_)
                       : spent_seconds <= budget_;
    }
    // A step advanced simulated time by `dt`.
    void stepped(double dt) {
        owed_ -= dt;
        advance_ -= dt;
    }
    // The frame's steps are over, after `spent_seconds` of wall time. What is still owed carries
    // over to the next frame, up to kMostDebt. Shared frames keep what the steps overran, to repay.
    void end_frame(double spent_seconds) {
        // At most kMostOverrun is kept to repay: a step of seconds (a scene's first, which
        // settles it) must not hold the next ones back for minutes.
        if (shared_) overrun_ = std::min(overrun_ + std::max(0.0, spent_seconds - budget_), kMostOverrun);
        owed_ = std::min(owed_, kMostDebt);
    }
    // Drops any credit or debt: after a pause, a reset or a step taken by hand.
    void restart() {
        owed_ = 0.0;
        overrun_ = 0.0;
    }
    // The steps share the frame with the drawing (no simulation thread): see the top of the file.
    void set_shared_frames(bool on) { shared_ = on; }
    // The share of a frame the steps may use from the next frame on (kBudget or kOwnCores).
    void set_share(double share) { share_ = std::clamp(share, 0.05, 1.0); }

    double owed() const { return owed_; }
    double frame_seconds() const { return frame_; }
    double share() const { return share_; }

private:
    double owed_ = 0.0;           // simulated seconds owed to the wall clock (negative: ahead)
    double advance_ = 0.0;        // simulated seconds this frame may still advance (kCatchUp)
    double frame_ = 1.0 / 60.0;   // the display's frame interval, clamped: the steps' budget
    double share_ = kBudget;      // of a frame, for the steps
    double budget_ = kBudget / 60.0;  // this frame's: share_ of it, less what shared frames repay
    bool shared_ = false;
    double overrun_ = 0.0;        // shared frames: step time past the budgets, still to repay
    double last_spent_ = 0.0, last_step_ = 0.0;
};

}  // namespace fs
