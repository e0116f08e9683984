//===- HipFacade.cpp - the HIP runtime API subset on the gfx950 emulator --===//
//
// Implements include/mxgemm/Emulator/HipFacade.h: a HIP-compatible C API over
// the emulator's DeviceMemory, CodeObject and launch(), so that the runtime
// shim, which dlopens HIP, runs unchanged on the CPU. Handles are validated
// against live-object sets (a stale or forged handle is an error code, never
// a crash), launches are checked against the kernel's metadata and the
// allocations before they run, and launches run to completion before
// returning (streams are bookkeeping only).
//
// Lock discipline. There is one lock, FacadeState::mutex, and it guards
// everything the facade owns: the module, function and stream sets and the
// DeviceMemory with the bytes of every allocation. Every entry point that
// touches any of them holds the mutex from its first access to its last,
// including hipMalloc and hipFree (they change the allocation map) and the
// whole of a launch (its worker threads read the map and the bytes). So no
// host pointer obtained from DeviceMemory outlives the critical section in
// which it was translated, and DeviceMemory, which has no lock of its own
// (the std-container rule, DeviceMemory.h), is never changed while anyone
// reads it. Work that touches no shared state runs unlocked: argument
// checks, loading and decoding a code object (the decoder serialises its MC
// state itself), and the per-thread last error. Nothing is called with the
// mutex held that could call back into the facade, so it cannot deadlock.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Emulator/HipFacade.h"
#include "mxgemm/Emulator/Emulator.h"
#include "mxgemm/Target/CodeObject.h"
#include "mxgemm/Target/TargetModel.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#define MXGEMM_HIP_EXPORT extern "C" __attribute__((visibility("default")))

using namespace mxgemm::emu;

struct ihipStream_t {
  int unused = 0;
};
struct ihipModuleSymbol_t {
  struct ihipModule_t *module;
  const KernelInfo *kernel;
};
struct ihipModule_t {
  std::unique_ptr<CodeObject> object;
  std::map<std::string, std::unique_ptr<ihipModuleSymbol_t>> functions;
};

namespace {

constexpr int kDriverVersion = 60400000; // HIP 6.4 (major*1e7 + minor*1e5)
constexpr const char *kDeviceName = "AMD Instinct MI355X (mxgemm emulator)";
// The device's target features: sramecc on, xnack off, as MI355X ships.
constexpr const char *kArchFeatures = ":sramecc+:xnack-";

// Every hardware figure comes from the one target table.
const mxgemm::target::TargetModel &gfx950 = mxgemm::target::kGFX950;
const int kNumCus = int(gfx950.numCus);
const int kWaveSize = int(gfx950.waveSize);
const int kMaxThreadsPerBlock =
    int(gfx950.maxWavesPerWorkgroup * gfx950.waveSize);
const int kMaxThreadsPerCu =
    int(gfx950.maxWavesPerSimd * gfx950.simdsPerCu * gfx950.waveSize);
const int kLdsPerWorkgroup = int(gfx950.maxLdsBytesPerWorkgroup);
const int kClockKhz = int(gfx950.peakClockHz / 1000);
const int kL2Bytes = int(gfx950.l2BytesPerXcd);
const size_t kGlobalMemBytes = size_t(gfx950.hbmBytes);
// What ROCm reports as registers per block and per multiprocessor on gfx9
// parts. Informational only: nothing in the emulator depends on them and
// the target table has no such figure.
constexpr int kRegsPerBlock = 65536, kRegsPerCu = 131072;
// Grid dimensions HIP reports (int32 maxGridSize).
constexpr int kMaxGridDim = 0x7fffffff;

struct FacadeState {
  std::mutex mutex;
  DeviceMemory memory;
  std::set<ihipModule_t *> modules;
  std::set<ihipModuleSymbol_t *> functions;
  std::set<ihipStream_t *> streams;
  /// Completed launches by kernel name (mxgemmEmuLaunchCount).
  std::map<std::string, uint64_t> launches;
};

FacadeState &state() {
  // Never destroyed: the facade may be called from static destructors.
  static FacadeState *s = new FacadeState;
  return *s;
}

thread_local hipError_t lastError = hipSuccess;
thread_local int currentDevice = 0;

hipError_t result(hipError_t e) {
  if (e != hipSuccess)
    lastError = e;
  return e;
}

bool validStream(FacadeState &s, hipStream_t stream) {
  return !stream || s.streams.count(stream);
}

/// Host pointer of a device range, or nullptr.
uint8_t *device(FacadeState &s, const void *p, size_t bytes) {
  return s.memory.translate(uint64_t(reinterpret_cast<uintptr_t>(p)),
                            bytes ? bytes : 1);
}

bool isDevice(FacadeState &s, const void *p) {
  uint64_t base, size;
  uint8_t *host;
  return s.memory.lookup(uint64_t(reinterpret_cast<uintptr_t>(p)), base, size,
                         host);
}

hipError_t copy(void *dst, const void *src, size_t bytes, hipMemcpyKind kind) {
  if (!bytes)
    return hipSuccess;
  if (!dst || !src)
    return hipErrorInvalidValue;
  FacadeState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (kind == hipMemcpyDefault)
    kind = isDevice(s, dst) ? (isDevice(s, src) ? hipMemcpyDeviceToDevice
                                                : hipMemcpyHostToDevice)
                            : (isDevice(s, src) ? hipMemcpyDeviceToHost
                                                : hipMemcpyHostToHost);
  const uint8_t *from = static_cast<const uint8_t *>(src);
  uint8_t *to = static_cast<uint8_t *>(dst);
  switch (kind) {
  case hipMemcpyHostToHost:
    break;
  case hipMemcpyHostToDevice:
    to = device(s, dst, bytes);
    break;
  case hipMemcpyDeviceToHost:
    from = device(s, src, bytes);
    break;
  case hipMemcpyDeviceToDevice:
    to = device(s, dst, bytes);
    from = device(s, src, bytes);
    break;
  default:
    return hipErrorInvalidMemcpyDirection;
  }
  if (!to || !from)
    return hipErrorInvalidValue;
  std::memmove(to, from, bytes);
  return hipSuccess;
}

hipError_t fill(void *dst, int value, size_t bytes) {
  if (!bytes)
    return hipSuccess;
  if (!dst)
    return hipErrorInvalidValue;
  FacadeState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  uint8_t *to = device(s, dst, bytes);
  if (!to)
    return hipErrorInvalidValue;
  std::memset(to, value, bytes);
  return hipSuccess;
}

std::vector<uint64_t> parseIds(const char *text) {
  std::vector<uint64_t> ids;
  llvm::SmallVector<llvm::StringRef, 16> parts;
  llvm::StringRef(text).split(parts, ',', -1, false);
  for (llvm::StringRef p : parts) {
    uint64_t v;
    if (!p.trim().getAsInteger(0, v))
      ids.push_back(v);
  }
  return ids;
}

/// True for the runtime's data-movement kernels (HipFacade.h): every
/// workgroup writes a piece of an operand that later launches read whole,
/// so workgroup selection, meant for GEMM output tiles, would leave the
/// operand partly written.
bool runsWholeGrid(llvm::StringRef kernel) {
  return kernel.starts_with("mxgemm_quantize_") ||
         kernel.starts_with("mxgemm_pack_panels_");
}

/// Launch options from the environment (see HipFacade.h).
void applyEnvironment(const KernelInfo &kernel, LaunchConfig &config) {
  uint64_t gx = config.grid[0], gy = config.grid[1], gz = config.grid[2];
  // The grid was checked (checkLaunchShape): this product fits 64 bits.
  uint64_t numWg = gx * gy * gz;
  if (runsWholeGrid(kernel.name)) {
    // Workgroup selection does not apply; threads and checks do.
  } else if (const char *list = std::getenv("MXGEMM_EMU_WORKGROUPS")) {
    for (uint64_t id : parseIds(list))
      if (id < numWg)
        config.workgroupsToRun.push_back(id);
    if (config.workgroupsToRun.empty())
      config.workgroupsToRun.push_back(0);
  } else if (const char *sample = std::getenv("MXGEMM_EMU_SAMPLE")) {
    uint64_t count = std::strtoull(sample, nullptr, 10);
    if (count && count < numWg)
      config.workgroupsToRun = sampleWorkgroups(numWg, count, [&](uint64_t id) {
        uint64_t x = id % gx, y = (id / gx) % gy, z = id / (gx * gy);
        auto border = [](uint64_t i, uint64_t n) {
          return n > 1 && (i == 0 || i == n - 1);
        };
        return border(x, gx) || border(y, gy) || border(z, gz);
      });
  }
  if (const char *threads = std::getenv("MXGEMM_EMU_THREADS"))
    config.threads = unsigned(std::strtoul(threads, nullptr, 10));
  if (const char *checks = std::getenv("MXGEMM_EMU_CHECKS"))
    config.checks = std::strcmp(checks, "0") != 0;
}

} // namespace

//===----------------------------------------------------------------------===//
// Device management
//===----------------------------------------------------------------------===//

MXGEMM_HIP_EXPORT hipError_t hipInit(unsigned int flags) {
  return result(flags ? hipErrorInvalidValue : hipSuccess);
}

MXGEMM_HIP_EXPORT hipError_t hipGetDeviceCount(int *count) {
  if (!count)
    return result(hipErrorInvalidValue);
  *count = 1;
  return hipSuccess;
}

MXGEMM_HIP_EXPORT hipError_t hipSetDevice(int deviceId) {
  if (deviceId != 0)
    return result(hipErrorInvalidDevice);
  currentDevice = deviceId;
  return hipSuccess;
}

MXGEMM_HIP_EXPORT hipError_t hipGetDevice(int *deviceId) {
  if (!deviceId)
    return result(hipErrorInvalidValue);
  *deviceId = currentDevice;
  return hipSuccess;
}

MXGEMM_HIP_EXPORT hipError_t hipDeviceGetAttribute(int *pi,
                                                   hipDeviceAttribute_t attr,
                                                   int deviceId) {
  if (!pi)
    return result(hipErrorInvalidValue);
  if (deviceId != 0)
    return result(hipErrorInvalidDevice);
  switch (attr) {
  case hipDeviceAttributeClockRate:
    *pi = kClockKhz;
    return hipSuccess;
  case hipDeviceAttributeL2CacheSize:
    *pi = kL2Bytes;
    return hipSuccess;
  case hipDeviceAttributeComputeCapabilityMajor:
    *pi = gfx950.computeCapabilityMajor;
    return hipSuccess;
  case hipDeviceAttributeComputeCapabilityMinor:
    *pi = gfx950.computeCapabilityMinor;
    return hipSuccess;
  case hipDeviceAttributeMaxBlockDimX:
  case hipDeviceAttributeMaxBlockDimY:
  case hipDeviceAttributeMaxBlockDimZ:
  case hipDeviceAttributeMaxThreadsPerBlock:
    *pi = kMaxThreadsPerBlock;
    return hipSuccess;
  case hipDeviceAttributeMaxGridDimX:
  case hipDeviceAttributeMaxGridDimY:
  case hipDeviceAttributeMaxGridDimZ:
    *pi = kMaxGridDim;
    return hipSuccess;
  case hipDeviceAttributeMaxThreadsPerMultiProcessor:
    *pi = kMaxThreadsPerCu;
    return hipSuccess;
  case hipDeviceAttributeMultiprocessorCount:
  case hipDeviceAttributePhysicalMultiProcessorCount:
    *pi = kNumCus;
    return hipSuccess;
  case hipDeviceAttributeMaxRegistersPerBlock:
    *pi = kRegsPerBlock;
    return hipSuccess;
  case hipDeviceAttributeMaxSharedMemoryPerBlock:
  case hipDeviceAttributeSharedMemPerBlockOptin:
  case hipDeviceAttributeSharedMemPerMultiprocessor:
  case hipDeviceAttributeMaxSharedMemoryPerMultiprocessor:
    *pi = kLdsPerWorkgroup;
    return hipSuccess;
  case hipDeviceAttributeWarpSize:
    *pi = kWaveSize;
    return hipSuccess;
  }
  return result(hipErrorInvalidValue);
}

MXGEMM_HIP_EXPORT hipError_t hipDeviceGetName(char *name, int len,
                                              hipDevice_t device) {
  if (!name || len <= 0)
    return result(hipErrorInvalidValue);
  if (device != 0)
    return result(hipErrorInvalidDevice);
  std::strncpy(name, kDeviceName, size_t(len) - 1);
  name[len - 1] = 0;
  return hipSuccess;
}

MXGEMM_HIP_EXPORT hipError_t
hipGetDevicePropertiesR0600(hipDeviceProp_tR0600 *prop, int deviceId) {
  if (!prop)
    return result(hipErrorInvalidValue);
  if (deviceId != 0)
    return result(hipErrorInvalidDevice);
  auto *bytes = reinterpret_cast<uint8_t *>(prop);
  std::memset(bytes, 0, mxgemmHipPropSize);
  auto put = [&](int offset, auto value) {
    std::memcpy(bytes + offset, &value, sizeof(value));
  };
  std::strcpy(reinterpret_cast<char *>(bytes + mxgemmHipPropName), kDeviceName);
  std::string arch = std::string(gfx950.chip) + kArchFeatures;
  std::strcpy(reinterpret_cast<char *>(bytes + mxgemmHipPropGcnArchName),
              arch.c_str());
  put(mxgemmHipPropTotalGlobalMem, kGlobalMemBytes);
  put(mxgemmHipPropSharedMemPerBlock, size_t(kLdsPerWorkgroup));
  put(mxgemmHipPropRegsPerBlock, kRegsPerBlock);
  put(mxgemmHipPropWarpSize, kWaveSize);
  put(mxgemmHipPropMaxThreadsPerBlock, kMaxThreadsPerBlock);
  for (int i = 0; i < 3; ++i) {
    put(mxgemmHipPropMaxThreadsDim + 4 * i, kMaxThreadsPerBlock);
    put(mxgemmHipPropMaxGridSize + 4 * i, kMaxGridDim);
  }
  put(mxgemmHipPropClockRate, kClockKhz);
  put(mxgemmHipPropMajor, gfx950.computeCapabilityMajor);
  put(mxgemmHipPropMinor, gfx950.computeCapabilityMinor);
  put(mxgemmHipPropMultiProcessorCount, kNumCus);
  put(mxgemmHipPropL2CacheSize, kL2Bytes);
  put(mxgemmHipPropMaxThreadsPerMultiProcessor, kMaxThreadsPerCu);
  put(mxgemmHipPropSharedMemPerMultiprocessor, size_t(kLdsPerWorkgroup));
  put(mxgemmHipPropRegsPerMultiprocessor, kRegsPerCu);
  put(mxgemmHipPropSharedMemPerBlockOptin, size_t(kLdsPerWorkgroup));
  put(mxgemmHipPropMaxSharedMemoryPerMultiProcessor, size_t(kLdsPerWorkgroup));
  return hipSuccess;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

MXGEMM_HIP_EXPORT hipError_t hipMalloc(void **ptr, size_t size) {
  if (!ptr)
    return result(hipErrorInvalidValue);
  *ptr = nullptr;
  if (!size)
    return hipSuccess;
  FacadeState &s = state();
  uint64_t address;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    address = s.memory.allocate(size);
  }
  if (!address)
    return result(hipErrorOutOfMemory);
  *ptr = reinterpret_cast<void *>(uintptr_t(address));
  return hipSuccess;
}

MXGEMM_HIP_EXPORT hipError_t hipFree(void *ptr) {
  if (!ptr)
    return hipSuccess;
  FacadeState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.memory.free(uint64_t(reinterpret_cast<uintptr_t>(ptr))))
    return result(hipErrorInvalidValue);
  return hipSuccess;
}

// The facade runs every launch when it is issued, so stream order is
// program order and the stream-ordered allocator is the plain one.
MXGEMM_HIP_EXPORT hipError_t hipMallocAsync(void **ptr, size_t size,
                                            hipStream_t stream) {
  {
    FacadeState &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!validStream(s, stream))
      return result(hipErrorInvalidHandle);
  }
  return hipMalloc(ptr, size);
}

MXGEMM_HIP_EXPORT hipError_t hipFreeAsync(void *ptr, hipStream_t stream) {
  {
    FacadeState &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!validStream(s, stream))
      return result(hipErrorInvalidHandle);
  }
  return hipFree(ptr);
}

MXGEMM_HIP_EXPORT hipError_t hipMemcpy(void *dst, const void *src,
                                       size_t sizeBytes, hipMemcpyKind kind) {
  return result(copy(dst, src, sizeBytes, kind));
}

MXGEMM_HIP_EXPORT hipError_t hipMemcpyAsync(void *dst, const void *src,
                                            size_t sizeBytes,
                                            hipMemcpyKind kind,
                                            hipStream_t stream) {
  {
    FacadeState &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!validStream(s, stream))
      return result(hipErrorInvalidHandle);
  }
  return result(copy(dst, src, sizeBytes, kind));
}

MXGEMM_HIP_EXPORT hipError_t hipMemset(void *dst, int value, size_t sizeBytes) {
  return result(fill(dst, value, sizeBytes));
}

MXGEMM_HIP_EXPORT hipError_t hipMemsetAsync(void *dst, int value,
                                            size_t sizeBytes,
                                            hipStream_t stream) {
  {
    FacadeState &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!validStream(s, stream))
      return result(hipErrorInvalidHandle);
  }
  return result(fill(dst, value, sizeBytes));
}

//===----------------------------------------------------------------------===//
// Modules and launches
//===----------------------------------------------------------------------===//

MXGEMM_HIP_EXPORT hipError_t hipModuleLoadData(hipModule_t *module,
                                               const void *image) {
  if (!module || !image)
    return result(hipErrorInvalidValue);
  *module = nullptr;
  // The image comes without a size. Its size is what the ELF header claims
  // (claimedImageSize reads only the 64 header bytes and checks the claim);
  // the sized loader then reads exactly that many bytes and checks every
  // structure inside them. Whether the caller's buffer really holds them
  // cannot be checked by anyone (docs/Emulator.md).
  const auto *p = static_cast<const uint8_t *>(image);
  auto size = [&]() -> llvm::Expected<uint64_t> {
    if (std::memcmp(p, llvm::ELF::ElfMagic, 4) != 0)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "not an ELF file");
    return mxgemm::target::claimedImageSize(p, mxgemmHipMaxImageBytes);
  }();
  if (!size) {
    llvm::errs() << "mxgemm_hip_emu: hipModuleLoadData: not a usable code "
                    "object image: "
                 << llvm::toString(size.takeError()) << "\n";
    return result(hipErrorInvalidImage);
  }
  auto object = CodeObject::load(llvm::ArrayRef<uint8_t>(p, size_t(*size)));
  if (!object) {
    std::string message = llvm::toString(object.takeError());
    llvm::errs() << "mxgemm_hip_emu: hipModuleLoadData: " << message << "\n";
    llvm::StringRef m(message);
    if (m.contains("is not modelled"))
      return result(hipErrorNotSupported);
    if (m.contains("target is not gfx950"))
      return result(hipErrorNoBinaryForGpu);
    return result(hipErrorInvalidImage);
  }
  auto *mod = new ihipModule_t;
  mod->object = std::move(*object);
  FacadeState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.modules.insert(mod);
  *module = mod;
  return hipSuccess;
}

MXGEMM_HIP_EXPORT hipError_t hipModuleUnload(hipModule_t module) {
  FacadeState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!module || !s.modules.erase(module))
    return result(hipErrorInvalidHandle);
  for (auto &entry : module->functions)
    s.functions.erase(entry.second.get());
  delete module;
  return hipSuccess;
}

MXGEMM_HIP_EXPORT hipError_t hipModuleGetFunction(hipFunction_t *function,
                                                  hipModule_t module,
                                                  const char *kname) {
  if (!function || !kname)
    return result(hipErrorInvalidValue);
  *function = nullptr;
  FacadeState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!module || !s.modules.count(module))
    return result(hipErrorInvalidHandle);
  auto it = module->functions.find(kname);
  if (it == module->functions.end()) {
    const KernelInfo *kernel = module->object->findKernel(kname);
    if (!kernel)
      return result(hipErrorNotFound);
    auto fn = std::make_unique<ihipModuleSymbol_t>();
    fn->module = module;
    fn->kernel = kernel;
    s.functions.insert(fn.get());
    it = module->functions.emplace(kname, std::move(fn)).first;
  }
  *function = it->second.get();
  return hipSuccess;
}

/// The hipError_t of a launch the emulator refused or failed.
static hipError_t launchError(llvm::Error error, const KernelInfo &kernel) {
  hipError_t code = hipErrorLaunchFailure;
  std::string message;
  llvm::handleAllErrors(
      std::move(error),
      [&](const LaunchConfigError &e) {
        switch (e.problem()) {
        case LaunchProblem::Configuration:
          code = hipErrorInvalidConfiguration;
          break;
        case LaunchProblem::Resources:
          code = hipErrorLaunchOutOfResources;
          break;
        case LaunchProblem::Argument:
          code = hipErrorInvalidValue;
          break;
        }
        message = e.message();
      },
      [&](const llvm::ErrorInfoBase &e) { message = e.message(); });
  llvm::errs() << "mxgemm_hip_emu: launch of '" << kernel.name
               << "' failed: " << message << "\n";
  return code;
}

MXGEMM_HIP_EXPORT hipError_t hipModuleLaunchKernel(
    hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY,
    unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
    unsigned int blockDimZ, unsigned int sharedMemBytes, hipStream_t stream,
    void **kernelParams, void **extra) {
  FacadeState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!f || !s.functions.count(f))
    return result(hipErrorInvalidHandle);
  if (!validStream(s, stream))
    return result(hipErrorInvalidHandle);
  // A HIP launch always names its block; 0 would mean "from metadata" to
  // the emulator.
  if (!blockDimX || !blockDimY || !blockDimZ)
    return result(hipErrorInvalidConfiguration);
  const KernelInfo &kernel = *f->kernel;
  if (kernelParams && extra)
    return result(hipErrorInvalidValue);

  LaunchConfig config;
  config.grid[0] = gridDimX;
  config.grid[1] = gridDimY;
  config.grid[2] = gridDimZ;
  config.workgroup[0] = blockDimX;
  config.workgroup[1] = blockDimY;
  config.workgroup[2] = blockDimZ;
  config.dynamicLdsBytes = sharedMemBytes;
  if (llvm::Error e = checkLaunchShape(kernel, config))
    return result(launchError(std::move(e), kernel));
  const uint32_t segment = kernargSegmentBytes(kernel);
  if (extra) {
    const void *buffer = nullptr;
    const size_t *size = nullptr;
    for (size_t i = 0; extra[i] != HIP_LAUNCH_PARAM_END; i += 2) {
      if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_POINTER)
        buffer = extra[i + 1];
      else if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_SIZE)
        size = static_cast<const size_t *>(extra[i + 1]);
      else
        return result(hipErrorInvalidValue);
    }
    if (!buffer || !size)
      return result(hipErrorInvalidValue);
    // Checked before a byte is copied: the kernel reads at most its
    // segment, and a larger buffer (or size) is a caller's mistake.
    if (*size > segment) {
      llvm::errs() << "mxgemm_hip_emu: launch of '" << kernel.name
                   << "': HIP_LAUNCH_PARAM_BUFFER_SIZE " << *size
                   << " exceeds the kernel's " << segment
                   << "-byte kernarg segment\n";
      return result(hipErrorInvalidValue);
    }
    const auto *b = static_cast<const uint8_t *>(buffer);
    config.kernargs.assign(b, b + *size);
  } else {
    // kernelParams are laid out by the metadata's `.args`; without a note
    // there is no layout to follow.
    if (!kernel.hasMetadata && segment) {
      llvm::errs() << "mxgemm_hip_emu: launch of '" << kernel.name
                   << "': kernelParams need the code object's .args "
                      "metadata; pass the arguments through extra\n";
      return result(hipErrorInvalidValue);
    }
    // Explicit arguments (hidden ones are the emulator's business). Each
    // lies inside the segment (checked when the note was read).
    size_t index = 0;
    for (const KernelArgInfo &arg : kernel.args) {
      if (arg.isHidden())
        continue;
      if (!kernelParams || !kernelParams[index])
        return result(hipErrorInvalidValue);
      size_t end = size_t(arg.offset) + arg.size;
      if (config.kernargs.size() < end)
        config.kernargs.resize(end);
      std::memcpy(config.kernargs.data() + arg.offset, kernelParams[index],
                  arg.size);
      ++index;
    }
  }
  // Kernarg size and pointer arguments, before anything runs.
  if (llvm::Error e = checkLaunchArguments(kernel, config, s.memory))
    return result(launchError(std::move(e), kernel));
  applyEnvironment(kernel, config);

  auto launched = launch(*f->module->object, kernel, config, s.memory);
  if (!launched)
    return result(launchError(launched.takeError(), kernel));
  if (launched->totalFindings) {
    llvm::errs() << "mxgemm_hip_emu: launch of '" << kernel.name
                 << "': " << launched->totalFindings << " checker finding(s)\n";
    for (const Finding &finding : launched->findings)
      printFinding(llvm::errs(), finding);
    return result(hipErrorLaunchFailure);
  }
  ++s.launches[kernel.name];
  return hipSuccess;
}

MXGEMM_HIP_EXPORT unsigned long long mxgemmEmuLaunchCount(const char *kernel) {
  if (!kernel)
    return 0;
  FacadeState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.launches.find(kernel);
  return it == s.launches.end() ? 0 : it->second;
}

//===----------------------------------------------------------------------===//
// Streams, synchronisation, errors, versions
//===----------------------------------------------------------------------===//

MXGEMM_HIP_EXPORT hipError_t hipStreamCreate(hipStream_t *stream) {
  if (!stream)
    return result(hipErrorInvalidValue);
  FacadeState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  *stream = new ihipStream_t;
  s.streams.insert(*stream);
  return hipSuccess;
}

MXGEMM_HIP_EXPORT hipError_t hipStreamSynchronize(hipStream_t stream) {
  FacadeState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return result(validStream(s, stream) ? hipSuccess : hipErrorInvalidHandle);
}

MXGEMM_HIP_EXPORT hipError_t hipStreamDestroy(hipStream_t stream) {
  FacadeState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!stream || !s.streams.erase(stream))
    return result(hipErrorInvalidHandle);
  delete stream;
  return hipSuccess;
}

MXGEMM_HIP_EXPORT hipError_t hipDeviceSynchronize(void) { return hipSuccess; }

MXGEMM_HIP_EXPORT hipError_t hipGetLastError(void) {
  hipError_t e = lastError;
  lastError = hipSuccess;
  return e;
}

MXGEMM_HIP_EXPORT hipError_t hipPeekAtLastError(void) { return lastError; }

namespace {
struct ErrorText {
  hipError_t code;
  const char *name, *text;
};
constexpr ErrorText kErrors[] = {
    {hipSuccess, "hipSuccess", "no error"},
    {hipErrorInvalidValue, "hipErrorInvalidValue", "invalid argument"},
    {hipErrorOutOfMemory, "hipErrorOutOfMemory", "out of memory"},
    {hipErrorNotInitialized, "hipErrorNotInitialized", "initialization error"},
    {hipErrorInvalidConfiguration, "hipErrorInvalidConfiguration",
     "invalid configuration argument"},
    {hipErrorInvalidDevicePointer, "hipErrorInvalidDevicePointer",
     "invalid device pointer"},
    {hipErrorInvalidMemcpyDirection, "hipErrorInvalidMemcpyDirection",
     "invalid copy direction for memcpy"},
    {hipErrorInvalidDeviceFunction, "hipErrorInvalidDeviceFunction",
     "invalid device function"},
    {hipErrorNoDevice, "hipErrorNoDevice",
     "no ROCm-capable device is detected"},
    {hipErrorInvalidDevice, "hipErrorInvalidDevice", "invalid device ordinal"},
    {hipErrorInvalidImage, "hipErrorInvalidImage",
     "device kernel image is invalid"},
    {hipErrorNoBinaryForGpu, "hipErrorNoBinaryForGpu",
     "no kernel image is available for execution on the device"},
    {hipErrorInvalidHandle, "hipErrorInvalidHandle", "invalid resource handle"},
    {hipErrorNotFound, "hipErrorNotFound", "named symbol not found"},
    {hipErrorLaunchOutOfResources, "hipErrorLaunchOutOfResources",
     "too many resources requested for launch"},
    {hipErrorLaunchFailure, "hipErrorLaunchFailure",
     "unspecified launch failure"},
    {hipErrorNotSupported, "hipErrorNotSupported", "operation not supported"},
    {hipErrorUnknown, "hipErrorUnknown", "unknown error"},
};
const ErrorText *findError(hipError_t e) {
  for (const ErrorText &t : kErrors)
    if (t.code == e)
      return &t;
  return nullptr;
}
} // namespace

MXGEMM_HIP_EXPORT const char *hipGetErrorString(hipError_t error) {
  const ErrorText *t = findError(error);
  return t ? t->text : "unknown error";
}

MXGEMM_HIP_EXPORT const char *hipGetErrorName(hipError_t error) {
  const ErrorText *t = findError(error);
  return t ? t->name : "hipErrorUnknown";
}

MXGEMM_HIP_EXPORT hipError_t hipDriverGetVersion(int *driverVersion) {
  if (!driverVersion)
    return result(hipErrorInvalidValue);
  *driverVersion = kDriverVersion;
  return hipSuccess;
}

MXGEMM_HIP_EXPORT hipError_t hipRuntimeGetVersion(int *runtimeVersion) {
  if (!runtimeVersion)
    return result(hipErrorInvalidValue);
  *runtimeVersion = kDriverVersion;
  return hipSuccess;
}
