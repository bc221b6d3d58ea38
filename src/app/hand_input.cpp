#include "app/hand_input.hpp"

#include <imgui.h>

#include <cmath>

namespace fs {

bool HandInput::press(glm::dvec2 px, int button, bool ctrl, const SimStatus& status) {
    release();
    const FrameData& f = scene_.frame();
    centre_ = 0.5 * (glm::dvec3(f.lo[0], f.lo[1], f.lo[2]) + glm::dvec3(f.hi[0], f.hi[1], f.hi[2]));
    last_px_ = px;
    const bool left = button == 1, right = button == 3;
    if ((ctrl || view_.hand_tool == 1) && (left || right) && (status.hand_tools & kHandPushPull)) {
        tool_ = left ? Hand::Tool::Push : Hand::Tool::Pull;
    } else if (view_.hand_tool == 2 && left && (status.hand_tools & kHandPour)) {
        tool_ = Hand::Tool::Pour;
    } else if (view_.hand_tool == 0 && left && (status.hand_tools & kHandDrag)) {
        glm::dvec3 p, d;
        scene_.cursor_ray(px, p, d);
        const double point[3] = {p.x, p.y, p.z}, axis[3] = {d.x, d.y, d.z};
        grip_ = grip_obstacle(f.obstacles, point, axis);
        if (grip_.body < 0) return false;  // not on a body: the camera's
        tool_ = Hand::Tool::Drag;
        drag_point_ = glm::dvec3(grip_.grab[0], grip_.grab[1], grip_.grab[2]);
    } else {
        return false;
    }
    send_at(px);
    return true;
}

void HandInput::move(glm::dvec2 px, bool shift) {
    if (tool_ == Hand::Tool::None) return;
    if (tool_ == Hand::Tool::Drag) {
        if (shift && scene_.dimension() == 3) {
            // Along the view axis: moving the mouse up pushes the body away, as far as the same
            // motion across the screen would move it.
            const double metres = (last_px_.y - px.y) / std::max(scene_.pixels_per_metre(drag_point_), 1e-9);
            drag_point_ += metres * scene_.view_axis();
        } else {
            drag_point_ = scene_.on_view_plane(px, drag_point_);
        }
    }
    last_px_ = px;
    send_at(px);
}

void HandInput::release() {
    if (tool_ == Hand::Tool::None) return;
    tool_ = Hand::Tool::None;
    grip_ = Grip{};
    host_.set_hand(Hand{});
}

void HandInput::send_at(glm::dvec2 px) {
    if (tool_ == Hand::Tool::Drag) {
        const double p[3] = {drag_point_.x, drag_point_.y, drag_point_.z};
        host_.set_hand(drag_hand(grip_, p));
        return;
    }
    glm::dvec3 p, d;
    scene_.cursor_ray(px, p, d);
    if (scene_.dimension() == 3) p = scene_.on_view_plane(px, centre_);
    Hand h;
    h.tool = tool_;
    for (int a = 0; a < 3; ++a) {
        h.point[a] = p[a];
        h.axis[a] = d[a];
    }
    host_.set_hand(h);
}

void HandInput::draw_cursor(glm::dvec2 px, const SimStatus& status) const {
    const Hand::Tool shown = tool_ != Hand::Tool::None ? tool_
                             : view_.hand_tool == 1  ? Hand::Tool::Push
                             : view_.hand_tool == 2  ? Hand::Tool::Pour
                                                     : Hand::Tool::None;
    if (shown == Hand::Tool::None || shown == Hand::Tool::Drag || !status.params.contains("hand_radius")) return;
    const double radius = status.params["hand_radius"].get<double>();
    glm::dvec3 at, d;
    scene_.cursor_ray(px, at, d);
    if (scene_.dimension() == 3) {
        const FrameData& f = scene_.frame();
        at = scene_.on_view_plane(px, 0.5 * (glm::dvec3(f.lo[0], f.lo[1], f.lo[2]) + glm::dvec3(f.hi[0], f.hi[1], f.hi[2])));
    }
    const float r = static_cast<float>(radius * scene_.pixels_per_metre(at));
    const ImU32 colour = shown == Hand::Tool::Push   ? IM_COL32(255, 170, 60, 230)
                         : shown == Hand::Tool::Pull ? IM_COL32(90, 170, 255, 230)
                                                     : IM_COL32(120, 230, 255, 230);
    ImDrawList* dl = ImGui::GetForegroundDrawList();
    const ImVec2 c(static_cast<float>(px.x), static_cast<float>(px.y));
    dl->AddCircle(c, r, colour, 48, tool_ != Hand::Tool::None ? 2.5f : 1.5f);
    if (tool_ != Hand::Tool::None) dl->AddCircleFilled(c, 3.0f, colour);
}

}  // namespace fs
