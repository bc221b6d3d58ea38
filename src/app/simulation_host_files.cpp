// SimulationHost's files: saving the scene, exporting frames (USD, with or without the surface).
// Split from simulation_host.cpp by concern; the thread and its commands stay there.
#include "app/simulation_host.hpp"

#include <chrono>
#include <algorithm>
#include <cmath>
#include <limits>
#include <fstream>

#include "io/stats_writer.hpp"
#include "io/usd_writer.hpp"
#include "surface/particle_surface.hpp"
#include "solvers/solvers.hpp"

namespace fs {

void SimulationHost::save_scene(const std::string& path) {
    post([this, path] {
        solver_->keep_body_poses();
        std::ofstream out(path);
        out << scene_to_json(*solver_, scene_).dump(2) << '\n';
        std::lock_guard lock(mutex_);
        if (out) {
            status_.message = "saved " + path;
            finished_file(path);
        } else
            status_.message = path + ": cannot write the scene file";
    });
}

void SimulationHost::export_frame() {
    add_solver_frame(*usd_, *solver_, usd_fields_);
    if (usd_surface_) {
        SurfaceSettings settings;
        settings.method = usd_surface_method_;
        std::vector<std::string> fields{"velocity"};
        fields.insert(fields.end(), usd_fields_.begin(), usd_fields_.end());
        usd_->add_surface(solver_surface(*solver_, settings, fields));
    }
}

void SimulationHost::start_export(const std::string& path, long long every, bool surface, SurfaceMethod method) {
    post([this, path, every, surface, method] {
        if (safety_.refuse_while_device_lost("Export")) return;
        try {
            if (usd_) usd_->close();
            usd_.reset();
            if (surface)
                if (const auto why = no_surface_mesh(*solver_)) throw std::invalid_argument(*why);
            usd_ = std::make_unique<UsdPointsWriter>(path, "fluid-sandbox " + scene_.path);
            export_every_ = std::max(1LL, every);
            usd_fields_ = exportable_fields(*solver_);
            usd_surface_ = surface;
            usd_surface_method_ = method;
            export_frame();
            std::lock_guard lock(mutex_);
            status_.exporting = true;
            status_.export_path = path;
        } catch (const std::exception& e) {
            fail(e.what());
        }
    });
}

void SimulationHost::stop_export() {
    post([this] {
        if (!usd_) return;
        std::string done;
        bool written = false;
        try {
            usd_->close();
            done = "exported " + std::to_string(usd_->frames()) + " frames";
            written = true;
        } catch (const std::exception& e) {
            done = e.what();
        }
        usd_.reset();
        std::lock_guard lock(mutex_);
        status_.exporting = false;
        status_.message = done;
        if (written) finished_file(status_.export_path);
    });
}

void SimulationHost::finished_file(const std::string& path) {
    status_.written_file = path;
    ++status_.written_serial;
}

}  // namespace fs
