// Hands in the fluid: what the mouse (or a --mouse script) does to a running simulation. A hand
// drags a body, pushes or pulls the liquid around the cursor, or pours more liquid there. Plain
// world-space values: the window turns the cursor into a ray, the headless program reads a
// script, and the solver applies the hand in every step until it changes. Nothing here knows of
// windows.
#pragma once

#include <string>
#include <vector>

namespace fs {

struct Obstacle;

struct Hand {
    enum class Tool { None, Drag, Push, Pull, Pour };
    Tool tool = Tool::None;
    // Push, Pull and Pour: the cursor as a ray through `point` along the unit vector `axis` (the
    // view direction; in 2D the point lies in z = 0 and the axis is (0, 0, -1)). Push and pull act
    // within the hand's radius of that ray; Pour emits around `point`.
    double point[3] = {0.0, 0.0, 0.0};
    double axis[3] = {0.0, 0.0, -1.0};
    // Drag: the body (an index into Solver::obstacles()) and where its anchor (Obstacle::anchor)
    // is asked to be. The body moves there no faster than the scene's drag speed, and the fluid
    // feels it as a moving boundary with that velocity.
    int body = -1;
    double target[3] = {0.0, 0.0, 0.0};
};

// The tools a solver offers (Solver::hand_tools), as a mask.
enum HandTools : unsigned { kHandDrag = 1u, kHandPushPull = 2u, kHandPour = 4u };

// The hand's settings a solver registers as parameters (group "Hands", EngineSolver::add_hands),
// so the panel, scene files and --set reach them like any other.
struct HandSettings {
    double radius = 0.1;        // m: push, pull and pour act within it
    double strength = 50.0;     // m/s^2: push and pull acceleration at the ray
    double drag_speed = 1.0;    // m/s: the fastest a dragged body moves
    double pour_rate = 2000.0;  // particles per second
    double pour_speed = 0.5;    // m/s: poured liquid leaves the hand along gravity at this speed
    long long max_particles = 0;  // pouring stops here (0: twice the particles the scene starts with)
    long long poured = 0;         // diagnostic: particles poured since the scene started
};

// The first obstacle a ray through `point` along `axis` meets (boxes, spheres, triangle meshes;
// 2D polygons are hit where the ray crosses z = 0 inside them), only those marked draggable.
// Returns its index, or -1; `t` receives the distance along the ray to the hit.
int pick_obstacle(const std::vector<Obstacle>& obstacles, const double point[3], const double axis[3], double* t = nullptr);

// A drag's hold on a body: which one, the point on it the ray met, and where its anchor was then.
// Moving the cursor to p asks for the anchor at anchor + (p - grab): the body keeps its place
// under the cursor.
struct Grip {
    int body = -1;
    double grab[3] = {0.0, 0.0, 0.0};
    double anchor[3] = {0.0, 0.0, 0.0};
};
Grip grip_obstacle(const std::vector<Obstacle>& obstacles, const double point[3], const double axis[3]);
// The drag hand for the cursor at p (a point on the plane the drag moves in).
Hand drag_hand(const Grip& g, const double p[3]);

}  // namespace fs
