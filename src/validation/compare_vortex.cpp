// The Compare view's comparisons of the vortex solver's bodies under boundary elements: a ring
// fired at a wall against the ring-and-image model, and a sphere's added mass against rho V / 2.
#include "validation/compare_vortex.hpp"

#include <cmath>
#include <cstdio>

#include "validation/ring_wall.hpp"

namespace fs {

namespace {

std::vector<double> numbers(const Solver& s, const std::string& name) {
    const Param* p = s.params().find(name);
    std::vector<double> out;
    if (!p) return out;
    const nlohmann::json v = p->to_json();
    if (v.is_number()) out.push_back(v.get<double>());
    if (v.is_array())
        for (const auto& e : v)
            if (e.is_number()) out.push_back(e.get<double>());
    return out;
}
double number(const Solver& s, const std::string& name) {
    const std::vector<double> v = numbers(s, name);
    return v.empty() ? 0.0 : v[0];
}
std::string text(const Solver& s, const std::string& name) {
    const Param* p = s.params().find(name);
    if (!p) return {};
    const nlohmann::json v = p->to_json();
    return v.is_string() ? v.get<std::string>() : std::string();
}
std::string line(const char* f, double a, double b = 0, double c = 0, double d = 0) {
    char buf[320];
    std::snprintf(buf, sizeof buf, f, a, b, c, d);
    return buf;
}

// A ring (its own vortons only, the scene's single ring) travelling along a coordinate axis at
// a box or plate whose face is across that axis: its mean radius and its gap to the face against
// the ring-and-image model (ring_wall.hpp) from the same start, until the model's gap is two
// core radii (where a thin ring's model ends: the cores of ring and image touch).
class RingAtWall final : public Comparer {
public:
    RingAtWall(int axis, double sign, double wall, int vortons, double gamma, double R, double sigma)
        : axis_(axis), sign_(sign), wall_(wall), vortons_(vortons), gamma_(gamma), R_(R), sigma_(sigma) {}

    void sample(const Solver& s) override {
        if (static_cast<int>(s.stats().get("n_vortons", -1)) != vortons_) return;
        std::vector<double> pos;
        s.read_field("position", pos);
        double c[3] = {0, 0, 0};
        for (int i = 0; i < vortons_; ++i)
            for (int k = 0; k < 3; ++k) c[k] += pos[3 * static_cast<std::size_t>(i) + k] / vortons_;
        double radius = 0.0;
        for (int i = 0; i < vortons_; ++i) {
            double r2 = 0.0;
            for (int k = 0; k < 3; ++k)
                if (k != axis_) r2 += std::pow(pos[3 * static_cast<std::size_t>(i) + k] - c[k], 2);
            radius += std::sqrt(r2) / vortons_;
        }
        const double t = s.time();
        if (!t_.empty() && t <= t_.back()) return;
        t_.push_back(t);
        r_.push_back(radius);
        gap_.push_back(sign_ * (wall_ - c[axis_]));
    }

    Comparison result() const override {
        Comparison c;
        c.name = "ring_at_wall";
        c.title = "Vortex ring at a wall: radius";
        c.source = "a ring and its image (opposite circulation, mirrored in the wall), each moving with Saffman's "
                   "speed (Rosenhead-Moore core) plus the other's Biot-Savart velocity, core sigma^2 R kept";
        c.x_label = "t (s)";
        c.y_label = "mean radius (m)";
        c.simulation = {"simulation", t_, r_, true};
        c.reference.label = "ring and image";
        if (t_.size() < 2) return c;
        const auto model = ring_wall::path(gamma_, R_, sigma_, gap_.front(), t_.back() - t_.front(), 1e-3, 2 * sigma_);
        for (const auto& m : model) {
            c.reference.x.push_back(t_.front() + m.t);
            c.reference.y.push_back(m.radius);
        }
        double worst = 0.0, sum = 0.0, where = 0.0, at_end = 0.0;
        int n = 0;
        for (std::size_t k = 0; k < t_.size(); ++k) {
            const double tm = t_[k] - t_.front();
            if (tm > model.back().t) break;
            const auto& m = model[std::min(model.size() - 1, static_cast<std::size_t>(std::lround(tm / 1e-3)))];
            const double d = r_[k] / m.radius - 1.0;
            sum += std::fabs(d);
            ++n;
            if (std::fabs(d) > worst) {
                worst = std::fabs(d);
                where = t_[k];
            }
            at_end = r_[k];
        }
        if (n == 0) return c;
        c.mean = sum / n;
        c.worst = worst;
        c.worst_at = where;
        c.deviation = worst;
        const bool reached = model.back().gap <= 2 * sigma_ * (1 + 1e-9) && t_.back() - t_.front() >= model.back().t;
        c.verdict = reached ? line("at the gap 2 sigma (t = %.2f s) the radius is %.3f m against the model's %.3f m; ",
                                   t_.front() + model.back().t, at_end, model.back().radius)
                            : line("the gap is %.3f m (the model ends at 2 sigma = %.3f m); ", gap_.back(), 2 * sigma_);
        c.verdict += line("radius within %.1f%% of the model (mean %.1f%%), worst at t = %.3g s", 100 * worst,
                          100 * c.mean, where);
        return c;
    }

private:
    int axis_;
    double sign_, wall_;
    int vortons_;
    double gamma_, R_, sigma_;
    std::vector<double> t_, r_, gap_;
};

// A dynamic sphere released from rest: its speed along gravity against the one of an added
// mass of rho V / 2 (potential flow; Lamb, "Hydrodynamics", 1932, sec. 92), a = g (1 - rho /
// rho_b) / (1 + rho / (2 rho_b)); the added mass k rho V the simulation's slope implies.
class AddedMass final : public Comparer {
public:
    AddedMass(std::vector<double> down, double g, double rho, double rho_b)
        : down_(std::move(down)), g_(g), rho_(rho), rho_b_(rho_b) {}

    void sample(const Solver& s) override {
        const Stat* st = s.stats().find("body1_velocity");
        if (!st || st->value.size() != 3) return;
        const std::vector<double>& v = st->value;
        const double t = s.time();
        if (!t_.empty() && t <= t_.back()) return;
        t_.push_back(t);
        v_.push_back(v[0] * down_[0] + v[1] * down_[1] + v[2] * down_[2]);
    }

    Comparison result() const override {
        Comparison c;
        c.name = "added_mass";
        c.title = "Sphere from rest: added mass";
        c.source = "potential flow (Lamb 1932, sec. 92): added mass rho V / 2, a = g (1 - rho/rho_b) / (1 + rho/(2 rho_b))";
        c.x_label = "t (s)";
        c.y_label = "speed along gravity (m/s)";
        c.simulation = {"simulation", t_, v_, true};
        c.reference.label = "added mass rho V / 2";
        if (t_.size() < 3) return c;
        const double ratio = rho_ / rho_b_, a_ref = g_ * (1 - ratio) / (1 + 0.5 * ratio);
        c.reference.x = {0.0, t_.back()};
        c.reference.y = {0.0, a_ref * t_.back()};
        // The slope from the third sample on (the coupling lags the fluid's answer by one step).
        const std::size_t k0 = 2;
        const double a = (v_.back() - v_[k0]) / (t_.back() - t_[k0]);
        if (!(a > 0.0)) return c;
        const double k = (g_ * (1 - ratio) / a - 1) / ratio;
        c.deviation = k / 0.5 - 1;
        c.verdict = line("acceleration %.4f m/s^2 against %.4f: added mass %.3f rho V against 0.5 (%+.1f%%)", a, a_ref,
                         k, 100 * c.deviation);
        return c;
    }

private:
    std::vector<double> down_;
    double g_, rho_, rho_b_;
    std::vector<double> t_, v_;
};

}  // namespace

bool vortex_has_bodies(const Solver& s) {
    for (int k = 1; k <= 4; ++k) {
        const std::string shape = text(s, "body" + std::to_string(k) + "_shape");
        if (!shape.empty() && shape != "none") return true;
    }
    return false;
}

void add_vortex_body_comparers(const Solver& s, std::vector<std::unique_ptr<Comparer>>& out) {
    if (s.kind() != "vortex" || text(s, "body_model") != "boundary_elements") return;
    const std::string shape = text(s, "body1_shape");
    const std::vector<double> axis = numbers(s, "ring_axis"), pos = numbers(s, "body1_position"),
                              size = numbers(s, "body1_size"), rot = numbers(s, "body1_rotation");
    const int vortons = static_cast<int>(number(s, "ring_vortons"));
    const bool ring = number(s, "ring_circulation") != 0.0 && number(s, "ring2_circulation") == 0.0 &&
                      static_cast<int>(s.stats().get("n_vortons", -1)) == vortons;
    const bool upright = rot.size() == 3 && rot[0] == 0 && rot[1] == 0 && rot[2] == 0 && number(s, "barrier_angle") == 0;
    if (ring && (shape == "box" || shape == "plate") && upright && axis.size() == 3 && pos.size() == 3 &&
        size.size() == 3) {
        for (int k = 0; k < 3; ++k) {
            if (std::fabs(axis[k]) < 1 - 1e-12) continue;
            const double sign = (axis[k] > 0 ? 1.0 : -1.0) * (number(s, "ring_circulation") > 0 ? 1.0 : -1.0);
            const double wall = pos[k] - sign * 0.5 * size[k];
            const std::vector<double> centre = numbers(s, "ring_center");
            if (centre.size() == 3 && sign * (wall - centre[k]) > 0)
                out.push_back(std::make_unique<RingAtWall>(k, sign, wall, vortons, std::fabs(number(s, "ring_circulation")),
                                                           number(s, "ring_radius"), number(s, "core_radius")));
        }
    }
    const std::vector<double> v0 = numbers(s, "body1_velocity"), dir = numbers(s, "gravity_direction");
    const double g = number(s, "gravity");
    if (shape == "sphere" && text(s, "body1_motion") == "dynamic" && g > 0 && dir.size() == 3 && v0.size() == 3 &&
        v0[0] == 0 && v0[1] == 0 && v0[2] == 0 && number(s, "body1_density") > number(s, "fluid_density")) {
        const double n = std::sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
        if (n > 0)
            out.push_back(std::make_unique<AddedMass>(std::vector<double>{dir[0] / n, dir[1] / n, dir[2] / n}, g,
                                                      number(s, "fluid_density"), number(s, "body1_density")));
    }
}

}  // namespace fs
