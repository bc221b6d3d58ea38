// The hands' kernels (core/hands.hpp), one body for both backends: the push and pull force and
// the motion of a dragged body.
#pragma once

#include <cmath>

#include "core/hands.hpp"
#include "core/hd.hpp"

namespace fs {

// Push and pull, after the interaction force of Lague's fluid simulation ("Coding Adventure:
// Simulating Fluids", 2023): within the radius R of the cursor's ray, a particle (or grid face) at
// distance r from it is accelerated away from the ray (push) or towards it (pull) by
// S (1 - r/R), and its velocity is damped at the rate (1 - r/R) sqrt(S/R), so the liquid gathers
// under a pulling hand or clears from a pushing one instead of swinging through. Lague's damping
// term is the velocity itself (an implied rate of 1/s); sqrt(S/R), the inverse of the time the
// force takes to move liquid across the radius, keeps the units and the feel at every scale.
// The damping is applied implicitly over dt (v / (1 + rate dt)), so no step reverses a velocity.
template <class Vec>
struct HandForce {
    bool on = false;
    Vec point{0.0};
    Vec axis{0.0};     // unit view direction (3D); unused in 2D, where the ray is normal to the plane
    double radius = 0.1;
    double strength = 0.0;  // signed: > 0 pushes away from the ray, < 0 pulls towards it
    double rate = 0.0;      // damping rate at the ray, sqrt(|S| / R)

    // The part of x - point across the ray.
    FS_HDI Vec across(Vec x) const {
        Vec d = x - point;
        if constexpr (Vec::length() == 3) d -= (d.x * axis.x + d.y * axis.y + d.z * axis.z) * axis;
        return d;
    }
    // The velocity change over dt of a particle at x moving at v (zero outside the radius).
    FS_HDI Vec dv(Vec x, Vec v, double dt) const {
        if (!on) return Vec(0.0);
        const Vec d = across(x);
        double r2 = 0.0;
        for (int a = 0; a < Vec::length(); ++a) r2 += d[a] * d[a];
        if (r2 >= radius * radius) return Vec(0.0);
        const double r = std::sqrt(r2), w = 1.0 - r / radius;
        const Vec push = r > 1e-12 * radius ? (strength * w * dt / r) * d : Vec(0.0);
        const Vec v1 = (v + push) / (1.0 + w * rate * dt);
        return v1 - v;
    }
};

template <class Vec>
HandForce<Vec> hand_force(const Hand& h, const HandSettings& s) {
    HandForce<Vec> f;
    if (h.tool != Hand::Tool::Push && h.tool != Hand::Tool::Pull) return f;
    f.on = s.strength > 0.0 && s.radius > 0.0;
    for (int a = 0; a < Vec::length(); ++a) {
        f.point[a] = h.point[a];
        f.axis[a] = h.axis[a];
    }
    f.radius = s.radius;
    f.strength = h.tool == Hand::Tool::Push ? s.strength : -s.strength;
    f.rate = std::sqrt(s.strength / s.radius);
    return f;
}

// A dragged body's next position: towards the target by at most drag_speed dt. Returns the
// velocity that takes it there (zero when the hand holds another body or none).
template <class Vec>
Vec drag_velocity(const Hand& h, int body, Vec position, double drag_speed, double dt) {
    if (h.tool != Hand::Tool::Drag || h.body != body || !(dt > 0.0)) return Vec(0.0);
    Vec d(0.0);
    for (int a = 0; a < Vec::length(); ++a) d[a] = h.target[a] - position[a];
    double len2 = 0.0;
    for (int a = 0; a < Vec::length(); ++a) len2 += d[a] * d[a];
    const double len = std::sqrt(len2), reach = drag_speed * dt;
    if (len > reach) d *= reach / len;
    return d / dt;
}

}  // namespace fs
