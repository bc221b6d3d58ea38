#include "io/ply_writer.hpp"

#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace fs {

namespace {

// PLY's binary_little_endian stores each scalar as its bytes, least significant first, whatever
// the host's order (Turk, "The PLY Polygon File Format", 1994).
void put_le(std::vector<unsigned char>& out, std::uint32_t v) {
    for (int b = 0; b < 4; ++b) out.push_back(static_cast<unsigned char>(v >> (8 * b)));
}

}  // namespace

void write_ply(const std::string& path, const SurfaceMesh& mesh, const std::string& comment) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) throw std::runtime_error(path + ": cannot create the file");
    std::string line = comment;
    for (char& c : line)
        if (c == '\n' || c == '\r') c = ' ';
    // The header (Turk 1994): ASCII lines naming the format, then each element with its count
    // and properties in the order of the data; a face is a list, its count a uchar. The fields
    // carried onto the vertices follow x y z: velocity as vx vy vz (the names renderers' PLY
    // readers look for), a scalar by its name, another vector as name_x, name_y, name_z.
    std::fprintf(f,
                 "ply\n"
                 "format binary_little_endian 1.0\n"
                 "comment %s\n"
                 "element vertex %d\n"
                 "property float x\n"
                 "property float y\n"
                 "property float z\n",
                 line.c_str(), mesh.vertex_count());
    for (const VertexField& field : mesh.fields)
        for (int k = 0; k < field.components; ++k) {
            static const char* const axes[] = {"x", "y", "z"};
            std::string name = field.name;
            if (field.name == "velocity" && field.components == 3)
                name = std::string("v") + axes[k];
            else if (field.components > 1)
                name += "_" + (field.components <= 3 ? std::string(axes[k]) : std::to_string(k));
            std::fprintf(f, "property float %s\n", name.c_str());
        }
    std::fprintf(f,
                 "element face %d\n"
                 "property list uchar int vertex_indices\n"
                 "end_header\n",
                 mesh.triangle_count());
    // The data in blocks, so a large mesh needs no second copy of itself.
    constexpr std::size_t kBlock = 1 << 16;
    std::vector<unsigned char> buf;
    buf.reserve(kBlock * 13);
    auto flush = [&] {
        if (!buf.empty() && std::fwrite(buf.data(), 1, buf.size(), f) != buf.size()) {
            std::fclose(f);
            throw std::runtime_error(path + ": write failed");
        }
        buf.clear();
    };
    auto put_float = [&](float v) {
        std::uint32_t bits;  // the float's bits (std::bit_cast, which the browser build's libc++ 14 lacks)
        std::memcpy(&bits, &v, sizeof bits);
        put_le(buf, bits);
    };
    for (const VertexField& field : mesh.fields)
        if (field.values.size() != static_cast<std::size_t>(mesh.vertex_count()) * field.components) {
            std::fclose(f);
            throw std::runtime_error(path + ": the vertex field '" + field.name + "' does not match the vertices");
        }
    const std::size_t vertices = static_cast<std::size_t>(mesh.vertex_count());
    for (std::size_t v = 0; v < vertices; ++v) {
        for (int k = 0; k < 3; ++k) put_float(mesh.points[3 * v + k]);
        for (const VertexField& field : mesh.fields)
            for (int k = 0; k < field.components; ++k) put_float(field.values[v * field.components + k]);
        if (buf.size() >= kBlock * 12) flush();
    }
    const std::size_t triangles = static_cast<std::size_t>(mesh.triangle_count());
    for (std::size_t t = 0; t < triangles; ++t) {
        buf.push_back(3);
        for (int k = 0; k < 3; ++k)
            put_le(buf, static_cast<std::uint32_t>(mesh.triangles[3 * t + k]));
        if (buf.size() >= kBlock * 12) flush();
    }
    flush();
    if (std::fclose(f) != 0) throw std::runtime_error(path + ": write failed");
}

}  // namespace fs
