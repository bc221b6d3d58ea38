// The staggered MAC grid of the FLIP solver (the PIC-FLIP assignment, "The Staggered Grid"): pressures and cell
// types at cell centres, each velocity component on the faces normal to its axis. Plain data and
// host-device index helpers, so kernels of both backends share them.
#pragma once

#include <glm/glm.hpp>

#include "core/buffer.hpp"
#include "core/hd.hpp"

namespace fs::flip {

// What a cell holds (the PIC-FLIP assignment marks them 1 fluid, 0 air, -1 solid; unsigned here, same meaning).
enum CellType : unsigned char { kAir = 0, kFluid = 1, kSolid = 2 };

// nx × ny × nz cubic cells of side dx; cell (i, j, k) spans origin + [i, i+1]·dx along x, and so
// on. Flat indices run x fastest. Cells outside the grid count as solid: the domain walls.
struct MacGrid {
    int nx = 0, ny = 0, nz = 0;
    double dx = 1.0;
    glm::dvec3 origin{0.0};

    FS_HDI int cells() const { return nx * ny * nz; }
    FS_HDI int cell(int i, int j, int k) const { return i + nx * (j + ny * k); }
    FS_HDI bool inside(int i, int j, int k) const {
        return i >= 0 && j >= 0 && k >= 0 && i < nx && j < ny && k < nz;
    }
    // The (i, j, k) of flat cell index c (the inverse of cell()).
    FS_HDI glm::ivec3 cell_coords(int c) const {
        const int i = c % nx;
        const int jk = c / nx;
        return {i, jk % ny, jk / ny};
    }
    FS_HDI glm::dvec3 cell_center(int i, int j, int k) const {
        return origin + dx * glm::dvec3(i + 0.5, j + 0.5, k + 0.5);
    }

    // u (x-velocity) faces: (nx+1)·ny·nz, face (i, j, k) at x = origin.x + i·dx, between cells
    // (i-1, j, k) and (i, j, k) (the PIC-FLIP assignment: "the left velocity sample is (i, j, k)").
    FS_HDI int u_faces() const { return (nx + 1) * ny * nz; }
    FS_HDI int u_face(int i, int j, int k) const { return i + (nx + 1) * (j + ny * k); }
    FS_HDI glm::dvec3 u_position(int i, int j, int k) const {
        return origin + dx * glm::dvec3(i, j + 0.5, k + 0.5);
    }
    // v (y-velocity) faces: nx·(ny+1)·nz, face (i, j, k) between cells (i, j-1, k) and (i, j, k).
    FS_HDI int v_faces() const { return nx * (ny + 1) * nz; }
    FS_HDI int v_face(int i, int j, int k) const { return i + nx * (j + (ny + 1) * k); }
    FS_HDI glm::dvec3 v_position(int i, int j, int k) const {
        return origin + dx * glm::dvec3(i + 0.5, j, k + 0.5);
    }
    // w (z-velocity) faces: nx·ny·(nz+1), face (i, j, k) between cells (i, j, k-1) and (i, j, k).
    FS_HDI int w_faces() const { return nx * ny * (nz + 1); }
    FS_HDI int w_face(int i, int j, int k) const { return i + nx * (j + ny * k); }
    FS_HDI glm::dvec3 w_position(int i, int j, int k) const {
        return origin + dx * glm::dvec3(i + 0.5, j + 0.5, k);
    }
};

// MacGrid::cell_coords for loops over many cells (the multigrid's level transfers): the same
// (i, j, k), with the two integer divisions made multiplies (Divider, made once per grid).
struct CellCoords {
    Divider by_nx, by_ny;
    int nx = 1, ny = 1;
    CellCoords() = default;
    explicit CellCoords(const MacGrid& g) : CellCoords(g.nx, g.ny) {}
    // Any array laid out x fastest over nx by ny rows (FaceCoords: a component's faces).
    CellCoords(int nx_, int ny_) : by_nx(nx_), by_ny(ny_), nx(nx_), ny(ny_) {}
    FS_HDI glm::ivec3 operator()(int c) const {
        const int jk = by_nx(c), k = by_ny(jk);
        return {c - jk * nx, jk - k * ny, k};
    }
};

// The type of cell (i, j, k); solid outside the grid (the walls of the domain).
FS_HDI unsigned char cell_type(const MacGrid& g, View<const unsigned char> type, int i, int j,
                               int k) {
    return g.inside(i, j, k) ? type[g.cell(i, j, k)] : static_cast<unsigned char>(kSolid);
}

}  // namespace fs::flip
