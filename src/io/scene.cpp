#include "io/scene.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "core/params.hpp"

namespace fs {

namespace {

const std::vector<std::string> kTopKeys = {"solver", "title", "description", "params"};

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

std::string get_string(const nlohmann::json& doc, const std::string& key, const std::string& path,
                       bool required) {
    auto it = doc.find(key);
    if (it == doc.end()) {
        if (required) throw SceneError(path + ": " + key + ": missing (a scene must name its solver)");
        return "";
    }
    if (!it->is_string())
        throw SceneError(path + ": " + key + ": expected a string, got " + type_of(*it));
    return it->get<std::string>();
}

}  // namespace

Scene parse_scene(const std::string& text, const std::string& path,
                  const std::vector<std::string>& solver_names) {
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        throw SceneError(path + ": empty file (expected a JSON object with \"solver\" and \"params\")");
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        std::string what = e.what();
        // nlohmann's message: "[json.exception.parse_error.101] parse error at line 1, column 2:
        // syntax error while parsing ... - invalid literal; last read: 'x'"; keep what follows
        // the last ": " detail, with our own position.
        const auto cut = what.find("syntax error");
        if (cut != std::string::npos) what = what.substr(cut);
        throw SceneError(path + ": not valid JSON at " + line_col(text, e.byte ? e.byte - 1 : 0) +
                         ": " + what);
    } catch (const nlohmann::json::exception& e) {
        // e.g. out_of_range.406 "number overflow parsing '1e999'"
        std::string what = e.what();
        if (const auto cut = what.find("] "); cut != std::string::npos) what = what.substr(cut + 2);
        throw SceneError(path + ": not valid JSON: " + what + " (numbers must be finite)");
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
    scene.solver = get_string(doc, "solver", path, true);
    if (std::find(solver_names.begin(), solver_names.end(), scene.solver) == solver_names.end()) {
        const std::string guess = did_you_mean(scene.solver, solver_names);
        throw SceneError(path + ": solver: unknown solver \"" + scene.solver + "\"" +
                         (guess.empty() ? "" : "; did you mean \"" + guess + "\"?") +
                         " (allowed: " + join(solver_names) + ")");
    }
    scene.title = get_string(doc, "title", path, false);
    scene.description = get_string(doc, "description", path, false);
    if (auto it = doc.find("params"); it != doc.end()) {
        if (!it->is_object())
            throw SceneError(path + ": params: expected an object of parameter name -> value, got " +
                             type_of(*it));
        scene.params = *it;
    }
    return scene;
}

Scene load_scene(const std::string& path, const std::vector<std::string>& solver_names) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw SceneError(path + ": cannot open the scene file (no such file, or not readable)");
    std::ostringstream buf;
    buf << in.rdbuf();
    if (in.bad()) throw SceneError(path + ": cannot read the scene file");
    return parse_scene(buf.str(), path, solver_names);
}

void apply_scene_params(Solver& solver, const Scene& scene, const std::vector<std::string>& sets) {
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
}

nlohmann::json scene_to_json(const Solver& solver, const Scene& scene) {
    nlohmann::json doc = nlohmann::json::object();
    doc["solver"] = std::string(solver.kind());
    if (!scene.title.empty()) doc["title"] = scene.title;
    if (!scene.description.empty()) doc["description"] = scene.description;
    doc["params"] = solver.params().to_json();
    return doc;
}

}  // namespace fs
