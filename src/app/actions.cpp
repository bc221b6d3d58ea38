#include "app/actions.hpp"

#include <charconv>
#include <stdexcept>

namespace fs {

const std::vector<KeyBinding>& key_bindings() {
    static const std::vector<KeyBinding> bindings = {
        {"Space", Action::TimeStep, "TimeStep: run \"steps per push\" steps, then pause"},
        {"P", Action::RunPause, "run / pause"},
        {"R", Action::Reset, "reset (rebuilds with the current parameters)"},
        {"W", Action::GravityUp, "gravity up"},
        {"A", Action::GravityLeft, "gravity left"},
        {"S", Action::GravityDown, "gravity down"},
        {"D", Action::GravityRight, "gravity right"},
        {"Q", Action::RotateCcw, "turn the barrier anticlockwise (hold; where the scene has something to turn)"},
        {"E", Action::RotateCw, "turn the barrier clockwise (hold; where the scene has something to turn)"},
        {"F", Action::FrameAll, "frame all"},
        {"G", Action::GridCells, "grid cells: off, a slice, all (grid solvers)"},
        {"L", Action::LiquidView, "a liquid as particles, its surface, both, or (3D) its mesh, smoothed or not"},
        {"B", Action::StepBack, "step back to the state before the last step"},
        {"F12", Action::Screenshot, "screenshot (PNG)"},
        {"V", Action::Record, "start / stop video recording"},
        {"Escape", Action::StopRecording, "stop recording"},
        {"C", Action::Compare, "Compare: the simulation against a known answer (where the scene has one)"},
        {"Tab", Action::Panels, "hide / show every panel (the simulation gets the whole window)"},
        {"F1", Action::Help, "this help"},
    };
    return bindings;
}

std::optional<Action> action_for_key(std::string_view name) {
    for (const auto& b : key_bindings())
        if (name == b.key) return b.action;
    if (name == "Esc") return Action::StopRecording;
    return std::nullopt;
}

std::vector<double> gravity_direction_for(Action a, int dimension) {
    std::vector<double> d(static_cast<std::size_t>(dimension), 0.0);
    switch (a) {
        case Action::GravityUp: d[1] = 1.0; break;
        case Action::GravityDown: d[1] = -1.0; break;
        case Action::GravityLeft: d[0] = -1.0; break;
        case Action::GravityRight: d[0] = 1.0; break;
        default: return {};
    }
    return d;
}

std::vector<ScriptedFrame> parse_key_script(std::string_view script) {
    std::vector<ScriptedFrame> frames;
    auto number = [](std::string_view t, std::string_view token) {
        int n = 0;
        auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
        if (ec != std::errc() || p != t.data() + t.size() || n < 1 || n > 1000000)
            throw std::invalid_argument("--keys: \"" + std::string(token) +
                                        "\": expected a count from 1 to 1000000");
        return n;
    };
    std::size_t at = 0;
    while (at < script.size()) {
        while (at < script.size() && (script[at] == ' ' || script[at] == ',')) ++at;
        std::size_t end = at;
        while (end < script.size() && script[end] != ' ' && script[end] != ',') ++end;
        if (end == at) break;
        const std::string_view token = script.substr(at, end - at);
        at = end;
        if (token[0] == '+') {
            frames.resize(frames.size() + static_cast<std::size_t>(number(token.substr(1), token)));
            continue;
        }
        const std::size_t star = token.find('*');
        const std::string_view key = token.substr(0, star);
        const int repeat = star == std::string_view::npos ? 1 : number(token.substr(star + 1), token);
        const auto action = action_for_key(key);
        if (!action) {
            std::string keys;
            for (const auto& b : key_bindings()) keys += std::string(keys.empty() ? "" : ", ") + b.key;
            throw std::invalid_argument("--keys: unknown key \"" + std::string(key) + "\" (allowed: " +
                                        keys + ", +N to wait N frames, KEY*N to hold N frames)");
        }
        for (int k = 0; k < repeat; ++k) frames.push_back({{*action}});
    }
    return frames;
}

}  // namespace fs
