//===- KernelABI.h - the arguments of an mxgemm kernel ---------*- C++ -*-===//
//
// docs/Design.md section 4 as data: the explicit kernel arguments in order,
// with their kinds, byte offsets and sizes in the kernarg segment. The
// compiler emits the kernel signature from this list (mxgemm-tile), writes
// it into the kernel descriptor, and the runtime, the emulator tools and
// Python pack arguments by reading the descriptor, so an argument added
// here reaches every consumer without a second definition.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_CONTRACT_KERNELABI_H
#define MXGEMM_CONTRACT_KERNELABI_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mxgemm::contract {

struct GemmProblem;
struct KernelConfig;

/// How an explicit argument is passed.
enum class ArgumentKind : uint8_t {
  /// A 64-bit global (device) pointer; the kernel reads or writes the
  /// tensor it points to.
  GlobalPointer = 0,
  /// A 32-bit integer by value.
  I32 = 1,
};
std::string_view argumentKindName(ArgumentKind kind); // "global_pointer", "i32"
std::optional<ArgumentKind> parseArgumentKind(std::string_view name);

/// One explicit kernel argument.
struct KernelArgument {
  std::string name;
  ArgumentKind kind = ArgumentKind::GlobalPointer;
  uint32_t offset = 0, size = 0;
  bool operator==(const KernelArgument &o) const {
    return name == o.name && kind == o.kind && offset == o.offset &&
           size == o.size;
  }
};

/// Argument names (the descriptor's `arguments[].name`).
inline constexpr std::string_view kArgX = "X", kArgXScales = "Xs", kArgW = "W",
                                  kArgWScales = "Ws", kArgY = "Y", kArgM = "M",
                                  kArgN = "N", kArgK = "K", kArgLdX = "ldX",
                                  kArgLdXScales = "ldXs", kArgLdY = "ldY",
                                  kArgWorkspace = "Work", kArgPhase = "Phase";

/// The explicit arguments of the kernel of `problem` built with `config`:
/// X, Xs, W, Ws, Y (global pointers, 8 bytes each) then M (i32), each at
/// the next offset aligned to its size; a generic kernel (dynamic N or K)
/// then takes N and K, then the row strides ldX (elements of X per row),
/// ldXs (scale bytes per X row) and ldY (elements of Y per row) (i32 all;
/// W and its scales stay contiguous, as weights are); a split-K kernel
/// then takes Work
/// (the FP32 workspace, global pointer) and Phase (i32: 0 computes the
/// segment partials, 1 adds them into Y).
std::vector<KernelArgument> kernelArguments(const GemmProblem &problem,
                                            const KernelConfig &config);

/// Bytes of the explicit arguments (the end of the last one).
uint32_t explicitArgumentBytes(const std::vector<KernelArgument> &arguments);

} // namespace mxgemm::contract

#endif // MXGEMM_CONTRACT_KERNELABI_H
