#include "core/data_dirs.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <iterator>

#ifndef __EMSCRIPTEN__
#include <dlfcn.h>
#endif

namespace fs {

namespace {

// The file that holds this code: the program, a test, or the Python module's shared object.
std::filesystem::path own_file() {
#ifdef __EMSCRIPTEN__
    return {};
#else
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&own_file), &info) == 0 || !info.dli_fname) return {};
    std::error_code ec;
    const auto p = std::filesystem::weakly_canonical(info.dli_fname, ec);
    return ec ? std::filesystem::path(info.dli_fname) : p;
#endif
}

bool is_within(const std::filesystem::path& file, const std::filesystem::path& folder) {
    const auto rel = file.lexically_relative(folder);
    return !rel.empty() && *rel.begin() != "..";
}

}  // namespace

bool running_from_build_tree() {
#ifdef __EMSCRIPTEN__
    return false;
#else
    std::error_code ec;
    const auto build = std::filesystem::weakly_canonical(FS_BUILD_TREE, ec);
    return is_within(own_file(), ec ? std::filesystem::path(FS_BUILD_TREE) : build);
#endif
}

std::string data_dir(std::string_view kind) {
    std::string env = "FLUID_SANDBOX_";
    std::transform(kind.begin(), kind.end(), std::back_inserter(env),
                   [](char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); });
    if (const char* v = std::getenv(env.c_str()); v && *v) return v;
#ifdef __EMSCRIPTEN__
    return "/" + std::string(kind);
#else
    const std::string source = std::string(FS_SOURCE_TREE) + "/" + std::string(kind);
    const std::string installed = std::string(FS_INSTALLED_DATA) + "/" + std::string(kind);
    if (running_from_build_tree()) return source;
    std::error_code ec;
    if (std::filesystem::is_directory(installed, ec)) return installed;
    if (std::filesystem::is_directory(source, ec)) return source;
    return installed;
#endif
}

}  // namespace fs
