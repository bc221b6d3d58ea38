// The vortex solver's parameter registry: what a scene file, --set and the Parameters panel can
// set, with units, ranges and where each comes from (vortex particles part 13 and the series it summarises).
#include "solvers/vortex/vortex_solver.hpp"

#include <string>

namespace fs::vortex {

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
    r.add_real({"grid_spacing", "Grid spacing", "Velocity", "core radii",
                "Spacing h of the vortex-in-cell grid in core radii (h / core_radius). The grid smooths the "
                "field on h, the direct sum on the cores: at h = 1 the grid's velocity is within 5% RMS of the "
                "direct sum's in the bundled body scenes (tests/test_vortex_grid.cpp); coarser is cheaper.",
                0.25, 8},
               &s_.grid_spacing);
    r.add_int({"grid_cells", "Grid cells", "Velocity", "",
               "Most nodes of the vortex-in-cell grid along its longest extent (the particles it serves): where "
               "grid_spacing would need more, the spacing grows to fit. Bounds the grid's memory and time.",
               8, 256},
              &s_.grid_cells);
    r.add_real({"core_radius", "Core radius", "Scene", "m",
                "Radius sigma of the vortons seeded in rings and by flames (volume (sigma / core_overlap)^3).", 1e-4,
                100, false, R},
               &s_.core_radius);
    r.add_real({"core_overlap", "Core overlap", "Scene", "",
                "A vorton's core radius over the spacing h of the fluid it stands for (sigma / h; its volume is "
                "h^3). 0.5: the vortex article's cores, which just touch on a lattice; 1 or more: overlapping "
                "cores, which vortex methods need to stay accurate where vortons crowd or thin out (the block's "
                "and the remesh's vortons get core_overlap times their spacing).",
                0.25, 4, false, R},
               &s_.core_overlap);
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
        r.add_int({p + "tracers", "Ring tracers", g, "", "Tracers seeded around the ring's core.", 0, 10000000, false, R},
                  &ring.tracers);
    }
    r.add_vec({"vorton_box", "Vorton block", "Scene", "m",
               "x0, y0, z0, x1, y1, z1 of a block of still fluid filled with vortons (empty when x1 <= x0): bodies "
               "moving through it set them spinning.",
               -1e3, 1e3, false, R},
              s_.vorton_box, 6);
    r.add_real({"vorton_spacing", "Vorton spacing", "Scene", "m",
                "Lattice spacing of the vorton block; its vortons have core radius core_overlap x spacing.", 1e-3,
                100, false, R},
               &s_.vorton_spacing);
    r.add_real({"vorton_noise", "Vorticity noise", "Scene", "1/s",
                "Random vorticity of the block's vortons (each component uniform in [-noise, noise]).", 0, 1e4,
                false, R},
               &s_.vorton_noise);
    r.add_vec({"tracer_box", "Tracer block", "Scene", "m", "Where the tracers start (empty when x1 <= x0).", -1e3,
               1e3, false, R},
              s_.tracer_box, 6);
    r.add_int({"tracers", "Block tracers", "Scene", "",
               "Tracers seeded at random in the tracer block (the rings seed their own: ring_tracers; "
               "the Stats panel counts them all as n_tracers).", 0, 100000000,
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
    r.add_choice({"stretching_form", "Stretching form", "Fluid", "",
                  "classical: (omega . grad) u, the vortex article's; transpose: (omega . grad^T) u, which keeps the "
                  "vortons' total vorticity exactly (Winckelmans and Leonard 1993). The same for a divergence-free "
                  "field; they part where the vortons' vorticity drifts off it."},
                 {"classical", "transpose"}, &s_.stretching_form);
    r.add_real({"relaxation", "Relaxation", "Fluid", "1/s",
                "Rate at which each vorton's vorticity turns toward the field's own curl u at it, its magnitude kept "
                "(Pedrizzetti 1992): holds the vortons to a divergence-free field (0: off; 18: 0.26 of the way a "
                "step at 60 steps/s). Made for vortex filaments by the direct sum (the leapfrogging rings); on the "
                "grid with bodies it made the total vorticity drift more, not less (docs: the vortex solver). Costs a sixth to a third "
                "more in the direct sum.",
                0, 1e3},
               &s_.relaxation);
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

    r.add_choice({"body_model", "Body model", "Bodies", "",
                  "How the flow meets a body. collisions: the vortex article's, the body a target the vortons "
                  "bounce off, with a layer of vortons within boundary_thickness cancelling the slip (the flow "
                  "does not see the body until it touches it). boundary_elements: source panels over every body "
                  "solved each velocity evaluation so no fluid flows through any body (Hess and Smith 1967), the "
                  "force from the impulse and the panels (added mass right); free slip unless shedding is on.",
                  -1e300, 1e300, false, R},
                 {"collisions", "boundary_elements"}, &s_.body_model);
    r.add_bool({"shedding", "Vorticity shedding", "Bodies", "",
                "body_model boundary_elements: each step the slip the panels leave at the surface leaves it as "
                "vortons, one a panel a core radius off, alpha = area n x slip (Koumoutsakos, Leonard and Pepin "
                "1994): no-slip, so bodies lift and drag. Off: free slip, no wake of a body's own."},
               &s_.shedding);
    r.add_real({"panel_size", "Panel size", "Bodies", "core radii",
                "Longest edge of a boundary element (body_model boundary_elements) in core radii; a body's "
                "panels grow as its area over panel_size^2, their solve as the square of their count.",
                0.25, 64, false, R},
               &s_.panel_size);
    r.add_real({"boundary_thickness", "Boundary thickness", "Bodies", "",
                "A vorton within this many core radii of a body's surface is in contact (vortex article: 1.2).", 0.1, 10},
               &s_.boundary_thickness);
    r.add_real({"slip_fraction", "No-slip fraction", "Bodies", "",
                "Share of the slip at a contact that the vorticity change cancels (1: no slip, 0: free slip).", 0,
                1},
               &s_.slip_fraction);
    r.add_bool({"body_vorticity", "Body vorticity", "Bodies", "",
                "A turning body's own vorticity, 2 Omega over its volume, in the velocity sums (the fluid holds "
                "the opposite, Kelvin). Without it the fluid outside a spinning body turns the wrong way and a "
                "spinning sphere feels the Magnus force reversed; with it, the other stages' exchange with the "
                "body is not yet counted in its force (docs: the vortex solver)."},
               &s_.body_vorticity);
    r.add_real({"heat_transfer_rate", "Heat transfer rate", "Bodies", "1/s",
                "How fast a particle touching a body takes the body's temperature.", 0, 1e4},
               &s_.heat_transfer_rate);
    r.add_real({"force_smoothing", "Force smoothing", "Bodies", "s",
                "Time constant of the running mean behind each body's force, torque, lift and drag stats (the "
                "impulse the fluid hands a body in one step jumps as vortons come and go).",
                1e-3, 1e3},
               &s_.force_smoothing);
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
    r.add_choice({"integrator", "Integrator", "Time", "",
                  "How stretch and advect step: midpoint (second order, the velocity evaluated again at the half "
                  "step: rings stay round), ab2 (Adams-Bashforth, second order from this step's and the last "
                  "step's velocity: one evaluation a step, its error grows waves twice as fast as midpoint's at "
                  "the same dt) or euler (the series' explicit Euler, one velocity evaluation: its error grows a "
                  "ring's bending waves at a rate proportional to dt)."},
                 {"euler", "midpoint", "ab2"}, &s_.integrator);
    r.add_real({"cfl", "CFL number", "Time", "", "dt <= cfl core_radius / max speed.", 0.01, 10}, &s_.cfl);
    r.add_vec({"view_box", "View box", "Scene", "m", "The box the camera frames (the fluid is unbounded).", -1e3, 1e3},
              s_.view_box, 6);
    add_hands(&hands_, kHandDrag);
    r.add_real({"time_step", "Time step used", "Diagnostics", "s", "dt of the last step.", 0, 1e300, true},
               &s_.time_step);
    r.add_choice({"dt_limit", "Time step set by", "Diagnostics", "",
                  "Which bound set the last dt: dt (the set step), or cfl (core radii the fastest vorton, or a "
                  "dragged body, may cross).",
                  0, 0, true},
                 {"dt", "cfl"}, &s_.dt_limit);
    r.add_int({"grid_nodes", "Grid nodes", "Diagnostics", "", "Nodes of the last vortex-in-cell grid (0: none).", 0,
               9e15, true},
              &s_.grid_nodes);
}

}  // namespace fs::vortex
