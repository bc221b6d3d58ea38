// Which target this build runs on, for the few places that differ: the browser build (make web,
// Emscripten: WebAssembly, WebGL2, no threads) or a desktop. Everything else is the same code.
#pragma once

namespace fs {

#ifdef __EMSCRIPTEN__
inline constexpr bool kInBrowser = true;
#else
inline constexpr bool kInBrowser = false;
#endif

}  // namespace fs
