//===- LaunchSpec.cpp - a kernel launch described in words ----------------===//

#include "mxgemm/Emulator/LaunchSpec.h"

#include "mxgemm/Emulator/DeviceMemory.h"
#include "mxgemm/Numerics/MXNumerics.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>
#include <random>

using namespace llvm;
using namespace mxgemm::emu;

char LaunchSpecError::ID = 0;

static Error specError(const Twine &message) {
  return make_error<LaunchSpecError>(message.str());
}

Expected<uint64_t> mxgemm::emu::parseUnsignedValue(StringRef text, uint64_t max,
                                                   StringRef what) {
  uint64_t v;
  if (text.trim().getAsInteger(0, v) || v > max)
    return specError("invalid " + what + " '" + text +
                     "': expected an integer from 0 to " + Twine(max));
  return v;
}

Expected<uint64_t> mxgemm::emu::parseBitsValue(StringRef text, unsigned bits,
                                               StringRef what) {
  uint64_t u;
  int64_t v;
  uint64_t umax = bits == 64 ? UINT64_MAX : (uint64_t(1) << bits) - 1;
  int64_t smin = bits == 64 ? INT64_MIN : -(int64_t(1) << (bits - 1));
  if (!text.trim().getAsInteger(0, u) && u <= umax)
    return u;
  if (!text.trim().getAsInteger(0, v) && v >= smin && v < 0)
    return uint64_t(v) & umax;
  return specError("invalid " + what + " '" + text + "': not a " + Twine(bits) +
                   "-bit integer");
}

Error mxgemm::emu::parseDims(StringRef text, uint32_t out[3], StringRef what) {
  SmallVector<StringRef, 3> parts;
  text.split(parts, ',');
  if (parts.size() > 3)
    return specError("too many dimensions in " + what + " '" + text + "'");
  for (unsigned i = 0; i < 3; ++i) {
    out[i] = 1;
    if (i >= parts.size())
      continue;
    Expected<uint64_t> v = parseUnsignedValue(parts[i], UINT32_MAX, what);
    if (!v)
      return v.takeError();
    out[i] = uint32_t(*v);
  }
  return Error::success();
}

Expected<std::vector<uint64_t>> mxgemm::emu::parseIdList(StringRef text,
                                                         StringRef what) {
  SmallVector<StringRef, 8> parts;
  text.split(parts, ',', -1, false);
  std::vector<uint64_t> ids;
  for (StringRef p : parts) {
    Expected<uint64_t> v = parseUnsignedValue(p, UINT64_MAX, what);
    if (!v)
      return v.takeError();
    ids.push_back(*v);
  }
  return ids;
}

Error LaunchSpec::addBuffer(StringRef text) {
  auto [name, rest] = text.split('=');
  auto [size, init] = rest.split(':');
  if (name.empty() ||
      any_of(buffers, [&](const BufferSpec &b) { return b.name == name; }))
    return specError("--buf needs a new buffer name: '" + text + "'");
  BufferSpec b;
  b.name = name.str();
  Expected<uint64_t> bytes = parseUnsignedValue(size, UINT64_MAX, "--buf size");
  if (!bytes)
    return bytes.takeError();
  b.size = *bytes;
  if (init == "iota") {
    b.init = BufferSpec::Init::Iota;
  } else if (init == "iota32") {
    b.init = BufferSpec::Init::Iota32;
  } else if (init.consume_front("fill=")) {
    b.init = BufferSpec::Init::Fill;
    Expected<uint64_t> v = parseBitsValue(init, 32, "fill value");
    if (!v)
      return v.takeError();
    b.value = *v;
  } else if (init.consume_front("rand=")) {
    b.init = BufferSpec::Init::Random;
    Expected<uint64_t> v = parseBitsValue(init, 64, "seed");
    if (!v)
      return v.takeError();
    b.value = *v;
  } else if (init.starts_with("randn-")) {
    auto [kind, seed] = init.split('=');
    if (kind == "randn-bf16")
      b.init = BufferSpec::Init::RandomNormalBF16;
    else if (kind == "randn-f16")
      b.init = BufferSpec::Init::RandomNormalF16;
    else if (kind == "randn-f32")
      b.init = BufferSpec::Init::RandomNormalF32;
    else
      return specError("unknown buffer initialiser '" + init + "'");
    Expected<uint64_t> v = parseBitsValue(seed, 64, "seed");
    if (!v)
      return v.takeError();
    b.value = *v;
  } else if (!init.empty() && init != "zero") {
    return specError("unknown buffer initialiser '" + init + "'");
  }
  buffers.push_back(std::move(b));
  return Error::success();
}

Error LaunchSpec::addArgument(StringRef text) {
  auto [kind, v] = text.split(':');
  ArgumentSpec a;
  if (kind == "buf") {
    auto [name, offset] = v.split('+');
    a.kind = ArgumentSpec::Kind::Buffer;
    a.buffer = name.str();
    if (!offset.empty()) {
      Expected<uint64_t> o = parseUnsignedValue(offset, UINT64_MAX, "offset");
      if (!o)
        return o.takeError();
      a.value = *o;
    }
  } else if (kind == "i32" || kind == "i64" || kind == "ptr") {
    a.kind = kind == "i32" ? ArgumentSpec::Kind::I32 : ArgumentSpec::Kind::I64;
    Expected<uint64_t> x =
        parseBitsValue(v, kind == "i32" ? 32 : 64, ("--arg " + kind).str());
    if (!x)
      return x.takeError();
    a.value = *x;
  } else {
    return specError("unknown --arg kind '" + kind + "'");
  }
  arguments.push_back(std::move(a));
  return Error::success();
}

Error LaunchSpec::addPrint(StringRef text) {
  SmallVector<StringRef, 3> parts;
  text.split(parts, ':');
  if (parts.size() > 3 || parts[0].empty())
    return specError("--print takes NAME[:TYPE[:COUNT]], got '" + text + "'");
  PrintSpec p;
  p.buffer = parts[0].str();
  if (parts.size() > 1) {
    auto type = StringSwitch<std::optional<PrintSpec::Type>>(parts[1])
                    .Case("u8", PrintSpec::Type::U8)
                    .Case("u16", PrintSpec::Type::U16)
                    .Case("u32", PrintSpec::Type::U32)
                    .Case("i32", PrintSpec::Type::I32)
                    .Case("f32", PrintSpec::Type::F32)
                    .Case("bf16", PrintSpec::Type::BF16)
                    .Default(std::nullopt);
    if (!type)
      return specError("--print: unknown type '" + parts[1] + "'");
    p.type = *type;
  }
  if (parts.size() > 2) {
    Expected<uint64_t> c =
        parseUnsignedValue(parts[2], UINT64_MAX, "--print count");
    if (!c)
      return c.takeError();
    p.count = *c;
  }
  prints.push_back(std::move(p));
  return Error::success();
}

static void initialise(const BufferSpec &b, uint8_t *data) {
  switch (b.init) {
  case BufferSpec::Init::Zero:
    break; // device memory starts zeroed
  case BufferSpec::Init::Iota:
    for (uint64_t j = 0; j < b.size; ++j)
      data[j] = uint8_t(j);
    break;
  case BufferSpec::Init::Iota32:
    for (uint64_t j = 0; j + 4 <= b.size; j += 4) {
      uint32_t x = uint32_t(j / 4);
      std::memcpy(&data[j], &x, 4);
    }
    break;
  case BufferSpec::Init::Fill:
    for (uint64_t j = 0; j + 4 <= b.size; j += 4) {
      uint32_t x = uint32_t(b.value);
      std::memcpy(&data[j], &x, 4);
    }
    break;
  case BufferSpec::Init::Random: {
    std::mt19937_64 rng(b.value);
    for (uint64_t j = 0; j < b.size; ++j)
      data[j] = uint8_t(rng());
    break;
  }
  case BufferSpec::Init::RandomNormalBF16:
  case BufferSpec::Init::RandomNormalF16:
  case BufferSpec::Init::RandomNormalF32: {
    std::mt19937_64 rng(b.value);
    const unsigned bytes = b.init == BufferSpec::Init::RandomNormalF32 ? 4 : 2;
    for (uint64_t j = 0; j + bytes <= b.size; j += bytes) {
      double sum = -6.0;
      for (int i = 0; i < 12; ++i)
        sum += double(rng() >> 11) * 0x1p-53;
      const float f = float(sum);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      if (b.init == BufferSpec::Init::RandomNormalBF16) {
        bits >>= 16; // truncation: any BF16 pattern will do
      } else if (b.init == BufferSpec::Init::RandomNormalF16) {
        bool lost;
        llvm::APFloat h(f);
        h.convert(llvm::APFloat::IEEEhalf(), llvm::APFloat::rmNearestTiesToEven,
                  &lost);
        bits = uint32_t(h.bitcastToAPInt().getZExtValue());
      }
      std::memcpy(&data[j], &bits, bytes);
    }
    break;
  }
  }
}

static std::optional<size_t> findBuffer(const std::vector<BufferSpec> &buffers,
                                        StringRef name) {
  for (size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i].name == name)
      return i;
  return std::nullopt;
}

Expected<std::vector<uint64_t>>
LaunchSpec::prepare(DeviceMemory &memory, LaunchConfig &config) const {
  for (const ArgumentSpec &a : arguments)
    if (a.kind == ArgumentSpec::Kind::Buffer && !findBuffer(buffers, a.buffer))
      return specError("--arg names unknown buffer '" + a.buffer + "'");
  for (const PrintSpec &p : prints)
    if (!findBuffer(buffers, p.buffer))
      return specError("--print names unknown buffer '" + p.buffer + "'");

  std::vector<uint64_t> addresses;
  for (const BufferSpec &b : buffers) {
    uint64_t address = b.size ? memory.allocate(b.size) : 0;
    if (b.size && !address)
      return specError("cannot allocate " + Twine(b.size) +
                       " bytes for buffer '" + b.name + "'");
    if (b.size)
      initialise(b, memory.translate(address, b.size));
    addresses.push_back(address);
  }

  std::vector<uint8_t> &kernargs = config.kernargs;
  auto put = [&](uint64_t value, size_t bytes) {
    size_t offset = alignTo(kernargs.size(), bytes);
    kernargs.resize(offset + bytes);
    std::memcpy(kernargs.data() + offset, &value, bytes); // little-endian
  };
  for (const ArgumentSpec &a : arguments) {
    if (a.kind == ArgumentSpec::Kind::I32) {
      put(a.value, 4);
      continue;
    }
    uint64_t value = a.value;
    if (a.kind == ArgumentSpec::Kind::Buffer &&
        __builtin_add_overflow(addresses[*findBuffer(buffers, a.buffer)],
                               a.value, &value))
      return specError("--arg buf:" + a.buffer + "+" + Twine(a.value) +
                       ": the address overflows");
    put(value, 8);
  }
  return addresses;
}

void LaunchSpec::printBuffers(raw_ostream &os, const DeviceMemory &memory,
                              const std::vector<uint64_t> &addresses) const {
  for (const PrintSpec &p : prints) {
    size_t index = *findBuffer(buffers, p.buffer);
    const BufferSpec &b = buffers[index];
    unsigned size =
        p.type == PrintSpec::Type::U8 ? 1
        : (p.type == PrintSpec::Type::U16 || p.type == PrintSpec::Type::BF16)
            ? 2
            : 4;
    uint64_t count =
        std::min<uint64_t>(p.count.value_or(UINT64_MAX), b.size / size);
    const uint8_t *data =
        b.size ? memory.translate(addresses[index], b.size) : nullptr;
    os << p.buffer << ":";
    for (uint64_t j = 0; j < count; ++j) {
      uint32_t x = 0;
      std::memcpy(&x, &data[j * size], size);
      switch (p.type) {
      case PrintSpec::Type::F32: {
        float f;
        std::memcpy(&f, &x, 4);
        os << " " << format("%g", double(f));
        break;
      }
      case PrintSpec::Type::BF16:
        os << " " << format("%g", double(numerics::bf16ToFp32(uint16_t(x))));
        break;
      case PrintSpec::Type::I32:
        os << " " << int32_t(x);
        break;
      default:
        os << " " << x;
      }
    }
    os << "\n";
  }
}
