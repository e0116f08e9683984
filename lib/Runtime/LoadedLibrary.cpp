//===- LoadedLibrary.cpp - tuning data loaded at run time -----------------===//
//
// mxgemm_context_load_library: a directory exported by `mxgemm-tune
// --export` (manifest, tuning database, code objects, kernel descriptors)
// becomes a set of dispatch entries of one context, taking precedence over
// the embedded entries of the same keys. Every file is read through
// PrivateDirectory (owner and permission rule, bounded sizes) and every
// cross-reference is checked before HIP sees a byte; the context changes
// only when everything, the module loads included, succeeded.
//
//===----------------------------------------------------------------------===//

#include "RuntimeInternal.h"

#include "PrivateFiles.h"

#include "mxgemm/Contract/CodeObjectCheck.h"
#include "mxgemm/Contract/Digest.h"
#include "mxgemm/Contract/ExportManifest.h"
#include "mxgemm/Contract/TuningDatabase.h"
#include "mxgemm/Target/TargetModel.h"

#include <algorithm>
#include <set>

using namespace mxgemm;
using namespace mxgemm::runtime;

namespace {

// Bounds of what a directory may hold (far above any real export).
constexpr size_t kMaxJsonBytes = size_t(16) << 20;
constexpr size_t kMaxCodeObjectBytes = size_t(64) << 20;
constexpr size_t kMaxKernels = 4096;

/// Reads and checks the directory into `out` (no HIP). Returns "" or why
/// it is refused.
std::string readLibrary(const std::string &dir,
                        std::vector<std::unique_ptr<LibraryKernel>> &out) {
  PrivateDirectory d;
  if (std::string e = d.open(dir); !e.empty())
    return e;
  std::string text;
  if (std::string e = d.read("manifest.json", kMaxJsonBytes, text); !e.empty())
    return e;
  contract::ExportManifest manifest;
  if (contract::ErrorMessage e =
          contract::ExportManifest::parse(text, manifest))
    return *e;
  if (manifest.kernels.size() > kMaxKernels)
    return "manifest: more than " + std::to_string(kMaxKernels) + " kernels";
  if (std::string e = d.read(manifest.database, kMaxJsonBytes, text);
      !e.empty())
    return "the tuning database the manifest names: " + e;
  contract::TuningDatabase db;
  if (contract::ErrorMessage e = contract::TuningDatabase::parse(text, db))
    return manifest.database + ": " + *e;
  if (db.entries.size() != manifest.kernels.size())
    return "the manifest lists " + std::to_string(manifest.kernels.size()) +
           " kernels but " + manifest.database + " has " +
           std::to_string(db.entries.size()) + " entries";

  for (const contract::ExportedKernel &m : manifest.kernels) {
    const std::string where = "entry '" + m.name + "': ";
    const contract::TuningEntry *t = db.find(m.name);
    if (!t)
      return where + "not in " + manifest.database;
    // The manifest and the database describe the same entry.
    if (m.kernel != t->kernelName() || m.n != t->problem.n ||
        m.k != t->problem.k || m.mMin != t->mMin || m.mMax != t->mMax ||
        m.config != contract::formatConfigBody(t->config))
      return where +
             "the manifest (kernel, N, K, M range, config) does not "
             "match " +
             manifest.database;
    if (t->arch != target::kGFX950.chip)
      return where + "arch '" + t->arch +
             "' is not gfx950, the chip this runtime runs";

    auto k = std::make_unique<LibraryKernel>();
    if (std::string e = d.read(m.codeObject, kMaxCodeObjectBytes, k->code);
        !e.empty())
      return where + e;
    if (k->code.empty())
      return where + "code object " + m.codeObject + " is empty";
    std::string actual = contract::sha256Hex(k->code.data(), k->code.size());
    if (actual != m.sha256)
      return where + "code object " + m.codeObject + " has SHA-256 " + actual +
             ", the manifest says " + m.sha256;
    KernelEntry &e = k->entry;
    if (std::string err = d.read(m.descriptor, kMaxJsonBytes, e.descriptorJson);
        !err.empty())
      return where + err;
    if (contract::ErrorMessage err =
            contract::KernelDescriptor::parse(e.descriptorJson, e.descriptor))
      return where + m.descriptor + ": " + *err;
    const contract::KernelDescriptor &desc = e.descriptor;
    if (desc.chip != target::kGFX950.chip)
      return where + m.descriptor + ": chip '" + desc.chip +
             "' is not gfx950, the chip this runtime runs";
    if (desc.codeObjectSha256 != m.sha256)
      return where + m.descriptor + ": code_object_sha256 " +
             desc.codeObjectSha256 + " is not the manifest's " + m.sha256;
    if (desc.kernel != t->kernelName() || desc.problem != t->problem ||
        desc.config != t->config)
      return where + m.descriptor +
             " does not describe the entry's kernel, problem and config";
    if (contract::ErrorMessage err = contract::checkCodeObjectAgainst(
            desc, k->code.data(), k->code.size()))
      return where + m.codeObject + ": " + *err;
    if (contract::ErrorMessage err = ArgumentPacking::build(desc, e.packing))
      return where + m.descriptor + ": " + *err;
    const contract::GemmProblem &p = t->problem;
    e.key = makeDispatchKey(
        p.n, p.k, mxgemm_dtype(p.xType), mxgemm_dtype(p.wType),
        mxgemm_scale_granularity(p.wScale), mxgemm_dtype(p.outType));
    e.configText = contract::formatConfigBody(t->config);
    e.tuning = *t;
    e.codeObject = k->code.data();
    e.codeObjectSize = k->code.size();
    out.push_back(std::move(k));
  }
  return "";
}

} // namespace

extern "C" mxgemm_status mxgemm_context_load_library(mxgemm_context *context,
                                                     const char *dir) {
  Context *ctx = resolveContext(context);
  if (!ctx)
    return MXGEMM_STATUS_INVALID_ARGUMENT;
  if (!dir || !*dir)
    return fail(MXGEMM_STATUS_INVALID_ARGUMENT,
                "library directory is NULL or empty");
  return guarded([&] {
    const std::string prefix = "library " + std::string(dir) + ": ";
    std::vector<std::unique_ptr<LibraryKernel>> kernels;
    if (std::string e = readLibrary(dir, kernels); !e.empty())
      return fail(MXGEMM_STATUS_INVALID_ARGUMENT, prefix + e);

    // The device: the chip of every entry.
    ctx->ensureInitialized();
    if (!ctx->hipReady)
      return fail(MXGEMM_STATUS_HIP_ERROR,
                  prefix + "HIP unavailable: " + ctx->hipError);
    if (!ctx->archMatches)
      return fail(MXGEMM_STATUS_NOT_ELIGIBLE,
                  prefix + "device '" + std::string(ctx->deviceName) +
                      "' has compute capability " +
                      std::to_string(ctx->ccMajor) + "." +
                      std::to_string(ctx->ccMinor) +
                      "; the library's kernels are for gfx950 (9.5)");

    std::lock_guard<std::mutex> lock(ctx->libraryMutex);
    const HipLibrary &hip = ctx->hip;
    auto unloadModules = [&] {
      for (auto &k : kernels)
        if (k->module)
          hip.hipModuleUnload(k->module);
    };
    for (auto &k : kernels) {
      const std::string &symbol = k->entry.descriptor.kernel;
      hipError_t e = hip.hipModuleLoadData(&k->module, k->code.data());
      if (e != hipSuccess) {
        k->module = nullptr;
        unloadModules();
        return fail(MXGEMM_STATUS_HIP_ERROR, prefix + "hipModuleLoadData(" +
                                                 symbol +
                                                 "): " + hip.describe(e));
      }
      e = hip.hipModuleGetFunction(&k->function, k->module,
                                   ctx->functionName(symbol).c_str());
      if (e != hipSuccess) {
        unloadModules();
        return fail(MXGEMM_STATUS_HIP_ERROR, prefix + "hipModuleGetFunction(" +
                                                 symbol +
                                                 "): " + hip.describe(e));
      }
    }

    // The new set: this directory's entries, and the previously loaded
    // entries of the keys it does not have.
    auto set = std::make_unique<LibrarySet>();
    std::set<DispatchKey> keys;
    for (auto &k : kernels) {
      keys.insert(k->entry.key);
      set->kernels.push_back(k.get());
    }
    if (const LibrarySet *old = ctx->librarySet.load(std::memory_order_acquire))
      for (const LibraryKernel *k : old->kernels)
        if (!keys.count(k->entry.key))
          set->kernels.push_back(k);
    std::sort(set->kernels.begin(), set->kernels.end(),
              [](const LibraryKernel *a, const LibraryKernel *b) {
                return a->entry.key != b->entry.key
                           ? a->entry.key < b->entry.key
                           : contract::dispatchOrderLess(a->entry.tuning,
                                                         b->entry.tuning);
              });
    ctx->librarySets.reserve(ctx->librarySets.size() + 1);
    ctx->libraryKernels.reserve(ctx->libraryKernels.size() + kernels.size());
    for (auto &k : kernels)
      ctx->libraryKernels.push_back(std::move(k));
    ctx->librarySet.store(set.get(), std::memory_order_release);
    ctx->librarySets.push_back(std::move(set));
    return MXGEMM_STATUS_OK;
  });
}
