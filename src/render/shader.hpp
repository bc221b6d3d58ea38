// GLSL programs loaded from the shaders folder at run time, so a shader can be edited without
// rebuilding. Needs a current OpenGL 3.3 core context (loaded by glad) for everything but
// shaders_dir(). GL names are plain unsigned ints here so that this header pulls in no GL header.
#pragma once

#include <functional>
#include <glm/glm.hpp>
#include <string>
#include <string_view>
#include <unordered_map>

namespace fs::render {

// The folder the shaders are read from: data_dir("shaders") (core/data_dirs.hpp): the environment's
// FLUID_SANDBOX_SHADERS, the source tree's shaders/ from a build tree, or the installed copy.
std::string shaders_dir();

// The source the context compiles from a shader file's text: `defines` (lines of #define) after
// its #version line, and for OpenGL ES (es: the browser's WebGL2) the GLSL 3.30 version line
// rewritten as GLSL ES 3.00 with default precisions, so both targets load the same file.
std::string glsl_source(std::string_view text, std::string_view defines, bool es);

// One linked vertex + fragment program. Move-only; the program is deleted with the object (the
// context must still be current then).
class Shader {
  public:
    Shader() = default;
    // Reads shaders_dir()/vertex_file and shaders_dir()/fragment_file, compiles and links them.
    // Throws std::runtime_error naming the file (and the GL info log) on a missing file or a
    // compile or link error. `defines` (e.g. "#define FS_SPRITES") goes into both stages after
    // their #version line: one file, two programs.
    Shader(std::string_view vertex_file, std::string_view fragment_file, std::string_view defines = {});
    ~Shader();
    Shader(const Shader&) = delete;
    Shader& operator=(const Shader&) = delete;
    Shader(Shader&& other) noexcept;
    Shader& operator=(Shader&& other) noexcept;

    unsigned id() const { return program_; }
    explicit operator bool() const { return program_ != 0; }
    void use() const;

    // Uniform setters act on this program, which must be in use (GL 3.3 has no
    // glProgramUniform). A name the linker dropped (unused in the GLSL) is ignored, as GL does.
    void set(std::string_view name, int v);
    void set(std::string_view name, bool v) { set(name, v ? 1 : 0); }
    void set(std::string_view name, float v);
    void set(std::string_view name, glm::vec2 v);
    void set(std::string_view name, glm::vec3 v);
    void set(std::string_view name, glm::vec4 v);
    void set(std::string_view name, const glm::mat4& m);
    // The location of a uniform, -1 when absent; looked up once per name.
    int location(std::string_view name);

  private:
    void release();

    // Looks names up by string_view without building a std::string per call.
    struct NameHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const {
            return std::hash<std::string_view>{}(s);
        }
    };

    unsigned program_ = 0;
    std::string vertex_file_, fragment_file_;  // for error messages
    std::unordered_map<std::string, int, NameHash, std::equal_to<>> locations_;
};

}  // namespace fs::render
