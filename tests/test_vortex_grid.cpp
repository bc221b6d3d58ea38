// The vortex-in-cell grid against the direct sum in the scenes it serves: the grid's velocity at
// the vortons and at the tracers, on a body scene's own state after it has run a while, is
// compared with the regularised Biot-Savart sum (vortex_pipeline.hpp's vortons_direct and
// tracers_direct, the exact reference) as a relative RMS difference,
//   e = sqrt(sum_i |u_grid(x_i) - u_direct(x_i)|^2 / sum_i |u_direct(x_i)|^2).
// The grid's field is the direct sum's smoothed once more on its spacing h (trilinear spreading
// and interpolation, central differences: Cottet and Koumoutsakos 2000, ch. 3), so e is set by
// h / sigma; grid_spacing expresses h in core radii.
//
// VortexGridFidelity.DISABLED_Table prints e against h / sigma for every body scene (run it with
// --gtest_also_run_disabled_tests), and how far the direct sum itself moves when its cores are
// twice as wide (below_spacing); the other tests hold the default to it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/exec_cpu.hpp"
#include "io/scene.hpp"
#include "solvers/solvers.hpp"
#include "solvers/vortex/direct_sum.hpp"
#include "solvers/vortex/vortex_in_cell.hpp"
#include "solvers/vortex/vortex_simd.hpp"
#include "solvers/vortex/vortex_solver.hpp"
#include "vortex_helpers.hpp"

namespace {

using fs::vortex::HostState;
using fs::vortex::VortexSolver;
using glm::dvec3;
namespace vx = fs::vortex;
using vortex_test::load;
using vortex_test::run_until;
using vortex_test::set;

// The scene after `steps` steps at its own settings (plus `sets`): a checkpoint between steps,
// from which every evaluation below starts (bodies included: a spinning body's own vorticity
// enters the velocity where the body is), and the particles as the velocity stage sees them.
struct Snapshot {
    fs::Solver::Checkpoint at;
    HostState h;  // after this step's emission, before its velocity stage
    std::string grid_spacing, grid_cells;  // the scene's own
};
Snapshot state_after(VortexSolver& s, const std::string& scene, int steps, const std::vector<std::string>& sets) {
    load(s, scene, sets);
    for (int k = 0; k < steps; ++k) s.step();
    Snapshot snap{s.checkpoint(), {}, s.params().at("grid_spacing").to_text(), s.params().at("grid_cells").to_text()};
    run_until(s, vx::kVelocity);
    snap.h = s.state();
    return snap;
}

struct Evaluation {
    HostState h;
    double ms = 0.0;  // the velocity stage alone
};

// The velocity stage from `snap` with vortons and tracers by `method` ("direct" or "grid"); a
// spacing > 0 sets grid_spacing (and lifts grid_cells' bound so that the spacing is what it says),
// otherwise the scene's own grid settings hold.
Evaluation evaluate(VortexSolver& s, const Snapshot& snap, const std::string& method, double spacing = 0.0) {
    set(s, "velocity_method", method);
    set(s, "tracer_velocity", method);
    set(s, "grid_spacing", spacing > 0.0 ? std::to_string(spacing) : snap.grid_spacing);
    set(s, "grid_cells", spacing > 0.0 ? "256" : snap.grid_cells);
    s.restore(snap.at);
    run_until(s, vx::kVelocity);
    const auto t0 = std::chrono::steady_clock::now();
    s.advance_stage();
    const auto t1 = std::chrono::steady_clock::now();
    return {s.state(), std::chrono::duration<double, std::milli>(t1 - t0).count()};
}

double relative_rms(const std::vector<dvec3>& a, const std::vector<dvec3>& ref) {
    double num = 0.0, den = 0.0;
    for (std::size_t k = 0; k < ref.size(); ++k) {
        num += glm::dot(a[k] - ref[k], a[k] - ref[k]);
        den += glm::dot(ref[k], ref[k]);
    }
    return den > 0.0 ? std::sqrt(num / den) : 0.0;
}

struct BodyScene {
    const char* file;
    int steps;  // a state with a developed wake or plume, the body still among the vortons
};
// The moving bodies travel 1 m/s through a box of vortons 4.4 m long: at step 200 (3.3 s) they
// are near its far end with their wake behind them. The flames fill their 1000 vortons by step
// 150.
constexpr BodyScene kBodyScenes[] = {{"vortex_plate_flames.json", 300},
                                     {"vortex_moving_plate.json", 200},
                                     {"vortex_airfoil.json", 200},
                                     {"vortex_magnus.json", 200}};

// How much of the direct sum's field lies below the vortons' spacing: the same strengths with
// cores twice as wide (core_overlap doubled with them, so each vorton's volume, and so its
// strength, is the same), by the direct sum again; and the median distance from a vorton to its
// nearest neighbour in core radii (every 7th vorton's). Where the two fields differ much, no grid
// coarser than the cores can follow the direct sum, however it spreads and solves.
struct BelowSpacing {
    double nearest = 0.0;  // median, in core radii
    Evaluation wide;
};
BelowSpacing below_spacing(VortexSolver& s, const Snapshot& snap) {
    BelowSpacing out;
    std::vector<double> nn;
    const std::vector<dvec3>& x = snap.h.vpos;
    for (std::size_t i = 0; i < x.size(); i += 7) {
        double m = 1e300;
        for (std::size_t j = 0; j < x.size(); ++j)
            if (j != i) m = std::min(m, glm::length(x[i] - x[j]));
        nn.push_back(m / snap.h.radius[i]);
    }
    std::sort(nn.begin(), nn.end());
    out.nearest = nn[nn.size() / 2];
    const std::string overlap = s.params().at("core_overlap").to_text();
    set(s, "velocity_method", "direct");
    set(s, "tracer_velocity", "direct");
    set(s, "core_overlap", 2.0 * std::stod(overlap));
    s.restore(snap.at);
    run_until(s, vx::kVelocity);
    HostState wide = s.state();
    for (double& r : wide.radius) r *= 2.0;
    s.set_state(wide);
    s.advance_stage();
    out.wide.h = s.state();
    set(s, "core_overlap", overlap);
    return out;
}

TEST(VortexGridFidelity, DISABLED_Table) {
    const double spacings[] = {2.2, 1.5, 1.0, 0.75, 0.5};
    std::printf("| scene | h/sigma | grid nodes | RMS at vortons | RMS at tracers | velocity stage (ms) |\n");
    for (const BodyScene& b : kBodyScenes) {
        VortexSolver s;
        const Snapshot state = state_after(s, b.file, b.steps, {});
        const Evaluation direct = evaluate(s, state, "direct");
        auto extent = [](const std::vector<dvec3>& x) {
            dvec3 lo(1e300), hi(-1e300);
            for (const dvec3& p : x) {
                lo = glm::min(lo, p);
                hi = glm::max(hi, p);
            }
            return hi - lo;
        };
        const dvec3 ev = extent(state.h.vpos), et = extent(state.h.tpos);
        std::printf("| %s: extent of the vortons %.2f x %.2f x %.2f m, of the tracers %.2f x %.2f x %.2f m |\n", b.file,
                    ev.x, ev.y, ev.z, et.x, et.y, et.z);
        const vx::VicGrid today = s.engine().grid_info().grid;
        std::printf("| %s (step %d, %zu vortons, %zu tracers; the scene's own h = %.2f sigma) | direct | | | | %.1f |\n",
                    b.file, b.steps, state.h.vpos.size(), state.h.tpos.size(),
                    today.h / std::stod(s.params().at("core_radius").to_text()), direct.ms);
        const BelowSpacing below = below_spacing(s, state);
        std::printf("| | the direct sum with cores twice as wide (nearest vorton: %.2f sigma, median) | | %.4f | %.4f | |\n",
                    below.nearest, relative_rms(below.wide.h.vvel, direct.h.vvel),
                    relative_rms(below.wide.h.tvel, direct.h.tvel));
        const Evaluation own = evaluate(s, state, "grid");
        const vx::VicGrid og = s.engine().grid_info().grid;
        std::printf("| | own %.2f | %dx%dx%d | %.4f | %.4f | %.1f |\n", og.h / std::stod(s.params().at("core_radius").to_text()),
                    og.nx, og.ny, og.nz, relative_rms(own.h.vvel, direct.h.vvel), relative_rms(own.h.tvel, direct.h.tvel),
                    own.ms);
        for (double r : spacings) {
            const Evaluation grid = evaluate(s, state, "grid", r);
            const vx::VicGrid g = s.engine().grid_info().grid;
            std::printf("| | %.2f | %dx%dx%d | %.4f | %.4f | %.1f |\n", r, g.nx, g.ny, g.nz,
                        relative_rms(grid.h.vvel, direct.h.vvel), relative_rms(grid.h.tvel, direct.h.tvel), grid.ms);
        }
    }
}

// The default spacing (grid_spacing 1: h = sigma) on the moving plate's wake, run at that
// spacing: the grid within 6% RMS of the direct sum at the vortons and 5% at the tracers
// (measured 4.9% and 0.45% at step 120), and better than half that at half the spacing (measured
// 0.95% and 0.06%): with the assignment's filter divided out of the kernel (poisson.hpp, sharpen)
// the difference falls as about (h / sigma)^2.
TEST(VortexGridFidelity, TheDefaultSpacingFollowsTheDirectSumInABodysWake) {
    VortexSolver s;
    const Snapshot state = state_after(s, "vortex_moving_plate.json", 120, {});
    const double sigma = std::stod(s.params().at("core_radius").to_text());
    const Evaluation direct = evaluate(s, state, "direct");
    const Evaluation grid = evaluate(s, state, "grid");
    EXPECT_NEAR(s.engine().grid_info().grid.h, sigma, 1e-12 * sigma);  // the default follows the core
    const double ev = relative_rms(grid.h.vvel, direct.h.vvel), et = relative_rms(grid.h.tvel, direct.h.tvel);
    const Evaluation fine = evaluate(s, state, "grid", 0.5);
    const double fv = relative_rms(fine.h.vvel, direct.h.vvel), ft = relative_rms(fine.h.tvel, direct.h.tvel);
    std::printf("moving plate, step 120: grid vs direct RMS %.4f (vortons), %.4f (tracers) at h = sigma; %.4f, %.4f "
                "at h = sigma / 2\n",
                ev, et, fv, ft);
    EXPECT_LT(ev, 0.06);
    EXPECT_LT(et, 0.05);
    EXPECT_LT(fv, 0.5 * ev);
    EXPECT_LT(ft, 0.5 * et);
}

// The grid covers the tracers only when they take their velocity from it: with tracers by the
// direct sum, a tracer far from every vorton leaves the grid as it was.
TEST(VortexGridFidelity, TheGridCoversOnlyTheParticlesItServes) {
    VortexSolver s;
    load(s, "vortex_ring.json", {"ring_tracers=200"});
    run_until(s, vx::kVelocity);
    HostState state = s.state();
    state.tpos.push_back(dvec3(40.0, 0.0, 0.0));
    state.ttemp.push_back(state.ttemp.back());
    state.tid.push_back(static_cast<int>(state.tid.size()));
    set(s, "velocity_method", "grid");
    set(s, "tracer_velocity", "direct");
    s.set_state(state);
    s.advance_stage();
    const vx::VicGrid g = s.engine().grid_info().grid;
    EXPECT_LT(g.h * g.nx, 4.0);
    set(s, "tracer_velocity", "grid");
    run_until(s, vx::kVelocity);
    s.set_state(state);
    s.advance_stage();
    const vx::VicGrid wide = s.engine().grid_info().grid;
    EXPECT_GT(wide.h * wide.nx, 40.0);
}

}  // namespace

TEST(VortexGridLanes, TheEightLaneTracerInterpolationIsTheScalarToTheBit) {
    // interpolate_vec8 (vortex_simd.hpp, AVX-512F hosts) against interpolate_vec: the same bits
    // for points inside the grid, on its faces, beyond it on every side, without a number, and
    // beyond int's range, in groups of 1 to 8.
    if (!fs::vortex::simd::available()) GTEST_SKIP() << "this host has no AVX-512F: the tracers take the scalar body only";
#if defined(FS_VORTEX_AVX512)
    fs::vortex::VicGrid g;
    g.origin = dvec3(-0.31, 0.07, 1.3);
    g.h = 0.037;
    g.nx = 13, g.ny = 8, g.nz = 21;
    std::mt19937_64 rng(9);
    std::uniform_real_distribution<double> unit(0.0, 1.0), sym(-1.0, 1.0);
    std::vector<dvec3> field(static_cast<std::size_t>(g.nodes()));
    for (auto& f : field) f = dvec3(sym(rng), sym(rng), sym(rng)) * 5.0;
    const dvec3 span = g.h * dvec3(g.nx - 1, g.ny - 1, g.nz - 1);
    std::vector<dvec3> pos;
    for (int n = 0; n < 4000; ++n) {
        dvec3 x = g.origin + dvec3(unit(rng), unit(rng), unit(rng)) * span * 1.2 - 0.1 * span;  // some outside
        if (n % 11 == 0) x[n % 3] = g.origin[n % 3] + (n % 2 ? span[n % 3] : 0.0);              // on a face
        if (n % 97 == 0) x[n % 3] = std::nan("");
        if (n % 89 == 0) x[n % 3] = (n % 2 ? 1e300 : -1e300);
        pos.push_back(x);
    }
    std::vector<dvec3> lanes(pos.size()), scalar(pos.size());
    for (std::size_t i = 0; i < pos.size(); ++i) scalar[i] = fs::vortex::interpolate_vec(g, field.data(), pos[i]);
    int first = 0, group = 1;
    while (first < static_cast<int>(pos.size())) {
        const int count = std::min(group, static_cast<int>(pos.size()) - first);
        fs::vortex::simd::interpolate_vec8(g, field.data(), pos.data(), lanes.data(), first, count);
        first += count;
        group = group % 8 + 1;
    }
    int finite = 0;
    for (std::size_t i = 0; i < pos.size(); ++i)
        for (int a = 0; a < 3; ++a) {
            const double s = scalar[i][a], l = lanes[i][a];
            ASSERT_TRUE(std::memcmp(&s, &l, sizeof s) == 0 || (std::isnan(s) && std::isnan(l)))
                << "point " << i << " component " << a << ": " << s << " against " << l;
            finite += std::isfinite(s) ? 1 : 0;
        }
    EXPECT_GT(finite, 3 * 3800);
#endif
}

// The spreading (VortexInCell::build) against a brute-force trilinear scatter of every vorton:
// each node's vorticity, temperature and heat. Tracers far from the vortons widen the grid, so
// most nodes lie outside the vortons' cells, which build fills without gathering; a vorton on
// the grid's last cell face and two sharing one cell test the gather's edges.
TEST(VortexGridSpreading, EveryNodeHoldsWhatAScatterOfTheVortonsGivesIt) {
    vx::Config c;
    c.velocity_method = vx::kGrid;
    c.tracer_method = vx::kGrid;
    c.core_radius = 0.05;
    c.grid_spacing = 1.0;
    c.grid_cells = 64;
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<dvec3> vp, omega;
    std::vector<double> radius, temp;
    for (int n = 0; n < 300; ++n) {
        vp.push_back(dvec3(0.3, -0.2, 0.1) + 0.4 * dvec3(unit(rng), unit(rng), unit(rng)));
        omega.push_back(dvec3(unit(rng) - 0.5, unit(rng) - 0.5, unit(rng) - 0.5) * 20.0);
        radius.push_back(0.04 + 0.02 * unit(rng));
        temp.push_back(300.0 + 100.0 * unit(rng));
    }
    vp.push_back(vp[7]);  // two in one cell
    omega.push_back(-omega[7]);
    radius.push_back(0.05);
    temp.push_back(250.0);
    std::vector<dvec3> tp = {dvec3(-1.0, -1.0, -1.0), dvec3(1.2, 1.0, 0.9)};
    auto view = [](auto& v) { return fs::View<const typename std::decay_t<decltype(v)>::value_type>{v.data(), int(v.size())}; };
    fs::CpuExec exec;
    vx::VortexInCell<fs::CpuExec> vic;
    vic.build(exec, c, view(vp), view(omega), view(radius), view(temp), view(tp), false);
    ASSERT_TRUE(vic.built());
    const vx::VicGrid g = vic.grid();
    const int nodes = g.nodes();
    ASSERT_GT(nodes, 8 * 8 * 8 * 8);  // the tracers widened it well beyond the vortons
    std::vector<double> w(3 * std::size_t(nodes), 0.0), tw(std::size_t(nodes), 0.0), vw(std::size_t(nodes), 0.0);
    for (std::size_t p = 0; p < vp.size(); ++p) {
        int i, j, k;
        dvec3 f;
        g.locate(vp[p], i, j, k, f);
        const double vol = vx::vorton_volume(radius[p], c.core_overlap);
        for (int dc = 0; dc < 2; ++dc)
            for (int db = 0; db < 2; ++db)
                for (int da = 0; da < 2; ++da) {
                    const int nd = g.node(i + da, j + db, k + dc);
                    const double wt = vx::cic_weight(f, da, db, dc) * vol;
                    for (int m = 0; m < 3; ++m) w[m * std::size_t(nodes) + nd] += wt * omega[p][m];
                    tw[std::size_t(nd)] += wt * (temp[p] - c.ambient_temperature);
                    vw[std::size_t(nd)] += wt;
                }
    }
    const double h3 = g.h * g.h * g.h;
    const auto gw = vic.vorticity(), gt = vic.temperature(), gh = vic.heat();
    int touched = 0;
    for (int nd = 0; nd < nodes; ++nd) {
        if (vw[std::size_t(nd)] > 0.0) ++touched;
        for (int m = 0; m < 3; ++m)
            ASSERT_NEAR(gw[m * nodes + nd], w[m * std::size_t(nodes) + nd] / h3, 1e-9 * 2000.0) << "node " << nd;
        ASSERT_NEAR(gt[nd], c.ambient_temperature + tw[std::size_t(nd)] / std::max(vw[std::size_t(nd)], 0.1 * h3), 1e-9)
            << "node " << nd;
        ASSERT_NEAR(gh[nd], tw[std::size_t(nd)] / h3, 1e-9 * 1e5) << "node " << nd;
    }
    EXPECT_GT(touched, 100);
    EXPECT_LT(touched, nodes / 8);
}

// The field's curl u at the vortons from the grid's grad u (interpolate_to_vortons, read by the
// transposed stretching and relaxation) against the direct sum's closed form (direct_sum.hpp,
// itself checked against differences of the velocity), on a ring of vortons at h = sigma / 2,
// beside the velocity's own difference. The grid's spreading and differences smooth the
// filament's peak vorticity (20% RMS measured, against 3.5% for the velocity); a sign wrong in one
// of the curl's three differences left it 119% off, its mean cosine with omega 0.15.
TEST(VortexGridCurl, TheGridsCurlAtTheVortonsFollowsTheDirectSums) {
    vx::Config c;
    c.velocity_method = vx::kGrid;
    c.tracer_method = vx::kGrid;
    c.core_radius = 0.1;
    c.grid_spacing = 0.5;
    c.grid_cells = 128;
    c.core_overlap = 1.0;
    // A tilted ring (so that no difference lines up with an axis) of 64 vortons, radius 0.6 m.
    std::vector<dvec3> vp, omega, tp;
    std::vector<double> radius, temp;
    const int n = 64;
    const dvec3 e1 = glm::normalize(dvec3(1.0, 0.3, -0.2));
    const dvec3 axis = glm::normalize(glm::cross(e1, dvec3(0.1, 1.0, 0.4)));
    const dvec3 e2 = glm::cross(axis, e1);
    for (int m = 0; m < n; ++m) {
        const double a = 2.0 * vx::kPi * m / n, dl = 2.0 * vx::kPi * 0.6 / n;
        vp.push_back(0.6 * (std::cos(a) * e1 + std::sin(a) * e2));
        const dvec3 tangent = -std::sin(a) * e1 + std::cos(a) * e2;
        omega.push_back(dl / vx::vorton_volume(0.1, c.core_overlap) * tangent);  // alpha = Gamma dl, Gamma = 1
        radius.push_back(0.1);
        temp.push_back(c.ambient_temperature);
    }
    auto cview = [](auto& v) {
        return fs::View<const typename std::decay_t<decltype(v)>::value_type>{v.data(), int(v.size())};
    };
    auto out = [n](std::vector<dvec3>& v) {
        v.assign(n, dvec3(0.0));
        return fs::View<dvec3>{v.data(), n};
    };
    fs::CpuExec exec;
    vx::VortexInCell<fs::CpuExec> vic;
    vic.build(exec, c, cview(vp), cview(omega), cview(radius), cview(temp), cview(tp), true);
    ASSERT_TRUE(vic.built());
    std::vector<dvec3> gu, gs, gd, gp, gc, du, ds, dd, dp, dc;
    vic.interpolate_to_vortons(exec, c, cview(vp), cview(omega), out(gu), out(gs), out(gd), out(gp), out(gc));
    fs::Buffer<dvec3> bp(fs::MemorySpace::Host), bw(fs::MemorySpace::Host);
    fs::Buffer<double> br(fs::MemorySpace::Host);
    bp.copy_from_host(vp);
    bw.copy_from_host(omega);
    br.copy_from_host(radius);
    vx::DirectSum<fs::CpuExec> direct;
    direct.prepare(exec, bp.cview(), bw.cview(), br.cview(), c.core_overlap);
    direct.vortons(exec, bp.cview(), bw.cview(), br.cview(), 0.0, out(du), out(ds), out(dd), out(dp), out(dc));
    const double eu = relative_rms(gu, du), ec = relative_rms(gc, dc);
    double along = 0.0;  // the grid's curl's mean cosine with the vortons' own vorticity
    for (int m = 0; m < n; ++m) along += glm::dot(gc[m], omega[m]) / (glm::length(gc[m]) * glm::length(omega[m])) / n;
    std::printf("grid h = %.3f m (sigma %.2f): velocity %.1f%%, curl %.1f%% RMS from the direct sum; the curl's mean "
                "cosine with omega %.4f\n",
                vic.grid().h, c.core_radius, 100.0 * eu, 100.0 * ec, along);
    EXPECT_LT(eu, 0.05);
    EXPECT_LT(ec, 0.25);
    EXPECT_GT(along, 0.99);
}

// A spinning sphere's own vorticity (body_vorticity, add_held) joins the grid's velocity by the
// formula the direct sum uses, exact outside a sphere (held_by_formula): the grid then converges
// to the direct sum as h falls, near the wall as elsewhere. Spread on the nodes inside the sphere
// and smoothed by the core in the solve, as it was, it left the vortons within 0.05 m of the
// surface 12% RMS off at h = sigma and 13% at sigma / 2, and all of them 8% at both (every
// assertion below fails so).
TEST(VortexGridFidelity, ASpinningSpheresGridVelocityConvergesToTheDirectSum) {
    VortexSolver s;
    const Snapshot state = state_after(s, "vortex_magnus.json", 100, {});
    s.restore(state.at);
    const dvec3 centre = s.bodies()[0].position;
    const double radius = s.bodies()[0].radius;
    ASSERT_GT(glm::length(s.bodies()[0].angular_velocity), 0.0);
    const Evaluation direct = evaluate(s, state, "direct");
    // The vortons within 0.05 m of the surface (the wall layer the no-slip makes).
    std::vector<int> near;
    for (std::size_t k = 0; k < state.h.vpos.size(); ++k)
        if (glm::length(state.h.vpos[k] - centre) < radius + 0.05) near.push_back(static_cast<int>(k));
    ASSERT_GT(near.size(), 20u);
    auto near_rms = [&](const std::vector<dvec3>& v) {
        std::vector<dvec3> a, ref;
        for (int k : near) {
            a.push_back(v[k]);
            ref.push_back(direct.h.vvel[k]);
        }
        return relative_rms(a, ref);
    };
    double all[3], wall[3];
    const double spacings[3] = {0.0, 1.0, 0.5};
    for (int m = 0; m < 3; ++m) {
        const Evaluation grid = evaluate(s, state, "grid", spacings[m]);
        all[m] = relative_rms(grid.h.vvel, direct.h.vvel);
        wall[m] = near_rms(grid.h.vvel);
    }
    std::printf("Magnus scene, step %d (%zu vortons, %zu in the wall layer): grid vs direct RMS at the vortons %.4f "
                "(wall layer %.4f) at the scene's spacing, %.4f (%.4f) at h = sigma, %.4f (%.4f) at sigma / 2\n",
                100, state.h.vpos.size(), near.size(), all[0], wall[0], all[1], wall[1], all[2], wall[2]);
    EXPECT_LT(all[0], 0.05);  // the 5% at the scene's own spacing (measured 3.8%)
    EXPECT_LT(all[2], 0.01);  // measured 0.26%
    EXPECT_LT(wall[2], 0.01);  // measured 0.19%
    EXPECT_LT(all[2], 0.5 * all[1]);  // converging (1.9% at h = sigma)
    EXPECT_LT(wall[2], 0.5 * wall[1]);
}
