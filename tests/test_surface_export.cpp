// The liquid's surface in the export (issue 15): the USD file's Mesh /World/surface, one time
// sample for each of the particles' frames, and the PLY files of --export-mesh, read back and
// checked for what a renderer relies on (indices in range, every face a triangle, a closed and
// consistently oriented mesh facing out); the writers' exact text; the refusals of bad input.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/ply_writer.hpp"
#include "io/usd_writer.hpp"
#include "program.hpp"

namespace {

using fs_test::run_program;
using fs_test::TempDir;

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// ---- PLY, read strictly as Turk's format says (binary_little_endian, the header's order) ----

struct Ply {
    std::string comment;
    std::vector<float> points;
    std::vector<int> triangles;
    std::vector<std::string> extra;  // the vertex properties after x y z, in order
    std::vector<float> extra_values;  // extra.size() a vertex
};

std::uint32_t le32(const std::string& b, std::size_t at) {
    std::uint32_t v = 0;
    for (int k = 0; k < 4; ++k)
        v |= static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + k])) << (8 * k);
    return v;
}

// Throws std::runtime_error saying what is wrong with the file.
Ply read_ply(const std::string& path) {
    const std::string b = read_file(path);
    const std::string end = "end_header\n";
    const std::size_t body = b.find(end);
    if (body == std::string::npos) throw std::runtime_error(path + ": no end_header");
    // Turk's header: the format, then each element with its count and its properties in the
    // order of the data: x y z, then any float properties the vertices carry.
    const std::regex header_re(
        "ply\nformat binary_little_endian 1\\.0\ncomment ([^\n]*)\nelement vertex (\\d+)\n"
        "property float x\nproperty float y\nproperty float z\n((?:property float \\w+\n)*)element face (\\d+)\n"
        "property list uchar int vertex_indices\n");
    const std::string header = b.substr(0, body);
    std::smatch m;
    if (!std::regex_match(header, m, header_re))
        throw std::runtime_error(path + ": not write_ply's header: " + header);
    Ply ply;
    ply.comment = m[1];
    const long long vertices = std::stoll(m[2]), faces = std::stoll(m[4]);
    const std::string props = m[3];
    const std::regex prop_re("property float (\\w+)\n");
    for (std::sregex_iterator it(props.begin(), props.end(), prop_re), e; it != e; ++it) ply.extra.push_back((*it)[1]);
    const std::size_t per_vertex = 3 + ply.extra.size();
    std::size_t at = body + end.size();
    // A vertex is its floats (4 bytes each), a face a uchar count and 3 ints (13 bytes).
    const std::size_t size =
        at + 4 * per_vertex * static_cast<std::size_t>(vertices) + 13 * static_cast<std::size_t>(faces);
    if (b.size() != size)
        throw std::runtime_error(path + ": " + std::to_string(b.size()) +
                                 " bytes, the header says " + std::to_string(size));
    for (long long i = 0; i < vertices; ++i)
        for (std::size_t k = 0; k < per_vertex; ++k, at += 4)
            (k < 3 ? ply.points : ply.extra_values).push_back(std::bit_cast<float>(le32(b, at)));
    for (long long f = 0; f < faces; ++f) {
        if (b[at] != 3)
            throw std::runtime_error(path + ": face " + std::to_string(f) + " is not a triangle");
        ++at;
        for (int k = 0; k < 3; ++k, at += 4) ply.triangles.push_back(static_cast<int>(le32(b, at)));
    }
    return ply;
}

// ---- What a closed surface is ----

// Empty when every index is in range and every directed edge (a, b) of a triangle appears exactly
// once and (b, a) exactly once: each undirected edge is shared by exactly two faces, which list it
// in opposite orders (one orientation throughout). Otherwise the first fault found.
std::string closed_fault(std::size_t vertex_count, const std::vector<int>& triangles) {
    if (triangles.size() % 3) return "the indices are not whole triangles";
    std::map<std::pair<int, int>, int> directed;
    for (std::size_t t = 0; t < triangles.size(); t += 3)
        for (int k = 0; k < 3; ++k) {
            const int a = triangles[t + k], b = triangles[t + (k + 1) % 3];
            if (a < 0 || b < 0 || static_cast<std::size_t>(a) >= vertex_count ||
                static_cast<std::size_t>(b) >= vertex_count)
                return "triangle " + std::to_string(t / 3) + " has an index out of [0, " +
                       std::to_string(vertex_count) + ")";
            if (a == b) return "triangle " + std::to_string(t / 3) + " repeats a vertex";
            ++directed[{a, b}];
        }
    for (const auto& [edge, n] : directed) {
        const auto back = directed.find({edge.second, edge.first});
        const int m = back == directed.end() ? 0 : back->second;
        if (n != 1 || m != 1)
            return "edge " + std::to_string(edge.first) + "-" + std::to_string(edge.second) +
                   " is in " + std::to_string(n + m) + " faces (" + std::to_string(n) +
                   " one way, " + std::to_string(m) + " the other)";
    }
    return "";
}

// The volume a closed mesh encloses, by the divergence theorem: the sum over its triangles of
// a . (b x c) / 6, positive when they are counter-clockwise seen from outside.
double signed_volume(const std::vector<float>& p, const std::vector<int>& triangles) {
    double v = 0.0;
    for (std::size_t t = 0; t < triangles.size(); t += 3) {
        const float* a = &p[3 * static_cast<std::size_t>(triangles[t])];
        const float* b = &p[3 * static_cast<std::size_t>(triangles[t + 1])];
        const float* c = &p[3 * static_cast<std::size_t>(triangles[t + 2])];
        v += (double(a[0]) * (double(b[1]) * c[2] - double(b[2]) * c[1]) -
              double(a[1]) * (double(b[0]) * c[2] - double(b[2]) * c[0]) +
              double(a[2]) * (double(b[0]) * c[1] - double(b[1]) * c[0])) /
             6.0;
    }
    return v;
}

// ---- The USD layer's time samples ----

// The time samples of `decl` ("point3f[] points") inside the prim that `prim` opens
// ("def Mesh \"surface\""): time code -> the text between the brackets.
std::map<int, std::string> samples(const std::string& text, const std::string& prim,
                                   const std::string& decl) {
    std::map<int, std::string> out;
    const auto p = text.find(prim);
    if (p == std::string::npos) return out;
    const auto prim_end = text.find("\n    }\n", p);
    const auto at = text.find("        " + decl + ".timeSamples = {\n", p);
    if (at == std::string::npos || at > prim_end) return out;
    const auto end = text.find("\n        }\n", at);
    std::istringstream block(text.substr(at, end - at));
    std::string line;
    std::getline(block, line);
    // "            N: [...]," (not a std::regex: libstdc++'s recurses once a character and a
    // sample line is hundreds of kilobytes long).
    const std::string indent(12, ' ');
    while (std::getline(block, line)) {
        const auto colon = line.find(": [");
        if (line.rfind(indent, 0) != 0 || colon == std::string::npos || !line.ends_with("],"))
            continue;
        out[std::stoi(line.substr(indent.size(), colon - indent.size()))] =
            line.substr(colon + 3, line.size() - colon - 5);
    }
    return out;
}

std::vector<double> numbers(const std::string& s) {
    std::vector<double> out;
    const char* c = s.c_str();
    while (*c) {
        if (std::strchr("-0123456789.", *c)) {
            char* next = nullptr;
            out.push_back(std::strtod(c, &next));
            c = next;
        } else {
            ++c;
        }
    }
    return out;
}

std::vector<int> ints(const std::string& s) {
    std::vector<int> out;
    for (double d : numbers(s)) out.push_back(static_cast<int>(d));
    return out;
}

std::vector<float> floats(const std::string& s) {
    std::vector<float> out;
    for (double d : numbers(s)) out.push_back(static_cast<float>(d));
    return out;
}

// A flip_drop run small enough for a test (6427 particles on a 16^3 grid), both exports at once so
// that the PLY files can be held against the USD file's samples.
TEST(SurfaceExport, UsdMeshHasASampleForEveryParticleFrameClosedAndMatchingThePly) {
    TempDir dir("surface-usd");
    const std::string usd = dir / "f.usda", meshes = dir / "meshes";
    const auto r = run_program("flip_drop --headless --set resolution=16 --steps 3 --export " +
                               usd + " --surface --export-mesh " + meshes);
    ASSERT_EQ(r.status, 0) << r.output;
    const std::string text = read_file(usd);
    const auto points_prim = text.find("    def Points \"particles\"\n");
    const auto mesh_prim = text.find("    def Mesh \"surface\"\n");
    ASSERT_NE(points_prim, std::string::npos);
    ASSERT_NE(mesh_prim, std::string::npos) << "no Mesh /World/surface";
    EXPECT_GT(mesh_prim, points_prim) << "the surface sits beside the particles, under /World";
    EXPECT_NE(text.find("        uniform token subdivisionScheme = \"none\"\n", mesh_prim),
              std::string::npos);
    EXPECT_NE(text.find("        uniform token orientation = \"rightHanded\"\n", mesh_prim),
              std::string::npos);
    // The velocity at each vertex as the mesh's velocities (motion blur), the fields as primvars.
    EXPECT_NE(text.find("        vector3f[] velocities.timeSamples = {\n", mesh_prim), std::string::npos);
    EXPECT_NE(text.find("        float[] primvars:speed.timeSamples = {\n", mesh_prim), std::string::npos);
    long depth = 0;
    for (char c : text) depth += (c == '{') - (c == '}');
    EXPECT_EQ(depth, 0) << "balanced braces";
    EXPECT_TRUE(text.ends_with("    }\n}\n"));

    const std::string points_decl = "point3f[] points";
    const auto particles = samples(text, "def Points \"particles\"", points_decl);
    const auto widths = samples(text, "def Points \"particles\"", "float[] widths");
    const auto mesh_points = samples(text, "def Mesh \"surface\"", points_decl);
    const auto counts = samples(text, "def Mesh \"surface\"", "int[] faceVertexCounts");
    const auto indices = samples(text, "def Mesh \"surface\"", "int[] faceVertexIndices");
    ASSERT_EQ(particles.size(), 4u) << "frame 0 and one frame a step";
    for (const auto* s : {&mesh_points, &counts, &indices}) {
        ASSERT_EQ(s->size(), particles.size());
        for (auto a = s->begin(), b = particles.begin(); a != s->end(); ++a, ++b)
            EXPECT_EQ(a->first, b->first) << "the surface's time codes are the particles'";
    }
    for (const auto& [frame, pts] : mesh_points) {
        SCOPED_TRACE("time code " + std::to_string(frame));
        const std::vector<float> p = floats(pts);
        const std::vector<int> c = ints(counts.at(frame)), tri = ints(indices.at(frame));
        ASSERT_EQ(p.size() % 3, 0u);
        ASSERT_GT(c.size(), 100u) << "a surface of some size";
        EXPECT_TRUE(std::all_of(c.begin(), c.end(), [](int n) { return n == 3; }))
            << "every face a triangle";
        ASSERT_EQ(tri.size(), 3 * c.size()) << "faceVertexIndices holds faceVertexCounts' sum";
        EXPECT_EQ(closed_fault(p.size() / 3, tri), "");
        // The liquid: the pool (0.6 x 0.1 x 0.6 m) and the falling cube (0.2 m a side). Its
        // particles hold N h^3 of liquid, h = width = twice the radius; the mesh is the smoothed
        // surface around them, which rounds edges a few cells wide (at 16 cells across the cube
        // is 5 cells and the pool 2.7 deep), so it encloses somewhat less: 87% at these settings.
        const double h = numbers(widths.at(frame)).at(0);
        const double liquid = static_cast<double>(std::count(particles.at(frame).begin(),
                                                             particles.at(frame).end(), '(')) *
                              h * h * h;
        const double v = signed_volume(p, tri);
        EXPECT_GT(v, 0.75 * liquid)
            << "faces point out and enclose the liquid (N h^3 = " << liquid << " m^3)";
        EXPECT_LT(v, 1.05 * liquid) << "N h^3 = " << liquid << " m^3";

        // --export-mesh's file of the same frame (step = time code here) is the same mesh.
        char name[40];
        std::snprintf(name, sizeof name, "/surface_%04d.ply", frame + 1);
        const Ply ply = read_ply(meshes + name);
        EXPECT_EQ(ply.triangles, tri);
        EXPECT_EQ(ply.points, p) << "the USD text's %.9g gives every float back exactly";
        EXPECT_NE(ply.comment.find("flip_drop"), std::string::npos) << ply.comment;
    }
    EXPECT_TRUE(std::filesystem::is_regular_file(meshes + "/surface_0004.ply")) << "frames numbered from 1";
    for (const auto& f : std::filesystem::directory_iterator(dir.path))
        EXPECT_FALSE(f.path().string().ends_with(".part"))
            << "temporary part left behind: " << f.path();
    const std::size_t last = ints(counts.rbegin()->second).size();
    EXPECT_NE(r.output.find("surface (smooth): 4 mesh(es), the last " + std::to_string(last) + " triangles"),
              std::string::npos)
        << r.output;
}

// --export-mesh alone: one PLY file per exported frame, numbered from 1 as Blender numbers a
// sequence's frames, in a folder it makes (nested); each parses, holds the faces its header
// says, is closed, and carries the velocity (vx vy vz) and --export-fields' fields.
TEST(SurfaceExport, ExportMeshWritesOneClosedPlyPerExportedFrame) {
    TempDir dir("surface-ply");
    const std::string folder = dir / "out/meshes";
    const auto r = run_program(
        "flip_dam_break --headless --set resolution=16 --steps 4 --export-every 2 --export-mesh " +
        folder);
    ASSERT_EQ(r.status, 0) << r.output;
    std::vector<std::string> names;
    for (const auto& f : std::filesystem::directory_iterator(folder))
        names.push_back(f.path().filename().string());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"surface_0001.ply", "surface_0002.ply", "surface_0003.ply"}))
        << "step 0, then every 2 steps";
    int last = 0;
    for (const std::string& name : names) {
        SCOPED_TRACE(name);
        Ply ply;
        ASSERT_NO_THROW(ply = read_ply(folder + "/" + name));
        ASSERT_GT(ply.triangles.size(), 300u);
        EXPECT_EQ(closed_fault(ply.points.size() / 3, ply.triangles), "");
        EXPECT_GT(signed_volume(ply.points, ply.triangles), 0.0)
            << "counter-clockwise seen from outside";
        EXPECT_EQ(ply.extra, (std::vector<std::string>{"vx", "vy", "vz", "speed", "pressure"}))
            << "the velocity, then --export-fields' (all: speed, pressure)";
        last = static_cast<int>(ply.triangles.size() / 3);
    }
    EXPECT_NE(r.output.find("surface (smooth): 3 mesh(es), the last " + std::to_string(last) + " triangles"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("3 PLY file(s) in " + folder), std::string::npos) << r.output;
}

// The writers' exact text. Without a surface the USD layer is byte for byte what it was before
// the surface existed (this text was written by that writer); with one, the Mesh prim follows the
// Points prim.
TEST(SurfaceExport, UsdWriterTextWithAndWithoutTheSurface) {
    TempDir dir("surface-writer");
    const std::string before =
        "#usda 1.0\n"
        "(\n"
        "    defaultPrim = \"World\"\n"
        "    doc = \"a  test  layer\"\n"
        "    endTimeCode = 1\n"
        "    framesPerSecond = 24\n"
        "    metersPerUnit = 1\n"
        "    startTimeCode = 0\n"
        "    timeCodesPerSecond = 24\n"
        "    upAxis = \"Y\"\n"
        ")\n"
        "\n"
        "def Xform \"World\"\n"
        "{\n"
        "    def Points \"particles\"\n"
        "    {\n"
        "        point3f[] points.timeSamples = {\n"
        "            0: [(0, 0, 0), (1, 0.5, 0.25)],\n"
        "            1: [(0, -0.5, 0), (1, 0, 0.25)],\n"
        "        }\n"
        "        vector3f[] velocities.timeSamples = {\n"
        "            0: [(1, 0, 0), (0, 0, -1)],\n"
        "            1: [(1, 0, 0), (0, 0, -2)],\n"
        "        }\n"
        "        float[] widths.timeSamples = {\n"
        "            0: [0.1, 0.1],\n"
        "            1: [0.1, 0.1],\n"
        "        }\n"
        "        int64[] ids.timeSamples = {\n"
        "            0: [0, 1],\n"
        "            1: [0, 1],\n"
        "        }\n"
        "        float[] primvars:pressure (\n"
        "            interpolation = \"vertex\"\n"
        "        )\n"
        "        float[] primvars:pressure.timeSamples = {\n"
        "            0: [1.5, 2.5],\n"
        "            1: [3, 4],\n"
        "        }\n"
        "    }\n"
        "}\n";
    // A tetrahedron, counter-clockwise seen from outside, and the same with its top moved.
    fs::SurfaceMesh tet{{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3}, {}};
    fs::SurfaceMesh tet2 = tet;
    tet2.points[11] = 0.5f;
    auto write = [&](const std::string& path, bool surface) {
        fs::UsdPointsWriter w(path, "a \"test\"\nlayer");
        w.add_frame(3, {0, 0, 0, 1, 0.5, 0.25}, {1, 0, 0, 0, 0, -1}, {0.1, 0.1}, {0, 1},
                    {{"pressure", 1, {1.5, 2.5}}});
        if (surface) w.add_surface(tet);
        w.add_frame(3, {0, -0.5, 0, 1, 0, 0.25}, {1, 0, 0, 0, 0, -2}, {0.1, 0.1}, {0, 1},
                    {{"pressure", 1, {3, 4}}});
        if (surface) w.add_surface(tet2);
        w.close();
    };
    write(dir / "plain.usda", false);
    EXPECT_EQ(read_file(dir / "plain.usda"), before);
    write(dir / "surface.usda", true);
    const std::string mesh =
        "\n"
        "    def Mesh \"surface\"\n"
        "    {\n"
        "        uniform token orientation = \"rightHanded\"\n"
        "        uniform token subdivisionScheme = \"none\"\n"
        "        int[] faceVertexCounts.timeSamples = {\n"
        "            0: [3, 3, 3, 3],\n"
        "            1: [3, 3, 3, 3],\n"
        "        }\n"
        "        int[] faceVertexIndices.timeSamples = {\n"
        "            0: [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3],\n"
        "            1: [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3],\n"
        "        }\n"
        "        point3f[] points.timeSamples = {\n"
        "            0: [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)],\n"
        "            1: [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 0.5)],\n"
        "        }\n"
        "    }\n";
    std::string with = before;
    with.insert(with.size() - 2, mesh);  // before the closing "}\n" of /World
    EXPECT_EQ(read_file(dir / "surface.usda"), with);
    EXPECT_EQ(closed_fault(4, tet.triangles), "");
    EXPECT_NEAR(signed_volume(tet.points, tet.triangles), 1.0 / 6.0, 1e-12)
        << "the test's tetrahedron faces out";
}

TEST(SurfaceExport, UsdWriterRefusesASurfaceOutOfTurn) {
    TempDir dir("surface-turn");
    const fs::SurfaceMesh tet{{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1},
                              {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3}, {}};
    const std::vector<double> p = {0, 0, 0}, v = {0, 0, 0}, w = {1}, id = {0};
    {
        fs::UsdPointsWriter usd(dir / "a.usda", "");
        EXPECT_THROW(usd.add_surface(tet), std::logic_error) << "before its frame";
    }
    {
        fs::UsdPointsWriter usd(dir / "b.usda", "");
        usd.add_frame(3, p, v, w, id);
        usd.add_surface(tet);
        EXPECT_THROW(usd.add_surface(tet), std::logic_error) << "twice for one frame";
        usd.add_frame(3, p, v, w, id);
        EXPECT_THROW(usd.add_frame(3, p, v, w, id), std::logic_error)
            << "a frame without its surface";
    }
    {
        fs::UsdPointsWriter usd(dir / "c.usda", "");
        usd.add_frame(3, p, v, w, id);
        usd.add_frame(3, p, v, w, id);
        EXPECT_THROW(usd.add_surface(tet), std::logic_error) << "starting after the first frame";
    }
}

TEST(SurfaceExport, PlyWriterBytesAndItsErrorNamesTheFile) {
    TempDir dir("surface-ply-writer");
    const fs::SurfaceMesh tet{{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0.5f, 1},
                              {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3}, {}};
    fs::write_ply(dir / "t.ply", tet, "a\ntetrahedron");
    const std::string b = read_file(dir / "t.ply");
    const std::string header =
        "ply\nformat binary_little_endian 1.0\ncomment a tetrahedron\nelement vertex 4\nproperty "
        "float x\n"
        "property float y\nproperty float z\nelement face 4\nproperty list uchar int "
        "vertex_indices\nend_header\n";
    ASSERT_EQ(b.substr(0, header.size()), header);
    ASSERT_EQ(b.size(), header.size() + 4 * 12 + 4 * 13);
    // 0.5f is 0x3f000000 and 1.0f 0x3f800000, least significant byte first.
    EXPECT_EQ(b.substr(header.size() + 40, 8), std::string("\x00\x00\x00\x3f\x00\x00\x80\x3f", 8));
    EXPECT_EQ(b.substr(header.size() + 48, 13),
              std::string("\x03\x00\x00\x00\x00\x02\x00\x00\x00\x01\x00\x00\x00", 13));
    const Ply ply = read_ply(dir / "t.ply");
    EXPECT_EQ(ply.points, tet.points);
    EXPECT_EQ(ply.triangles, tet.triangles);
    try {
        fs::write_ply("/no/such/folder/t.ply", tet, "");
        ADD_FAILURE() << "wrote into a folder that does not exist";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("/no/such/folder/t.ply"), std::string::npos)
            << e.what();
    }
}

// ---- Bad input: exit status 2, nothing on stdout, one line naming the option and what is allowed,
// and nothing written ----

struct Output {
    int status = -1;
    std::string out, err;
};

// Runs the program with stdout and stderr into files of `dir` (program.hpp's helper joins them).
Output run_apart(const std::string& args, const TempDir& dir) {
    const std::string out = dir / "stdout", err = dir / "stderr";
    const int raw =
        std::system((std::string(FS_EXE) + " " + args + " >'" + out + "' 2>'" + err + "'").c_str());
    Output r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
}

struct Refusal {
    const char* args;  // DIR and FILE are put in the test's folder
    const char* option;
    std::vector<const char*> says;
};

TEST(SurfaceExport, BadInputExitsWith2AndOneLineNamingTheOption) {
    const Refusal cases[] = {
        {"flip_drop --headless --surface",
         "--surface",
         {"--export FILE.usda", "--export-mesh DIR"}},
        {"sph_dam_break --headless --export-mesh DIR",
         "--export-mesh",
         {"the surface mesh needs a 3D liquid (flip)", "sph", "2D"}},
        {"euler_tutorial --headless --export DIR.usda --surface",
         "--surface",
         {"needs a 3D liquid (flip)", "euler"}},
        {"ot_drop --headless --export-mesh DIR",
         "--export-mesh",
         {"needs a 3D liquid (flip)", "ot solver"}},
        {"vortex_ring --headless --export DIR.usda --surface --export-mesh DIR",
         "--surface and --export-mesh",
         {"needs a 3D liquid (flip)", "vortex solver's particles are not a liquid"}},
        {"flip_drop --headless --export-mesh FILE",
         "--export-mesh",
         {"exists and is not a folder", "expected a folder"}},
        {"flip_drop --headless --export-mesh FILE/sub",
         "--export-mesh",
         {"cannot create the folder", "is not a folder"}},
        {"flip_drop --export-mesh DIR",
         "--export-mesh",
         {"belongs to headless runs", "allowed: with --headless"}},
    };
    for (const Refusal& c : cases) {
        TempDir dir("surface-bad");
        const std::string file = dir.file("FILE", "a file, not a folder");
        std::string args = std::regex_replace(c.args, std::regex("FILE"), file);
        args = std::regex_replace(args, std::regex("DIR"), dir / "DIR");
        SCOPED_TRACE(args);
        const Output r = run_apart(args + " --steps 1", dir);
        EXPECT_EQ(r.status, 2);
        EXPECT_EQ(r.out, "") << "bad input prints nothing on stdout";
        const std::string& err = r.err;
        EXPECT_EQ(fs_test::count_lines(err), 1) << err;
        EXPECT_EQ(err.rfind("fluid-sandbox: " + std::string(c.option), 0), 0u)
            << "names the option first: " << err;
        for (const char* s : c.says)
            EXPECT_NE(err.find(s), std::string::npos) << "says " << s << ": " << err;
        EXPECT_FALSE(std::filesystem::exists(dir / "DIR")) << "refused before any folder is made";
        EXPECT_FALSE(std::filesystem::exists(dir / "DIR.usda"))
            << "refused before any file is written";
    }
}

}  // namespace
