//===- LaunchSpec.h - a kernel launch described in words --------*- C++ -*-===//
//
// Any gfx950 kernel (not only mxgemm's) can be launched from a short textual
// description: grid and workgroup sizes, named device buffers with an
// initialiser, kernel arguments that name those buffers, and buffers to
// print afterwards. `mxgemm-emu run` and tools that replay arbitrary code
// objects share this parser, so each number is range-checked in one place:
// a sign, junk or an out-of-range value is an error, never a wrapped or
// truncated value.
//
//   grid/block   X[,Y[,Z]]                       unsigned 32-bit each
//   buffer
//   NAME=BYTES[:zero|iota|iota32|fill=V|rand=SEED|randn-bf16=SEED|randn-f16=SEED|randn-f32=SEED]
//   argument     buf:NAME[+OFFSET] | i32:V | i64:V | ptr:V
//   print        NAME[:u8|u16|u32|i32|f32|bf16[:COUNT]]
//
// Arguments are packed in order, each aligned to its own size; hidden
// arguments are filled in by the emulator from the code object's metadata.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_EMULATOR_LAUNCHSPEC_H
#define MXGEMM_EMULATOR_LAUNCHSPEC_H

#include "mxgemm/Emulator/Emulator.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mxgemm::emu {

/// An unsigned integer (decimal or 0x...) of at most `max`; `what` names it
/// in the error ("invalid --lds '-1': expected an integer from 0 to ...").
llvm::Expected<uint64_t> parseUnsignedValue(llvm::StringRef text, uint64_t max,
                                            llvm::StringRef what);

/// A `bits`-bit value given signed or unsigned (-1 and 0xffffffff are the
/// same i32).
llvm::Expected<uint64_t> parseBitsValue(llvm::StringRef text, unsigned bits,
                                        llvm::StringRef what);

/// "X[,Y[,Z]]" into `out` (missing dimensions are 1).
llvm::Error parseDims(llvm::StringRef text, uint32_t out[3],
                      llvm::StringRef what);

/// "a,b,c" (workgroup ids).
llvm::Expected<std::vector<uint64_t>> parseIdList(llvm::StringRef text,
                                                  llvm::StringRef what);

struct BufferSpec {
  std::string name;
  uint64_t size = 0;
  /// RandomNormal*: standard-normal values (the sum of 12 uniforms minus 6,
  /// from raw mt19937_64 draws: the same bytes on every platform) in BF16,
  /// FP16 or FP32, the activations a quantize kernel reads.
  enum class Init {
    Zero,
    Iota,
    Iota32,
    Fill,
    Random,
    RandomNormalBF16,
    RandomNormalF16,
    RandomNormalF32
  } init = Init::Zero;
  /// The fill value or the random seed.
  uint64_t value = 0;
};

struct ArgumentSpec {
  enum class Kind { Buffer, I32, I64 } kind = Kind::I64;
  std::string buffer;
  /// The value, or the byte offset into `buffer`.
  uint64_t value = 0;
};

struct PrintSpec {
  std::string buffer;
  enum class Type { U8, U16, U32, I32, F32, BF16 } type = Type::U32;
  /// Elements to print; none = the whole buffer.
  std::optional<uint64_t> count;
};

/// A parsed launch description. Every parse function checks its piece
/// completely (names, ranges, duplicate buffers); `prepare` checks what
/// needs the pieces together (arguments and prints name known buffers).
struct LaunchSpec {
  std::vector<BufferSpec> buffers;
  std::vector<ArgumentSpec> arguments;
  std::vector<PrintSpec> prints;

  llvm::Error addBuffer(llvm::StringRef text);
  llvm::Error addArgument(llvm::StringRef text);
  llvm::Error addPrint(llvm::StringRef text);

  /// Allocates and initialises the buffers in `memory` (in place, no host
  /// copy) and packs the kernel arguments into `config.kernargs`. Returns
  /// the device address of each buffer, in the order of `buffers`.
  llvm::Expected<std::vector<uint64_t>> prepare(DeviceMemory &memory,
                                                LaunchConfig &config) const;

  /// Prints the requested buffers, one line each: "NAME: v0 v1 ...".
  void printBuffers(llvm::raw_ostream &os, const DeviceMemory &memory,
                    const std::vector<uint64_t> &addresses) const;
};

/// An error in a launch description (exit status "usage" in the tools).
class LaunchSpecError : public llvm::ErrorInfo<LaunchSpecError> {
public:
  static char ID;
  explicit LaunchSpecError(std::string text) : text(std::move(text)) {}
  void log(llvm::raw_ostream &os) const override { os << text; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

private:
  std::string text;
};

} // namespace mxgemm::emu

#endif // MXGEMM_EMULATOR_LAUNCHSPEC_H
