// The web page around the browser build (make web), as the window's code sees it; on the desktop
// every call is a no-op (or says there is no page). Implemented in page.cpp with Emscripten's
// JavaScript bridge; the page itself is src/web/shell.html.
#pragma once

#include <string>

#include "core/platform.hpp"  // kInBrowser

namespace fs::page {

// Hands a file the program wrote (in the page's memory file system) to the browser as a
// download, under its file name. Desktop: nothing (the file stays where it was written).
void offer_download(const std::string& path);

// Records the canvas with the browser's MediaRecorder (WebM or MP4, whichever it has) at `fps`
// frames a second. Returns an empty string, or why it cannot (no MediaRecorder, no format).
std::string start_canvas_recording(int fps);
// Stops it and offers the video as a download named `stem` plus the format's extension. Returns
// the file's name (empty when nothing was recording).
std::string stop_canvas_recording(const std::string& stem);

// The window's state for the page's scripts and the browser tests (window.fluidSandbox.state),
// as JSON text.
void publish_state(const std::string& json);

// The canvas's size in CSS pixels (0, 0 on the desktop), which the window follows.
void canvas_css_size(int& width, int& height);

}  // namespace fs::page
