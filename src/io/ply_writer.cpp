#include "io/ply_writer.hpp"

#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
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
    // and properties in the order of the data; a face is a list, its count a uchar.
    std::fprintf(f,
                 "ply\n"
                 "format binary_little_endian 1.0\n"
                 "comment %s\n"
                 "element vertex %d\n"
                 "property float x\n"
                 "property float y\n"
                 "property float z\n"
                 "element face %d\n"
                 "property list uchar int vertex_indices\n"
                 "end_header\n",
                 line.c_str(), mesh.vertex_count(), mesh.triangle_count());
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
    const std::size_t floats = static_cast<std::size_t>(mesh.vertex_count()) * 3;
    for (std::size_t i = 0; i < floats; ++i) {
        std::uint32_t bits;  // the float's bits (std::bit_cast, which the browser build's libc++ 14 lacks)
        std::memcpy(&bits, &mesh.points[i], sizeof bits);
        put_le(buf, bits);
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
