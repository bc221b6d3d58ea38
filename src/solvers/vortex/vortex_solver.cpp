#include "solvers/vortex/vortex_solver.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "core/blob.hpp"
#include "core/memory_budget.hpp"
#include "core/random.hpp"
#include "solvers/common/gravity.hpp"

namespace fs::vortex {

const std::vector<std::string> kShapeNames = {"none",     "sphere",      "box",     "plate",   "wedge",
                                              "tetrahedron", "airfoil", "planes", "vertices"};
enum ShapeIndex : int { kNone = 0, kShapeSphere, kBox, kPlate, kWedge, kTetrahedron, kAirfoil, kPlanes, kVertices };

std::unique_ptr<Engine> make_engine(Backend b) {
    return b == Backend::Cuda ? make_cuda_engine() : make_cpu_engine();
}

namespace {

bool box_valid(const double* b) { return b[3] > b[0] && b[4] > b[1] && b[5] > b[2]; }

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

VortexSolver::VortexSolver(Backend backend) : Solver(backend) { register_params(); }

void VortexSolver::register_params() {
    auto& r = params_;
    const bool R = true;  // needs_reset
    r.add_choice({"velocity_method", "Velocity method", "Velocity", "",
                  "How vortons get their velocity: direct (regularised Biot-Savart over all vortons, the exact "
                  "reference) or grid (vortex-in-cell: vorticity on a grid, a free-space Poisson solve by FFT, "
                  "u = curl psi)."},
                 {"direct", "grid"}, &s_.velocity_method);
    r.add_choice({"tracer_velocity", "Tracer velocity", "Velocity", "",
                  "How tracers get theirs: direct (costs vortons x tracers) or grid (interpolated from the "
                  "vortex-in-cell grid)."},
                 {"direct", "grid"}, &s_.tracer_velocity);
    r.add_int({"grid_cells", "Grid cells", "Velocity", "",
               "Nodes of the vortex-in-cell grid along the particles' longest extent.", 8, 256},
              &s_.grid_cells);
    r.add_real({"core_radius", "Core radius", "Scene", "m",
                "Radius sigma of the vortons seeded in rings and by flames (volume (2 sigma)^3).", 1e-4, 100, false,
                R},
               &s_.core_radius);
    for (int k = 0; k < kRingSlots; ++k) {
        const std::string p = k == 0 ? "ring_" : "ring2_";
        const std::string g = k == 0 ? "Ring" : "Second ring";
        RingSettings& ring = s_.rings[k];
        r.add_vec({p + "center", "Centre", g, "m", "Centre of the vortex ring.", -1e3, 1e3, false, R}, ring.center, 3);
        r.add_vec({p + "axis", "Axis", g, "", "Direction the ring travels for positive circulation (right-hand rule).",
                   -1, 1, false, R},
                  ring.axis, 3);
        r.add_real({p + "radius", "Radius", g, "m", "Radius of the ring.", 1e-4, 1e3, false, R}, &ring.radius);
        r.add_real({p + "circulation", "Circulation", g, "m^2/s", "Gamma of the ring (0: no ring).", -1e4, 1e4, false,
                    R},
                   &ring.circulation);
        r.add_int({p + "vortons", "Vortons", g, "", "Vortons along the ring (alpha = Gamma dl each).", 3, 100000, false,
                   R},
                  &ring.vortons);
        r.add_int({p + "tracers", "Tracers", g, "", "Tracers seeded around the ring's core.", 0, 10000000, false, R},
                  &ring.tracers);
    }
    r.add_vec({"vorton_box", "Vorton block", "Scene", "m",
               "x0, y0, z0, x1, y1, z1 of a block of still fluid filled with vortons (empty when x1 <= x0): bodies "
               "moving through it set them spinning.",
               -1e3, 1e3, false, R},
              s_.vorton_box, 6);
    r.add_real({"vorton_spacing", "Vorton spacing", "Scene", "m",
                "Lattice spacing of the vorton block; its vortons have core radius spacing / 2.", 1e-3, 100, false, R},
               &s_.vorton_spacing);
    r.add_real({"vorton_noise", "Vorticity noise", "Scene", "1/s",
                "Random vorticity of the block's vortons (each component uniform in [-noise, noise]).", 0, 1e4,
                false, R},
               &s_.vorton_noise);
    r.add_vec({"tracer_box", "Tracer block", "Scene", "m", "Where the tracers start (empty when x1 <= x0).", -1e3,
               1e3, false, R},
              s_.tracer_box, 6);
    r.add_int({"tracers", "Tracers", "Scene", "", "Tracers seeded at random in the tracer block.", 0, 100000000,
               false, R},
              &s_.tracers);
    r.add_int({"max_vortons", "Max vortons", "Scene", "",
               "Cap on vortons: flames recycle the oldest slots beyond it.", 1, 10000000},
              &s_.max_vortons);
    r.add_int({"max_tracers", "Max tracers", "Scene", "",
               "Cap on tracers: flames recycle the oldest slots beyond it.", 0, 100000000},
              &s_.max_tracers);
    r.add_int({"seed", "Random seed", "Scene", "", "Seed of every random number of the scene.", 0, 9e15, false, R},
              &s_.seed);

    r.add_vec({"flame_box", "Flame region", "Flames", "m",
               "Where flames emit hot vortons and tracers (empty when x1 <= x0).", -1e3, 1e3},
              s_.flame_box, 6);
    r.add_real({"flame_temperature", "Flame temperature", "Flames", "K", "Temperature of emitted particles.", 1,
                1e4},
               &s_.flame_temperature);
    r.add_real({"flame_vorton_rate", "Vorton rate", "Flames", "1/s", "Vortons emitted per second.", 0, 1e7},
               &s_.flame_vorton_rate);
    r.add_real({"flame_tracer_rate", "Tracer rate", "Flames", "1/s", "Tracers emitted per second.", 0, 1e9},
               &s_.flame_tracer_rate);

    r.add_bool({"stretching", "Vortex stretching", "Fluid", "",
                "The (omega . grad) u term: vortex lines stretch and tilt with the flow (off: a 2D-like fluid "
                "whose vorticity only moves)."},
               &s_.stretching);
    r.add_real({"viscosity", "Viscosity", "Fluid", "m^2/s",
                "Kinematic viscosity nu of the diffusion term nu lap omega (particle strength exchange).", 0, 100},
               &s_.viscosity);
    r.add_real({"fluid_density", "Fluid density", "Fluid", "kg/m^3",
                "Ambient density: weighs the impulse and heat handed to bodies.", 1e-3, 1e5},
               &s_.fluid_density);
    r.add_real({"specific_heat", "Specific heat", "Fluid", "J/(kg K)", "Of the fluid, for the heat given to bodies.",
                1, 1e6},
               &s_.specific_heat);
    r.add_real({"ambient_temperature", "Ambient temperature", "Fluid", "K", "Temperature of the still fluid.", 1,
                1e4},
               &s_.ambient_temperature);
    r.add_bool({"buoyancy", "Buoyancy", "Fluid", "",
                "Baroclinic vorticity from temperature: D omega / Dt = (g x grad T) / T (density ~ 1/T)."},
               &s_.buoyancy);
    r.add_real({"thermal_diffusivity", "Thermal diffusivity", "Fluid", "m^2/s", "kappa of dT/dt = kappa lap T.", 0,
                100},
               &s_.thermal_diffusivity);
    r.add_real({"cooling_rate", "Cooling rate", "Fluid", "1/s",
                "Particles relax to the ambient temperature at this rate (radiative cooling of smoke).", 0, 1e3},
               &s_.cooling_rate);
    r.add_real({"gravity", "Gravity", "Forces", "m/s^2", "Magnitude of gravity. W/A/S/D turn it.", 0, 1e3},
               &s_.gravity);
    r.add_vec({"gravity_direction", "Gravity direction", "Forces", "", "Direction of gravity (normalised).", -1, 1},
              s_.gravity_direction, 3);

    r.add_real({"boundary_thickness", "Boundary thickness", "Bodies", "",
                "A vorton within this many core radii of a body's surface is in contact (seed 002: 1.2).", 0.1, 10},
               &s_.boundary_thickness);
    r.add_real({"slip_fraction", "No-slip fraction", "Bodies", "",
                "Share of the slip at a contact that the vorticity change cancels (1: no slip, 0: free slip).", 0,
                1},
               &s_.slip_fraction);
    r.add_real({"heat_transfer_rate", "Heat transfer rate", "Bodies", "1/s",
                "How fast a particle touching a body takes the body's temperature.", 0, 1e4},
               &s_.heat_transfer_rate);
    r.add_real({"barrier_angle", "Body 1 turn", "Bodies", "deg",
                "Extra turn of body 1 about the z axis; Q/E turn it.", -1e6, 1e6},
               &s_.barrier_angle);
    r.add_real({"barrier_rotation_rate", "Body 1 turn rate", "Bodies", "deg/s", "How fast Q/E turn body 1.", 0,
                3600},
               &s_.barrier_rotation_rate);
    for (int k = 0; k < kMaxBodies; ++k) {
        const std::string p = "body" + std::to_string(k + 1) + "_";
        const std::string g = "Body " + std::to_string(k + 1);
        BodySettings& b = s_.bodies[k];
        r.add_choice({p + "shape", "Shape", g, "",
                      "sphere (radius = size x), box (size = extents), plate (length x, thickness y, width z), wedge, "
                      "tetrahedron (edge = size x), airfoil (chord, thickness, span), planes (the planes list) or "
                      "vertices (the hull of the vertices list).",
                      -1e300, 1e300, false, R},
                     kShapeNames, &b.shape);
        r.add_vec({p + "position", "Position", g, "m", "Where the body's centroid starts.", -1e3, 1e3, false, R},
                  b.position, 3);
        r.add_vec({p + "size", "Size", g, "m", "Dimensions; their meaning depends on the shape.", 0, 1e3, false, R},
                  b.size, 3);
        r.add_vec({p + "rotation", "Rotation", g, "deg", "Turns about x, then y, then z (the angle of attack is z).",
                   -360, 360, false, R},
                  b.rotation, 3);
        r.add_choice({p + "motion", "Motion", g, "",
                      "kinematic: moves as scripted (velocity, spin, path); dynamic: mass and inertia from its "
                      "density, pushed by gravity, buoyancy and the fluid's impulse.",
                      -1e300, 1e300, false, R},
                     {"kinematic", "dynamic"}, &b.motion);
        r.add_vec({p + "velocity", "Velocity", g, "m/s", "Scripted velocity (the start velocity when dynamic).", -1e3,
                   1e3, false, R},
                  b.velocity, 3);
        r.add_vec({p + "spin", "Spin", g, "rad/s", "Angular velocity (the start one when dynamic).", -1e4, 1e4, false,
                   R},
                  b.spin, 3);
        r.add_vec({p + "path_amplitude", "Path amplitude", g, "m",
                   "A scripted body also sways by amplitude sin(2 pi t / period).", -1e3, 1e3, false, R},
                  b.path_amplitude, 3);
        r.add_real({p + "path_period", "Path period", g, "s", "Period of the sway.", 1e-3, 1e6, false, R},
                   &b.path_period);
        r.add_real({p + "density", "Density", g, "kg/m^3", "Of a dynamic body.", 1e-3, 1e6, false, R}, &b.density);
        r.add_real({p + "temperature", "Temperature", g, "K",
                    "A body warmer or colder than the fluid exchanges heat with it (0: none).", 0, 1e4},
                   &b.temperature);
        r.add_list({p + "planes", "Planes", g, "",
                    "For shape planes: nx, ny, nz, d per face (n x - d = 0 in body space; normals are normalised).",
                    -1e6, 1e6, false, R},
                   &b.planes, 4, kMaxPlanes);
        r.add_list({p + "vertices", "Vertices", g, "m", "For shape vertices: x, y, z per corner (body space).", -1e6,
                    1e6, false, R},
                   &b.vertices, 3, 4096);
    }

    r.add_int({"remesh_every", "Remesh every", "Velocity", "",
               "Re-create the vortons on the grid's nodes every this many steps (0: never).", 0, 100000},
              &s_.remesh_every);
    r.add_real({"remesh_threshold", "Remesh threshold", "Velocity", "",
                "Nodes with |omega| under this fraction of the largest make no vorton.", 0, 1},
               &s_.remesh_threshold);
    r.add_real({"dt", "Time step", "Time", "s", "Largest time step (the series steps at the frame rate).", 1e-6, 1},
               &s_.dt);
    r.add_real({"cfl", "CFL number", "Time", "", "dt <= cfl core_radius / max speed.", 0.01, 10}, &s_.cfl);
    r.add_vec({"view_box", "View box", "Scene", "m", "The box the camera frames (the fluid is unbounded).", -1e3, 1e3},
              s_.view_box, 6);
    r.add_real({"time_step", "Time step used", "Diagnostics", "s", "dt of the last step.", 0, 1e300, true},
               &s_.time_step);
    r.add_int({"grid_nodes", "Grid nodes", "Diagnostics", "", "Nodes of the last vortex-in-cell grid (0: none).", 0,
               9e15, true},
              &s_.grid_nodes);
}

const std::vector<StageInfo>& VortexSolver::stages() const {
    static const std::vector<StageInfo> kStages = {
        {"emit", "series part 11: flames emit hot vortons and tracers"},
        {"velocity", "series parts 3 and 6: u from vorticity (Biot-Savart or vortex-in-cell)"},
        {"buoyancy", "series parts 8 and 10: D omega/Dt = (g x grad T)/T, heat diffusion"},
        {"stretch", "series part 3: d omega/dt = (omega . grad) u + nu lap omega"},
        {"advect", "series part 3: x += dt u"},
        {"collide", "seed 002: SolveBoundaryConditions, CollideVortonsSlice, CollideTracersSlice"},
        {"bodies", "series part 4: bodies take the fluid's impulse"},
        {"remesh", "vortons re-created on the grid (optional)"},
    };
    return kStages;
}

std::vector<FieldInfo> VortexSolver::fields() const {
    return {{"position", 3, "m", "vortons first, then tracers"},
            {"velocity", 3, "m/s", "fluid velocity at the particle"},
            {"speed", 1, "m/s", "|velocity|"},
            {"vorticity", 3, "1/s", "a vorton's vorticity (0 for tracers)"},
            {"vorticity_magnitude", 1, "1/s", "|vorticity|"},
            {"temperature", 1, "K", "particle temperature"},
            {"species", 1, "", "0 vorton, 1 tracer"},
            {"id", 1, "", "index at creation (vortons and tracers count separately)"}};
}

void VortexSolver::read_field(std::string_view name, std::vector<double>& out) const {
    HostState s;
    engine_->download(s);
    out.clear();
    const std::size_t nv = s.vpos.size(), nt = s.tpos.size();
    auto vec3 = [&](const std::vector<dvec3>& a, const std::vector<dvec3>* b) {
        for (const dvec3& v : a) out.insert(out.end(), {v.x, v.y, v.z});
        if (b)
            for (const dvec3& v : *b) out.insert(out.end(), {v.x, v.y, v.z});
        else
            out.resize(out.size() + 3 * nt, 0.0);
    };
    if (name == "position") {
        vec3(s.vpos, &s.tpos);
    } else if (name == "velocity") {
        vec3(s.vvel, &s.tvel);
    } else if (name == "vorticity") {
        vec3(s.omega, nullptr);
    } else if (name == "speed") {
        for (const dvec3& v : s.vvel) out.push_back(glm::length(v));
        for (const dvec3& v : s.tvel) out.push_back(glm::length(v));
    } else if (name == "vorticity_magnitude") {
        for (const dvec3& v : s.omega) out.push_back(glm::length(v));
        out.resize(nv + nt, 0.0);
    } else if (name == "temperature") {
        out.assign(s.vtemp.begin(), s.vtemp.end());
        out.insert(out.end(), s.ttemp.begin(), s.ttemp.end());
    } else if (name == "species") {
        out.assign(nv, 0.0);
        out.resize(nv + nt, 1.0);
    } else if (name == "id") {
        out.assign(s.vid.begin(), s.vid.end());
        out.insert(out.end(), s.tid.begin(), s.tid.end());
    } else {
        throw ParamError("the vortex solver has no field '" + std::string(name) +
                         "' (allowed: position, velocity, speed, vorticity, vorticity_magnitude, temperature, "
                         "species, id)");
    }
}

void VortexSolver::domain(double lo[3], double hi[3]) const {
    for (int k = 0; k < 3; ++k) {
        lo[k] = s_.view_box[k];
        hi[k] = s_.view_box[k + 3];
    }
}

// ---- bodies ----------------------------------------------------------------------------------

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
        } else {
            st.mesh = mesh_of(st.poly);
            const MassProperties mp = mass_properties(st.mesh, b.density);
            st.volume = mp.volume;
            st.mass = mp.mass;
            st.inertia_body = mp.inertia;
            centroid = mp.centroid;
            // User-given shapes: the body's origin moves to the centroid (it turns about it).
            if (glm::length(centroid) > 1e-12) {
                for (int i = 0; i < st.poly.count; ++i) st.poly.planes[i].d -= glm::dot(st.poly.planes[i].n, centroid);
                for (dvec3& v : st.mesh.triangles) v -= centroid;
                finish(st.poly);
            }
        }
        st.position = st.home = dvec3(b.position[0], b.position[1], b.position[2]) + centroid;
        st.orientation = rotation_about(dvec3(0, 0, 1), b.rotation[2] * kDeg) *
                         rotation_about(dvec3(0, 1, 0), b.rotation[1] * kDeg) *
                         rotation_about(dvec3(1, 0, 0), b.rotation[0] * kDeg);
        st.velocity = dvec3(b.velocity[0], b.velocity[1], b.velocity[2]);
        st.angular_velocity = dvec3(b.spin[0], b.spin[1], b.spin[2]);
        st.temperature = b.temperature;
        st.dynamic = b.motion == 1;
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
        out.push_back(std::move(o));
    }
    return out;
}

// After the collide stage: every body takes what the fluid handed it (series part 4); dynamic
// bodies integrate it with gravity and buoyancy (part 9: weight minus displaced fluid), scripted
// ones follow their velocity, spin and sway.
void VortexSolver::move_bodies() {
    const std::vector<Exchange> ex = engine_->exchanges();
    const dvec3 g = gravity_vector<3>(s_.gravity, s_.gravity_direction);
    const double t1 = time() + dt_;
    for (int k = 0; k < static_cast<int>(bodies_.size()); ++k) {
        BodyState& st = bodies_[k];
        if (!st.active) continue;
        st.received = k < static_cast<int>(ex.size()) ? ex[k] : Exchange{};
        if (st.dynamic) {
            const double m = std::max(st.mass, 1e-300);
            st.velocity += st.received.linear / m + dt_ * (1.0 - s_.fluid_density * st.volume / m) * g;
            const dmat3 inertia_world = st.orientation * st.inertia_body * glm::transpose(st.orientation);
            st.angular_velocity += glm::inverse(inertia_world) * st.received.angular;
            st.position += dt_ * st.velocity;
        } else {
            const BodySettings& b = s_.bodies[k];
            const dvec3 v(b.velocity[0], b.velocity[1], b.velocity[2]);
            const dvec3 amp(b.path_amplitude[0], b.path_amplitude[1], b.path_amplitude[2]);
            const double w = 2.0 * kPi / b.path_period;
            st.home += dt_ * v;
            st.position = st.home + std::sin(w * t1) * amp;
            st.velocity = v + w * std::cos(w * t1) * amp;
        }
        const double spin = glm::length(st.angular_velocity);
        if (spin > 0.0)
            st.orientation = orthonormalised(rotation_about(st.angular_velocity, spin * dt_) * st.orientation);
    }
}

// ---- emission and the initial state ----------------------------------------------------------

// Flames (series part 11): particles appear at random points of the flame region at the set
// rates, as hot as the flame. Counter-based random numbers and a fixed slot rule (append up to the
// cap, then recycle the oldest) keep emission identical on both backends.
void VortexSolver::emit() {
    if (!box_valid(s_.flame_box)) return;
    const dvec3 lo(s_.flame_box[0], s_.flame_box[1], s_.flame_box[2]);
    const dvec3 hi(s_.flame_box[3], s_.flame_box[4], s_.flame_box[5]);
    carry_vortons_ += s_.flame_vorton_rate * dt_;
    carry_tracers_ += s_.flame_tracer_rate * dt_;
    const long long nv = static_cast<long long>(carry_vortons_);
    const long long nt = s_.max_tracers > 0 ? static_cast<long long>(carry_tracers_) : 0;
    carry_vortons_ -= static_cast<double>(nv);
    carry_tracers_ -= static_cast<double>(static_cast<long long>(carry_tracers_));
    if (nv == 0 && nt == 0) return;
    const auto seed = static_cast<unsigned long long>(s_.seed);
    HostState batch;
    std::vector<int> vslots, tslots;
    auto slot = [](long long count_now, long long counter, long long cap) {
        return static_cast<int>(count_now < cap ? count_now : counter % cap);
    };
    long long count = engine_->vortons();
    for (long long k = 0; k < nv; ++k, ++emitted_vortons_) {
        const auto c = static_cast<unsigned long long>(emitted_vortons_) * 8;
        const dvec3 u(hash01(seed, c), hash01(seed, c + 1), hash01(seed, c + 2));
        const dvec3 w(hash01(seed, c + 3) - 0.5, hash01(seed, c + 4) - 0.5, hash01(seed, c + 5) - 0.5);
        const int at = slot(count, emitted_vortons_, s_.max_vortons);
        if (at == count) ++count;
        vslots.push_back(at);
        batch.vpos.push_back(lo + u * (hi - lo));
        batch.omega.push_back(2.0 * s_.vorton_noise * w);
        batch.radius.push_back(s_.core_radius);
        batch.vtemp.push_back(s_.flame_temperature);
        batch.vid.push_back(static_cast<int>(next_vorton_id_++));
    }
    count = engine_->tracers();
    const unsigned long long tseed = seed ^ 0x5DEECE66Dull;
    for (long long k = 0; k < nt; ++k, ++emitted_tracers_) {
        const auto c = static_cast<unsigned long long>(emitted_tracers_) * 4;
        const dvec3 u(hash01(tseed, c), hash01(tseed, c + 1), hash01(tseed, c + 2));
        const int at = slot(count, emitted_tracers_, s_.max_tracers);
        if (at == count) ++count;
        tslots.push_back(at);
        batch.tpos.push_back(lo + u * (hi - lo));
        batch.ttemp.push_back(s_.flame_temperature);
        batch.tid.push_back(static_cast<int>(next_tracer_id_++));
    }
    engine_->place(batch, vslots, tslots);
}

void VortexSolver::do_reset() {
    build_bodies();
    // Refused before seeding (memory_budget.hpp): up to max_vortons vortons of about 256 bytes,
    // max_tracers tracers of 112, and a grid of up to (grid_cells + 4)^3 nodes of 380 (its 26
    // fields and the Poisson solve's padded spectrum); the key named is the largest part.
    const bool grid = s_.velocity_method == kGrid || s_.tracer_velocity == kGrid || s_.remesh_every > 0;
    const double part[3] = {256.0 * s_.max_vortons, 112.0 * s_.max_tracers,
                            grid ? 380.0 * std::pow(s_.grid_cells + 4.0, 3.0) : 0.0};
    const char* const keys[3] = {"max_vortons", "max_tracers", "grid_cells"};
    check_memory(keys[std::max_element(part, part + 3) - part],
                 std::to_string(s_.max_vortons) + " vortons, " + std::to_string(s_.max_tracers) + " tracers and " +
                     (grid ? "a grid of " + std::to_string(s_.grid_cells) + "^3 nodes" : "no grid"),
                 part[0] + part[1] + part[2], backend());
    HostState h;
    std::mt19937_64 rng(static_cast<std::uint64_t>(s_.seed));
    const double t0 = s_.ambient_temperature;
    auto add_vorton = [&](dvec3 x, dvec3 omega, double sigma) {
        h.vpos.push_back(x);
        h.omega.push_back(omega);
        h.radius.push_back(sigma);
        h.vtemp.push_back(t0);
        h.vid.push_back(static_cast<int>(h.vid.size()));
    };
    auto add_tracer = [&](dvec3 x) {
        h.tpos.push_back(x);
        h.ttemp.push_back(t0);
        h.tid.push_back(static_cast<int>(h.tid.size()));
    };
    auto check_count = [&](std::size_t n, long long cap, const char* what, const char* key) {
        if (static_cast<long long>(n) > cap)
            throw ParamError(std::string(key) + ": the scene seeds " + std::to_string(n) + " " + what +
                             ", more than " + key + " = " + std::to_string(cap));
    };
    // Rings: one filament each, alpha = Gamma dl along the circle (a discretised vortex filament).
    for (const RingSettings& ring : s_.rings) {
        if (ring.circulation == 0.0) continue;
        const dvec3 c(ring.center[0], ring.center[1], ring.center[2]);
        dvec3 a(ring.axis[0], ring.axis[1], ring.axis[2]);
        if (glm::length(a) <= 0.0) throw ParamError("ring_axis: expected a non-zero direction");
        a = glm::normalize(a);
        const dvec3 helper = std::fabs(a.x) < 0.9 ? dvec3(1, 0, 0) : dvec3(0, 1, 0);
        const dvec3 e1 = glm::normalize(glm::cross(helper, a));
        const dvec3 e2 = glm::cross(a, e1);  // e1 x e2 = a: counter-clockwise about a
        const int n = static_cast<int>(ring.vortons);
        const double dl = 2.0 * kPi * ring.radius / n;
        const double vol = vorton_volume(s_.core_radius);
        for (int k = 0; k < n; ++k) {
            const double th = 2.0 * kPi * k / n;
            const dvec3 radial = std::cos(th) * e1 + std::sin(th) * e2;
            const dvec3 tangent = -std::sin(th) * e1 + std::cos(th) * e2;
            add_vorton(c + ring.radius * radial, (ring.circulation * dl / vol) * tangent, s_.core_radius);
        }
        for (long long k = 0; k < ring.tracers; ++k) {
            const double th = 2.0 * kPi * uniform01(rng);
            const double phi = 2.0 * kPi * uniform01(rng);
            const double rr = 2.0 * s_.core_radius * std::sqrt(uniform01(rng));
            const dvec3 radial = std::cos(th) * e1 + std::sin(th) * e2;
            add_tracer(c + (ring.radius + rr * std::cos(phi)) * radial + rr * std::sin(phi) * a);
        }
    }
    // A block of still fluid: vortons on a lattice (core = spacing / 2, so they fill it).
    if (box_valid(s_.vorton_box)) {
        const double sp = s_.vorton_spacing;
        const int nx = static_cast<int>((s_.vorton_box[3] - s_.vorton_box[0]) / sp);
        const int ny = static_cast<int>((s_.vorton_box[4] - s_.vorton_box[1]) / sp);
        const int nz = static_cast<int>((s_.vorton_box[5] - s_.vorton_box[2]) / sp);
        check_count(h.vpos.size() + static_cast<std::size_t>(std::max(0, nx)) * std::max(0, ny) * std::max(0, nz),
                    s_.max_vortons, "vortons", "max_vortons");
        for (int k = 0; k < nz; ++k)
            for (int j = 0; j < ny; ++j)
                for (int i = 0; i < nx; ++i) {
                    const dvec3 x = dvec3(s_.vorton_box[0], s_.vorton_box[1], s_.vorton_box[2]) +
                                    sp * dvec3(i + 0.5, j + 0.5, k + 0.5);
                    const dvec3 w(uniform01(rng) - 0.5, uniform01(rng) - 0.5, uniform01(rng) - 0.5);
                    add_vorton(x, 2.0 * s_.vorton_noise * w, 0.5 * sp);
                }
    }
    if (box_valid(s_.tracer_box)) {
        check_count(h.tpos.size() + static_cast<std::size_t>(s_.tracers), s_.max_tracers, "tracers", "max_tracers");
        const dvec3 lo(s_.tracer_box[0], s_.tracer_box[1], s_.tracer_box[2]);
        const dvec3 hi(s_.tracer_box[3], s_.tracer_box[4], s_.tracer_box[5]);
        for (long long k = 0; k < s_.tracers; ++k)
            add_tracer(lo + dvec3(uniform01(rng), uniform01(rng), uniform01(rng)) * (hi - lo));
    }
    check_count(h.vpos.size(), s_.max_vortons, "vortons", "max_vortons");
    check_count(h.tpos.size(), s_.max_tracers, "tracers", "max_tracers");
    const bool flames = box_valid(s_.flame_box) && s_.flame_vorton_rate > 0.0;
    if (h.vpos.empty() && !flames)
        throw ParamError("ring_circulation: the scene has no vortons (give a ring a circulation, fill vorton_box, "
                         "or let flames emit vortons with flame_box and flame_vorton_rate)");
    // Nothing starts inside a body (seed 002, RemoveEmbeddedParticles): vortons there are
    // removed (the body displaces that fluid), tracers move out to the surface.
    const std::vector<BodyShape> shapes = body_shapes();
    auto inside_any = [&](dvec3 x, double margin, dvec3* moved) {
        for (const BodyShape& b : shapes) {
            double dist;
            dvec3 point, n;
            if (body_contact(b, x, margin, dist, point, n) && dist < margin) {
                if (moved) *moved = point + margin * n;
                return true;
            }
        }
        return false;
    };
    {
        HostState kept;
        for (std::size_t i = 0; i < h.vpos.size(); ++i) {
            if (inside_any(h.vpos[i], 0.0, nullptr)) continue;
            kept.vpos.push_back(h.vpos[i]);
            kept.omega.push_back(h.omega[i]);
            kept.radius.push_back(h.radius[i]);
            kept.vtemp.push_back(h.vtemp[i]);
            kept.vid.push_back(static_cast<int>(kept.vid.size()));
        }
        h.vpos.swap(kept.vpos);
        h.omega.swap(kept.omega);
        h.radius.swap(kept.radius);
        h.vtemp.swap(kept.vtemp);
        h.vid.swap(kept.vid);
    }
    for (dvec3& x : h.tpos) inside_any(x, 0.05 * s_.core_radius, &x);
    emitted_vortons_ = emitted_tracers_ = 0;
    carry_vortons_ = carry_tracers_ = 0.0;
    next_vorton_id_ = static_cast<long long>(h.vid.size());
    next_tracer_id_ = static_cast<long long>(h.tid.size());
    last_max_speed_ = 0.0;
    set_state(h);
}

void VortexSolver::set_state(const HostState& s) {
    if (!engine_) engine_ = make_engine(backend());
    engine_->upload(s);
    engine_->set_bodies(body_shapes());
}

HostState VortexSolver::state() const {
    HostState s;
    if (engine_) engine_->download(s);
    return s;
}

Config VortexSolver::config() const {
    Config c;
    c.dt = dt_;
    c.velocity_method = s_.velocity_method;
    c.tracer_method = s_.tracer_velocity;
    c.grid_cells = static_cast<int>(s_.grid_cells);
    c.core_radius = s_.core_radius;
    c.stretching = s_.stretching;
    c.viscosity = s_.viscosity;
    c.fluid_density = s_.fluid_density;
    c.specific_heat = s_.specific_heat;
    c.gravity = gravity_vector<3>(s_.gravity, s_.gravity_direction);
    c.ambient_temperature = s_.ambient_temperature;
    c.buoyancy = s_.buoyancy;
    c.thermal_diffusivity = s_.thermal_diffusivity;
    c.cooling_rate = s_.cooling_rate;
    c.boundary_thickness = s_.boundary_thickness;
    c.slip_fraction = s_.slip_fraction;
    c.heat_transfer_rate = s_.heat_transfer_rate;
    c.remesh = s_.remesh_every > 0 && (step_count() + 1) % s_.remesh_every == 0;
    c.remesh_threshold = s_.remesh_threshold;
    c.max_vortons = static_cast<int>(std::min<long long>(s_.max_vortons, 1 << 30));
    c.body_count = kMaxBodies;
    return c;
}

void VortexSolver::run_stage(int index) {
    if (index == kEmit) {
        // dt: the set step, bounded so no particle crosses more than cfl core radii.
        dt_ = std::min(s_.dt, s_.cfl * s_.core_radius / std::max(last_max_speed_, 1e-12));
        emit();
        engine_->set_bodies(body_shapes());
        return;
    }
    if (index == kBodies) {
        move_bodies();
        engine_->set_bodies(body_shapes());
        return;
    }
    engine_->run_stage(index, config());
}

double VortexSolver::finish_step(Stats& out) {
    const Config c = config();
    const Sums s = engine_->sums(c);
    const std::string step = "step " + std::to_string(step_count() + 1) + ": ";
    if (s.nonfinite > 0)
        throw SimulationError(step + std::to_string(s.nonfinite) +
                              " particle(s) have a NaN or infinite position, velocity or vorticity");
    last_max_speed_ = std::sqrt(s.max_speed2);
    // A runaway: a speed that would force a step a hundred times shorter than the set one.
    const double bound = 100.0 * s_.cfl * s_.core_radius / s_.dt;
    if (last_max_speed_ > bound)
        throw SimulationError(step + "max_speed " + std::to_string(last_max_speed_) + " m/s exceeds " +
                              std::to_string(bound) + " m/s (100 cfl core_radius / dt): the flow has run away");
    const GridInfo gi = engine_->grid_info();
    s_.time_step = dt_;
    s_.grid_nodes = gi.built ? gi.grid.nodes() : 0;
    const double rho = s_.fluid_density;
    const dvec3 P = rho * s.impulse;
    out.set("kinetic_energy", rho * s.energy);
    out.set("momentum", std::vector<double>{P.x, P.y, P.z});
    out.set("max_speed", last_max_speed_);
    out.set_count("n_vortons", engine_->vortons());
    out.set_count("n_tracers", engine_->tracers());
    out.set("total_vorticity", std::vector<double>{s.alpha.x, s.alpha.y, s.alpha.z});
    out.set("linear_impulse", std::vector<double>{P.x, P.y, P.z});
    out.set("enstrophy", s.enstrophy);
    out.set_count("grid_nodes", s_.grid_nodes);
    int contacts = 0;
    for (int k = 0; k < static_cast<int>(bodies_.size()); ++k) {
        const BodyState& b = bodies_[k];
        if (!b.active) continue;
        const std::string p = "body" + std::to_string(k + 1) + "_";
        auto v3 = [](dvec3 v) { return std::vector<double>{v.x, v.y, v.z}; };
        out.set(p + "position", v3(b.position));
        out.set(p + "velocity", v3(b.velocity));
        out.set(p + "angular_velocity", v3(b.angular_velocity));
        out.set(p + "impulse", v3(b.received.linear));
        out.set(p + "angular_impulse", v3(b.received.angular));
        out.set(p + "heat", b.received.heat);
        contacts += b.received.contacts;
    }
    out.set_count("vorton_contacts", contacts);
    return dt_;
}

void VortexSolver::move_to(Backend to) {
    auto fresh = make_engine(to);
    HostState s;
    engine_->download(s);
    fresh->upload(s);
    fresh->set_bodies(body_shapes());
    engine_ = std::move(fresh);
}

namespace {
struct BodyBlob {
    dvec3 position, home;
    dmat3 orientation;
    dvec3 velocity, angular_velocity;
};
}  // namespace

void VortexSolver::save_state(std::vector<char>& out) const {
    HostState s;
    engine_->download(s);
    out.clear();
    blob::put(out, s.vpos);
    blob::put(out, s.omega);
    blob::put(out, s.radius);
    blob::put(out, s.vtemp);
    blob::put(out, s.vid);
    blob::put(out, s.tpos);
    blob::put(out, s.ttemp);
    blob::put(out, s.tid);
    blob::put(out, std::vector<VicGrid>{s.grid_shape});
    blob::put(out, std::vector<double>{last_max_speed_, carry_vortons_, carry_tracers_});
    blob::put(out, std::vector<long long>{emitted_vortons_, emitted_tracers_, next_vorton_id_, next_tracer_id_});
    std::vector<BodyBlob> bodies;
    for (const BodyState& b : bodies_) bodies.push_back({b.position, b.home, b.orientation, b.velocity, b.angular_velocity});
    blob::put(out, bodies);
}

void VortexSolver::load_state(const std::vector<char>& in) {
    HostState s;
    std::size_t at = 0;
    blob::get(in, at, s.vpos);
    blob::get(in, at, s.omega);
    blob::get(in, at, s.radius);
    blob::get(in, at, s.vtemp);
    blob::get(in, at, s.vid);
    blob::get(in, at, s.tpos);
    blob::get(in, at, s.ttemp);
    blob::get(in, at, s.tid);
    std::vector<VicGrid> shape;
    blob::get(in, at, shape);
    if (shape.size() != 1) throw std::runtime_error("checkpoint of another solver");
    s.grid_shape = shape[0];
    std::vector<double> reals;
    std::vector<long long> counts;
    std::vector<BodyBlob> bodies;
    blob::get(in, at, reals);
    blob::get(in, at, counts);
    blob::get(in, at, bodies);
    if (reals.size() != 3 || counts.size() != 4) throw std::runtime_error("checkpoint of another solver");
    last_max_speed_ = reals[0];
    carry_vortons_ = reals[1];
    carry_tracers_ = reals[2];
    emitted_vortons_ = counts[0];
    emitted_tracers_ = counts[1];
    next_vorton_id_ = counts[2];
    next_tracer_id_ = counts[3];
    build_bodies();
    for (std::size_t k = 0; k < bodies.size() && k < bodies_.size(); ++k) {
        bodies_[k].position = bodies[k].position;
        bodies_[k].home = bodies[k].home;
        bodies_[k].orientation = bodies[k].orientation;
        bodies_[k].velocity = bodies[k].velocity;
        bodies_[k].angular_velocity = bodies[k].angular_velocity;
    }
    set_state(s);
}

}  // namespace fs::vortex
