//===- SanitizerOptions.cpp - ASan defaults of the libFuzzer builds -------===//
//
// Only our code is instrumented; Debian's libLLVM/libMLIR are not. LLVM's
// header-only BumpPtrAllocator poisons the unused part of each new slab when
// it is compiled with ASan (our inline copies) and unpoisons what it hands
// out, but the uninstrumented copies inside libMLIR never unpoison: an
// MLIR context whose slab our code started then "uses poisoned memory" in
// libMLIR (a false report, seen in fuzz-config). Manual poisoning is turned
// off; every other ASan check (heap, stack, globals, use after free) stays.
//
//===----------------------------------------------------------------------===//

extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}
