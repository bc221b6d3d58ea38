// What the keys do, independent of SDL: a key name (as SDL_GetKeyName spells it) maps to an
// action, and a key script (--keys) is a list of such names with waits, for tests and demos.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fs {

enum class Action {
    TimeStep,      // Space
    RunPause,      // P
    Reset,         // R
    GravityUp,     // W
    GravityLeft,   // A
    GravityDown,   // S
    GravityRight,  // D
    RotateCcw,     // Q (held: the barrier turns counter-clockwise)
    RotateCw,      // E
    FrameAll,      // F
    GridCells,     // G (cycles the cell overlay: off, slice, all)
    StepBack,      // B (back to the state before the last step)
    Screenshot,    // F12
    Record,        // V (start/stop)
    StopRecording, // Escape
    Help,          // F1
    Compare,       // C (the Compare view)
    Panels,        // Tab (hide / show every panel)
    LiquidView,    // L (a liquid as particles, its surface, both)
};

struct KeyBinding {
    const char* key;  // SDL key name
    Action action;
    const char* what;  // for the Help panel
};

const std::vector<KeyBinding>& key_bindings();
std::optional<Action> action_for_key(std::string_view sdl_key_name);

// The direction W/A/S/D turn gravity to, in the solver's dimension (y is up).
std::vector<double> gravity_direction_for(Action a, int dimension);

// A key script: "D +30 Q*10 F12" presses D, waits 30 frames, holds Q for 10 frames, presses F12.
// Every token takes one frame, "+N" takes N frames.
struct ScriptedFrame {
    std::vector<Action> actions;  // pressed during this frame (empty: a wait)
};
// Throws std::invalid_argument naming the bad token and what is allowed.
std::vector<ScriptedFrame> parse_key_script(std::string_view script);

}  // namespace fs
