#include "io/usd_writer.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace fs {

namespace {

std::FILE* open_or_throw(const std::string& path, const char* mode) {
    std::FILE* f = std::fopen(path.c_str(), mode);
    if (!f) throw std::runtime_error(path + ": cannot create the file");
    return f;
}

void write_vectors(std::FILE* f, int frame, int dim, const std::vector<double>& v) {
    std::fprintf(f, "            %d: [", frame);
    const std::size_t n = dim > 0 ? v.size() / static_cast<std::size_t>(dim) : 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double* p = &v[i * static_cast<std::size_t>(dim)];
        std::fprintf(f, "%s(%.9g, %.9g, %.9g)", i ? ", " : "", p[0], p[1], dim > 2 ? p[2] : 0.0);
    }
    std::fputs("],\n", f);
}

void write_scalars(std::FILE* f, int frame, const std::vector<double>& v, const char* format) {
    std::fprintf(f, "            %d: [", frame);
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i) std::fputs(", ", f);
        std::fprintf(f, format, v[i]);
    }
    std::fputs("],\n", f);
}

void write_points(std::FILE* f, int frame, const std::vector<float>& xyz) {
    std::fprintf(f, "            %d: [", frame);
    for (std::size_t i = 0; i + 2 < xyz.size(); i += 3)
        std::fprintf(f, "%s(%.9g, %.9g, %.9g)", i ? ", " : "", xyz[i], xyz[i + 1], xyz[i + 2]);
    std::fputs("],\n", f);
}

void write_ints(std::FILE* f, int frame, const std::vector<int>& v) {
    std::fprintf(f, "            %d: [", frame);
    for (std::size_t i = 0; i < v.size(); ++i) std::fprintf(f, i ? ", %d" : "%d", v[i]);
    std::fputs("],\n", f);
}

// Copies a part file into `out` and removes it.
void append_part(std::FILE* out, const std::string& part) {
    std::FILE* in = open_or_throw(part, "rb");
    char buf[1 << 16];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, in)) > 0) std::fwrite(buf, 1, n, out);
    std::fclose(in);
    std::remove(part.c_str());
}

}  // namespace

UsdPointsWriter::UsdPointsWriter(const std::string& path, std::string comment)
    : path_(path), comment_(std::move(comment)) {
    // Fail early if the target cannot be written at all.
    std::fclose(open_or_throw(path_, "wb"));
    for (auto [part, suffix] : {std::pair{&points_, ".points"}, {&velocities_, ".velocities"},
                                {&widths_, ".widths"}, {&ids_, ".ids"}}) {
        part->path = path_ + suffix + ".part";
        part->file = open_or_throw(part->path, "wb");
    }
}

UsdPointsWriter::~UsdPointsWriter() {
    try {
        close();
    } catch (...) {
        // A destructor must not throw; close() explicitly to see the error.
    }
}

void UsdPointsWriter::add_frame(int dim, const std::vector<double>& positions,
                                const std::vector<double>& velocities,
                                const std::vector<double>& widths, const std::vector<double>& ids,
                                const std::vector<Primvar>& primvars) {
    if (closed_) throw std::logic_error("UsdPointsWriter: add_frame after close");
    if (frames_ == 0) {
        for (const Primvar& p : primvars) {
            PrimvarPart pp{p.name, p.components == 1 ? 1 : 3, {}};
            pp.part.path = path_ + ".primvar-" + p.name + ".part";
            pp.part.file = open_or_throw(pp.part.path, "wb");
            primvars_.push_back(std::move(pp));
        }
    }
    if (surface_frames_ > 0 && surface_frames_ != frames_)
        throw std::logic_error("UsdPointsWriter: a frame without its add_surface");
    if (primvars.size() != primvars_.size())
        throw std::logic_error("UsdPointsWriter: every frame carries the first frame's primvars");
    for (std::size_t k = 0; k < primvars.size(); ++k) {
        const Primvar& p = primvars[k];
        if (primvars_[k].components == 1)
            write_scalars(primvars_[k].part.file, frames_, p.values, "%.9g");
        else
            write_vectors(primvars_[k].part.file, frames_, p.components, p.values);
    }
    write_vectors(points_.file, frames_, dim, positions);
    write_vectors(velocities_.file, frames_, dim, velocities);
    write_scalars(widths_.file, frames_, widths, "%.9g");
    write_scalars(ids_.file, frames_, ids, "%.0f");
    ++frames_;
}

void UsdPointsWriter::add_surface(const SurfaceMesh& mesh) {
    if (closed_) throw std::logic_error("UsdPointsWriter: add_surface after close");
    if (surface_frames_ != frames_ - 1)
        throw std::logic_error("UsdPointsWriter: add_surface once per frame, after its add_frame, from the first");
    if (surface_frames_ == 0) {
        for (auto [part, suffix] : {std::pair{&surface_points_, ".surface-points"},
                                    {&surface_counts_, ".surface-counts"},
                                    {&surface_indices_, ".surface-indices"}}) {
            part->path = path_ + suffix + ".part";
            part->file = open_or_throw(part->path, "wb");
        }
        for (const VertexField& f : mesh.fields) {
            PrimvarPart p{f.name, f.components, {path_ + ".surface-" + f.name + ".part", nullptr}};
            p.part.file = open_or_throw(p.part.path, "wb");
            surface_fields_.push_back(std::move(p));
        }
    }
    if (mesh.fields.size() != surface_fields_.size())
        throw std::logic_error("UsdPointsWriter: every surface carries the first surface's fields");
    const int frame = frames_ - 1;
    for (std::size_t k = 0; k < mesh.fields.size(); ++k) {
        const VertexField& f = mesh.fields[k];
        const std::vector<double> values(f.values.begin(), f.values.end());
        if (f.components == 1)
            write_scalars(surface_fields_[k].part.file, frame, values, "%.9g");
        else
            write_vectors(surface_fields_[k].part.file, frame, f.components, values);
    }
    write_points(surface_points_.file, frame, mesh.points);
    // Every face a triangle: 3 vertices each.
    std::fprintf(surface_counts_.file, "            %d: [", frame);
    for (int t = 0; t < mesh.triangle_count(); ++t) std::fputs(t ? ", 3" : "3", surface_counts_.file);
    std::fputs("],\n", surface_counts_.file);
    write_ints(surface_indices_.file, frame, mesh.triangles);
    ++surface_frames_;
}

void UsdPointsWriter::close() {
    if (closed_) return;
    closed_ = true;
    std::vector<Part*> parts = {&points_, &velocities_, &widths_, &ids_};
    for (PrimvarPart& p : primvars_) parts.push_back(&p.part);
    if (surface_frames_ > 0) {
        for (Part* p : {&surface_points_, &surface_counts_, &surface_indices_}) parts.push_back(p);
        for (PrimvarPart& p : surface_fields_) parts.push_back(&p.part);
    }
    for (Part* p : parts) {
        if (std::fclose(p->file) != 0) throw std::runtime_error(p->path + ": write failed");
        p->file = nullptr;
    }
    std::FILE* out = open_or_throw(path_, "wb");
    std::string doc = comment_;
    for (char& c : doc)
        if (c == '"' || c == '\\' || c == '\n') c = ' ';
    std::fprintf(out,
                 "#usda 1.0\n"
                 "(\n"
                 "    defaultPrim = \"World\"\n"
                 "    doc = \"%s\"\n"
                 "    endTimeCode = %d\n"
                 "    framesPerSecond = 24\n"
                 "    metersPerUnit = 1\n"
                 "    startTimeCode = 0\n"
                 "    timeCodesPerSecond = 24\n"
                 "    upAxis = \"Y\"\n"
                 ")\n\n"
                 "def Xform \"World\"\n"
                 "{\n"
                 "    def Points \"particles\"\n"
                 "    {\n",
                 doc.c_str(), frames_ > 0 ? frames_ - 1 : 0);
    const std::pair<const char*, const Part*> attrs[] = {
        {"point3f[] points", &points_},
        {"vector3f[] velocities", &velocities_},
        {"float[] widths", &widths_},
        {"int64[] ids", &ids_}};
    for (const auto& [decl, part] : attrs) {
        std::fprintf(out, "        %s.timeSamples = {\n", decl);
        append_part(out, part->path);
        std::fputs("        }\n", out);
    }
    // A primvar's interpolation is metadata of its declaration; its samples follow (USD's own
    // text form of a time-sampled attribute with metadata).
    for (const PrimvarPart& p : primvars_) {
        const char* type = p.components == 1 ? "float[]" : "vector3f[]";
        std::fprintf(out, "        %s primvars:%s (\n            interpolation = \"vertex\"\n        )\n", type,
                     p.name.c_str());
        std::fprintf(out, "        %s primvars:%s.timeSamples = {\n", type, p.name.c_str());
        append_part(out, p.part.path);
        std::fputs("        }\n", out);
    }
    std::fputs("    }\n", out);
    if (surface_frames_ > 0) {
        // A UsdGeomMesh (openusd.org/release/api/class_usd_geom_mesh.html): faceVertexCounts
        // gives each face's vertex count and faceVertexIndices the faces' vertices in turn.
        // subdivisionScheme "none" keeps the triangles as they are (the default, catmullClark,
        // would smooth them as a control cage), and orientation "rightHanded" (UsdGeomGprim)
        // makes counter-clockwise faces face their right-hand normal: outward for the surface's
        // triangles.
        std::fputs("\n    def Mesh \"surface\"\n"
                   "    {\n"
                   "        uniform token orientation = \"rightHanded\"\n"
                   "        uniform token subdivisionScheme = \"none\"\n",
                   out);
        const std::pair<const char*, const Part*> mesh_attrs[] = {
            {"int[] faceVertexCounts", &surface_counts_},
            {"int[] faceVertexIndices", &surface_indices_},
            {"point3f[] points", &surface_points_}};
        for (const auto& [decl, part] : mesh_attrs) {
            std::fprintf(out, "        %s.timeSamples = {\n", decl);
            append_part(out, part->path);
            std::fputs("        }\n", out);
        }
        // The velocity at each vertex as UsdGeomPointBased's velocities (what renderers blur
        // motion by); other fields as vertex primvars, as the particles' are.
        for (const PrimvarPart& p : surface_fields_) {
            const char* type = p.components == 1 ? "float[]" : "vector3f[]";
            if (p.name == "velocity" && p.components == 3) {
                std::fputs("        vector3f[] velocities.timeSamples = {\n", out);
            } else {
                std::fprintf(out, "        %s primvars:%s (\n            interpolation = \"vertex\"\n        )\n", type,
                             p.name.c_str());
                std::fprintf(out, "        %s primvars:%s.timeSamples = {\n", type, p.name.c_str());
            }
            append_part(out, p.part.path);
            std::fputs("        }\n", out);
        }
        std::fputs("    }\n", out);
    }
    std::fputs("}\n", out);
    if (std::fclose(out) != 0) throw std::runtime_error(path_ + ": write failed");
}

std::vector<std::string> exportable_fields(const Solver& solver) {
    std::vector<std::string> out;
    for (const FieldInfo& f : solver.fields())
        if (f.name != "position" && f.name != "velocity" && f.name != "id") out.push_back(f.name);
    return out;
}

std::vector<std::string> chosen_fields(const std::string& choice, const Solver& solver) {
    const std::vector<std::string> all = exportable_fields(solver);
    if (choice == "all") return all;
    if (choice == "none") return {};
    std::vector<std::string> out;
    std::stringstream in(choice);
    std::string name;
    while (std::getline(in, name, ',')) {
        if (std::find(all.begin(), all.end(), name) == all.end())
            throw std::invalid_argument("the " + std::string(solver.kind()) + " solver has no field '" + name +
                                        "' to export (allowed: all, none, or a list of " + join(all) + ")");
        out.push_back(name);
    }
    return out;
}

void add_solver_frame(UsdPointsWriter& usd, const Solver& solver, const std::vector<std::string>& primvars) {
    std::vector<double> pos, vel, ids;
    solver.read_field("position", pos);
    solver.read_field("velocity", vel);
    solver.read_field("id", ids);
    const std::vector<double> widths(static_cast<std::size_t>(solver.particle_count()),
                                     2.0 * solver.particle_radius());
    std::vector<Primvar> extra;
    const std::vector<FieldInfo> fields = solver.fields();
    for (const std::string& name : primvars) {
        Primvar p{name, 1, {}};
        for (const FieldInfo& f : fields)
            if (f.name == name) p.components = f.components;
        solver.read_field(name, p.values);
        extra.push_back(std::move(p));
    }
    usd.add_frame(solver.dimension(), pos, vel, widths, ids, extra);
}

}  // namespace fs
