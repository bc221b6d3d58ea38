#include "io/scene.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <new>
#include <sstream>

#include "core/params.hpp"

namespace fs {

namespace {

const std::vector<std::string> kTopKeys = {"solver", "title", "description", "color_field", "params"};

// 1-based line and column of a byte offset, for JSON syntax errors.
std::string line_col(const std::string& text, std::size_t byte) {
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

std::string type_of(const nlohmann::json& j) {
    const std::string t = j.type_name();
    return (t == "array" || t == "object" ? "an " : "a ") + t;
}

// Parses JSON, keeping the key path reached ("params.gravity_direction[1]") for the message
// when the text is not valid JSON. nlohmann's callback gives every key, container and value
// with its depth (the top-level value has depth 0, the members of an object at depth d have d + 1).
nlohmann::json parse_tracking_path(const std::string& text, std::string& path_out) {
    using Event = nlohmann::json::parse_event_t;
    struct Level {
        bool array = false;
        long long next = 0;  // the index of an array's next element
    };
    std::vector<Level> open;          // the containers around the current element
    std::vector<std::string> path;    // path[d - 1] names the element at depth d
    auto element = [&](int depth) {   // an array element starts at `depth`
        const auto parent = static_cast<std::size_t>(depth - 1);
        if (depth < 1 || parent >= open.size() || !open[parent].array) return;
        path.resize(parent);
        path.push_back(std::to_string(open[parent].next++));
        path.back().insert(0, 1, '[');  // (not "[" + ...: GCC 12 warns of a false -Wrestrict)
        path.back() += ']';
    };
    const auto track = [&](int depth, Event event, nlohmann::json& parsed) {
        const auto d = static_cast<std::size_t>(depth);
        switch (event) {
            case Event::key:
                path.resize(d - 1);
                path.push_back(parsed.get<std::string>());
                break;
            case Event::object_start:
            case Event::array_start:
                element(depth);
                open.resize(d);
                open.push_back({event == Event::array_start, 0});
                break;
            case Event::object_end:
            case Event::array_end:
                open.resize(d);
                if (path.size() > d) path.resize(d);
                break;
            case Event::value:
                element(depth);
                break;
        }
        return true;
    };
    try {
        return nlohmann::json::parse(text, track);
    } catch (...) {
        // Inside an array, the element that failed is the one after the last that parsed.
        if (!open.empty() && open.back().array) element(static_cast<int>(open.size()));
        for (const std::string& seg : path)
            path_out += (path_out.empty() || seg.starts_with('[') ? "" : ".") + seg;
        throw;
    }
}

std::string get_string(const nlohmann::json& doc, const std::string& key, const std::string& path) {
    auto it = doc.find(key);
    if (it == doc.end()) return "";
    if (!it->is_string())
        throw SceneError(path + ": " + key + ": expected a string, got " + type_of(*it));
    return it->get<std::string>();
}

}  // namespace

std::string one_line(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    auto escape = [&out](unsigned char c) {
        static const char* const hex = "0123456789abcdef";
        if (c == '\n')
            out += "\\n";
        else if (c == '\t')
            out += "\\t";
        else
            out += {'\\', 'x', hex[c >> 4], hex[c & 15]};
    };
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        // The length of a UTF-8 sequence from its lead byte; 0 for a byte that cannot lead one.
        const std::size_t len = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
                              : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        bool valid = len > 0 && i + len <= text.size();
        for (std::size_t k = 1; valid && k < len; ++k) valid = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
        if (!valid || (len == 1 && (c < 0x20 || c == 0x7F))) {
            escape(c);
            ++i;
        } else {
            out.append(text.substr(i, len));
            i += len;
        }
    }
    return out;
}

Scene parse_scene(const std::string& text, const std::string& path,
                  const std::vector<std::string>& solver_names) {
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        throw SceneError(path + ": empty file (expected a JSON object with \"solver\" and \"params\")");
    nlohmann::json doc;
    std::string at;  // the key path where the JSON broke, when inside some object
    try {
        doc = parse_tracking_path(text, at);
    } catch (const nlohmann::json::parse_error& e) {
        std::string what = e.what();
        // nlohmann's message: "[json.exception.parse_error.101] parse error at line 1, column 2:
        // syntax error while parsing ... - invalid literal; last read: 'x'"; keep what follows
        // the last ": " detail, with our own position.
        const auto cut = what.find("syntax error");
        if (cut != std::string::npos) what = what.substr(cut);
        if (what.find("invalid literal") != std::string::npos)
            what += " (a value is a number, a \"string\", true, false, null, an [array] or an {object}; "
                    "NaN and Infinity are not JSON)";
        throw SceneError(path + ": not valid JSON at " + line_col(text, e.byte ? e.byte - 1 : 0) +
                         (at.empty() ? "" : ", in " + at) + ": " + what);
    } catch (const nlohmann::json::exception& e) {
        // e.g. out_of_range.406 "number overflow parsing '1e999'"
        std::string what = e.what();
        if (const auto cut = what.find("] "); cut != std::string::npos) what = what.substr(cut + 2);
        throw SceneError(path + ": not valid JSON: " + what + " (numbers must be finite)" +
                         (at.empty() ? "" : ", in " + at));
    }
    if (!doc.is_object())
        throw SceneError(path + ": expected a JSON object at the top level, got " + type_of(doc));
    for (const auto& [key, value] : doc.items()) {
        (void)value;
        if (std::find(kTopKeys.begin(), kTopKeys.end(), key) == kTopKeys.end()) {
            const std::string guess = did_you_mean(key, kTopKeys);
            throw SceneError(path + ": " + key + ": unknown key" +
                             (guess.empty() ? "" : "; did you mean '" + guess + "'?") +
                             " (allowed: " + join(kTopKeys) + ")");
        }
    }
    Scene scene;
    scene.path = path;
    if (!doc.contains("solver"))
        throw SceneError(path + ": solver: missing (a scene must name its solver, one of: " + join(solver_names) + ")");
    scene.solver = get_string(doc, "solver", path);
    if (std::find(solver_names.begin(), solver_names.end(), scene.solver) == solver_names.end()) {
        const std::string guess = did_you_mean(scene.solver, solver_names);
        throw SceneError(path + ": solver: unknown solver \"" + scene.solver + "\"" +
                         (guess.empty() ? "" : "; did you mean \"" + guess + "\"?") +
                         " (allowed: " + join(solver_names) + ")");
    }
    scene.title = get_string(doc, "title", path);
    scene.description = get_string(doc, "description", path);
    scene.color_field = get_string(doc, "color_field", path);
    if (auto it = doc.find("params"); it != doc.end()) {
        if (!it->is_object())
            throw SceneError(path + ": params: expected an object of parameter name -> value, got " +
                             type_of(*it));
        scene.params = *it;
    }
    return scene;
}

Scene load_scene(const std::string& path, const std::vector<std::string>& solver_names) {
    // Only a regular file of a scene's size: a device (/dev/zero) would be read forever, and a
    // folder would read as empty.
    namespace stdfs = std::filesystem;
    std::error_code ec;
    const stdfs::file_status st = stdfs::status(path, ec);
    if (stdfs::exists(st) && !stdfs::is_regular_file(st))
        throw SceneError(path + ": not a regular file (" +
                         (stdfs::is_directory(st) ? std::string("a folder") : std::string("a device, pipe or socket")) +
                         "; expected a scene file, JSON)");
    if (stdfs::exists(st)) {
        const auto bytes = stdfs::file_size(path, ec);
        if (!ec && bytes > kMaxSceneBytes)
            throw SceneError(path + ": " + std::to_string(bytes) + " bytes, more than a scene file holds (at most " +
                             std::to_string(kMaxSceneBytes) + ")");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw SceneError(path + ": cannot open the scene file (no such file, or not readable)");
    std::ostringstream buf;
    buf << in.rdbuf();
    if (in.bad()) throw SceneError(path + ": cannot read the scene file");
    return parse_scene(buf.str(), path, solver_names);
}

void apply_scene_params(Solver& solver, const Scene& scene, const std::vector<std::string>& sets,
                        const nlohmann::json& values) {
    if (!scene.color_field.empty()) {
        std::vector<std::string> names;
        for (const FieldInfo& f : solver.fields())
            if (f.name != "position") names.push_back(f.name);
        if (std::find(names.begin(), names.end(), scene.color_field) == names.end()) {
            const std::string guess = did_you_mean(scene.color_field, names);
            throw SceneError(scene.path + ": color_field: the " + scene.solver + " solver has no field \"" +
                             scene.color_field + "\"" + (guess.empty() ? "" : "; did you mean \"" + guess + "\"?") +
                             " (allowed: " + join(names) + ")");
        }
    }
    ParamRegistry& reg = solver.params();
    for (const auto& [key, value] : scene.params.items()) {
        try {
            reg.at(key).set_json(value);
        } catch (const ParamError& e) {
            throw SceneError(scene.path + ": params." + key + ": " + e.what());
        }
    }
    for (const std::string& assignment : sets) {
        const auto eq = assignment.find('=');
        if (eq == std::string::npos || eq == 0)
            throw SceneError("--set " + assignment + ": expected NAME=VALUE (see --list-params)");
        try {
            reg.at(assignment.substr(0, eq)).set_text(assignment.substr(eq + 1));
        } catch (const ParamError& e) {
            throw SceneError("--set " + assignment + ": " + e.what());
        }
    }
    if (values.is_object())
        for (const auto& [key, value] : values.items()) {
            try {
                reg.at(key).set_json(value);
            } catch (const ParamError& e) {
                throw SceneError("set['" + key + "']: " + e.what());
            }
        }
}

void reset_solver(Solver& solver, const Scene& scene, const std::vector<std::string>& sets,
                  const nlohmann::json& values) {
    try {
        solver.reset();
    } catch (const ParamError& e) {
        const std::string what = e.what();
        const auto colon = what.find(": ");
        const std::string key = colon == std::string::npos ? "" : what.substr(0, colon);
        if (key.empty() || !solver.params().find(key)) throw SceneError(scene.path + ": params: " + what);
        if (values.is_object() && values.contains(key)) throw SceneError("set['" + key + "']" + what.substr(key.size()));
        for (auto it = sets.rbegin(); it != sets.rend(); ++it)
            if (it->rfind(key + "=", 0) == 0) throw SceneError("--set " + *it + what.substr(key.size()));
        throw SceneError(scene.path + ": params." + what);
    } catch (const std::bad_alloc&) {
        throw SceneError(scene.path + ": params: the initial state does not fit in memory (std::bad_alloc); "
                         "allowed: fewer particles or a coarser grid");
    }
}

nlohmann::json scene_to_json(const Solver& solver, const Scene& scene) {
    nlohmann::json doc = nlohmann::json::object();
    doc["solver"] = std::string(solver.kind());
    if (!scene.title.empty()) doc["title"] = scene.title;
    if (!scene.description.empty()) doc["description"] = scene.description;
    if (!scene.color_field.empty()) doc["color_field"] = scene.color_field;
    doc["params"] = solver.params().to_json();
    return doc;
}

}  // namespace fs
