//===- KernelLibrary.cpp - the kernels the runtime dispatches to ----------===//

#include "KernelLibrary.h"
#include "EmbeddedFiles.h"

#include "mxgemm/Contract/ConfigSelection.h"

#include <algorithm>
#include <cstring>

using namespace mxgemm;
using namespace mxgemm::runtime;

namespace {
const EmbeddedFile *findFile(const std::string &name) {
  for (size_t i = 0; i < kEmbeddedFileCount; ++i)
    if (name == kEmbeddedFiles[i].name)
      return &kEmbeddedFiles[i];
  return nullptr;
}

std::string_view text(const EmbeddedFile &f) {
  return {reinterpret_cast<const char *>(f.data), f.size};
}

/// Builds the library, or says why not (a build defect: the build checked
/// the same files).
std::string build(KernelLibrary &lib) {
  const EmbeddedFile *dbFile = findFile("tuning-database.json");
  if (!dbFile)
    return "no tuning database embedded";
  contract::TuningDatabase db;
  if (contract::ErrorMessage e =
          contract::TuningDatabase::parse(text(*dbFile), db))
    return "embedded tuning database: " + *e;
  for (contract::TuningEntry &t : db.entries) {
    const EmbeddedFile *code = findFile(t.name + ".hsaco");
    const EmbeddedFile *desc = findFile(t.name + ".hsaco.json");
    if (!code || !desc)
      return "entry '" + t.name + "' has no embedded code object";
    KernelEntry e;
    if (contract::ErrorMessage err =
            contract::KernelDescriptor::parse(text(*desc), e.descriptor))
      return "entry '" + t.name + "': " + *err;
    const contract::KernelDescriptor &d = e.descriptor;
    if (d.kernel != t.kernelName() || d.chip != t.arch ||
        d.problem != t.problem || d.config != t.config)
      return "entry '" + t.name +
             "': the embedded descriptor does not describe the entry";
    if (contract::ErrorMessage err = ArgumentPacking::build(d, e.packing))
      return "entry '" + t.name + "': " + *err;
    const contract::GemmProblem &p = t.problem;
    e.key = makeDispatchKey(
        p.n, p.k, mxgemm_dtype(p.xType), mxgemm_dtype(p.wType),
        mxgemm_scale_granularity(p.wScale), mxgemm_dtype(p.outType));
    e.configText = contract::formatConfigBody(t.config);
    e.descriptorJson = std::string(text(*desc));
    e.codeObject = code->data;
    e.codeObjectSize = code->size;
    e.tuning = std::move(t);
    lib.entries.push_back(std::move(e));
  }
  std::sort(lib.entries.begin(), lib.entries.end(),
            [](const KernelEntry &a, const KernelEntry &b) {
              return a.key != b.key
                         ? a.key < b.key
                         : contract::dispatchOrderLess(a.tuning, b.tuning);
            });
  lib.tunedCount = lib.entries.size();
  // The generic kernels (cmake/MXGemmKernelLibrary.cmake): every embedded
  // generic_*.hsaco with its descriptor, which must be generic, read W
  // row-major and have one of genericConfig's structures (its M range).
  for (size_t i = 0; i < kEmbeddedFileCount; ++i) {
    std::string_view name = kEmbeddedFiles[i].name;
    const std::string_view suffix = ".hsaco";
    if (name.substr(0, 8) != "generic_" || name.size() <= suffix.size() ||
        name.substr(name.size() - suffix.size()) != suffix)
      continue;
    std::string base(name.substr(0, name.size() - suffix.size()));
    const EmbeddedFile *desc = findFile(base + ".hsaco.json");
    if (!desc)
      return "generic kernel '" + base + "' has no embedded descriptor";
    KernelEntry e;
    if (contract::ErrorMessage err =
            contract::KernelDescriptor::parse(text(*desc), e.descriptor))
      return "generic kernel '" + base + "': " + *err;
    const contract::KernelDescriptor &d = e.descriptor;
    if (!d.problem.dynamicN() || !d.problem.dynamicK() ||
        d.wLayout != contract::WeightLayout::RowMajor)
      return "generic kernel '" + base +
             "': its descriptor is not a row-major kernel with run-time N "
             "and K";
    const contract::GenericBucket *bucket = nullptr;
    for (const contract::GenericBucket &b : contract::kGenericBuckets)
      if (contract::genericConfig(b.mHint) == d.config)
        bucket = &b;
    if (!bucket)
      return "generic kernel '" + base +
             "': its config is none of the generic structures";
    if (contract::ErrorMessage err = ArgumentPacking::build(d, e.packing))
      return "generic kernel '" + base + "': " + *err;
    e.tuning.name = base;
    e.tuning.arch = d.chip;
    e.tuning.problem = d.problem;
    e.tuning.config = d.config;
    e.tuning.mMin = bucket->mMin;
    e.tuning.mMax = bucket->mMax;
    e.tuning.note = "generic kernel (run-time N and K): serves keys without "
                    "a tuned entry";
    e.configText = contract::formatConfigBody(d.config);
    e.descriptorJson = std::string(text(*desc));
    e.codeObject = kEmbeddedFiles[i].data;
    e.codeObjectSize = kEmbeddedFiles[i].size;
    lib.entries.push_back(std::move(e));
  }
  return "";
}
} // namespace

// The C enums and the contract's enums are one encoding.
static_assert(int(MXGEMM_DTYPE_E4M3) == int(contract::ElementType::E4M3) &&
              int(MXGEMM_DTYPE_E5M2) == int(contract::ElementType::E5M2) &&
              int(MXGEMM_DTYPE_BF16) == int(contract::ElementType::BF16) &&
              int(MXGEMM_DTYPE_F16) == int(contract::ElementType::F16) &&
              int(MXGEMM_DTYPE_F32) == int(contract::ElementType::F32));
static_assert(int(MXGEMM_SCALE_BLOCK32X32) ==
                  int(contract::ScaleGranularity::Block32x32) &&
              int(MXGEMM_SCALE_PER_ROW) ==
                  int(contract::ScaleGranularity::PerRow));
static_assert(int(MXGEMM_SCALES_ROW_MAJOR) ==
                  int(contract::ScaleLayout::RowMajor) &&
              int(MXGEMM_SCALES_MFMA_16X16X128) ==
                  int(contract::ScaleLayout::Mfma16x16x128) &&
              int(MXGEMM_SCALES_MFMA_32X32X64) ==
                  int(contract::ScaleLayout::Mfma32x32x64));

contract::ErrorMessage
ArgumentPacking::build(const contract::KernelDescriptor &d,
                       ArgumentPacking &out) {
  out = ArgumentPacking();
  const int64_t bytes = d.resources.kernargSegmentBytes;
  if (bytes < 0 || bytes > kMaxBytes)
    return "the kernarg segment (" + std::to_string(bytes) +
           " bytes) is larger than this runtime passes (" +
           std::to_string(kMaxBytes) + ")";
  out.bytes = uint32_t(bytes);
  const struct {
    std::string_view name;
    Source source;
    uint32_t size;
  } known[] = {{contract::kArgX, Source::X, 8},
               {contract::kArgXScales, Source::XScales, 8},
               {contract::kArgW, Source::W, 8},
               {contract::kArgWScales, Source::WScales, 8},
               {contract::kArgY, Source::Y, 8},
               {contract::kArgM, Source::M, 4},
               {contract::kArgWorkspace, Source::Workspace, 8},
               {contract::kArgPhase, Source::Phase, 4},
               {contract::kArgN, Source::N, 4},
               {contract::kArgK, Source::K, 4},
               {contract::kArgLdX, Source::LdX, 4},
               {contract::kArgLdXScales, Source::LdXScales, 4},
               {contract::kArgLdY, Source::LdY, 4}};
  for (const contract::KernelArgument &a : d.arguments) {
    const auto *k =
        std::find_if(std::begin(known), std::end(known),
                     [&](const auto &k) { return k.name == a.name; });
    if (k == std::end(known))
      return "kernel argument '" + a.name +
             "' is not one this runtime passes (X, Xs, W, Ws, Y, M, N, K, "
             "ldX, ldXs, ldY, Work, Phase)";
    if (a.size != k->size || uint64_t(a.offset) + a.size > uint64_t(bytes))
      return "kernel argument '" + a.name + "' (offset " +
             std::to_string(a.offset) + ", " + std::to_string(a.size) +
             " bytes) is not " + std::to_string(k->size) +
             " bytes inside the " + std::to_string(bytes) +
             "-byte kernarg segment";
    if (out.count == std::size(out.slots))
      return "the kernel has more arguments than this runtime passes";
    out.slots[out.count++] = {k->source, a.offset, a.size};
  }
  const bool hasWork = d.findArgument(contract::kArgWorkspace),
             hasPhase = d.findArgument(contract::kArgPhase);
  if (hasWork != d.config.splitsK() || hasPhase != d.config.splitsK())
    return std::string("the kernel's Work and Phase arguments do not match "
                       "its k_splits (") +
           std::to_string(d.config.kSplits) + ")";
  out.splitK = d.config.splitsK();
  // A persistent workgroup walks several tiles; mxgemm_plan_workgroup_tile
  // and the plan's grid describe one tile per workgroup.
  if (d.config.isPersistent())
    return "the kernel is persistent (persistent = " +
           std::to_string(d.config.persistent) +
           "): its workgroups walk several tiles, which this runtime's plan "
           "does not describe; the compiler, emulator and simulator run it";
  const bool ldX = d.findArgument(contract::kArgLdX),
             ldXs = d.findArgument(contract::kArgLdXScales),
             ldY = d.findArgument(contract::kArgLdY);
  if (ldX != ldXs || ldX != ldY)
    return std::string("the kernel takes some of the row strides ldX, ldXs "
                       "and ldY but not all three");
  out.rowStrides = ldX;
  return std::nullopt;
}

const KernelLibrary &KernelLibrary::embedded() {
  static const KernelLibrary library = [] {
    KernelLibrary lib;
    lib.error = build(lib);
    if (!lib.error.empty())
      lib.entries.clear();
    return lib;
  }();
  return library;
}
