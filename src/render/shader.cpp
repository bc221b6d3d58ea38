#include "render/shader.hpp"

#include "render/gl.hpp"

#include "core/data_dirs.hpp"

#include <fstream>
#include <glm/gtc/type_ptr.hpp>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace fs::render {

namespace {

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot read the shader file");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string shader_log(GLuint shader) {
    GLint length = 0;
    glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
    std::string log(static_cast<std::size_t>(std::max(length, 1)), '\0');
    glGetShaderInfoLog(shader, length, nullptr, log.data());
    log.resize(log.find('\0') == std::string::npos ? log.size() : log.find('\0'));
    return log;
}

std::string program_log(GLuint program) {
    GLint length = 0;
    glGetProgramiv(program, GL_INFO_LOG_LENGTH, &length);
    std::string log(static_cast<std::size_t>(std::max(length, 1)), '\0');
    glGetProgramInfoLog(program, length, nullptr, log.data());
    log.resize(log.find('\0') == std::string::npos ? log.size() : log.find('\0'));
    return log;
}

GLuint compile(GLenum stage, const std::string& path, std::string_view defines) {
    const std::string source = glsl_source(read_text(path), defines, kGlEs);
    const GLuint shader = glCreateShader(stage);
    const char* text = source.c_str();
    glShaderSource(shader, 1, &text, nullptr);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        const std::string log = shader_log(shader);
        glDeleteShader(shader);
        throw std::runtime_error(path + ": GLSL compile error:\n" + log);
    }
    return shader;
}

}  // namespace

std::string glsl_source(std::string_view text, std::string_view defines, bool es) {
    // The #version line must come first; the rest of the file keeps its own line numbers.
    const std::size_t eol = text.find('\n');
    const std::string_view first = text.substr(0, eol);
    std::string_view rest = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    std::string out;
    out.reserve(text.size() + defines.size() + 128);
    if (es && first.starts_with("#version 330")) {
        // GLSL ES 3.00 (OpenGL ES 3.0, WebGL2) is GLSL 3.30 for everything these shaders use,
        // once given a version and default precisions (ES fragment shaders have no default
        // float precision; highp matches the desktop's 32-bit floats).
        out += "#version 300 es\nprecision highp float;\nprecision highp int;\nprecision highp sampler2D;\n";
    } else {
        out += first;
        out += '\n';
    }
    if (!defines.empty()) {
        out += defines;
        out += '\n';
    }
    out += "#line 2\n";
    out += rest;
    return out;
}

std::string shaders_dir() { return data_dir("shaders"); }

Shader::Shader(std::string_view vertex_file, std::string_view fragment_file, std::string_view defines) {
    const std::string dir = shaders_dir();
    vertex_file_ = dir + "/" + std::string(vertex_file);
    fragment_file_ = dir + "/" + std::string(fragment_file);
    const GLuint vs = compile(GL_VERTEX_SHADER, vertex_file_, defines);
    GLuint fs = 0;
    try {
        fs = compile(GL_FRAGMENT_SHADER, fragment_file_, defines);
    } catch (...) {
        glDeleteShader(vs);
        throw;
    }
    program_ = glCreateProgram();
    glAttachShader(program_, vs);
    glAttachShader(program_, fs);
    glLinkProgram(program_);
    // The program keeps the compiled stages; the shader objects are no longer needed.
    glDetachShader(program_, vs);
    glDetachShader(program_, fs);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = GL_FALSE;
    glGetProgramiv(program_, GL_LINK_STATUS, &ok);
    if (!ok) {
        const std::string log = program_log(program_);
        release();
        throw std::runtime_error(vertex_file_ + " + " + fragment_file_ + ": GLSL link error:\n" +
                                 log);
    }
}

Shader::~Shader() {
    release();
}

Shader::Shader(Shader&& other) noexcept
    : program_(std::exchange(other.program_, 0)),
      vertex_file_(std::move(other.vertex_file_)),
      fragment_file_(std::move(other.fragment_file_)),
      locations_(std::move(other.locations_)) {}

Shader& Shader::operator=(Shader&& other) noexcept {
    if (this != &other) {
        release();
        program_ = std::exchange(other.program_, 0);
        vertex_file_ = std::move(other.vertex_file_);
        fragment_file_ = std::move(other.fragment_file_);
        locations_ = std::move(other.locations_);
    }
    return *this;
}

void Shader::release() {
    if (program_) glDeleteProgram(program_);
    program_ = 0;
    locations_.clear();
}

void Shader::use() const {
    glUseProgram(program_);
}

int Shader::location(std::string_view name) {
    auto it = locations_.find(name);
    if (it == locations_.end()) {
        const std::string key(name);
        it = locations_.emplace(key, glGetUniformLocation(program_, key.c_str())).first;
    }
    return it->second;
}

void Shader::set(std::string_view name, int v) {
    glUniform1i(location(name), v);
}
void Shader::set(std::string_view name, float v) {
    glUniform1f(location(name), v);
}
void Shader::set(std::string_view name, glm::vec2 v) {
    glUniform2fv(location(name), 1, glm::value_ptr(v));
}
void Shader::set(std::string_view name, glm::vec3 v) {
    glUniform3fv(location(name), 1, glm::value_ptr(v));
}
void Shader::set(std::string_view name, glm::vec4 v) {
    glUniform4fv(location(name), 1, glm::value_ptr(v));
}
void Shader::set(std::string_view name, const glm::mat4& m) {
    glUniformMatrix4fv(location(name), 1, GL_FALSE, glm::value_ptr(m));
}

}  // namespace fs::render
