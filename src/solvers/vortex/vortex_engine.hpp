// The backend-facing half of the vortex solver: VortexSolver owns the parameters, the bodies and
// the emitters, and drives one Engine (vortex_pipeline.hpp, instantiated once per backend), which
// owns the vortons, the tracers and the vortex-in-cell grid.
#pragma once

#include <memory>
#include <vector>

#include "solvers/vortex/vortex_kernels.hpp"

namespace fs::vortex {

// The stages of one step, in order. emit and bodies run on the host (a few particles, a few
// bodies); the others are the engine's.
enum Stage : int {
    kEmit = 0,          // flames emit hot vortons and tracers
    kVelocity,          // u (and grad u, psi) from vorticity: direct Biot-Savart or vortex-in-cell
    kBuoyancy,          // baroclinic vorticity from temperature gradients, heat diffusion and cooling
    kHalfStep,          // midpoint rule: vortons and tracers advanced dt / 2 with the first rates
    kMidpointVelocity,  // midpoint rule: kVelocity again, at the half step
    kStretch,           // d omega / dt = (omega . grad) u + nu lap omega (+ relaxation), from the step's start
    kAdvect,            // x += dt u, from the step's start (Adams-Bashforth: u blended with the last step's)
    kCollide,           // vortex particles part 13, SolveBoundaryConditions: eject, no-slip, impulse and heat to bodies
    kBodies,            // bodies move: scripted, or integrated from gravity and the fluid's impulse
    kRemesh,            // optional: vortons re-created on the grid's nodes
    kStageCount
};

enum VelocityMethod : int { kDirect = 0, kGrid = 1 };

// How stretch and advect integrate the rates of the velocity stage(s): explicit Euler (the
// series), the explicit midpoint rule (second order: rates at the half step, two velocity
// evaluations a step) or the two-step Adams-Bashforth rule (second order from this step's rates
// and the last step's, one evaluation a step: ab2_weights).
enum Integrator : int { kEuler = 0, kMidpoint = 1, kAdamsBashforth = 2 };

// Everything a stage needs, by value.
struct Config {
    double dt = 1.0 / 60.0;
    int velocity_method = kDirect;  // for vortons
    int tracer_method = kGrid;      // for tracers
    int grid_cells = 64;            // most VIC nodes along the grid's longest extent
    double grid_spacing = 1.0;      // VIC spacing in core radii (grid_cells may coarsen it)
    double core_radius = 0.05;      // the scene's vorton radius (the grid spacing's unit)
    double core_overlap = kDocumentOverlap;  // sigma / h: a vorton's volume is (sigma / overlap)^3
    bool stretching = true;         // the (omega . grad) u term
    int stretch_form = kClassical;  // its form (StretchForm)
    double relaxation = 0.0;        // 1/s, Pedrizzetti's (vorticity_rate)
    int integrator = kMidpoint;     // time integration of stretch and advect
    double viscosity = 0.0;         // m^2/s
    double fluid_density = 1.0;     // kg/m^3, for impulses and heat
    double specific_heat = 1000.0;  // J/(kg K)
    dvec3 gravity{0.0, -9.81, 0.0};
    double ambient_temperature = 300.0;
    bool buoyancy = false;
    double thermal_diffusivity = 0.0;  // m^2/s
    double cooling_rate = 0.0;         // 1/s, Newtonian cooling toward the ambient temperature
    double boundary_thickness = 1.2;   // contact within this many core radii (vortex particles part 13: fBndThkFactor)
    double slip_fraction = 1.0;        // 1: the full no-slip correction
    bool shedding = false;             // boundary elements: the slip left at the panels kept (panel_sheet)
    double heat_transfer_rate = 0.0;   // 1/s, between a body and the particles touching it
    bool remesh = false;               // this step ends with a remesh
    double remesh_threshold = 1e-3;    // of the largest |omega| on the grid
    dvec3 remesh_keep_lo{0.0}, remesh_keep_hi{-1.0};  // nodes kept whatever their vorticity (the
                                                      // scene's block of fluid; empty when hi < lo)
    int max_vortons = 1 << 20;
    int body_count = 0;
};

class PanelSystem;

// A panel where it stood in the last velocity stage and the slip the flow left at its centre,
// u_fluid - u_body in the surface's plane (boundary_elements.hpp, sheet()).
struct PanelSheet {
    dvec3 centre{0.0}, normal{0.0}, slip{0.0};
    double area = 0.0;
    int body = 0;
};

// What the boundary elements give the force on a body (BoundaryElements): the rate of change of
// the vortons' impulse under its panels (sum over vortons, divided by rho) and the volume
// integral over the body of the vortons' and panels' velocity.
struct PanelForce {
    dvec3 impulse_rate{0.0}, volume_velocity{0.0};
};

struct HostState {
    std::vector<dvec3> vpos, omega;
    std::vector<double> radius, vtemp;
    std::vector<int> vid;
    std::vector<dvec3> tpos;
    std::vector<double> ttemp;
    std::vector<int> tid;
    // The shape of the last vortex-in-cell grid: the next grid keeps it while the particles fit
    // (build_grid), so it is part of the state that makes the next steps what they are.
    VicGrid grid_shape{};
    // The Adams-Bashforth rule's memory (ab2_weights): each particle's rates of the last step
    // (the vortons' velocity and vorticity rate, the tracers' velocity), whether it has them (0
    // for a particle placed since, or after a remesh), and that step's dt (0: none). Empty
    // arrays upload as "no particle has them"; under the other integrators they stay unused.
    std::vector<dvec3> vvel_last, vrate_last, tvel_last;
    std::vector<int> vhas_last, thas_last;
    double last_dt = 0.0;
    // Filled by download() only: the velocities the particles moved with in the last step (the
    // last velocity stage's, or under Adams-Bashforth the rule's blend of this step's and the
    // last's).
    std::vector<dvec3> vvel, tvel;
    // Every part that travels, in checkpoint order (EngineSolver); the velocities are derived.
    template <class S, class F>
    static void each(S& s, F&& f) {
        f(s.vpos);
        f(s.omega);
        f(s.radius);
        f(s.vtemp);
        f(s.vid);
        f(s.tpos);
        f(s.ttemp);
        f(s.tid);
        f(s.grid_shape);
        f(s.vvel_last);
        f(s.vrate_last);
        f(s.tvel_last);
        f(s.vhas_last);
        f(s.thas_last);
        f(s.last_dt);
    }
};

// The grid of the last velocity stage and its sizes (for tests and the stats).
struct GridInfo {
    bool built = false;
    VicGrid grid;
};

class Engine {
public:
    virtual ~Engine() = default;
    virtual void upload(const HostState& s) = 0;
    virtual void download(HostState& s) const = 0;
    virtual int vortons() const = 0;
    virtual int tracers() const = 0;
    // Writes new particles into the given slots (a slot equal to the current count appends;
    // slots must be increasing from there).
    virtual void place(const HostState& batch, const std::vector<int>& vorton_slots,
                       const std::vector<int>& tracer_slots) = 0;
    virtual void set_bodies(const std::vector<BodyShape>& bodies) = 0;
    // The bodies' boundary elements by slot (empty, or null where a body has none).
    virtual void set_panels(const std::vector<std::shared_ptr<const PanelSystem>>& systems) = 0;
    // Per body slot, what the last velocity stage's panels give its force.
    virtual std::vector<PanelForce> panel_forces() const = 0;
    // Under Config::shedding, each panel's slip in the last velocity stage (empty otherwise).
    virtual std::vector<PanelSheet> panel_sheet() const = 0;
    virtual void run_stage(int stage, const Config& c) = 0;
    // What each body received in the last collide stage.
    virtual std::vector<Exchange> exchanges() const = 0;
    virtual Sums sums(const Config& c) = 0;
    virtual GridInfo grid_info() const = 0;
    // Whether the last step's remesh stage re-created the vortons, and how many fewer it made
    // (negative when it made more).
    virtual bool remesh_done() const = 0;
    virtual int remeshed() const = 0;
    // The vortons the last remesh would have made when that was more than max_vortons (it then
    // left the vortons as they were), else 0.
    virtual int remesh_refused() const = 0;
    virtual void synchronize() = 0;
};

std::unique_ptr<Engine> make_cpu_engine();
std::unique_ptr<Engine> make_cuda_engine();

}  // namespace fs::vortex
