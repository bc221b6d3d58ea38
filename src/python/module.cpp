// fluid_sandbox._core: the sandbox from Python (pybind11). It speaks the headless contract
// (docs/command-line.md) as objects: a Simulation opens a scene as `fluid-sandbox SCENE --set ...`
// does, steps it, and reads its parameters, stats, fields and comparisons; bad input raises
// the program's one-line messages. The package's __init__.py adds the Python-side sugar; the
// API is documented in docs/python.md.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <nlohmann/json.hpp>

#include "cli/options.hpp"
#include "core/backend.hpp"
#include "core/memory.hpp"
#include "core/solver.hpp"
#include "headless/runner.hpp"
#include "io/ply_writer.hpp"
#include "io/scene.hpp"
#include "io/usd_writer.hpp"
#include "solvers/solvers.hpp"
#include "surface/particle_surface.hpp"
#include "validation/compare.hpp"
#if FS_HAVE_APP
#include "app/app.hpp"
#endif

namespace py = pybind11;

namespace fs::python {

namespace {

// Raised as Python's FileNotFoundError / ValueError (the messages are the program's lines).
struct NotFound : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct BadValue : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// The window cannot open in this build.
struct WindowUnavailable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// JSON (the registry's and the comparisons' language) to Python objects and back.
py::object to_py(const nlohmann::json& j) {
    switch (j.type()) {
        case nlohmann::json::value_t::null: return py::none();
        case nlohmann::json::value_t::boolean: return py::bool_(j.get<bool>());
        case nlohmann::json::value_t::number_integer: return py::int_(j.get<long long>());
        case nlohmann::json::value_t::number_unsigned: return py::int_(j.get<unsigned long long>());
        case nlohmann::json::value_t::number_float: return py::float_(j.get<double>());
        case nlohmann::json::value_t::string: return py::str(j.get<std::string>());
        case nlohmann::json::value_t::array: {
            py::list out;
            for (const auto& e : j) out.append(to_py(e));
            return out;
        }
        case nlohmann::json::value_t::object: {
            py::dict out;
            for (auto it = j.begin(); it != j.end(); ++it) out[py::str(it.key())] = to_py(it.value());
            return out;
        }
        default: return py::none();
    }
}

nlohmann::json from_py(py::handle o, const std::string& where) {
    if (o.is_none()) return nullptr;
    if (py::isinstance<py::bool_>(o)) return o.cast<bool>();
    if (py::isinstance<py::int_>(o)) return o.cast<long long>();
    if (py::isinstance<py::float_>(o)) return o.cast<double>();
    if (py::isinstance<py::str>(o)) return o.cast<std::string>();
    // NumPy scalars and arrays, tuples and lists
    if (py::hasattr(o, "tolist") && !py::isinstance<py::list>(o)) return from_py(o.attr("tolist")(), where);
    if (py::isinstance<py::sequence>(o)) {
        nlohmann::json out = nlohmann::json::array();
        for (py::handle e : o) out.push_back(from_py(e, where));
        return out;
    }
    throw BadValue(where + ": expected a number, a bool, a string or a list of numbers, got a " +
                   std::string(py::str(o.get_type().attr("__name__"))));
}

py::dict stats_dict(const Stats& stats) {
    py::dict out;
    for (const Stat& s : stats.items()) {
        if (s.is_vector)
            out[py::str(s.name)] = py::cast(s.value);
        else if (s.is_count)
            out[py::str(s.name)] = py::int_(static_cast<long long>(s.value.empty() ? 0.0 : s.value[0]));
        else
            out[py::str(s.name)] = py::float_(s.value.empty() ? 0.0 : s.value[0]);
    }
    return out;
}

Backend parse_backend(const std::string& name) {
    const auto b = backend_from_string(name);
    if (!b) throw BadValue("backend '" + name + "': allowed: cpu, cuda");
    if (*b == Backend::Cuda && !cuda_status().usable)
        throw BadValue("backend 'cuda': " + cuda_status().reason + "; allowed here: cpu");
    return *b;
}

// A read-only NumPy view's owner: it keeps the Simulation alive and the host memory it points
// into from being freed (core/memory.hpp), for as long as any view made with it lives.
struct FieldLease {
    HostMemoryHold hold;
    py::object owner;
};

}  // namespace

class Simulation {
public:
    Simulation(const std::string& scene, const std::string& backend, int threads, const py::object& set) {
        if (threads < 0) throw BadValue("threads " + std::to_string(threads) + ": allowed: 0 (all cores) or more");
        options_.backend = parse_backend(backend);
        options_.threads = threads;
        threads_ = threads > 0 ? threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
        options_.scene = resolve_scene(scene);
        if (options_.scene == scene) {
            if (const auto why = unknown_scene(scene)) throw NotFound(*why);
            std::error_code ec;
            if (!std::filesystem::exists(scene, ec))
                throw NotFound(scene + ": no such scene file, nor a bundled scene of that name (fluid_sandbox.scenes() "
                                       "lists the bundled scenes)");
        }
        if (!set.is_none()) {
            // The values go to the registry as a scene file's params do (Options::set_values).
            options_.set_values = nlohmann::json::object();
            for (auto item : set.cast<py::dict>()) {
                const std::string key = py::str(item.first);
                options_.set_values[key] = from_py(item.second, key);
            }
        }
        solver_ = open_scene(options_, scene_);
        start_comparing();
    }

    // The state, stepped: n whole steps (a stage() in progress is finished first). The GIL is
    // released meanwhile; Ctrl-C stops between two steps.
    void step(long long n) {
        if (n < 0) throw BadValue("step(n): n must be 0 or more, got " + std::to_string(n));
        Busy busy(*this);
        for (long long k = 0; k < n; ++k) {
            {
                py::gil_scoped_release unlocked;
                advance([&] {
                    solver_->step();
                    return true;
                });
            }
            if (PyErr_CheckSignals() != 0) throw py::error_already_set();
        }
    }

    // One stage; returns its name.
    std::string stage() {
        Busy busy(*this);
        const std::string name = solver_->stages()[static_cast<std::size_t>(solver_->next_stage())].name;
        py::gil_scoped_release unlocked;
        advance([&] { return solver_->advance_stage(); });
        return name;
    }

    void reset() {
        Busy busy(*this);
        try {
            solver_->reset();
        } catch (const ParamError& e) {
            throw BadValue(e.what());
        }
        start_comparing();
    }

    double time() const { return solver_->time(); }
    long long step_index() const { return solver_->step_count(); }
    double dt() const { return solver_->stats().get("dt"); }
    int next_stage() const { return solver_->next_stage(); }
    std::string solver() const { return std::string(solver_->kind()); }
    int dimension() const { return solver_->dimension(); }
    std::string scene() const { return scene_.path; }
    std::string title() const { return scene_.title; }
    std::string description() const { return scene_.description; }
    int particle_count() const { return solver_->particle_count(); }
    std::string backend() const { return std::string(to_string(solver_->backend())); }
    int threads() const { return threads_; }
    void set_backend(const std::string& name) {
        Busy busy(*this);
        solver_->set_backend(parse_backend(name));
    }
    std::vector<std::string> stages() const {
        std::vector<std::string> out;
        for (const auto& s : solver_->stages()) out.push_back(s.name);
        return out;
    }
    py::dict stage_ms() const {
        py::dict out;
        for (std::size_t s = 0; s < solver_->stages().size() && s < solver_->stage_ms().size(); ++s)
            out[py::str(solver_->stages()[s].name)] = solver_->stage_ms()[s];
        return out;
    }
    double step_ms() const { return solver_->step_ms(); }
    py::dict stats() const { return stats_dict(solver_->stats()); }

    // The registry, as the window sees it.
    std::vector<std::string> param_names() const {
        std::vector<std::string> out;
        for (const auto& p : solver_->params().all()) out.push_back(p->name());
        return out;
    }
    py::object param_get(const std::string& name) const { return to_py(param(name).to_json()); }
    py::dict param_info(const std::string& name) const {
        const Param& p = param(name);
        const ParamSpec& s = p.spec();
        py::dict d;
        d["name"] = s.name;
        d["value"] = to_py(p.to_json());
        d["label"] = s.label;
        d["group"] = s.group;
        d["unit"] = s.unit;
        d["description"] = s.description;
        d["min"] = s.min;
        d["max"] = s.max;
        d["allowed"] = s.read_only ? std::string("read-only diagnostic") : p.allowed();
        d["choices"] = p.choices();
        d["read_only"] = s.read_only;
        d["applies_on_reset"] = s.needs_reset;
        return d;
    }
    // As a live change in the window: validated, then checked against the solver's limits, and
    // undone (with the error) when refused.
    void param_set(const std::string& name, const py::object& value) {
        Busy busy(*this);
        Param& p = param(name);
        const nlohmann::json before = p.to_json();
        const nlohmann::json j = from_py(value, name);
        try {
            p.set_json(j);
            solver_->check_params();
            solver_->refresh_diagnostics();
        } catch (const ParamError& e) {
            p.set_json(before);
            const std::string what = e.what();
            throw BadValue(what.rfind(name + ":", 0) == 0 ? what : name + ": " + what);
        }
    }
    bool reset_pending() const { return solver_->params().reset_pending(); }

    // Fields: read-only views of the CPU backend's memory (no copy), copies from the GPU and of
    // fields computed as they are read (speed).
    py::list field_infos() const {
        py::list out;
        for (const FieldInfo& f : solver_->fields()) {
            py::dict d;
            d["name"] = f.name;
            d["components"] = f.components;
            d["unit"] = f.unit;
            d["description"] = f.description;
            out.append(d);
        }
        return out;
    }
    py::array field(const std::string& name, py::object self) const {
        const FieldInfo info = field_info(name);
        if (solver_->backend() == Backend::Cpu) {
            const auto view = solver_->field_view(name);
            // (a view of part of the particles, or of another shape, is read as a copy instead)
            if (view && view->components == info.components && view->count > 0 && view->count == solver_->particle_count()) {
                auto lease = std::make_unique<FieldLease>();
                lease->owner = std::move(self);
                py::object base = py::cast(std::move(lease));
                const bool f64 = view->type == FieldView::Type::F64;
                const py::ssize_t size = f64 ? sizeof(double) : sizeof(int);
                std::vector<py::ssize_t> shape{view->count}, strides{view->stride * size};
                if (info.components > 1) {
                    shape.push_back(info.components);
                    strides.push_back(size);
                }
                py::array out = f64 ? py::array(py::dtype::of<double>(), shape, strides, view->data, base)
                                    : py::array(py::dtype::of<int>(), shape, strides, view->data, base);
                py::detail::array_proxy(out.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
                return out;
            }
        }
        std::vector<double> values;
        solver_->read_field(name, values);
        const py::ssize_t n = info.components > 0 ? static_cast<py::ssize_t>(values.size()) / info.components : 0;
        std::vector<py::ssize_t> shape{n};
        if (info.components > 1) shape.push_back(info.components);
        py::array_t<double> out(shape);
        std::copy(values.begin(), values.end(), out.mutable_data());
        py::detail::array_proxy(out.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
        return out;
    }
    std::vector<std::string> writable_fields() const { return solver_->writable_fields(); }
    void write_field(const std::string& name, py::array_t<double, py::array::c_style | py::array::forcecast> values) {
        Busy busy(*this);
        if (solver_->next_stage() != 0)
            throw BadValue("set_state: step " + std::to_string(solver_->step_count() + 1) +
                           " is part done (stage()); finish it with step() first");
        const FieldInfo info = field_info(name);
        const py::ssize_t n = solver_->particle_count();
        const bool shaped = info.components == 1 ? values.ndim() == 1 && values.shape(0) == n
                                                 : values.ndim() == 2 && values.shape(0) == n &&
                                                       values.shape(1) == info.components;
        if (!shaped) {
            std::string got = "(";
            for (py::ssize_t d = 0; d < values.ndim(); ++d) got += (d ? ", " : "") + std::to_string(values.shape(d));
            got += values.ndim() == 1 ? ",)" : ")";
            throw BadValue(name + ": expected an array of shape (" + std::to_string(n) +
                           (info.components > 1 ? ", " + std::to_string(info.components) : std::string(",")) +
                           ") (the state's particles, in the order field() gives), got " + got);
        }
        std::vector<double> v(values.data(), values.data() + values.size());
        for (double x : v)
            if (!std::isfinite(x)) throw BadValue(name + ": every value must be finite (a NaN or an infinity was given)");
        try {
            solver_->write_field(name, v);
        } catch (const std::invalid_argument& e) {
            throw BadValue(e.what());
        }
    }

    py::list compare() {
        if (sampled_step_ != solver_->step_count()) sample_history(std::chrono::steady_clock::now());
        py::list out;
        for (auto& c : comparers_) {
            if (c->snapshot()) c->sample(*solver_);
            out.append(to_py(to_json(c->result())));
        }
        return out;
    }

    bool compare_every_step() const { return every_step_; }
    void set_compare_every_step(bool on) { every_step_ = on; }

    // The current state as a one-frame USD file (the --export format), with the named fields
    // ("all", "none" or a comma-separated list) as primvars.
    void export_usd(const std::string& path, const std::string& fields) {
        std::vector<std::string> primvars;
        try {
            primvars = chosen_fields(fields, *solver_);
        } catch (const std::invalid_argument& e) {
            throw BadValue("fields '" + fields + "': " + e.what());
        }
        UsdPointsWriter usd(path, "fluid-sandbox " + scene_.path + " (" + scene_.solver + "), step " +
                                      std::to_string(solver_->step_count()));
        add_solver_frame(usd, *solver_, primvars);
        usd.close();
    }

    // The liquid's surface now (3D liquids): the export's mesh with `fields` carried onto its
    // vertices. Bad input (another solver, a method or field it has not) is a ValueError.
    SurfaceMesh surface(double cell, const std::string& method, const std::vector<std::string>& fields, int steps = -1,
                        double flat = -1, double curved = -1, const std::string& what = "surface") const {
        if (const auto why = no_surface_mesh(*solver_)) throw BadValue(what + ": " + *why);
        const auto m = surface_method_from(method);
        if (!m) throw BadValue("surface method '" + method + "': allowed: smooth, zhu_bridson");
        SurfaceSettings settings;
        settings.cell_scale = cell;
        settings.method = *m;
        if (steps >= 0) settings.smoothing_steps = steps;
        if (flat >= 0) settings.flat_below = flat;
        if (curved >= 0) settings.curved_above = curved;
        try {
            return solver_surface(*solver_, settings, fields);
        } catch (const std::invalid_argument& e) {
            throw BadValue(what + ": " + e.what());
        }
    }
    py::dict surface_arrays(double cell, const std::string& method, const std::vector<std::string>& fields,
                            int steps, double flat, double curved) const {
        const SurfaceMesh mesh = surface(cell, method, fields, steps, flat, curved);
        py::dict out;
        py::array_t<float> points({static_cast<py::ssize_t>(mesh.vertex_count()), py::ssize_t(3)});
        std::copy(mesh.points.begin(), mesh.points.end(), points.mutable_data());
        py::array_t<int> triangles({static_cast<py::ssize_t>(mesh.triangle_count()), py::ssize_t(3)});
        std::copy(mesh.triangles.begin(), mesh.triangles.end(), triangles.mutable_data());
        out["points"] = points;
        out["triangles"] = triangles;
        for (const VertexField& f : mesh.fields) {
            std::vector<py::ssize_t> shape{mesh.vertex_count()};
            if (f.components > 1) shape.push_back(f.components);
            py::array_t<float> values(shape);
            std::copy(f.values.begin(), f.values.end(), values.mutable_data());
            out[py::str(f.name)] = values;
        }
        return out;
    }

    // The liquid's surface now as a PLY mesh (velocity and `fields` as vertex properties);
    // returns its triangle count.
    int export_mesh(const std::string& path, double cell, const std::string& method, const std::vector<std::string>& fields) {
        const SurfaceMesh mesh = surface(cell, method, fields, -1, -1, -1, "export_mesh");
        write_ply(path, mesh,
                  "fluid-sandbox " + scene_.path + " (" + scene_.solver + "), step " +
                      std::to_string(solver_->step_count()) + ", t = " + std::to_string(solver_->time()) + " s");
        return mesh.triangle_count();
    }

    // The window on this simulation; returns when it closes, with the state as it was left.
    int window(const std::string& screenshot, int frames, double seconds, bool paused, int width, int height,
               const std::string& keys) {
#if FS_HAVE_APP
        Busy busy(*this);
        Options o = options_;
        o.scene = scene_.path;
        o.screenshot_path = screenshot;
        o.frames = frames;
        o.seconds = seconds;
        o.paused = paused;
        o.width = width;
        o.height = height;
        o.keys = keys;
        if (!o.screenshot_path.empty() && o.frames == 0 && o.seconds == 0) o.frames = 1;
        int status = 0;
        {
            py::gil_scoped_release unlocked;
            status = run_app_on(o, solver_, scene_);
        }
        start_comparing();
        return status;
#else
        (void)screenshot, (void)frames, (void)seconds, (void)paused, (void)width, (void)height, (void)keys;
        throw WindowUnavailable("this build has no window (FS_BUILD_APP=OFF)");
#endif
    }

private:
    // One call at a time: a step releases the GIL, and another Python thread must not reach the
    // solver meanwhile.
    class Busy {
    public:
        explicit Busy(Simulation& s) : s_(s) {
            if (s_.busy_.exchange(true))
                throw std::runtime_error("the simulation is busy in another thread (one call at a time)");
            // The thread count is the process's: each simulation sets its own as it works.
            if (cpu_threads() != s_.threads_) set_cpu_threads(s_.threads_);
        }
        ~Busy() { s_.busy_ = false; }

    private:
        Simulation& s_;
    };

    // Runs `go` (a step or a stage); after a whole step, samples the comparisons that follow a
    // history as the window does, at most 60 times a second of wall time (a ring's comparison
    // reads every vorton: 2.3 ms on vortex_ring, a third of its step), or after every step as
    // the headless program does where compare_every_step is set (the same figures as --compare,
    // independent of the machine's speed: fluid_sandbox.sweep sets it); compare() adds the state
    // it is called at. A GPU failure names the step it broke, as the headless program says it.
    template <class F>
    void advance(const F& go) {
        bool whole = false;
        try {
            whole = go();
        } catch (const CudaError& e) {
            throw CudaError(std::string(e.what()) + " (in step " + std::to_string(solver_->step_count() + 1) + ")");
        }
        const auto now = std::chrono::steady_clock::now();
        if (whole && (every_step_ || now - last_sample_ >= std::chrono::microseconds(16667))) sample_history(now);
    }

    void sample_history(std::chrono::steady_clock::time_point now) {
        last_sample_ = now;
        sampled_step_ = solver_->step_count();
        for (auto& c : comparers_)
            if (!c->snapshot()) c->sample(*solver_);
    }

    void start_comparing() {
        comparers_ = comparers_for(*solver_);
        sample_history(std::chrono::steady_clock::now());
    }

    Param& param(const std::string& name) const {
        try {
            return solver_->params().at(name);
        } catch (const ParamError& e) {
            throw py::key_error(e.what());
        }
    }
    FieldInfo field_info(const std::string& name) const {
        std::vector<std::string> names;
        for (const FieldInfo& f : solver_->fields()) {
            if (f.name == name) return f;
            names.push_back(f.name);
        }
        const std::string guess = did_you_mean(name, names);
        throw py::key_error("the " + solver() + " solver has no field '" + name + "'" +
                            (guess.empty() ? "" : "; did you mean '" + guess + "'?") + " (fields: " + join(names) + ")");
    }

    Options options_;
    Scene scene_;
    std::unique_ptr<Solver> solver_;
    std::vector<std::unique_ptr<Comparer>> comparers_;
    std::atomic<bool> busy_{false};
    int threads_ = 1;  // the CPU threads this simulation's steps use
    std::chrono::steady_clock::time_point last_sample_{};
    long long sampled_step_ = -1;  // the step the history comparisons last saw
    bool every_step_ = false;      // compare_every_step: sample the history after every step
};

}  // namespace fs::python

PYBIND11_MODULE(_core, m) {
    using namespace fs;
    using fs::python::Simulation;
    m.doc() = "fluid-sandbox's solvers from Python (the package fluid_sandbox wraps this module).";

    static py::exception<SimulationError> simulation_error(m, "SimulationError", PyExc_RuntimeError);
    static py::exception<fs::python::WindowUnavailable> window_error(m, "WindowError", PyExc_RuntimeError);
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const fs::python::NotFound& e) {
            PyErr_SetString(PyExc_FileNotFoundError, e.what());
        } catch (const fs::python::BadValue& e) {
            PyErr_SetString(PyExc_ValueError, e.what());
        } catch (const SceneError& e) {
            const std::string what = e.what();
            // the loader's "cannot open" is a missing file; everything else is a bad value
            if (what.find("cannot open") != std::string::npos || what.find("No such file") != std::string::npos)
                PyErr_SetString(PyExc_FileNotFoundError, what.c_str());
            else
                PyErr_SetString(PyExc_ValueError, what.c_str());
        } catch (const ParamError& e) {
            PyErr_SetString(PyExc_ValueError, e.what());
        } catch (const SimulationError& e) {
            PyErr_SetString(simulation_error.ptr(), e.what());
        } catch (const fs::python::WindowUnavailable& e) {
            PyErr_SetString(window_error.ptr(), e.what());
#if FS_HAVE_APP
        } catch (const WindowError& e) {
            PyErr_SetString(window_error.ptr(), e.what());
#endif
        } catch (const CudaError& e) {
            PyErr_SetString(simulation_error.ptr(), (std::string("CUDA: ") + e.what()).c_str());
        }
    });

    py::class_<fs::python::FieldLease>(m, "_FieldLease");

    py::class_<Simulation>(m, "_Simulation")
        .def(py::init<const std::string&, const std::string&, int, const py::object&>(), py::arg("scene"),
             py::arg("backend") = "cpu", py::arg("threads") = 0, py::arg("set") = py::none())
        .def("step", &Simulation::step, py::arg("n") = 1)
        .def("stage", &Simulation::stage)
        .def("reset", &Simulation::reset)
        .def_property_readonly("time", &Simulation::time)
        .def_property_readonly("step_index", &Simulation::step_index)
        .def_property_readonly("dt", &Simulation::dt)
        .def_property_readonly("next_stage", &Simulation::next_stage)
        .def_property_readonly("solver", &Simulation::solver)
        .def_property_readonly("dimension", &Simulation::dimension)
        .def_property_readonly("scene", &Simulation::scene)
        .def_property_readonly("title", &Simulation::title)
        .def_property_readonly("description", &Simulation::description)
        .def_property_readonly("particle_count", &Simulation::particle_count)
        .def_property("backend", &Simulation::backend, &Simulation::set_backend)
        .def_property_readonly("stages", &Simulation::stages)
        .def_property_readonly("threads", &Simulation::threads)
        .def_property("compare_every_step", &Simulation::compare_every_step, &Simulation::set_compare_every_step)
        .def("stage_ms", &Simulation::stage_ms)
        .def_property_readonly("step_ms", &Simulation::step_ms)
        .def("stats", &Simulation::stats)
        .def("_param_names", &Simulation::param_names)
        .def("_param_get", &Simulation::param_get)
        .def("_param_info", &Simulation::param_info)
        .def("_param_set", &Simulation::param_set)
        .def_property_readonly("reset_pending", &Simulation::reset_pending)
        .def("field_info", &Simulation::field_infos)
        .def(
            "field", [](py::object self, const std::string& name) { return self.cast<Simulation&>().field(name, self); },
            py::arg("name"))
        .def_property_readonly("writable_fields", &Simulation::writable_fields)
        .def("_write_field", &Simulation::write_field)
        .def("compare", &Simulation::compare)
        .def("export_usd", &Simulation::export_usd, py::arg("path"), py::arg("fields") = "all")
        .def("export_mesh", &Simulation::export_mesh, py::arg("path"), py::arg("cell") = 1.0,
             py::arg("method") = "smooth", py::arg("fields") = std::vector<std::string>{"velocity"})
        .def("surface", &Simulation::surface_arrays, py::arg("cell") = 1.0, py::arg("method") = "smooth",
             py::arg("fields") = std::vector<std::string>{"velocity"}, py::arg("smoothing_steps") = -1, py::arg("flat_below") = -1.0, py::arg("curved_above") = -1.0)
        .def("_window", &Simulation::window);

    m.def("_scenes", [] {
        py::list out;
        for (const std::string& name : bundled_scene_names()) {
            py::dict d;
            d["name"] = name;
            d["path"] = scenes_dir() + "/" + name + ".json";
            try {
                const Scene s = load_scene(scenes_dir() + "/" + name + ".json", solver_names());
                d["solver"] = s.solver;
                d["title"] = s.title;
                d["description"] = s.description;
            } catch (const SceneError& e) {
                d["error"] = std::string(e.what());
            }
            out.append(d);
        }
        return out;
    });
    m.def("solvers", [] { return solver_names(); }, "The solvers' names, as scene files name them.");
    m.def("backends", [] {
        std::vector<std::string> out{"cpu"};
        if (cuda_status().usable) out.push_back("cuda");
        return out;
    }, "The backends this machine can run: cpu, and cuda where a GPU answered.");
    m.def("cuda_status", [] { return cuda_status().usable ? cuda_status().device_name : cuda_status().reason; },
          "The GPU's name, or why there is none.");
    m.def("cpu_threads", [] { return cpu_threads(); });
#if FS_HAVE_APP
    m.attr("has_window") = true;
#else
    m.attr("has_window") = false;
#endif
}
