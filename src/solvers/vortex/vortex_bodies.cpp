// The vortex solver's bodies: shapes built from the scene's settings, their poses as the engine
// and the renderer see them, and their motion each step (scripted, or pushed by the fluid).
#include "solvers/vortex/vortex_solver.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "solvers/common/gravity.hpp"
#include "solvers/common/hands.hpp"

namespace fs::vortex {

namespace {

dmat3 rotation_about(dvec3 axis, double angle) {
    const double len = glm::length(axis);
    if (len <= 0.0 || angle == 0.0) return dmat3(1.0);
    const dvec3 a = axis / len;
    const double c = std::cos(angle), s = std::sin(angle), t = 1.0 - c;
    // Rodrigues' rotation formula, column-major (glm): m[col][row].
    dmat3 m;
    m[0] = dvec3(t * a.x * a.x + c, t * a.x * a.y + s * a.z, t * a.x * a.z - s * a.y);
    m[1] = dvec3(t * a.x * a.y - s * a.z, t * a.y * a.y + c, t * a.y * a.z + s * a.x);
    m[2] = dvec3(t * a.x * a.z + s * a.y, t * a.y * a.z - s * a.x, t * a.z * a.z + c);
    return m;
}

// Gram-Schmidt, so that integrated orientations stay rotations.
dmat3 orthonormalised(dmat3 m) {
    dvec3 x = glm::normalize(m[0]);
    dvec3 y = m[1] - glm::dot(m[1], x) * x;
    y = glm::normalize(y);
    return dmat3(x, y, glm::cross(x, y));
}

constexpr double kDeg = kPi / 180.0;

}  // namespace

// Lift and drag (e.g. Anderson, "Fundamentals of Aerodynamics", 1.5): the body moves at v
// through fluid at rest far away, so the relative wind is U = -v. Drag is the force along U; lift
// the force across it, along the body's own y axis made perpendicular to U (the side of an
// airfoil's upper surface, so a positive angle of attack gives positive lift), or, where that
// axis lies along the wind, along U x z_body. Coefficients over (1/2) rho |U|^2 times the
// planform area. A body at rest has no relative wind: all four are zero.
BodyAero body_aero(const BodyState& st, double rho) {
    BodyAero a;
    const dvec3 wind = -st.velocity;
    const double speed = glm::length(wind);
    if (!(speed > 1e-9)) return a;
    const dvec3 along = wind / speed;
    dvec3 across = st.orientation[1] - glm::dot(st.orientation[1], along) * along;
    if (glm::length(across) < 1e-6) across = glm::cross(along, st.orientation[2]);
    if (glm::length(across) < 1e-12) return a;
    across = glm::normalize(across);
    a.drag = glm::dot(st.force, along);
    a.lift = glm::dot(st.force, across);
    const double q = 0.5 * rho * speed * speed * st.planform;
    if (q > 0.0) {
        a.drag_coefficient = a.drag / q;
        a.lift_coefficient = a.lift / q;
    }
    return a;
}

void VortexSolver::build_bodies() {
    bodies_.assign(kMaxBodies, BodyState{});
    for (int k = 0; k < kMaxBodies; ++k) {
        const BodySettings& b = s_.bodies[k];
        BodyState& st = bodies_[k];
        if (b.shape == kNone) continue;
        const std::string key = "body" + std::to_string(k + 1) + "_";
        const dvec3 size(b.size[0], b.size[1], b.size[2]);
        auto need = [&](int n) {
            for (int c = 0; c < n; ++c)
                if (!(b.size[c] > 0.0))
                    throw ParamError(key + "size: expected " + std::to_string(n) +
                                     " positive numbers for shape " + kShapeNames[b.shape] + ", got " +
                                     std::to_string(b.size[c]) + " at index " + std::to_string(c));
        };
        st.active = true;
        st.shape = b.shape;
        try {
            switch (b.shape) {
                case kShapeSphere: need(1); st.radius = b.size[0]; break;
                case kBox: need(3); st.poly = make_box(0.5 * size); break;
                case kPlate: need(3); st.poly = make_plate(size.x, size.z, size.y); break;
                case kWedge: need(3); st.poly = make_wedge(size.x, size.y, size.z); break;
                case kTetrahedron: need(1); st.poly = make_tetrahedron(size.x); break;
                case kAirfoil: need(3); st.poly = make_airfoil(size.x, size.y, size.z); break;
                case kPlanes: {
                    std::vector<Plane> planes;
                    for (std::size_t i = 0; i + 3 < b.planes.size(); i += 4)
                        planes.push_back({dvec3(b.planes[i], b.planes[i + 1], b.planes[i + 2]), b.planes[i + 3]});
                    st.poly = from_planes(planes);
                    break;
                }
                case kVertices: {
                    std::vector<dvec3> pts;
                    for (std::size_t i = 0; i + 2 < b.vertices.size(); i += 3)
                        pts.emplace_back(b.vertices[i], b.vertices[i + 1], b.vertices[i + 2]);
                    st.poly = hull_of(pts);
                    break;
                }
                default: break;
            }
        } catch (const std::invalid_argument& e) {
            const std::string which = b.shape == kPlanes ? "planes" : b.shape == kVertices ? "vertices" : "size";
            const std::string allowed =
                b.shape == kPlanes ? "4 to " + std::to_string(kMaxPlanes) + " planes nx, ny, nz, d with non-zero "
                                     "normals whose half-spaces n.x <= d bound a solid"
                : b.shape == kVertices ? "at least 4 points, not all in one plane, whose hull has at most " +
                                             std::to_string(kMaxPlanes) + " faces"
                                       : "positive, finite sizes";
            throw ParamError(key + which + ": " + e.what() + " (allowed: " + allowed + ")");
        }
        dvec3 centroid(0.0);
        if (b.shape == kShapeSphere) {
            st.volume = 4.0 / 3.0 * kPi * st.radius * st.radius * st.radius;
            st.mass = b.density * st.volume;
            st.inertia_body = dmat3(0.4 * st.mass * st.radius * st.radius);
            st.volume_inertia = dmat3(0.4 * st.volume * st.radius * st.radius);
        } else {
            st.mesh = mesh_of(st.poly);
            const MassProperties mp = mass_properties(st.mesh, b.density);
            st.volume = mp.volume;
            st.mass = mp.mass;
            st.inertia_body = mp.inertia;
            st.volume_inertia = mp.inertia / b.density;
            centroid = mp.centroid;
            // User-given shapes: the body's origin moves to the centroid (it turns about it).
            if (glm::length(centroid) > 1e-12) {
                for (int i = 0; i < st.poly.count; ++i) st.poly.planes[i].d -= glm::dot(st.poly.planes[i].n, centroid);
                for (dvec3& v : st.mesh.triangles) v -= centroid;
                finish(st.poly);
            }
        }
        // Planform: the shadow of a convex body on its x-z plane, half the sum of |n_y| A over
        // its faces (each point of the shadow is covered by one face above and one below).
        if (b.shape == kShapeSphere) {
            st.planform = kPi * st.radius * st.radius;
        } else {
            double twice = 0.0;
            for (std::size_t t = 0; t + 2 < st.mesh.triangles.size(); t += 3) {
                const dvec3 e1 = st.mesh.triangles[t + 1] - st.mesh.triangles[t];
                const dvec3 e2 = st.mesh.triangles[t + 2] - st.mesh.triangles[t];
                twice += 0.5 * std::fabs(glm::cross(e1, e2).y);
            }
            st.planform = 0.5 * twice;
        }
        st.centroid = centroid;
        st.position = st.home = dvec3(b.position[0], b.position[1], b.position[2]) + centroid;
        st.orientation = rotation_about(dvec3(0, 0, 1), b.rotation[2] * kDeg) *
                         rotation_about(dvec3(0, 1, 0), b.rotation[1] * kDeg) *
                         rotation_about(dvec3(1, 0, 0), b.rotation[0] * kDeg);
        st.velocity = dvec3(b.velocity[0], b.velocity[1], b.velocity[2]);
        st.angular_velocity = dvec3(b.spin[0], b.spin[1], b.spin[2]);
        st.temperature = b.temperature;
        st.dynamic = b.motion == 1;
    }
    build_panels();
}

// body_model boundary_elements: each body's panels (panel_size core radii) and their factored
// influence matrix, rebuilt only for a body whose shape or panel size changed (a reset or a
// checkpoint's restore keeps the rest). Bodies that overlap have no exterior flow between them to
// solve for: refused, naming the keys.
void VortexSolver::build_panels() {
    panel_systems_.resize(kMaxBodies);
    panel_keys_.resize(kMaxBodies);
    const double size = s_.panel_size * s_.core_radius;
    for (int k = 0; k < kMaxBodies; ++k) {
        const BodyState& st = bodies_[k];
        const BodySettings& b = s_.bodies[k];
        if (s_.body_model != kBoundaryElements || !st.active) {
            panel_systems_[k].reset();
            panel_keys_[k].clear();
            continue;
        }
        std::vector<double> key = {double(b.shape), b.size[0], b.size[1], b.size[2], size};
        key.insert(key.end(), b.planes.begin(), b.planes.end());
        key.insert(key.end(), b.vertices.begin(), b.vertices.end());
        if (panel_systems_[k] && key == panel_keys_[k]) continue;
        const std::string name = "body" + std::to_string(k + 1) + "_";
        try {
            std::vector<Panel> panels = st.shape == kShapeSphere ? sphere_panels(st.radius, size) : mesh_panels(st.mesh, size);
            if (panels.size() > 20000)
                throw std::invalid_argument(std::to_string(panels.size()) +
                                            " panels: more than 20000 (a dense matrix of 3.2 GB); raise panel_size");
            const double curvature = st.shape == kShapeSphere ? 1.0 / st.radius : 0.0;
            panel_systems_[k] = std::make_shared<const PanelSystem>(std::move(panels), curvature);
        } catch (const std::invalid_argument& e) {
            throw ParamError(name + "shape: boundary elements: " + e.what());
        }
        panel_keys_[k] = key;
    }
    const std::vector<BodyShape> shapes = body_shapes();
    for (int k = 0; k < kMaxBodies; ++k) {
        if (!panel_systems_[k]) continue;
        for (int m = 0; m < kMaxBodies; ++m) {
            if (m == k || !panel_systems_[m]) continue;
            for (const Panel& p : panel_systems_[k]->panels()) {
                const dvec3 x = shapes[k].pose.position + shapes[k].pose.orientation * p.centre;
                if (inside_body(shapes[m], x))
                    throw ParamError("body" + std::to_string(k + 1) + "_position: body " + std::to_string(k + 1) +
                                     " overlaps body " + std::to_string(m + 1) +
                                     " (allowed under body_model boundary_elements: bodies apart)");
            }
        }
    }
}

std::vector<BodyShape> VortexSolver::body_shapes() const {
    std::vector<BodyShape> out(kMaxBodies);
    for (int k = 0; k < kMaxBodies && k < static_cast<int>(bodies_.size()); ++k) {
        const BodyState& st = bodies_[k];
        BodyShape& b = out[k];
        if (!st.active) continue;
        b.kind = st.shape == kShapeSphere ? kSphere : kPolytope;
        b.radius = st.radius;
        b.poly = st.poly;
        b.pose.position = st.position;
        b.pose.orientation = st.orientation;
        if (k == 0 && s_.barrier_angle != 0.0)
            b.pose.orientation = rotation_about(dvec3(0, 0, 1), s_.barrier_angle * kDeg) * st.orientation;
        b.velocity = st.velocity;
        b.angular_velocity = st.angular_velocity;
        b.temperature = s_.bodies[k].temperature;
        b.kelvin = -2.0 * st.volume * (st.angular_velocity - st.spin_met);
        b.volume = st.volume;
        b.held_radius = std::cbrt(3.0 * st.volume / (4.0 * kPi));
        if (s_.body_vorticity) b.held = 2.0 * st.volume * st.spin_met;
    }
    return out;
}

std::vector<Obstacle> VortexSolver::obstacles() const {
    std::vector<Obstacle> out;
    const std::vector<BodyShape> shapes = body_shapes();
    for (int k = 0; k < static_cast<int>(bodies_.size()); ++k) {
        const BodyState& st = bodies_[k];
        if (!st.active) continue;
        Obstacle o;
        o.name = "body" + std::to_string(k + 1);
        const Pose& pose = shapes[k].pose;
        if (st.shape == kShapeSphere) {
            o.shape = Obstacle::Shape::Sphere;
            for (int c = 0; c < 3; ++c) o.center[c] = pose.position[c];
            o.radius = st.radius;
        } else {
            o.shape = Obstacle::Shape::Mesh;
            for (const dvec3& v : st.mesh.triangles) {
                const dvec3 w = pose.position + pose.orientation * v;
                o.points.insert(o.points.end(), {w.x, w.y, w.z});
            }
        }
        o.draggable = true;
        for (int c = 0; c < 3; ++c) o.anchor[c] = st.position[c];
        out.push_back(std::move(o));
    }
    return out;
}

// obstacles() lists the active slots only: its k-th entry is the k-th active body.
int VortexSolver::body_slot(int obstacle) const {
    if (obstacle < 0) return -1;
    int seen = 0;
    for (int k = 0; k < static_cast<int>(bodies_.size()); ++k)
        if (bodies_[k].active && seen++ == obstacle) return k;
    return -1;
}

// Before the step's collide stage: the body a drag hand holds takes the velocity that carries its
// centroid toward the hand's target, no faster than drag_speed (drag_velocity, solvers/common/
// hands.hpp). The collide stage then meets it with that velocity (the no-slip correction reads
// the surface velocity, series part 4) and move_bodies moves it by the same.
void VortexSolver::hold_bodies() {
    const int held = hand().tool == Hand::Tool::Drag ? body_slot(hand().body) : -1;
    for (int k = 0; k < static_cast<int>(bodies_.size()); ++k) {
        BodyState& st = bodies_[k];
        st.held = k == held;
        if (st.held) st.velocity = drag_velocity(hand(), hand().body, st.position, hands_.drag_speed, dt_);
    }
}

namespace {

// The turns about x, then y, then z (degrees) whose product Rz(z) Ry(y) Rx(x) is the rotation R
// (build_bodies' order); R(row, col) = m[col][row]. z = atan2(R10, R00) from the first column
// (cos y (cos z, sin z, -sin y)); then M = Rz(z)^T R = Ry(y) Rx(x), whose row 1 is
// (0, cos x, -sin x) and whose first column is (cos y, 0, -sin y), gives x and y. Each angle is
// an atan2 of a pair of unit length, so the product of the turns is R to round-off even near
// y = +-90 degrees, where z is ill-defined (only x - z or x + z matters there).
dvec3 turns_of(const dmat3& m) {
    const double z = std::atan2(m[0][1], m[0][0]);
    const double cz = std::cos(z), sz = std::sin(z);
    const double x = std::atan2(sz * m[2][0] - cz * m[2][1], cz * m[1][1] - sz * m[1][0]);
    const double y = std::atan2(-m[0][2], cz * m[0][0] + sz * m[0][1]);
    return dvec3(x, y, z) / kDeg;
}

}  // namespace

// Where the bodies are now becomes where the scene places them. The position is exact (the
// centroid less build_bodies' shift of a user-given shape); the rotation is exact to round-off
// (turns_of inverts build_bodies' product of turns). Body 1's extra turn (barrier_angle) is a
// parameter of its own and stays out of body1_rotation. Values outside a parameter's range
// (a dynamic body that fell far) refuse the whole write, naming the key.
void VortexSolver::keep_body_poses() {
    std::vector<std::pair<dvec3, dvec3>> poses(bodies_.size());
    for (int k = 0; k < static_cast<int>(bodies_.size()); ++k) {
        const BodyState& st = bodies_[k];
        if (!st.active) continue;
        poses[k] = {st.position - st.centroid, turns_of(st.orientation)};
        const std::string key = "body" + std::to_string(k + 1) + "_";
        const std::pair<std::string, dvec3> values[] = {{key + "position", poses[k].first},
                                                        {key + "rotation", poses[k].second}};
        for (const auto& [name, v] : values) {
            const ParamSpec& spec = params_.at(name).spec();
            for (int c = 0; c < 3; ++c)
                if (!(v[c] >= spec.min && v[c] <= spec.max))
                    throw ParamError(name + ": the body is at " + number_text(v[c]) + " (component " +
                                     std::to_string(c) + "), outside the allowed [" + number_text(spec.min) + ", " +
                                     number_text(spec.max) + "]; nothing was kept");
        }
    }
    for (int k = 0; k < static_cast<int>(bodies_.size()); ++k) {
        if (!bodies_[k].active) continue;
        BodySettings& b = s_.bodies[k];
        for (int c = 0; c < 3; ++c) {
            b.position[c] = poses[k].first[c];
            b.rotation[c] = poses[k].second[c];
        }
    }
}

// After the collide stage: every body takes what the fluid handed it (series part 4); dynamic
// bodies integrate it with gravity and buoyancy (part 9: weight minus displaced fluid), scripted
// ones follow their velocity, spin and sway.
// A held body (hold_bodies) moves with the hand's velocity instead, and the hand takes the force:
// the fluid's linear impulse, gravity and buoyancy. The hand holds the centroid, not the turn, so
// the angular velocity is kept: a dynamic body's still takes the fluid's angular impulse, a
// scripted one keeps its spin. Let go, a dynamic body goes on with the velocity it was dragged
// at; a scripted one's home has followed, so its script goes on from where it was left.
void VortexSolver::move_bodies() {
    const std::vector<Exchange> ex = engine_->exchanges();
    const dvec3 g = gravity_vector<3>(s_.gravity, s_.gravity_direction);
    const double t1 = time() + dt_;
    for (int k = 0; k < static_cast<int>(bodies_.size()); ++k) {
        BodyState& st = bodies_[k];
        if (!st.active) continue;
        st.received = k < static_cast<int>(ex.size()) ? ex[k] : Exchange{};
        // The force and torque on a body are -d/dt of the impulse and angular impulse of the
        // whole vorticity field, the body's inside taken as fluid in its rigid motion, plus rho
        // d/dt of the integrals of u and x x u over the body's own volume (Wu 1981, eq. 2.1 and
        // 3.3; Saffman 1992, 3.4): the fluid's momentum is the whole field's impulse less the
        // body's volume's. The collide passes hand over the change of the vortons' impulse; here
        // the rest of it joins them, for the velocity and spin the collide stage just met against
        // those it met the step before (dU, dOmega), so that each pairs with the layer's answer:
        //  - the body's own volume, rho V dU and, about the centroid, rho J dOmega (J the inertia
        //    tensor of the body's volume): the layer that cancels the slip moves the body's inside
        //    too; without it a sphere's added mass was (1 + k) rho V instead of k rho V;
        //  - the vorticity 2 dOmega that a change of spin puts inside the body, which Kelvin's
        //    -2 V dOmega on the vortons (BodyShape::kelvin) balances: a linear impulse
        //    (rho/2) x x omega over the volume, rho V c x dOmega, and an angular one about the
        //    origin, (rho/3) x x (x x omega), (rho/3)(2 V c x (c x dOmega) - 2 J dOmega). Without
        //    this pair's inside half, the vortons' half was the whole exchange, and it depended
        //    on where the body stood: a sphere set spinning in place at x = -1.2 m was pushed
        //    1.13 kg m/s sideways and spun up by the fluid (0.376 kg m^2/s along its spin; at the
        //    origin, held back by 0.076), which ran light spinning bodies away.
        // About the centroid c, an angular impulse about the origin less c x (its linear one).
        // Under boundary elements the linear part is the panels' (boundary_elements.hpp, Wu 1981):
        // minus rho times the vortons' impulse change under the body's panels, plus rho times the
        // change of the volume integral of u' over the body. The first step meets the flow as
        // the scene gives it (no start-up kick: the fluid already moves round the body).
        const bool by_panels = s_.body_model == kBoundaryElements && k < static_cast<int>(panel_systems_.size()) &&
                               panel_systems_[k];
        if (by_panels) {
            const PanelForce pf = engine_->panel_forces()[k];
            const double rho = s_.fluid_density;
            if (!st.panels_met) st.volume_velocity_met = pf.volume_velocity;
            // Shedding moves the sheet's impulse onto new vortons: the change of the volume
            // integral counts the sheet's side, and the vortons' (1/2) x x alpha is the other.
            st.received.linear += -rho * dt_ * pf.impulse_rate + rho * (pf.volume_velocity - st.volume_velocity_met) -
                                  rho * st.shed_impulse;
            st.shed_impulse = dvec3(0.0);
            st.volume_velocity_met = pf.volume_velocity;
            st.panels_met = true;
        }
        {
            const double rho = s_.fluid_density, vol = st.volume;
            const dvec3 c = st.position, du = st.velocity - st.velocity_met, dw = st.angular_velocity - st.spin_met;
            const dmat3 j = st.orientation * st.volume_inertia * glm::transpose(st.orientation);
            const dvec3 inside_linear = rho * vol * glm::cross(c, dw);
            const dvec3 inside_angular =
                rho / 3.0 * (2.0 * vol * glm::cross(c, glm::cross(c, dw)) - 2.0 * (j * dw));
            st.received.linear += (by_panels ? dvec3(0.0) : rho * vol * du) - inside_linear;
            st.received.angular += rho * (j * dw) - inside_angular + glm::cross(c, inside_linear);
        }
        st.velocity_met = st.velocity;      // what the collide stage just met
        st.spin_met = st.angular_velocity;  // likewise
        const BodySettings& b = s_.bodies[k];
        const dvec3 v(b.velocity[0], b.velocity[1], b.velocity[2]);
        const dvec3 amp(b.path_amplitude[0], b.path_amplitude[1], b.path_amplitude[2]);
        const double w = 2.0 * kPi / b.path_period;
        if (st.dynamic) {
            const double m = std::max(st.mass, 1e-300);
            if (!st.held) st.velocity += st.received.linear / m + dt_ * (1.0 - s_.fluid_density * st.volume / m) * g;
            const dmat3 inertia_world = st.orientation * st.inertia_body * glm::transpose(st.orientation);
            st.angular_velocity += glm::inverse(inertia_world) * st.received.angular;
            st.position += dt_ * st.velocity;
        } else if (st.held) {
            st.position += dt_ * st.velocity;
            st.home = st.position - std::sin(w * t1) * amp;
        } else {
            st.home += dt_ * v;
            st.position = st.home + std::sin(w * t1) * amp;
            st.velocity = v + w * std::cos(w * t1) * amp;
        }
        // The force and torque in a running mean (an exponential one, of time constant
        // force_smoothing): what the body received this step over dt.
        const double mix = 1.0 - std::exp(-dt_ / s_.force_smoothing);
        st.force += mix * (st.received.linear / dt_ - st.force);
        st.torque += mix * (st.received.angular / dt_ - st.torque);
        const double spin = glm::length(st.angular_velocity);
        if (spin > 0.0)
            st.orientation = orthonormalised(rotation_about(st.angular_velocity, spin * dt_) * st.orientation);
    }
}

}  // namespace fs::vortex
