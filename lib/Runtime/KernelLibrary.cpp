//===- KernelLibrary.cpp - the kernels the runtime dispatches to ----------===//

#include "KernelLibrary.h"
#include "EmbeddedFiles.h"

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
              return a.key != b.key ? a.key < b.key
                                    : a.tuning.mMin < b.tuning.mMin;
            });
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
