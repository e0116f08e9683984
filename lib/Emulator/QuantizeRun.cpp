//===- QuantizeRun.cpp - run a quantize kernel and check it
//----------------===//
//
// The data is built from (sign, exponent, mantissa) fields of the input
// format, so every block kind (zero, NaN, inf, subnormal, ties, saturating,
// wide-range random) exists in BF16, FP16 and FP32 alike; the reference sees
// the same values as FP32.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Emulator/QuantizeRun.h"
#include "mxgemm/Numerics/Quantize.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <cstring>
#include <random>

using namespace llvm;
using namespace mxgemm;
using namespace mxgemm::emu;

StringRef emu::quantizeInputName(QuantizeInput type) {
  switch (type) {
  case QuantizeInput::BF16:
    return "bf16";
  case QuantizeInput::F16:
    return "f16";
  case QuantizeInput::F32:
    return "f32";
  }
  return "?";
}

std::optional<QuantizeInput> emu::parseQuantizeInput(StringRef name) {
  for (QuantizeInput t :
       {QuantizeInput::BF16, QuantizeInput::F16, QuantizeInput::F32})
    if (name == quantizeInputName(t))
      return t;
  return std::nullopt;
}

namespace {

struct InputFormat {
  unsigned expBits, mantBits, bytes;
};

InputFormat getFormat(QuantizeInput type) {
  switch (type) {
  case QuantizeInput::BF16:
    return {8, 7, 2};
  case QuantizeInput::F16:
    return {5, 10, 2};
  case QuantizeInput::F32:
    return {8, 23, 4};
  }
  return {8, 23, 4};
}

/// The FP32 value of an input-format bit pattern (exact for all three).
float toFloat(uint32_t bits, QuantizeInput type) {
  if (type == QuantizeInput::F32)
    return llvm::bit_cast<float>(bits);
  if (type == QuantizeInput::BF16)
    return llvm::bit_cast<float>(bits << 16);
  uint32_t sign = bits >> 15, exp = (bits >> 10) & 0x1f, mant = bits & 0x3ff;
  float v;
  if (exp == 0x1f)
    v = mant ? std::nanf("") : INFINITY;
  else if (exp == 0)
    v = std::ldexp(float(mant), -24);
  else
    v = std::ldexp(float(mant | 0x400), int(exp) - 25);
  return sign ? -v : v;
}

} // namespace

void emu::generateQuantizeInput(const QuantizeRunOptions &options,
                                std::vector<float> &values,
                                std::vector<uint8_t> &bytes) {
  const InputFormat f = getFormat(options.input);
  const uint32_t maxExp = (1u << f.expBits) - 2; // largest finite biased
  const uint32_t mantMask = (1u << f.mantBits) - 1;
  const uint32_t spread = f.expBits == 8 ? 24 : 10;
  std::mt19937_64 rng(options.seed);
  auto uniform = [&](uint64_t n) { return uint32_t(rng() % n); };
  auto pack = [&](uint32_t sign, uint32_t exp, uint32_t mant) {
    return (sign << (f.expBits + f.mantBits)) | (exp << f.mantBits) | mant;
  };
  const size_t count = size_t(options.m * options.k);
  values.resize(count);
  bytes.resize(count * f.bytes);
  const int block = numerics::kMXBlockSize;
  for (size_t b = 0; b < count / block; ++b) {
    const unsigned kind = unsigned(b % 8);
    const uint32_t base = 1 + uniform(maxExp);
    const unsigned special = uniform(block);
    for (int j = 0; j < block; ++j) {
      uint32_t sign = uniform(2);
      uint32_t exp =
          base > spread ? base - uniform(spread + 1) : 1 + uniform(base);
      uint32_t mant = uint32_t(rng()) & mantMask;
      switch (kind) {
      case 0: // all zero, either sign
        exp = mant = 0;
        break;
      case 1: // one NaN
        if (unsigned(j) == special)
          exp = maxExp + 1, mant = 1u << (f.mantBits - 1);
        break;
      case 2: // one inf
        if (unsigned(j) == special)
          exp = maxExp + 1, mant = 0;
        break;
      case 3: // subnormal inputs
        exp = 0;
        mant = mant ? mant : 1;
        break;
      case 4: // few mantissa bits: many exact rounding ties
        mant &= ~(mantMask >> std::min(5u, f.mantBits));
        break;
      case 5: // an amax just below a power of two: rounds up, saturates
        if (unsigned(j) == special)
          exp = base, mant = mantMask;
        else if (exp == base)
          exp = base - 1;
        break;
      default:
        break;
      }
      uint32_t bits = pack(sign, exp, mant);
      size_t i = b * block + size_t(j);
      values[i] = toFloat(bits, options.input);
      std::memcpy(bytes.data() + i * f.bytes, &bits, f.bytes); // little endian
    }
  }
}

Expected<QuantizeRunResult>
emu::runQuantize(const CodeObject &object, const KernelInfo &kernel,
                 const QuantizeRunOptions &options) {
  const int64_t block = numerics::kMXBlockSize;
  if (options.m < 1 || options.m > INT32_MAX || options.k < block ||
      options.k > INT32_MAX || options.k % block)
    return make_error<StringError>(
        "quantize needs 1 <= M < 2^31 and K a positive multiple of 32 below "
        "2^31, got M = " +
            Twine(options.m) + ", K = " + Twine(options.k),
        inconvertibleErrorCode());
  // M, K < 2^31: the product fits; the emulator's memory does not above
  // 2^32 elements.
  const uint64_t count = uint64_t(options.m) * uint64_t(options.k);
  if (count > (uint64_t(1) << 32))
    return make_error<StringError>("quantize: M * K above 2^32 elements",
                                   inconvertibleErrorCode());
  std::vector<float> values;
  std::vector<uint8_t> bytes;
  generateQuantizeInput(options, values, bytes);
  numerics::MXMatrix expected =
      numerics::quantizeMX(values.data(), options.m, options.k, options.format);

  // The scales as the kernel should leave them: row-major, or rewritten
  // into the MFMA-native layout with its padding.
  const uint64_t numBlocks = count / block;
  std::vector<uint8_t> wantScales = expected.scales;
  if (options.scaleLayout != contract::ScaleLayout::RowMajor) {
    std::optional<uint64_t> size = contract::scaleTensorBytes(
        options.scaleLayout, options.m, options.k / block);
    if (!size || *size > (uint64_t(1) << 32))
      return make_error<StringError>("quantize: the scale tensor is too large",
                                     inconvertibleErrorCode());
    wantScales.assign(size_t(*size), 0);
    contract::preshuffleScales(options.scaleLayout, expected.scales.data(),
                               options.m, options.k / block, options.k / block,
                               wantScales.data(), wantScales.size());
  }
  const uint64_t scaleBytes = wantScales.size();

  DeviceMemory memory;
  const uint64_t dIn = memory.allocate(bytes.size()),
                 dCodes = memory.allocate(count),
                 dScales = memory.allocate(scaleBytes);
  memory.copyToDevice(dIn, bytes.data(), bytes.size());
  // A byte the kernel should write but does not shows as 0xaa.
  std::vector<uint8_t> poison(scaleBytes, 0xaa);
  memory.copyToDevice(dScales, poison.data(), poison.size());
  LaunchConfig config = options.launch;
  config.grid[0] = uint32_t(divideCeil(numBlocks, kQuantizeWorkgroupSize));
  config.grid[1] = config.grid[2] = 1;
  config.workgroup[0] = kQuantizeWorkgroupSize;
  config.workgroup[1] = config.workgroup[2] = 1;
  // input, codes, scales (8-byte pointers), M, K (i32).
  config.kernargs.assign(32, 0);
  for (auto [offset, ptr] :
       {std::pair<size_t, uint64_t>{0, dIn}, {8, dCodes}, {16, dScales}})
    std::memcpy(config.kernargs.data() + offset, &ptr, 8);
  const int32_t m32 = int32_t(options.m), k32 = int32_t(options.k);
  std::memcpy(config.kernargs.data() + 24, &m32, 4);
  std::memcpy(config.kernargs.data() + 28, &k32, 4);

  auto launched = launch(object, kernel, config, memory);
  if (!launched)
    return launched.takeError();
  QuantizeRunResult result;
  result.launch = std::move(*launched);
  std::vector<uint8_t> codes(count), scales(scaleBytes);
  memory.copyFromDevice(codes.data(), dCodes, count);
  memory.copyFromDevice(scales.data(), dScales, scaleBytes);
  const bool native = options.scaleLayout != contract::ScaleLayout::RowMajor;
  auto note = [&](StringRef what, uint64_t i, uint8_t got, uint8_t want) {
    if (result.firstMismatches.size() < 8 && what == "scales" && native)
      result.firstMismatches.push_back(
          ("scale byte " + Twine(i) + " (" +
           contract::scaleLayoutName(options.scaleLayout) + "): got 0x" +
           utohexstr(got) + ", expected 0x" + utohexstr(want))
              .str());
    else if (result.firstMismatches.size() < 8)
      result.firstMismatches.push_back(
          (what + "[" +
           Twine(i / (what == "codes" ? options.k : options.k / block)) + "][" +
           Twine(i % (what == "codes" ? options.k : options.k / block)) +
           "]: got 0x" + utohexstr(got) + ", expected 0x" + utohexstr(want))
              .str());
  };
  for (uint64_t i = 0; i < count; ++i)
    if (codes[i] != expected.data[i]) {
      ++result.codeMismatches;
      note("codes", i, codes[i], expected.data[i]);
    }
  for (uint64_t i = 0; i < scaleBytes; ++i)
    if (scales[i] != wantScales[i]) {
      ++result.scaleMismatches;
      note("scales", i, scales[i], wantScales[i]);
    }
  result.comparedCodes = count;
  result.comparedScales = scaleBytes;
  return result;
}
