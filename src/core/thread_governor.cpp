#include "core/thread_governor.hpp"

#include <algorithm>

namespace fs {

int ThreadGovernor::best() const {
    // The fastest measured count; the one in use keeps its place unless another is faster by the
    // margin.
    int b = 0;
    for (int k = 1; k < static_cast<int>(c_.size()); ++k)
        if (c_[k].samples > 0 && (c_[b].samples == 0 || c_[k].mean_ms < c_[b].mean_ms)) b = k;
    const int held = chosen_;
    if (held >= 0 && held < static_cast<int>(c_.size()) && c_[held].samples > 0 &&
        c_[b].mean_ms > kMargin * c_[held].mean_ms)
        return held;
    return b;
}

int ThreadGovernor::begin_step(int most) {
    most = std::max(1, most);
    if (most != most_) {  // all, half, ..., 1
        most_ = most;
        c_.clear();
        for (int t = most; t >= 1; t /= 2) c_.push_back({t});
        if (c_.back().threads != 1) c_.push_back({1});
        steps_ = 0;
        next_probe_ = 0;
        chosen_ = -1;
    }
    const long long step = steps_++;
    current_ = 0;
    if (step < kWarmSteps || c_.size() == 1) return threads();
    // Each count once, from the most; then the fastest, with a probe of another now and then.
    for (int k = 0; k < static_cast<int>(c_.size()); ++k)
        if (c_[k].samples == 0) {
            current_ = k;
            next_probe_ = step + 1 + kProbeEvery;
            return threads();
        }
    const int b = best();
    chosen_ = b;
    current_ = b;
    if (step >= next_probe_) {
        int probe = -1;  // the count measured longest ago
        for (int k = 0; k < static_cast<int>(c_.size()); ++k)
            if (k != b && (probe < 0 || c_[k].last_step < c_[probe].last_step)) probe = k;
        const double behind = c_[probe].mean_ms / std::max(c_[b].mean_ms, 1e-9);
        const double gap = std::clamp(kProbeEvery * behind, static_cast<double>(kProbeEvery), static_cast<double>(kLongestGap));
        next_probe_ = step + static_cast<long long>(gap);
        current_ = probe;
    }
    return threads();
}

void ThreadGovernor::end_step(double ms) {
    if (c_.empty() || steps_ <= kWarmSteps || !(ms >= 0.0)) return;
    Candidate& c = c_[static_cast<std::size_t>(current_)];
    // The count in use: a running mean, a quarter of each new step. A probe: the fresh step
    // (the count's last measurement is old, and the machine may have changed since).
    const double weight = current_ == chosen_ && c.samples > 0 ? 0.25 : 1.0;
    c.mean_ms = c.samples == 0 ? ms : c.mean_ms + weight * (ms - c.mean_ms);
    ++c.samples;
    c.last_step = steps_ - 1;
}

}  // namespace fs
