// MotionSums: the part of a step's sums every particle solver reports (kinetic energy, momentum,
// the largest |v|^2, particles that are not finite), one particle's share of it and the join the
// executors' reductions apply. A solver's Sums derives from it and adds its own, each with its
// join declared once in the solver's SumsOp (JoinSums).
#pragma once

#include <cmath>

#include <glm/glm.hpp>

#include "core/hd.hpp"

namespace fs {

// |v|^2, written out so that each backend sums the components in this order.
FS_HDI double speed2(glm::dvec2 v) { return v.x * v.x + v.y * v.y; }
FS_HDI double speed2(glm::dvec3 v) { return v.x * v.x + v.y * v.y + v.z * v.z; }

// 1 where a 2D particle's position or velocity is not finite (NaN or Inf), else 0.
FS_HDI long long not_finite(glm::dvec2 x, glm::dvec2 v) { return std::isfinite(x.x + x.y + v.x + v.y) ? 0 : 1; }

template <class V>
struct MotionSums {
    double kinetic_energy = 0.0;
    V momentum = V(0.0);
    double max_speed2 = 0.0;
    long long nonfinite = 0;  // particles with a NaN or Inf position or velocity

    // A particle of mass m moving at v: (1/2) m |v|^2, m v, |v|^2.
    FS_HDI void set_motion(double m, V v) {
        const double v2 = speed2(v);
        kinetic_energy = 0.5 * m * v2;
        momentum = m * v;
        max_speed2 = v2;
    }
    // a and b joined: the totals added, the largest speed kept.
    FS_HDI void join_motion(const MotionSums& a, const MotionSums& b) {
        kinetic_energy = a.kinetic_energy + b.kinetic_energy;
        momentum = a.momentum + b.momentum;
        max_speed2 = a.max_speed2 > b.max_speed2 ? a.max_speed2 : b.max_speed2;
        nonfinite = a.nonfinite + b.nonfinite;
    }
};

// How a solver's own sum joins in a reduction: added, or the larger or the smaller kept.
template <auto Member>
struct JoinAdd {
    template <class S>
    FS_HDI static void join(S& s, const S& a, const S& b) {
        s.*Member = a.*Member + b.*Member;
    }
};
template <auto Member>
struct JoinMax {
    template <class S>
    FS_HDI static void join(S& s, const S& a, const S& b) {
        s.*Member = a.*Member > b.*Member ? a.*Member : b.*Member;
    }
};
template <auto Member>
struct JoinMin {
    template <class S>
    FS_HDI static void join(S& s, const S& a, const S& b) {
        s.*Member = a.*Member < b.*Member ? a.*Member : b.*Member;
    }
};

// A solver's reduction of its Sums S: the motion's sums joined, then each of its own by its join.
template <class S, class... Joins>
struct JoinSums {
    FS_HDI S operator()(const S& a, const S& b) const {
        S s;
        s.join_motion(a, b);
        (Joins::join(s, a, b), ...);
        return s;
    }
};

}  // namespace fs
