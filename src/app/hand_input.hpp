// HandInput: the mouse's hands in the window (core/hands.hpp). The left button on a body drags it
// (Shift: along the view axis, 3D); with the push/pull tool, or Ctrl, the left button pushes the
// liquid away from the cursor and the right button pulls it in; with the pour tool the left
// button pours. Elsewhere the mouse moves the camera as before. The hand's circle is drawn at
// the cursor. A mouse script (--mouse) drives the same presses and moves, at the pixels its
// world points are seen at, so picking is tested as a person uses it.
#pragma once

#include <glm/glm.hpp>

#include "app/scene_view.hpp"
#include "app/simulation_host.hpp"
#include "app/view_settings.hpp"
#include "core/hands.hpp"

namespace fs {

class HandInput {
public:
    HandInput(SimulationHost& host, const SceneView& scene, ViewSettings& view) : host_(host), scene_(scene), view_(view) {}

    // A button went down at px (1 left, 3 right). Returns whether a hand took it (the camera
    // then leaves the drag alone).
    bool press(glm::dvec2 px, int button, bool ctrl, const SimStatus& status);
    void move(glm::dvec2 px, bool shift);
    void release();
    bool holding() const { return tool_ != Hand::Tool::None; }
    // The hand's circle at the cursor, when the tool acts on the liquid (not over a panel).
    void draw_cursor(glm::dvec2 px, const SimStatus& status) const;

private:
    void send_at(glm::dvec2 px);

    SimulationHost& host_;
    const SceneView& scene_;
    ViewSettings& view_;
    Hand::Tool tool_ = Hand::Tool::None;
    Grip grip_;
    glm::dvec3 drag_point_{0.0};  // the grab point where the cursor has taken it
    glm::dvec2 last_px_{0.0};
    glm::dvec3 centre_{0.0};  // the domain's centre: push, pull and pour act on the plane through it (3D)
};

}  // namespace fs
