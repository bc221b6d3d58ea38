// The `vortex` solver: vortex particles (vortons) and passive tracers in 3D free space, with
// buoyancy from temperature, flames that emit hot particles, and sphere and convex-polytope
// bodies coupled both ways (vortex particles part 13, part 13 of a series on vortex-particle fluids for games,
// and the parts it summarises).
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/solver.hpp"
#include "solvers/common/engine_solver.hpp"
#include "solvers/vortex/panels.hpp"
#include "solvers/vortex/shapes.hpp"
#include "solvers/vortex/vortex_engine.hpp"

namespace fs::vortex {

constexpr int kRingSlots = 2;

// A vortex ring seeded as one filament of vortons: alpha = Gamma dl along the circle.
struct RingSettings {
    double center[3] = {0.0, 0.0, 0.0};
    double axis[3] = {0.0, 1.0, 0.0};
    double radius = 1.0;
    double circulation = 0.0;  // m^2/s; 0: no ring
    long long vortons = 64;
    long long tracers = 0;     // seeded in a torus around the core
};

// What the scene says about a body (the parameters of one body slot).
struct BodySettings {
    int shape = 0;  // index into kShapeNames
    double position[3] = {0.0, 0.0, 0.0};
    double size[3] = {0.5, 0.5, 0.5};
    double rotation[3] = {0.0, 0.0, 0.0};  // degrees about x, then y, then z
    int motion = 0;                        // 0 kinematic, 1 dynamic
    double velocity[3] = {0.0, 0.0, 0.0};
    double spin[3] = {0.0, 0.0, 0.0};      // rad/s
    double path_amplitude[3] = {0.0, 0.0, 0.0};
    double path_period = 1.0;
    double density = 500.0;
    double temperature = 0.0;              // K; 0 exchanges no heat
    std::vector<double> planes;            // nx, ny, nz, d groups (shape "planes")
    std::vector<double> vertices;          // x, y, z groups (shape "vertices": their hull)
};

struct Settings {
    int velocity_method = kDirect;
    int tracer_velocity = kGrid;
    double grid_spacing = 1.0;  // core radii
    long long grid_cells = 64;
    double core_radius = 0.05;
    double core_overlap = kDocumentOverlap;  // sigma / h
    std::array<RingSettings, kRingSlots> rings;
    double vorton_box[6] = {0, 0, 0, 0, 0, 0};
    double vorton_spacing = 0.1;
    double vorton_noise = 0.0;
    double tracer_box[6] = {0, 0, 0, 0, 0, 0};
    long long tracers = 0;
    long long max_vortons = 4000;
    long long max_tracers = 100000;
    long long seed = 1;
    double flame_box[6] = {0, 0, 0, 0, 0, 0};
    double flame_temperature = 600.0;
    double flame_vorton_rate = 0.0;
    double flame_tracer_rate = 0.0;
    bool stretching = true;
    int stretching_form = kClassical;
    double relaxation = 0.0;  // 1/s
    int integrator = kMidpoint;
    double viscosity = 0.0;
    double fluid_density = 1.2;
    double specific_heat = 1005.0;
    double ambient_temperature = 300.0;
    bool buoyancy = true;
    double thermal_diffusivity = 0.0;
    double cooling_rate = 0.0;
    double gravity = 9.81;
    double gravity_direction[3] = {0.0, -1.0, 0.0};
    int body_model = 0;         // kCollisions or kBoundaryElements
    double panel_size = 2.0;    // core radii
    double boundary_thickness = 1.2;
    double slip_fraction = 1.0;
    bool shedding = false;        // boundary_elements: the slip shed as vortons each step (shed())
    bool body_vorticity = false;  // turning bodies' own 2 Omega in the velocity sums (add_held)
    double heat_transfer_rate = 5.0;
    double force_smoothing = 0.5;  // s: the running mean of the bodies' forces
    long long remesh_every = 0;
    double remesh_threshold = 1e-3;
    double dt = 1.0 / 60.0;
    double cfl = 0.5;
    double view_box[6] = {-2, -2, -2, 2, 2, 2};
    double barrier_angle = 0.0;          // body 1's extra turn about z, degrees (Q/E)
    double barrier_rotation_rate = 45.0; // deg/s
    std::array<BodySettings, kMaxBodies> bodies;
    // diagnostics
    double time_step = 0.0;
    int dt_limit = 0;  // diagnostic: 0 dt, 1 cfl
    long long grid_nodes = 0;
};

// A body's state as the simulation moves it.
struct BodyState {
    bool active = false;
    int shape = 0;
    Polytope poly;        // body space (polytopes)
    double radius = 0.0;  // spheres
    Mesh mesh;            // body space, for drawing
    dvec3 position{0.0}, home{0.0};
    dmat3 orientation{1.0};
    dvec3 velocity{0.0}, angular_velocity{0.0};
    double temperature = 0.0;
    double mass = 0.0, volume = 0.0;
    dmat3 inertia_body{1.0};  // about the centroid, body axes
    dmat3 volume_inertia{0.0};  // the same for density 1: the body's volume's (move_bodies)
    bool dynamic = false;
    Exchange received;        // in the last step
    // The force and torque (about the centroid) the fluid exerts, received / dt in a running
    // mean over force_smoothing seconds.
    dvec3 force{0.0}, torque{0.0};
    // The reference area of the lift and drag coefficients: the body's shadow on its own x-z
    // plane (chord x span for plates and airfoils; pi r^2 for a sphere).
    double planform = 0.0;
    // The angular velocity the fluid last met it with (the collide stage's): a turn faster than
    // that owes the fluid -2 V (Omega - spin_met) of vorticity (BodyShape::kelvin).
    dvec3 spin_met{0.0};
    // The velocity the fluid last met it with: rho V times its change joins the fluid's
    // hand-over (move_bodies, Wu 1981). Zero at the start, where the fluid has not met the body.
    dvec3 velocity_met{0.0};
    // A user-given shape's centroid in the coordinates its planes or vertices are given in:
    // build_bodies moves the body's origin there, so position = bodyN_position + centroid.
    dvec3 centroid{0.0};
    bool held = false;        // a hand drags it in the step in progress (hold_bodies)
    // body_model boundary_elements: the volume integral of the vortons' and panels' velocity over
    // the body when the last step met it (move_bodies: its change is the force's second part).
    dvec3 volume_velocity_met{0.0};
    bool panels_met = false;  // whether volume_velocity_met holds a step's value yet
    dvec3 shed_impulse{0.0};  // (1/2) sum x x alpha of the vortons shed this step (shed())
};

// A body's force split along and across the relative wind, and as coefficients
// (vortex_bodies.cpp, body_aero).
struct BodyAero {
    double lift = 0.0, drag = 0.0;  // N
    double lift_coefficient = 0.0, drag_coefficient = 0.0;
};
BodyAero body_aero(const BodyState& st, double fluid_density);

extern const std::vector<std::string> kShapeNames;
enum BodyModel : int { kCollisions = 0, kBoundaryElements = 1 };
enum ShapeIndex : int { kNone = 0, kShapeSphere, kBox, kPlate, kWedge, kTetrahedron, kAirfoil, kPlanes, kVertices };

class VortexSolver final : public EngineSolver<Engine, HostState, make_cpu_engine, make_cuda_engine> {
public:
    explicit VortexSolver(Backend backend = Backend::Cpu);

    std::string_view kind() const override { return "vortex"; }
    SolverTraits traits() const override {
        SolverTraits t;
        t.turn_param = "barrier_angle";  // body 1's turn
        t.turn_rate_param = "barrier_rotation_rate";
        t.instability_advice = "try a smaller time step, thicker cores, some viscosity, or remeshing";
        t.stat_scales = {{"n_vortons", "", 1, true},
                         {"n_tracers", "", 1, true},
                         {"enstrophy", "m^3/s^2", 1e-9},
                         {"grid_nodes", "", 1, true},
                         {"vorton_contacts", "", 1, true},
                         {"heat", "J", 1e-9},  // body<N>_heat, lift, drag and their coefficients
                         {"lift", "N", 1e-9},
                         {"drag", "N", 1e-9},
                         {"lift_coefficient", "", 1e-6},
                         {"drag_coefficient", "", 1e-6}};
        return t;
    }
    int dimension() const override { return 3; }
    const std::vector<StageInfo>& stages() const override;
    std::vector<FieldInfo> fields() const override;
    void read_field(std::string_view name, std::vector<double>& out) const override;
    // "position" (vortons, then tracers) and "vorticity" (the vortons'; the tracers' rows must be 0).
    std::vector<std::string> writable_fields() const override { return {"position", "vorticity"}; }
    void write_field(std::string_view name, const std::vector<double>& values) override;
    int particle_count() const override { return engine_ ? engine_->vortons() + engine_->tracers() : 0; }
    // Drawn small: the tracers are smoke, and a vorton's core is much wider than what shows it.
    double particle_radius() const override { return 0.12 * s_.core_radius; }
    void domain(double lo[3], double hi[3]) const override;
    // Every body, draggable by its centroid.
    std::vector<Obstacle> obstacles() const override;
    // Hands (core/hands.hpp): a student drags the bodies; the fluid feels them move.
    unsigned hand_tools() const override { return kHandDrag; }
    void keep_body_poses() override;

    const Settings& settings() const { return s_; }
    const std::vector<BodyState>& bodies() const { return bodies_; }
    Config config() const;
    void check_params() const override;

protected:
    void do_reset() override;
    void run_stage(int index) override;
    double finish_step(Stats& out) override;
    void initial_stats(Stats& out) override;
    void vorticity_stats(const Sums& s, Stats& out) const;
    void on_upload() override;
    void save_extra(std::vector<char>& out) const override;
    void load_extra(const std::vector<char>& in, std::size_t& at) override;

private:
    void register_params();                       // vortex_params.cpp
    void build_bodies();                          // vortex_bodies.cpp
    void build_panels();                          //
    std::vector<BodyShape> body_shapes() const;   //
    void hold_bodies();                           //
    void move_bodies();                           //
    int body_slot(int obstacle) const;            //
    void emit();                                  // vortex_seeding.cpp (with do_reset)
    void shed();                                  // vortex_seeding.cpp
    bool can_add_energy() const;                  //
    void check_growth(const Sums& s, bool remeshed, const std::string& step);
    // The dt (or core) under which a vortex filament's bending waves stay bounded, as advice.
    std::string wave_advice() const;

    Settings s_;
    // The drag speed (group Hands) keeps its 1 m/s default: the speed the bundled scenes'
    // scripted bodies move at (the moving plate, the airfoil, the Magnus sphere).
    HandSettings hands_;
    std::vector<BodyState> bodies_;
    // body_model boundary_elements: each body slot's panels and factored matrix (null: none),
    // and what they were built from (build_bodies rebuilds only what changed).
    std::vector<std::shared_ptr<const PanelSystem>> panel_systems_;
    std::vector<std::vector<double>> panel_keys_;
    double dt_ = 1.0 / 60.0;
    double last_max_speed_ = 0.0;
    double last_energy_ = 0.0;  // the kinetic energy stat of the last step without a remesh
    // The runaway guard's reference: energy and enstrophy when the scene last could not add
    // energy (0: none yet), and its step.
    double reference_energy_ = 0.0, reference_enstrophy_ = 0.0;
    long long reference_step_ = 0;
    // Emission bookkeeping: particles emitted so far (their count picks the slot and the random
    // numbers) and the fractional particle carried to the next step.
    long long emitted_vortons_ = 0, emitted_tracers_ = 0;
    double carry_vortons_ = 0.0, carry_tracers_ = 0.0;
    long long next_vorton_id_ = 0, next_tracer_id_ = 0;
};

}  // namespace fs::vortex
