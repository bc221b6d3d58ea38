// Helpers for tests that run the fluid-sandbox program as a user would.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs_test {

struct Result {
    int status = -1;     // exit status
    std::string output;  // stdout and stderr together
};

// Runs `prefix` fluid-sandbox `args` (already shell-quoted where needed).
inline Result run_program_with_prefix(const std::string& prefix, const std::string& args) {
    const std::string cmd = prefix + " " + std::string(FS_EXE) + " " + args + " 2>&1";
    Result r;
    std::FILE* p = popen(cmd.c_str(), "r");
    if (!p) return r;
    std::array<char, 4096> buf;
    std::size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
    const int raw = pclose(p);
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    return r;
}

inline Result run_program(const std::string& args) { return run_program_with_prefix("", args); }

// A fresh folder under the system's temporary folder, removed with the object.
struct TempDir {
    std::filesystem::path path;
    explicit TempDir(const std::string& tag) {
        path = std::filesystem::temp_directory_path() /
               ("fluid-sandbox-" + tag + "-" + std::to_string(::getpid()));
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    ~TempDir() { std::filesystem::remove_all(path); }
    std::string file(const std::string& name, const std::string& text) const {
        const auto f = path / name;
        std::ofstream(f, std::ios::binary) << text;
        return f.string();
    }
    std::string operator/(const std::string& name) const { return (path / name).string(); }
};

inline int count_lines(const std::string& s) {
    int n = 0;
    for (char c : s) n += c == '\n';
    return n;
}

}  // namespace fs_test
