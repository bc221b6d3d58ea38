// The Solver interface: what the GUI, the headless program, the writers and the tests know of a
// solver. A step is a pipeline of named stages; each can be run alone (the GUI's Stage button),
// each is timed, and each cites the equation it implements.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend.hpp"
#include "core/frame_pack.hpp"
#include "core/hands.hpp"
#include "core/params.hpp"
#include "core/stats.hpp"
#include "core/thread_governor.hpp"

namespace fs {

struct StageInfo {
    std::string name;    // the source document's word: "p2g", "collide", "bounce_on_borders"
    std::string source;  // where its equation comes from: "the particle tutorial, Euler_step"
};

// A per-particle (or per-cell) quantity the renderer can colour by and the writers can export.
struct FieldInfo {
    std::string name;  // "position", "velocity", "speed", "id", "mass", ...
    int components = 1;
    std::string unit;
    std::string description;
};

// A solid the renderer draws: a box, a sphere, a convex polygon (2D, z = 0; for instance the
// SPH barrier) or a triangle mesh (3D, e.g. a convex polytope where it is now). `points` holds a
// polygon's corners in order (x, y pairs) or a mesh's triangles (x, y, z per corner, three
// corners a triangle, counter-clockwise seen from outside).
struct Obstacle {
    enum class Shape { Box, Sphere, Polygon, Mesh };
    Shape shape = Shape::Box;
    std::string name;
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};  // Box
    double center[3] = {0, 0, 0};                  // Sphere
    double radius = 0.0;
    std::vector<double> points;                    // Polygon: x, y pairs; Mesh: x, y, z corners
    // Whether a hand can drag it (core/hands.hpp), and the point a drag moves: its centre.
    bool draggable = false;
    double anchor[3] = {0, 0, 0};
};

// A grid solver's cells, for the window's overlay: one kind per cell, x fastest
// (i + n[0] (j + n[1] k)); cell (i, j, k) spans origin + dx (i, j, k) to origin + dx (i+1, j+1, k+1).
struct CellGrid {
    enum Kind : unsigned char { Air = 0, Fluid = 1, Solid = 2 };
    int n[3] = {0, 0, 0};
    double origin[3] = {0, 0, 0};
    double dx = 0.0;
    std::vector<unsigned char> kind;
};

// How the window plots one of a solver's stats (app/plot_scale.hpp): its unit ("" for a pure
// number) and the smallest range worth showing, a little above what round-off leaves on it at
// rest; a count is an integer. A body's stats (body<N>_<quantity>) are declared by quantity.
struct StatScale {
    const char* name;
    const char* unit;
    double floor;
    bool count = false;
};

// What the window, the writers and the safety net must know of a solver, so that none of them
// names one: a sixth solver states these and needs no change outside its folder.
struct SolverTraits {
    bool liquid = false;        // its particles are a liquid: the window's liquid views (L) draw it
    bool surface_mesh = false;  // a closed surface mesh can be made of it (3D liquids: --surface)
    // The parameter the Q/E keys turn (an angle, deg) and the one that gives its rate (deg/s);
    // empty where nothing turns.
    std::string turn_param, turn_rate_param;
    // What usually cures a blow-up, for the safety net's pause message: "try ...".
    std::string instability_advice;
    // Its own stats' plot scales (the ones every solver reports are the window's: plot_scale.cpp).
    std::vector<StatScale> stat_scales;
    // Stats that count events in a step ("collisions"), whose total over a run the headless
    // summary gives.
    std::vector<std::string> run_totals;
};

// The simulation became invalid (NaN, Inf, runaway speed): the message names step and quantity.
struct SimulationError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Solver {
public:
    virtual ~Solver() = default;

    virtual std::string_view kind() const = 0;  // "euler", "flip", "sph", "vortex"
    virtual int dimension() const = 0;          // 2 or 3
    virtual SolverTraits traits() const { return {}; }
    virtual const std::vector<StageInfo>& stages() const = 0;
    virtual std::vector<FieldInfo> fields() const = 0;
    // Host copy of a field, `components` values per particle, particle after particle. The
    // particle order is the solver's and may change from step to step; it is the same for every
    // field between two steps (the "id" field says who is who).
    virtual void read_field(std::string_view name, std::vector<double>& out) const = 0;
    // Replaces a field of the state between steps: `components` values per particle, in the
    // order and count read_field gives (the Python module's set_state). writable_fields() names
    // the fields a solver takes; any other name, or a count that is not the state's, throws
    // std::invalid_argument saying what is allowed.
    virtual std::vector<std::string> writable_fields() const { return {}; }
    virtual void write_field(std::string_view name, const std::vector<double>& values);
    // The field where it lies, in the backend's memory, for drawing (frame_pack.hpp): valid
    // until the next step or stage. Fields computed on reading (a speed) have none: nullopt.
    virtual std::optional<FieldView> field_view(std::string_view /*name*/) const { return std::nullopt; }
    virtual int particle_count() const = 0;
    // Radius particles are drawn with (m), and the box the simulation lives in (z = 0 in 2D).
    virtual double particle_radius() const = 0;
    virtual void domain(double lo[3], double hi[3]) const = 0;
    // Solids in the scene, where they are now (none by default).
    virtual std::vector<Obstacle> obstacles() const { return {}; }
    // A grid solver's cells as of the last step (has_cell_grid() says whether there are any).
    virtual bool has_cell_grid() const { return false; }
    // 2D solvers whose particles own cells (ot: Laguerre cells): each particle's cell as a
    // polygon, in the order the particle fields are read (cell k has xy[2 start[k] ..
    // 2 start[k+1])); left empty by solvers without cells.
    virtual void cell_polygons(std::vector<float>& /*xy*/, std::vector<int>& /*start*/) const {}
    virtual void cell_grid(CellGrid&) const {}

    // The hands (core/hands.hpp): the tools this solver offers (a HandTools mask) and the hand
    // in effect, which every following step applies until it changes. Reset lets go.
    virtual unsigned hand_tools() const { return 0; }
    void set_hand(const Hand& h) { hand_ = h; }
    const Hand& hand() const { return hand_; }
    // Writes where hands left the bodies into the parameters that place them, so a saved scene
    // keeps them (otherwise a drag is state: Step back undoes it and Reset returns to the file).
    virtual void keep_body_poses() {}

    ParamRegistry& params() { return params_; }
    const ParamRegistry& params() const { return params_; }
    // Brings read-only diagnostics derived from the parameters up to date (they are otherwise
    // updated as stages run); callers that set parameters call it after them.
    virtual void refresh_diagnostics() {}

    // Refuses parameter values whose steps would not finish in a time a student can wait for
    // (ParamError naming the key, the estimate and what is allowed), before any work is queued:
    // called by reset() and by the window after a live change, which it then undoes.
    virtual void check_params() const {}

    // Rebuilds the initial state from the parameters on the current backend.
    void reset();
    // Finishes the current step: runs every stage not yet run, then computes the stats.
    void step();
    // Runs the next stage alone; returns true when that completed a step.
    bool advance_stage();
    // Index of the stage the next advance_stage() runs (0 between steps).
    int next_stage() const { return next_stage_; }

    // A copy of the whole simulation state (between steps), to go back to: the window keeps the
    // last good one and returns to it when a step fails.
    struct Checkpoint {
        std::vector<char> state;  // the solver's own encoding
        double time = 0.0;
        std::int64_t steps = 0;
        Stats stats;
    };
    Checkpoint checkpoint() const;
    void restore(const Checkpoint& c);

    Backend backend() const { return backend_; }
    // Moves the state to the other backend; the simulation continues where it was (a step in
    // progress is finished first, on the old backend).
    void set_backend(Backend b);

    double time() const { return time_; }
    std::int64_t step_count() const { return steps_; }
    // Stats of the last completed step (common ones first, then the solver's own); after reset(),
    // step 0's: the initial state as far as it can be measured without running a stage.
    const Stats& stats() const { return stats_; }
    // Milliseconds spent in each stage during the last completed step, and in the whole step
    // (the stages plus the end-of-step reductions that produce the stats).
    const std::vector<double>& stage_ms() const { return stage_ms_; }
    double step_ms() const { return step_ms_; }
    // The CPU threads the last step used (its ThreadGovernor's choice; CUDA: 0).
    int step_threads() const { return step_threads_; }

protected:
    explicit Solver(Backend backend) : backend_(backend) {}

    // Builds the state from the parameters, on backend().
    virtual void do_reset() = 0;
    virtual void run_stage(int index) = 0;
    // After the last stage: the time step just taken, and the stats (kinetic_energy, momentum,
    // max_speed and the solver's own). Throws SimulationError when the state is invalid.
    virtual double finish_step(Stats& out) = 0;
    // Step 0's own stats, from the state reset() built (kinetic_energy, momentum, max_speed where
    // the state holds them); what only a step computes is left out.
    virtual void initial_stats(Stats& /*out*/) {}
    // Moves the state to `to` (backend() is still the old one during the call).
    virtual void move_to(Backend to) = 0;
    // The state as bytes, and back (same backend or not).
    virtual void save_state(std::vector<char>& out) const = 0;
    virtual void load_state(const std::vector<char>& in) = 0;
    // Waits for queued device work, so the stage timings are honest.
    virtual void synchronize() {}

    ParamRegistry params_;
    Hand hand_;

private:
    void set_stats(const Stats& own, double dt);

    Backend backend_;
    int next_stage_ = 0;
    double time_ = 0.0;
    std::int64_t steps_ = 0;
    Stats stats_;
    std::vector<double> stage_ms_;
    std::vector<double> pending_ms_;
    double step_ms_ = 0.0;
    ThreadGovernor governor_;  // the count of each CPU step (one for all its stages)
    int threads_ = 0;          // ... of the step in progress
    int step_threads_ = 0;
};

}  // namespace fs
