// The page's side of the browser build (page.hpp). JavaScript runs through EM_JS; the page's own
// script (src/web/shell.html) defines window.fluidSandbox, where these calls leave their results.
#include "app/page.hpp"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#include <emscripten/html5.h>

// clang-format off
EM_JS(void, fs_page_download, (const char* path, const char* name), {
    // The browser keeps the download; the page's memory file system need not keep a copy.
    const data = FS.readFile(UTF8ToString(path));
    FS.unlink(UTF8ToString(path));
    const blob = new Blob([data], {type: "application/octet-stream"});
    if (window.fluidSandbox && window.fluidSandbox.download)
        window.fluidSandbox.download(blob, UTF8ToString(name));
});
EM_JS(int, fs_page_record_start, (int fps), {
    return window.fluidSandbox && window.fluidSandbox.startRecording ? window.fluidSandbox.startRecording(fps) : 0;
});
EM_JS(char*, fs_page_record_why, (), {
    const why = window.fluidSandbox && window.fluidSandbox.recordingProblem || "this page cannot record";
    return stringToNewUTF8(why);
});
EM_JS(char*, fs_page_record_stop, (const char* stem), {
    const name = window.fluidSandbox && window.fluidSandbox.stopRecording
                     ? window.fluidSandbox.stopRecording(UTF8ToString(stem)) : "";
    return stringToNewUTF8(name || "");
});
EM_JS(void, fs_page_state, (const char* json), {
    if (window.fluidSandbox) window.fluidSandbox.state = JSON.parse(UTF8ToString(json));
});
// clang-format on
#include <cstdlib>
#include <filesystem>
#endif

namespace fs::page {

#ifdef __EMSCRIPTEN__

void offer_download(const std::string& path) {
    fs_page_download(path.c_str(), std::filesystem::path(path).filename().string().c_str());
}

std::string start_canvas_recording(int fps) {
    if (fs_page_record_start(fps)) return {};
    char* why = fs_page_record_why();
    std::string out = why;
    std::free(why);
    return out;
}

std::string stop_canvas_recording(const std::string& stem) {
    char* name = fs_page_record_stop(stem.c_str());
    std::string out = name;
    std::free(name);
    return out;
}

void publish_state(const std::string& json) { fs_page_state(json.c_str()); }

void canvas_css_size(int& width, int& height) {
    double w = 0.0, h = 0.0;
    emscripten_get_element_css_size("#canvas", &w, &h);
    width = static_cast<int>(w);
    height = static_cast<int>(h);
}

#else

void offer_download(const std::string&) {}
std::string start_canvas_recording(int) { return "recording the canvas needs the browser build"; }
std::string stop_canvas_recording(const std::string&) { return {}; }
void publish_state(const std::string&) {}
void canvas_css_size(int& width, int& height) { width = height = 0; }

#endif

}  // namespace fs::page
