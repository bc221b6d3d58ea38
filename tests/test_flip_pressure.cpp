// The FLIP pressure solve (the PIC-FLIP assignment, "Pressure Projection"): the operator is symmetric positive
// semi-definite and is -dx^2 times divergence of gradient, the gradient is minus the adjoint of the
// divergence, Jacobi's residual falls, Gauss-Seidel/SOR beats Jacobi, MGPCG converges fast,
// the three agree, and results do not depend on the thread count.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "core/backend.hpp"
#include "core/exec_cpu.hpp"
#include "solvers/flip/flip_kernels.hpp"
#include "solvers/flip/pressure.hpp"

namespace {

using fs::CpuExec;
using fs::flip::kAir;
using fs::flip::kFluid;
using fs::flip::kSolid;
using fs::flip::MacGrid;
using Solver = fs::flip::PressureSolver<CpuExec>;

MacGrid grid(int nx, int ny, int nz) {
    return MacGrid{nx, ny, nz, 0.1, glm::dvec3(0.0)};
}

template <class T>
fs::Buffer<T> buffer(const std::vector<T>& v) {
    fs::Buffer<T> b;
    b.copy_from_host(v);
    return b;
}

// Every cell drawn at random: 55% fluid, 30% air, 15% solid.
std::vector<unsigned char> random_types(const MacGrid& g, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<unsigned char> t(static_cast<std::size_t>(g.cells()));
    for (auto& c : t) {
        const double x = u(rng);
        c = x < 0.55 ? kFluid : (x < 0.85 ? kAir : kSolid);
    }
    return t;
}

// A dam break: the walls are the grid's outside (solid), a block of fluid fills the corner
// [0, nx/2) x [0, ny/2) x [0, nz/2), air elsewhere (y is up, so the fluid's top touches air).
std::vector<unsigned char> dam_break(const MacGrid& g) {
    std::vector<unsigned char> t(static_cast<std::size_t>(g.cells()), kAir);
    for (int k = 0; k < g.nz / 2; ++k)
        for (int j = 0; j < g.ny / 2; ++j)
            for (int i = 0; i < g.nx / 2; ++i)
                t[static_cast<std::size_t>(g.cell(i, j, k))] = kFluid;
    return t;
}

// Uniform in [-1, 1] on fluid cells, NaN elsewhere: b must only be read on fluid cells.
std::vector<double> random_rhs(const std::vector<unsigned char>& type, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> b(type.size());
    for (std::size_t c = 0; c < b.size(); ++c)
        b[c] = type[c] == kFluid ? u(rng) : std::numeric_limits<double>::quiet_NaN();
    return b;
}

std::vector<double> random_vector(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> x(n);
    for (auto& v : x) v = u(rng);
    return x;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
}

double norm(const std::vector<double>& a) {
    return std::sqrt(dot(a, a));
}

// y = A x by the pressure operator, on the whole grid.
std::vector<double> apply(CpuExec& exec, const MacGrid& g,
                          const fs::Buffer<unsigned char>& type, const std::vector<double>& x) {
    const auto xb = buffer(x);
    fs::Buffer<double> y(fs::MemorySpace::Host, x.size());
    fs::flip::apply_laplacian(exec, g, type.cview(), xb.cview(), y.view());
    return y.to_vector();
}

// A case: grid, types, right-hand side; `run` solves from p = 0.
struct Case {
    MacGrid g;
    std::vector<unsigned char> type;
    std::vector<double> b;
    fs::Buffer<unsigned char> type_buf;
    fs::Buffer<double> b_buf;

    Case(const MacGrid& grid_, std::vector<unsigned char> t, unsigned seed)
        : g(grid_),
          type(std::move(t)),
          b(random_rhs(type, seed)),
          type_buf(buffer(type)),
          b_buf(buffer(b)) {}

    Solver::Result run(Solver& s, CpuExec& exec, const Solver::Settings& set,
                       std::vector<double>& p) const {
        fs::Buffer<double> pb = buffer(std::vector<double>(type.size(), 0.0));
        const auto r = s.solve(exec, g, type_buf.cview(), b_buf.cview(), pb.view(), set);
        p = pb.to_vector();
        return r;
    }
};

Solver::Settings settings(int method, int iterations) {
    Solver::Settings s;
    s.method = method;
    s.iterations = iterations;
    return s;
}

// ---- the operator ----

TEST(FlipPressure, LaplacianIsSymmetricPositiveSemiDefinite) {
    CpuExec exec;
    for (unsigned seed = 1; seed <= 4; ++seed) {
        const MacGrid g = grid(13, 10, 9);
        const auto type = buffer(random_types(g, seed));
        const auto x = random_vector(static_cast<std::size_t>(g.cells()), 100 + seed);
        const auto y = random_vector(static_cast<std::size_t>(g.cells()), 200 + seed);
        const auto ax = apply(exec, g, type, x), ay = apply(exec, g, type, y);
        const double xay = dot(x, ay), yax = dot(y, ax);
        EXPECT_NEAR(xay, yax, 1e-12 * std::max(std::abs(xay), norm(x) * norm(ay)));
        EXPECT_GE(dot(x, ax), 0.0);
        EXPECT_GE(dot(y, ay), 0.0);
    }
}

TEST(FlipPressure, ConstantsAreTheNullSpaceOfAClosedTank) {
    CpuExec exec;
    const MacGrid g = grid(6, 5, 4);
    const auto type =
        buffer(std::vector<unsigned char>(static_cast<std::size_t>(g.cells()), kFluid));
    const auto a1 =
        apply(exec, g, type, std::vector<double>(static_cast<std::size_t>(g.cells()), 1.0));
    for (double v : a1) EXPECT_EQ(v, 0.0);
}

TEST(FlipPressure, StencilMatchesTheBoundaryConditions) {
    // One fluid cell between an air cell (-x), a solid cell (+x) and fluid cells.
    CpuExec exec;
    const MacGrid g = grid(3, 3, 3);
    std::vector<unsigned char> t(27, kFluid);
    t[static_cast<std::size_t>(g.cell(0, 1, 1))] = kAir;
    t[static_cast<std::size_t>(g.cell(2, 1, 1))] = kSolid;
    const auto type = buffer(t);
    std::vector<double> x(27, 0.0);
    x[static_cast<std::size_t>(g.cell(1, 1, 1))] = 1.0;
    x[static_cast<std::size_t>(g.cell(0, 1, 1))] = 5.0;  // air: read as 0
    x[static_cast<std::size_t>(g.cell(2, 1, 1))] = 7.0;  // solid: left out
    x[static_cast<std::size_t>(g.cell(1, 0, 1))] = 0.5;
    const auto ax = apply(exec, g, type, x);
    // 5 non-solid neighbours: 5 * 1 - (0.5 + 0 + 0 + 0 + 0) (air counts as p = 0).
    EXPECT_DOUBLE_EQ(ax[static_cast<std::size_t>(g.cell(1, 1, 1))], 4.5);
    EXPECT_EQ(ax[static_cast<std::size_t>(g.cell(0, 1, 1))], 0.0);
    EXPECT_EQ(ax[static_cast<std::size_t>(g.cell(2, 1, 1))], 0.0);
    // Corner cell (0, 0, 0): 3 walls outside the grid, so 3 neighbours, all fluid.
    EXPECT_DOUBLE_EQ(ax[0], 0.0 * 3 - (0.0 + 0.0 + 0.0));
    // (1, 0, 1): the floor is a wall, 5 non-solid neighbours, (1, 1, 1) holds 1.
    EXPECT_DOUBLE_EQ(ax[static_cast<std::size_t>(g.cell(1, 0, 1))], 0.5 * 5 - 1.0);
}

TEST(FlipPressure, FluidCellListIsRedThenBlackWithTheGridsOperator) {
    // The solvers sweep the list; the reported residual walks the grid. Both must be one A.
    CpuExec exec;
    for (unsigned seed = 1; seed <= 3; ++seed) {
        const MacGrid g = grid(11, 8, 7);
        const auto t = random_types(g, 30 + seed);
        const auto type = buffer(t);
        fs::flip::FluidCells<CpuExec> list;
        list.build(exec, g, type.cview());
        int fluid = 0;
        for (unsigned char c : t) fluid += c == kFluid ? 1 : 0;
        ASSERT_EQ(list.count, fluid);
        for (int n = 0; n < list.count; ++n) {
            const glm::ivec3 q = g.cell_coords(list.cells[n].cell);
            EXPECT_EQ((q.x + q.y + q.z) % 2, n < list.red ? 0 : 1) << "entry " << n;
        }
        const auto x = random_vector(t.size(), 70 + seed);
        const auto xb = buffer(x);
        fs::Buffer<double> y(fs::MemorySpace::Host, x.size());
        y.fill_zero();
        fs::flip::apply_laplacian(exec, list, xb.cview(), y.view());
        const auto on_list = y.to_vector(), on_grid = apply(exec, g, type, x);
        for (std::size_t c = 0; c < x.size(); ++c) ASSERT_EQ(on_list[c], on_grid[c]) << "cell " << c;
    }
}

// The pipeline's own discrete operators on host arrays (flip_kernels.hpp, the bodies the
// divergence and pressure_gradient stages run): D u on cells, and on faces the gradient G p =
// (p_hi - p_lo) / dx with its face kind (solid faces take the solid's velocity instead).
struct Operators {
    MacGrid g;
    fs::Buffer<unsigned char> type;
    fs::flip::Faces faces[3];

    Operators(const MacGrid& grid_, const std::vector<unsigned char>& t) : g(grid_), type(buffer(t)) {
        for (int a = 0; a < 3; ++a) faces[a] = fs::flip::Faces::of(g, a);
    }
    std::vector<double> divergence(const std::vector<double> (&u)[3]) const {
        const auto u0 = buffer(u[0]), u1 = buffer(u[1]), u2 = buffer(u[2]);
        std::vector<double> d(static_cast<std::size_t>(g.cells()));
        for (int c = 0; c < g.cells(); ++c)
            d[static_cast<std::size_t>(c)] =
                fs::flip::divergence_at(g, type.cview(), u0.cview(), u1.cview(), u2.cview(), c);
        return d;
    }
    fs::flip::FacePressure face(int axis, const fs::Buffer<double>& p, int f) const {
        return fs::flip::face_pressure(g, faces[axis], type.cview(), p.cview(), f);
    }
};

TEST(FlipOperators, GradientIsMinusTheAdjointOfDivergence) {
    // Summation by parts on the MAC grid: for face velocities u that vanish on faces touching a
    // solid (the solid boundary condition, which the divergence stage imposes first) and cell
    // pressures p that vanish off the fluid (p = 0 in air, Dirichlet),
    //   sum over fluid cells of (D u)_c p_c  =  - sum over fluid faces of u_f (G p)_f,
    // D = sum of face differences / dx on fluid cells, G = (p_hi - p_lo) / dx on faces with a
    // fluid side and no solid side. Both operators carry 1/dx and both sums the same volume
    // dx^3 per cell and per face, so D = -G^T in the plain Euclidean inner products: no other
    // factor. (The stages then scale G by dt / rho and the pressure right-hand side by
    // -rho dx^2 / dt.)
    for (unsigned seed = 1; seed <= 4; ++seed) {
        const MacGrid g = grid(11 + seed, 9, 7 + 2 * seed);
        const auto types = random_types(g, seed);
        const Operators op(g, types);
        std::mt19937 rng(1000 + seed);
        std::uniform_real_distribution<double> uni(-1.0, 1.0);
        std::vector<double> p(types.size());
        for (std::size_t c = 0; c < p.size(); ++c)
            p[c] = types[c] == kFluid ? uni(rng) : std::numeric_limits<double>::quiet_NaN();
        const auto pb = buffer(p);
        std::vector<double> u[3];
        double rhs = 0.0, scale = 0.0;
        int fluid_faces = 0, solid_faces = 0;
        for (int a = 0; a < 3; ++a) {
            u[a].resize(static_cast<std::size_t>(op.faces[a].count()));
            for (int f = 0; f < op.faces[a].count(); ++f) {
                const auto fp = op.face(a, pb, f);
                double& uf = u[a][static_cast<std::size_t>(f)];
                uf = fp.kind == fs::flip::kSolidFace ? 0.0 : uni(rng);
                solid_faces += fp.kind == fs::flip::kSolidFace;
                if (fp.kind != fs::flip::kFluidFace) continue;
                ++fluid_faces;
                rhs -= uf * fp.dp / g.dx;
                scale += std::abs(uf * fp.dp / g.dx);
            }
        }
        const auto div = op.divergence(u);
        double lhs = 0.0;
        for (std::size_t c = 0; c < p.size(); ++c) {
            if (types[c] == kFluid) {
                lhs += div[c] * p[c];
            } else {
                ASSERT_EQ(div[c], 0.0);
            }
        }
        std::printf("seed %u: <D u, p> = %.15g, -<u, G p> = %.15g (%d fluid faces, %d solid faces)\n", seed,
                    lhs, rhs, fluid_faces, solid_faces);
        ASSERT_GT(fluid_faces, 100);
        ASSERT_GT(solid_faces, 100);
        EXPECT_NEAR(lhs, rhs, 1e-13 * scale);
    }
}

TEST(FlipOperators, LaplacianIsMinusDxSquaredDivergenceOfGradient) {
    // The matrix the pressure solvers invert is the pipeline's D G with the solid faces held at
    // the solid's velocity (0): A p = -dx^2 D(G p). So a solve with b = -(rho dx^2 / dt) D u
    // makes D(u - (dt / rho) G p) = 0 on the fluid cells, which is the projection.
    CpuExec exec;
    for (unsigned seed = 1; seed <= 4; ++seed) {
        const MacGrid g = grid(10, 8 + seed, 9);
        const auto types = random_types(g, 50 + seed);
        const Operators op(g, types);
        std::vector<double> p = random_vector(types.size(), 60 + seed);
        const auto pb = buffer(p);
        std::vector<double> gp[3];
        for (int a = 0; a < 3; ++a) {
            gp[a].assign(static_cast<std::size_t>(op.faces[a].count()), 0.0);
            for (int f = 0; f < op.faces[a].count(); ++f) {
                const auto fp = op.face(a, pb, f);
                if (fp.kind == fs::flip::kFluidFace) gp[a][static_cast<std::size_t>(f)] = fp.dp / g.dx;
            }
        }
        const auto dgp = op.divergence(gp);
        const auto ap = apply(exec, g, op.type, p);
        for (std::size_t c = 0; c < p.size(); ++c)
            ASSERT_NEAR(ap[c], -g.dx * g.dx * dgp[c], 1e-12 * (1.0 + std::abs(ap[c]))) << "cell " << c;
    }
}

// ---- the solvers ----

TEST(FlipPressure, JacobiResidualFallsWithTheIterations) {
    CpuExec exec;
    Solver s;
    const MacGrid g = grid(24, 24, 24);
    const Case c(g, dam_break(g), 7);
    double last = std::numeric_limits<double>::infinity();
    std::vector<double> p;
    for (int n : {1, 2, 5, 10, 50, 200}) {
        const auto r = c.run(s, exec, settings(Solver::kJacobi, n), p);
        EXPECT_EQ(r.iterations, n);
        EXPECT_LT(r.residual, last) << n << " sweeps";
        last = r.residual;
    }
    // The relaxed form (alpha < 1) still converges.
    auto relaxed = settings(Solver::kJacobi, 200);
    relaxed.jacobi_alpha = 0.8;
    EXPECT_LT(c.run(s, exec, relaxed, p).residual, 0.5);
}

TEST(FlipPressure, GaussSeidelSorBeatsJacobi) {
    CpuExec exec;
    Solver s;
    const MacGrid g = grid(24, 24, 24);
    const Case c(g, dam_break(g), 8);
    std::vector<double> p;
    for (int n : {10, 50, 200}) {
        const double jac = c.run(s, exec, settings(Solver::kJacobi, n), p).residual;
        // Strong over-relaxation pays off only after a transient: omega = 1.8 from 50 sweeps on.
        for (double omega : {1.2, 1.5, 1.8}) {
            if (omega > 1.6 && n < 50) continue;
            auto set = settings(Solver::kGaussSeidel, n);
            set.sor_omega = omega;
            const double gs = c.run(s, exec, set, p).residual;
            std::printf("%3d sweeps: Jacobi %.3g, Gauss-Seidel omega %.1f %.3g\n", n, jac, omega,
                        gs);
            EXPECT_LT(gs, jac) << n << " sweeps, omega " << omega;
        }
    }
}

TEST(FlipPressure, MgpcgReachesTheToleranceOn64Cubed) {
    CpuExec exec;
    Solver s;
    const MacGrid g = grid(64, 64, 64);
    const Case c(g, dam_break(g), 9);
    std::vector<double> p;
    auto set = settings(Solver::kMgpcg, 0);
    set.tolerance = 1e-6;
    set.max_iterations = 100;
    c.run(s, exec, set, p);  // warm-up: builds the hierarchy
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = c.run(s, exec, set, p);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf(
        "MGPCG 64^3 dam break: %d iterations, relative residual %.3g, %.1f ms (%d threads)\n",
        r.iterations, r.residual, ms, fs::cpu_threads());
    EXPECT_LE(r.iterations, 30);
    EXPECT_LE(r.residual, 1e-6);
    for (std::size_t i = 0; i < p.size(); ++i)
        if (c.type[i] != kFluid) {
            ASSERT_EQ(p[i], 0.0);
        }
}

TEST(FlipPressure, MgpcgOnAnIrregularDomain) {
    // Odd sizes, a solid pillar through the fluid, air pockets inside it.
    CpuExec exec;
    Solver s;
    const MacGrid g = grid(37, 29, 23);
    std::vector<unsigned char> t(static_cast<std::size_t>(g.cells()), kAir);
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int k = 0; k < g.nz; ++k)
        for (int j = 0; j < 18; ++j)
            for (int i = 0; i < g.nx; ++i) {
                auto& c = t[static_cast<std::size_t>(g.cell(i, j, k))];
                c = u(rng) < 0.03 ? kAir : kFluid;
                if (i >= 10 && i < 15 && k >= 8 && k < 12) c = kSolid;
            }
    const Case c(g, t, 11);
    std::vector<double> p;
    const auto r = c.run(s, exec, settings(Solver::kMgpcg, 0), p);
    std::printf("MGPCG 37x29x23 irregular: %d iterations, residual %.3g\n", r.iterations,
                r.residual);
    EXPECT_LE(r.iterations, 30);
    EXPECT_LE(r.residual, 1e-6);
}

TEST(FlipPressure, MgpcgKeepsItsHierarchyOnlyForTheSameCells) {
    // The volume correction's solve reuses the pressure solve's levels when the cells are the
    // same (cells_version): its answer must be a fresh solver's, bit for bit. A new version with
    // other cells must rebuild them (a stale hierarchy would still converge, slowly and wrongly
    // preconditioned, so the iterations are compared too).
    CpuExec exec;
    const MacGrid g = grid(37, 29, 23);
    const Case first(g, dam_break(g), 21);
    const Case second(g, first.type, 22);  // same cells, another right-hand side
    std::vector<unsigned char> pillar = first.type;  // the dam with a solid pillar through it
    for (int k = 4; k < 8; ++k)
        for (int j = 0; j < g.ny; ++j)
            for (int i = 6; i < 10; ++i) pillar[static_cast<std::size_t>(g.cell(i, j, k))] = kSolid;
    const Case other(g, pillar, 23);
    auto set = settings(Solver::kMgpcg, 0);

    Solver fresh;
    std::vector<double> p_fresh, p_kept, p_other_fresh, p_other;
    const auto r_fresh = second.run(fresh, exec, set, p_fresh);
    Solver other_fresh;
    const auto r_other_fresh = other.run(other_fresh, exec, set, p_other_fresh);

    Solver s;
    set.cells_version = 7;
    std::vector<double> p_first;
    first.run(s, exec, set, p_first);
    const auto r_kept = second.run(s, exec, set, p_kept);  // version 7 again: levels kept
    ASSERT_GT(r_fresh.iterations, 3);
    EXPECT_LE(r_fresh.residual, 1e-6);
    EXPECT_EQ(r_kept.iterations, r_fresh.iterations);
    EXPECT_EQ(p_kept, p_fresh);
    set.cells_version = 8;
    const auto r_other = other.run(s, exec, set, p_other);  // new cells: rebuilt
    EXPECT_EQ(r_other.iterations, r_other_fresh.iterations);
    EXPECT_EQ(p_other, p_other_fresh);
}

TEST(FlipPressure, MgpcgInAClosedTank) {
    // No air: A is singular; with b in its range (zero mean) CG still converges.
    CpuExec exec;
    Solver s;
    const MacGrid g = grid(16, 16, 16);
    std::vector<unsigned char> t(static_cast<std::size_t>(g.cells()), kFluid);
    Case c(g, t, 12);
    double mean = 0.0;
    for (double v : c.b) mean += v / static_cast<double>(c.b.size());
    for (double& v : c.b) v -= mean;
    c.b_buf.copy_from_host(c.b);
    std::vector<double> p;
    auto set = settings(Solver::kMgpcg, 0);
    set.max_iterations = 60;
    const auto r = c.run(s, exec, set, p);
    std::printf("MGPCG 16^3 closed tank: %d iterations, residual %.3g\n", r.iterations, r.residual);
    EXPECT_LE(r.residual, 1e-6);
}

TEST(FlipPressure, WarmStartAndZeroRightHandSide) {
    CpuExec exec;
    Solver s;
    const MacGrid g = grid(16, 16, 16);
    const Case c(g, dam_break(g), 13);
    fs::Buffer<double> p = buffer(std::vector<double>(static_cast<std::size_t>(g.cells()), 3.0));
    const auto set = settings(Solver::kMgpcg, 0);
    const auto first = s.solve(exec, g, c.type_buf.cview(), c.b_buf.cview(), p.view(), set);
    EXPECT_GT(first.iterations, 0);
    const auto again = s.solve(exec, g, c.type_buf.cview(), c.b_buf.cview(), p.view(), set);
    EXPECT_EQ(again.iterations, 0);  // the last solution is already converged
    EXPECT_EQ(again.residual, first.residual);

    const auto zero = buffer(std::vector<double>(static_cast<std::size_t>(g.cells()), 0.0));
    for (int m : {Solver::kJacobi, Solver::kGaussSeidel, Solver::kMgpcg}) {
        const auto r = s.solve(exec, g, c.type_buf.cview(), zero.cview(), p.view(), settings(m, 5));
        EXPECT_EQ(r.residual, 0.0);
        for (double v : p.to_vector()) ASSERT_EQ(v, 0.0) << "method " << m;
    }
}

TEST(FlipPressure, AllMethodsGiveTheSameSolution) {
    CpuExec exec;
    Solver s;
    const MacGrid g = grid(16, 16, 16);
    const Case c(g, dam_break(g), 14);
    auto ref_set = settings(Solver::kMgpcg, 0);
    ref_set.tolerance = 1e-10;
    std::vector<double> ref;
    const auto rr = c.run(s, exec, ref_set, ref);
    ASSERT_LE(rr.residual, 1e-10);

    // lambda_min of A by inverse iteration (each step an MGPCG solve): ||e|| <= ||r|| / lambda_min.
    std::vector<double> x(static_cast<std::size_t>(g.cells()));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = c.type[i] == kFluid ? 1.0 : 0.0;
    double lambda_min = 0.0;
    for (int it = 0; it < 30; ++it) {
        const auto xb = buffer(x);
        fs::Buffer<double> y = buffer(std::vector<double>(x.size(), 0.0));
        s.solve(exec, g, c.type_buf.cview(), xb.cview(), y.view(), ref_set);
        const auto yv = y.to_vector();
        lambda_min = norm(x) / norm(yv);
        const double ny = norm(yv);
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = yv[i] / ny;
    }
    ASSERT_GT(lambda_min, 0.0);
    double nb = 0.0;
    for (std::size_t i = 0; i < c.b.size(); ++i)
        if (c.type[i] == kFluid) nb += c.b[i] * c.b[i];
    nb = std::sqrt(nb);

    auto jac = settings(Solver::kJacobi, 3000);
    auto gs = settings(Solver::kGaussSeidel, 300);
    gs.sor_omega = 1.8;
    auto cg = settings(Solver::kMgpcg, 0);
    for (const auto& set : {jac, gs, cg}) {
        std::vector<double> p;
        const auto r = c.run(s, exec, set, p);
        std::vector<double> e(p.size());
        for (std::size_t i = 0; i < p.size(); ++i) e[i] = p[i] - ref[i];
        const double bound = 2.0 * (r.residual + rr.residual) * nb / lambda_min;
        EXPECT_LE(norm(e), bound) << "method " << set.method << ", residual " << r.residual;
        EXPECT_LT(norm(e), 1e-3 * norm(ref)) << "method " << set.method;
        std::printf("method %d: residual %.3g, |p - p_ref| %.3g (bound %.3g, lambda_min %.4g)\n",
                    set.method, r.residual, norm(e), bound, lambda_min);
    }
}

TEST(FlipPressure, OneAndTwoThreadsGiveIdenticalResults) {
    const MacGrid g = grid(40, 24, 28);
    const Case c(g, dam_break(g), 15);
    const int before = fs::cpu_threads();
    std::vector<std::vector<double>> out[2];
    for (int t = 1; t <= 2; ++t) {
        fs::set_cpu_threads(t);
        CpuExec exec;
        Solver s;
        for (int m : {Solver::kJacobi, Solver::kGaussSeidel, Solver::kMgpcg}) {
            std::vector<double> p;
            c.run(s, exec, settings(m, 50), p);
            out[t - 1].push_back(p);
        }
    }
    fs::set_cpu_threads(before);
    for (std::size_t m = 0; m < 3; ++m) {
        ASSERT_EQ(out[0][m].size(), out[1][m].size());
        for (std::size_t i = 0; i < out[0][m].size(); ++i)
            ASSERT_EQ(out[0][m][i], out[1][m][i]) << "method " << m << ", cell " << i;
    }
}

}  // namespace
