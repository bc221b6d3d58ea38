// Implicit viscosity for the implicit pressure solvers (DFSPH, IISPH), after Weiler, Koschier,
// Brand and Bender 2018, "A physically consistent implicit viscosity solver for SPH fluids"
// (Computer Graphics Forum 37(2)). The per-particle bodies are FS_HD (one body, both backends);
// ViscositySolve runs them over an executor, called by Pipeline's viscosity stage.
//
// Weiler et al.'s operator: the Laplacian of the velocity by the SPH second-derivative form
//   L_i(v) = 2(d+2) sum_j (m_j / rho_j) (v_ij . x_ij) / (|x_ij|^2 + 0.01 h^2) grad_i W_ij,  d = 2,
// over fluid and boundary neighbours (boundary particles at their own velocity, the walls' zero
// and the barrier's drag: no slip, and with the fluid's nu where Weiler et al. give the boundary
// its own). The step's viscous velocity solves (backward Euler)
//   v*_i - dt nu L_i(v*) = v_i.
// L is linear in v, and the boundary's known velocities go to the right-hand side. Each row i is
// multiplied by V_i = m / rho_i: the blocks V_i V_j c_ij x_ij x_ij^T (grad W_ij is parallel to x_ij)
// are then symmetric, and with dW/dr <= 0 the matrix is positive definite, so conjugate gradients
// apply (as Weiler et al. use), with their block-diagonal (2x2) preconditioner and a warm start from
// the last step's solution (kept per particle id: the cell sort reorders the arrays every step).
// The result enters as an acceleration, (v* - v) / dt, beside gravity, before the pressure solve
// (Weiler et al.: viscosity as a non-pressure force).
#pragma once

#include <utility>

#include <glm/glm.hpp>

#include "core/buffer.hpp"
#include "core/reduce_ops.hpp"
#include "solvers/sph/sph_kernels.hpp"

namespace fs::sph {

// The stop of the conjugate gradients: |r| <= kViscosityTolerance |b| in the scaled system's norm
// (a relative velocity error of about 1e-5 a step), or kViscosityMaxIterations.
constexpr double kViscosityTolerance = 1e-5;
constexpr int kViscosityMaxIterations = 100;

// 2(d+2) (m / rho_j) / (|x_ij|^2 + 0.01 h^2) for a pair at x_ij (Weiler et al.'s operator; m = m_j,
// every particle carries the same mass here).
FS_HDI double weiler_pair_factor(const Config& c, dvec2 x, double rho_j) {
    return 8.0 * c.mass / (rho_j * (x.x * x.x + x.y * x.y + 0.01 * c.h * c.h));
}

// L_i (above) with particle i's velocity vi and its neighbours' velocities v (fluid and boundary).
FS_HDI dvec2 weiler_laplacian(const Config& c, const GradList& gl, int i, dvec2 vi, const dvec2* pos,
                              const dvec2* v, const double* rho) {
    const dvec2 xi = pos[i];
    return gl.sum(i, dvec2(0.0), [&](int j, dvec2 g) {
        const dvec2 x = xi - pos[j], vij = vi - v[j];
        return (weiler_pair_factor(c, x, rho[j]) * (vij.x * x.x + vij.y * x.y)) * g;
    });
}

// Row i of the scaled system, V_i (x_i - dt nu L_i(x)), x zero on the boundary.
FS_HDI dvec2 viscosity_row(const Config& c, double dt_nu, const GradList& gl, int i, const dvec2* pos,
                           const dvec2* x, const double* rho) {
    const double V = c.mass / rho[i];
    return V * (x[i] - dt_nu * weiler_laplacian(c, gl, i, x[i], pos, x, rho));
}

// Row i's set-up: the right-hand side V_i (v_i + dt nu L_i(boundary velocities, v_i = 0)), and the
// inverse of its 2x2 diagonal block V_i (I - dt nu sum_j f_ij g_ij x_ij^T), the preconditioner.
// `vb` holds the boundary's velocities and zero on the fluid.
struct ViscosityRow {
    dvec2 b;
    glm::dmat2 inverse;
};
FS_HDI ViscosityRow viscosity_setup(const Config& c, double dt_nu, const GradList& gl, int i, const dvec2* pos,
                                    const dvec2* vel, const dvec2* vb, const double* rho) {
    const dvec2 xi = pos[i];
    const double V = c.mass / rho[i];
    const dvec2 wall = weiler_laplacian(c, gl, i, dvec2(0.0), pos, vb, rho);
    const glm::dmat2 sum = gl.sum(i, glm::dmat2(0.0), [&](int j, dvec2 g) {
        const dvec2 x = xi - pos[j];
        // glm's outer product g x^T, column-major: column k is g x_k.
        return weiler_pair_factor(c, x, rho[j]) * glm::dmat2(g * x.x, g * x.y);
    });
    const glm::dmat2 m = V * (glm::dmat2(1.0) - dt_nu * sum);
    const double det = m[0][0] * m[1][1] - m[1][0] * m[0][1];
    const glm::dmat2 inverse = (1.0 / det) * glm::dmat2(m[1][1], -m[0][1], -m[1][0], m[0][0]);
    return {V * (vel[i] + dt_nu * wall), inverse};
}

FS_HDI double vdot(dvec2 a, dvec2 b) { return a.x * b.x + a.y * b.y; }
FS_HDI double vdot2(dvec2 a) { return a.x * a.x + a.y * a.y; }

// The conjugate gradients over the fluid particles (`fluid`, in cell order), buffers kept between
// steps. Public members: nvcc's host-device lambdas may not be defined in private ones.
template <class Exec>
struct ViscositySolve {
    static constexpr MemorySpace kSpace = Exec::space;
    Buffer<dvec2> x_{kSpace}, r_{kSpace}, z_{kSpace}, p_{kSpace}, q_{kSpace}, vb_{kSpace}, warm_{kSpace};
    Buffer<glm::dmat2> inverse_{kSpace};
    std::size_t warm_size_ = 0;  // ids the warm start holds (0: none yet)

    // Forget the warm start (a state written from outside: a checkpoint holds no warm start, so a
    // restored run starts cold and agrees with the uninterrupted one to the solve's tolerance, not
    // to the bit).
    void forget() { warm_size_ = 0; }

    // Adds (v* - v) / dt to acc for every fluid particle; returns the iterations and the residual
    // left, |r| / |b|.
    std::pair<int, double> run(Exec& exec, const Config& c, const GradList& gl, int n, View<const int> fluid, int nf,
                               View<const dvec2> pos, View<const dvec2> vel, View<const double> rho,
                               View<const int> kind, View<const int> id, View<dvec2> acc) {
        const std::size_t size = static_cast<std::size_t>(n);
        auto x = x_.resized(size);
        auto r = r_.resized(size);
        auto z = z_.resized(size);
        auto p = p_.resized(size);
        auto q = q_.resized(size);
        auto vb = vb_.resized(size);
        auto inverse = inverse_.resized(size);
        const bool warm_ok = warm_size_ == size;
        auto warm = warm_.resized(size);
        if (!warm_ok) {
            exec.parallel_for(n, FS_LAMBDA(int i) { warm[i] = dvec2(0.0); });
            warm_size_ = size;
        }
        const Config cfg = c;
        const double dt_nu = c.dt * kinematic_viscosity(c.alpha, c.h, c.c_s);
        // Boundary entries: the known velocities in vb, zero in the iterates (Dirichlet rows).
        exec.parallel_for(n, FS_LAMBDA(int i) {
            const bool boundary = kind[i] != kFluid;
            vb[i] = boundary ? vel[i] : dvec2(0.0);
            x[i] = dvec2(0.0);
            p[i] = dvec2(0.0);
        });
        // x0 = v + the last step's viscous change (by id), b, the preconditioner, r0 = b - A x0 (below).
        exec.parallel_slices(nf, kSlice, FS_LAMBDA(int t) {
            const int i = fluid[t];
            const int k = id[i];
            x[i] = vel[i] + (k >= 0 && k < n ? warm[k] : dvec2(0.0));
            const ViscosityRow row = viscosity_setup(cfg, dt_nu, gl, i, pos.data, vel.data, vb.data, rho.data);
            r[i] = row.b;  // b until the residual pass
            inverse[i] = row.inverse;
        });
        const double bb = exec.transform_reduce(
            nf, 0.0, FS_LAMBDA(int t) { return vdot2(r[fluid[t]]); }, Plus{});
        // r = b - A x0, z = M^-1 r, p = z; rz = r . z
        exec.parallel_slices(nf, kSlice, FS_LAMBDA(int t) {
            const int i = fluid[t];
            r[i] -= viscosity_row(cfg, dt_nu, gl, i, pos.data, x.data, rho.data);
            z[i] = inverse[i] * r[i];
        });
        exec.parallel_slices(nf, kSlice, FS_LAMBDA(int t) { p[fluid[t]] = z[fluid[t]]; });
        double rz = exec.transform_reduce(
            nf, 0.0, FS_LAMBDA(int t) { return vdot(r[fluid[t]], z[fluid[t]]); }, Plus{});
        double rr = exec.transform_reduce(
            nf, 0.0, FS_LAMBDA(int t) { return vdot2(r[fluid[t]]); }, Plus{});
        const double goal = kViscosityTolerance * kViscosityTolerance * bb;
        int iterations = 0;
        for (; rr > goal && iterations < kViscosityMaxIterations; ++iterations) {
            exec.parallel_slices(nf, kSlice, FS_LAMBDA(int t) {
                const int i = fluid[t];
                q[i] = viscosity_row(cfg, dt_nu, gl, i, pos.data, p.data, rho.data);
            });
            const double pq = exec.transform_reduce(
                nf, 0.0, FS_LAMBDA(int t) { return vdot(p[fluid[t]], q[fluid[t]]); }, Plus{});
            if (!(pq > 0.0)) break;
            const double a = rz / pq;
            exec.parallel_slices(nf, kSlice, FS_LAMBDA(int t) {
                const int i = fluid[t];
                x[i] += a * p[i];
                r[i] -= a * q[i];
                z[i] = inverse[i] * r[i];
            });
            const dvec2 sums = exec.transform_reduce(
                nf, dvec2(0.0),
                FS_LAMBDA(int t) {
                    const int i = fluid[t];
                    return dvec2(vdot(r[i], z[i]), vdot2(r[i]));
                },
                Plus{});
            const double beta = sums.x / rz;
            rz = sums.x;
            rr = sums.y;
            exec.parallel_slices(nf, kSlice, FS_LAMBDA(int t) {
                const int i = fluid[t];
                p[i] = z[i] + beta * p[i];
            });
        }
        const double dt = c.dt;
        exec.parallel_slices(nf, kSlice, FS_LAMBDA(int t) {
            const int i = fluid[t];
            const dvec2 change = x[i] - vel[i];
            acc[i] += change / dt;
            const int k = id[i];
            if (k >= 0 && k < n) warm[k] = change;
        });
        return {iterations, bb > 0.0 ? std::sqrt(rr / bb) : 0.0};
    }

    static constexpr int kSlice = 512;  // as Pipeline's kSliceLeast: a pass over a particle's neighbours
};

}  // namespace fs::sph
