// The threaded program's side of WebAssembly exception handling (linked into index-threads.js
// only, before Emscripten's libunwind, whose definitions of these symbols it replaces).
//
// Why: with -fwasm-exceptions a landing pad that the compiler generates writes the landing pad's
// index and the frame's LSDA into the global __wasm_lpad_context, calls _Unwind_CallPersonality,
// and reads the catch clause's selector back from it (the protocol of LLVM's WasmEHPrepare).
// Debian's Emscripten 3.1.6 compiles with LLVM 14, which addresses __wasm_lpad_context as an
// ordinary global, but its prebuilt threaded libunwind (libunwind-mt-except.a) declares it
// thread_local: the two then write different memory, the personality routine sees no LSDA, and
// no typed catch clause matches (measured: `catch (int)` missed a `throw 42`, `catch (...)`
// took it; the page's unknown scene, a SceneError, ended the program). The single-threaded
// program's libunwind has no threads, so its variable is an ordinary global and it works.
//
// Here the context is an ordinary global, as the compiler addresses it (a per-thread one would
// need the compiler's cooperation). The cost: two threads unwinding at the same instant would
// share it. The page's thread throws on bad input, the simulation's thread on a refused scene or
// a failed step, both rare and brief; the loops' workers do not throw.
#include <cstdint>

extern "C" {

// The Itanium C++ ABI's unwinding types, as far as they are used here (not <unwind.h>: clang's
// own copy declares some of the functions below with other, equally wide, types).
using _Unwind_Reason_Code = int;
using _Unwind_Action = int;
constexpr _Unwind_Reason_Code kForeignExceptionCaught = 1;  // _URC_FOREIGN_EXCEPTION_CAUGHT
constexpr _Unwind_Action kCleanupPhase = 2;                 // _UA_CLEANUP_PHASE
struct _Unwind_Exception {  // the ABI's header of a thrown object; private fields follow
    uint64_t exception_class;
    void (*exception_cleanup)(_Unwind_Reason_Code, _Unwind_Exception*);
};
struct _Unwind_Context;

// The fields as the compiler's landing pads store and load them (WasmEHPrepare): inputs to the
// personality routine, then its output.
struct FsWasmLandingPad {
    uintptr_t lpad_index;  // the landing pad's index in the function's call-site table
    uintptr_t lsda;        // the function's language-specific data area
    uintptr_t selector;    // which catch clause matched (0: none, a cleanup)
};
FsWasmLandingPad __wasm_lpad_context;

_Unwind_Reason_Code __gxx_personality_wasm0(int version, _Unwind_Action actions, uint64_t exception_class,
                                            _Unwind_Exception* exception, _Unwind_Context* context);

// Called by every landing pad: the VM has unwound to this frame already (WebAssembly has no
// search phase), so the personality routine runs its cleanup phase only and sets the selector.
_Unwind_Reason_Code _Unwind_CallPersonality(void* exception) {
    auto* e = static_cast<_Unwind_Exception*>(exception);
    __wasm_lpad_context.selector = 0;
    return __gxx_personality_wasm0(1, kCleanupPhase, e->exception_class, e,
                                   reinterpret_cast<_Unwind_Context*>(&__wasm_lpad_context));
}

// __cxa_throw's last step: the WebAssembly throw of the C++ tag (index 0).
_Unwind_Reason_Code _Unwind_RaiseException(_Unwind_Exception* exception) {
    __builtin_wasm_throw(0, exception);
}

// __cxa_end_catch's: the exception's own clean-up, when it has one.
void _Unwind_DeleteException(_Unwind_Exception* exception) {
    if (exception->exception_cleanup) exception->exception_cleanup(kForeignExceptionCaught, exception);
}

// The personality routine's view of the context. It sets register 1 to the selector; it reads
// the "instruction pointer" as the landing pad's index plus 2 (it takes 1 off, then uses the
// value as a 1-based index); region start and IP setting mean nothing here.
void _Unwind_SetGR(_Unwind_Context* context, int index, uintptr_t value) {
    if (index == 1) reinterpret_cast<FsWasmLandingPad*>(context)->selector = value;
}
uintptr_t _Unwind_GetIP(_Unwind_Context* context) {
    return reinterpret_cast<FsWasmLandingPad*>(context)->lpad_index + 2;
}
void _Unwind_SetIP(_Unwind_Context*, uintptr_t) {}
uintptr_t _Unwind_GetLanguageSpecificData(_Unwind_Context* context) {
    return reinterpret_cast<FsWasmLandingPad*>(context)->lsda;
}
uintptr_t _Unwind_GetRegionStart(_Unwind_Context*) { return 0; }

}  // extern "C"
