//===- PackWeightsTest.cpp - weight packing on the emulator's HIP facade --===//
//
// The packing kernels the runtime embeds must equal contract::
// packWeightPanels (the host packer) byte for byte: launched through the
// facade at the smallest shape (one panel) and a few panels with a partial
// last workgroup, for both MFMA shapes; and through mxgemm_pack_weights at
// an embedded key, where the facade's launch counter tells whether the
// kernel ran (out of place) or the host path did (in place, or a packing
// kernel that cannot be loaded). Workgroup selection for GEMM tests does
// not cut the packing kernel short; bad input writes nothing. The key is
// the test database's `panels` (linked against libmxgemm_runtime_testdb):
// the production database has no panel kernel (TestDb.h).
//
//===----------------------------------------------------------------------===//

#include "FacadeTestUtil.h"
#include "TestDb.h"

#include "mxgemm/Contract/PackPanelsDescriptor.h"
#include "mxgemm/Contract/WeightPanels.h"

#include <dlfcn.h>
#include <fstream>
#include <iterator>
#include <random>

using namespace mxgemm;
using namespace mxgemm::testing;

namespace {

/// The facade's module API and launch counter (the runtime dlopens the
/// same library, so its device pointers are valid here).
struct Facade {
  void *lib = nullptr;
  int (*loadData)(void **, const void *) = nullptr;
  int (*getFunction)(void **, void *, const char *) = nullptr;
  int (*launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned,
                unsigned, unsigned, void *, void **, void **) = nullptr;
  int (*unload)(void *) = nullptr;
  unsigned long long (*launches)(const char *) = nullptr;

  Facade() {
    lib = ::dlopen(facadePath().c_str(), RTLD_NOW);
    if (!lib)
      return;
    auto sym = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          ::dlsym(lib, name));
    };
    sym(loadData, "hipModuleLoadData");
    sym(getFunction, "hipModuleGetFunction");
    sym(launch, "hipModuleLaunchKernel");
    sym(unload, "hipModuleUnload");
    sym(launches, "mxgemmEmuLaunchCount");
  }
  bool ok() const {
    return loadData && getFunction && launch && unload && launches;
  }
  ~Facade() {
    if (lib)
      ::dlclose(lib);
  }
};

std::vector<uint8_t> randomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> v(n);
  for (uint8_t &b : v)
    b = uint8_t(rng());
  return v;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string kernelName(int64_t nonK) {
  return "mxgemm_pack_panels_" + std::to_string(nonK);
}

/// The embedded kernel of `nonK` (the build's code object and descriptor)
/// launched through the facade on W [n, k]; the packed bytes plus a tail
/// of 64 guard bytes that must stay 0xa5.
std::vector<uint8_t> launchPackKernel(Context &c, Facade &f, int64_t nonK,
                                      int64_t n, int64_t k,
                                      const std::vector<uint8_t> &w) {
  const std::string path =
      std::string(MXGEMM_PACK_KERNEL_DIR) + "/" + kernelName(nonK) + ".hsaco";
  const std::string code = readFile(path);
  contract::PackPanelsDescriptor d;
  contract::ErrorMessage e =
      contract::PackPanelsDescriptor::parse(readFile(path + ".json"), d);
  EXPECT_FALSE(e) << path << ": " << *e;
  EXPECT_EQ(d.nonK, nonK);
  const size_t bytes = size_t(n * k), guarded = bytes + 64;
  DeviceBuffer dw(c.ctx, w), dp(c.ctx, guarded);
  EXPECT_EQ(mxgemm_device_memset(c.ctx, dp.ptr, 0xa5, guarded),
            MXGEMM_STATUS_OK);
  void *module = nullptr, *function = nullptr;
  EXPECT_EQ(f.loadData(&module, code.data()), 0) << path;
  EXPECT_EQ(f.getFunction(&function, module, d.kernel.c_str()), 0);
  using PD = contract::PackPanelsDescriptor;
  unsigned char args[PD::kArgumentBytes] = {};
  const uint64_t pointers[] = {reinterpret_cast<uintptr_t>(dw.ptr),
                               reinterpret_cast<uintptr_t>(dp.ptr)};
  const int32_t sizes[] = {int32_t(n), int32_t(k)};
  std::memcpy(args + PD::kWOffset, &pointers[0], 8);
  std::memcpy(args + PD::kPackedOffset, &pointers[1], 8);
  std::memcpy(args + PD::kNOffset, &sizes[0], 4);
  std::memcpy(args + PD::kKOffset, &sizes[1], 4);
  size_t argBytes = sizeof(args);
  void *extra[] = {reinterpret_cast<void *>(1), args,
                   reinterpret_cast<void *>(2), &argBytes,
                   reinterpret_cast<void *>(3)};
  const int64_t panels = n / nonK * (k / contract::panelKStep(nonK));
  const unsigned grid = unsigned((panels + PD::kPanelsPerWorkgroup - 1) /
                                 PD::kPanelsPerWorkgroup);
  EXPECT_EQ(f.launch(function, grid, 1, 1, unsigned(PD::kWorkgroupSize), 1, 1,
                     0, nullptr, nullptr, extra),
            0);
  f.unload(module);
  std::vector<uint8_t> out(guarded);
  EXPECT_EQ(mxgemm_copy_to_host(c.ctx, out.data(), dp.ptr, guarded),
            MXGEMM_STATUS_OK);
  return out;
}

TEST(RuntimePackWeights, KernelsMatchTheHostPacker) {
  REQUIRE_FACADE();
  Context c;
  Facade f;
  ASSERT_TRUE(f.ok()) << facadePath();
  for (int64_t nonK : {32, 16}) {
    const int64_t kStep = contract::panelKStep(nonK);
    // One panel (a single wave: the smallest W), then 3 x 3 panels (three
    // workgroups, the last with one wave working).
    for (int64_t blocks : {1, 3}) {
      const int64_t n = blocks * nonK, k = blocks * kStep;
      std::vector<uint8_t> w = randomBytes(size_t(n * k), uint64_t(n + k));
      std::vector<uint8_t> got = launchPackKernel(c, f, nonK, n, k, w);
      std::vector<uint8_t> want(size_t(n * k));
      contract::packWeightPanels(w.data(), want.data(), n, k, nonK);
      ASSERT_NE(want, w); // a permutation that moves bytes
      EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin()))
          << kernelName(nonK) << " N = " << n << ", K = " << k;
      EXPECT_EQ(std::vector<uint8_t>(got.begin() + n * k, got.end()),
                std::vector<uint8_t>(64, 0xa5))
          << "wrote past N x K";
    }
  }
}

TEST(RuntimePackWeights, TheCheckCanFail) {
  REQUIRE_FACADE();
  Context c;
  Facade f;
  ASSERT_TRUE(f.ok());
  // The m16n16k128 kernel does not write the m32n32k64 layout.
  const int64_t n = 32, k = 128;
  std::vector<uint8_t> w = randomBytes(size_t(n * k), 5);
  std::vector<uint8_t> got = launchPackKernel(c, f, 16, n, k, w);
  std::vector<uint8_t> want(size_t(n * k));
  contract::packWeightPanels(w.data(), want.data(), n, k, 32);
  EXPECT_FALSE(std::equal(want.begin(), want.end(), got.begin()));
}

/// The `panels` key (N = 512, K = 256): its kernel reads W in m32n32k64
/// panels.
struct PanelsKey {
  mxgemm_problem p;
  std::vector<uint8_t> w = randomBytes(size_t(kPanelsN * kPanelsK), 7), want;
  PanelsKey() {
    mxgemm_problem_init(&p, 300, kPanelsN, kPanelsK);
    want.resize(w.size());
    contract::packWeightPanels(w.data(), want.data(), kPanelsN, kPanelsK, 32);
  }
  std::vector<uint8_t> read(mxgemm_context *ctx, const void *ptr) const {
    std::vector<uint8_t> v(w.size());
    EXPECT_EQ(mxgemm_copy_to_host(ctx, v.data(), ptr, v.size()),
              MXGEMM_STATUS_OK);
    return v;
  }
};

TEST(RuntimePackWeights, OutOfPlaceRunsTheKernelInPlaceTheHostPath) {
  REQUIRE_FACADE();
  Context c;
  Facade f;
  ASSERT_TRUE(f.ok());
  PanelsKey q;
  DeviceBuffer w(c.ctx, q.w), packed(c.ctx, q.w.size());
  size_t bytes = 0;
  const unsigned long long before = f.launches("mxgemm_pack_panels_32");
  ASSERT_EQ(
      mxgemm_pack_weights(c.ctx, &q.p, w.ptr, packed.ptr, &bytes, nullptr),
      MXGEMM_STATUS_OK)
      << mxgemm_last_error();
  EXPECT_EQ(bytes, q.w.size());
  EXPECT_EQ(f.launches("mxgemm_pack_panels_32"), before + 1);
  ASSERT_EQ(mxgemm_synchronize(c.ctx, nullptr), MXGEMM_STATUS_OK);
  EXPECT_EQ(q.read(c.ctx, packed.ptr), q.want);
  EXPECT_EQ(q.read(c.ctx, w.ptr), q.w) << "packing changed the row-major W";
  // In place: the host path (no launch), the same bytes.
  ASSERT_EQ(mxgemm_pack_weights(c.ctx, &q.p, w.ptr, w.ptr, &bytes, nullptr),
            MXGEMM_STATUS_OK)
      << mxgemm_last_error();
  EXPECT_EQ(f.launches("mxgemm_pack_panels_32"), before + 1);
  EXPECT_EQ(q.read(c.ctx, w.ptr), q.want);
}

TEST(RuntimePackWeights, WorkgroupSelectionDoesNotCutThePackingShort) {
  REQUIRE_FACADE();
  Context c;
  Facade f;
  ASSERT_TRUE(f.ok());
  PanelsKey q;
  DeviceBuffer w(c.ctx, q.w), packed(c.ctx, q.w.size());
  ASSERT_EQ(mxgemm_device_memset(c.ctx, packed.ptr, 0, q.w.size()),
            MXGEMM_STATUS_OK);
  size_t bytes = 0;
  const unsigned long long before = f.launches("mxgemm_pack_panels_32");
  // As a GEMM test sets it: only workgroup 0 of each GEMM launch runs.
  ::setenv("MXGEMM_EMU_WORKGROUPS", "0", 1);
  mxgemm_status s =
      mxgemm_pack_weights(c.ctx, &q.p, w.ptr, packed.ptr, &bytes, nullptr);
  ::unsetenv("MXGEMM_EMU_WORKGROUPS");
  ASSERT_EQ(s, MXGEMM_STATUS_OK) << mxgemm_last_error();
  EXPECT_EQ(f.launches("mxgemm_pack_panels_32"), before + 1);
  EXPECT_EQ(q.read(c.ctx, packed.ptr), q.want) << "only some panels packed";
}

TEST(RuntimePackWeights, BadInputWritesNothing) {
  REQUIRE_FACADE();
  Context c;
  Facade f;
  ASSERT_TRUE(f.ok());
  PanelsKey q;
  DeviceBuffer w(c.ctx, q.w), packed(c.ctx, q.w.size() + 16);
  ASSERT_EQ(mxgemm_device_memset(c.ctx, packed.ptr, 0xa5, packed.bytes),
            MXGEMM_STATUS_OK);
  const unsigned long long before = f.launches("mxgemm_pack_panels_32");
  size_t bytes = 0;
  char *misaligned = static_cast<char *>(packed.ptr) + 8;
  EXPECT_EQ(
      mxgemm_pack_weights(c.ctx, &q.p, w.ptr, misaligned, &bytes, nullptr),
      MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(mxgemm_last_error(), "16-byte aligned"), nullptr)
      << mxgemm_last_error();
  // No kernel for this key: nothing to pack for.
  mxgemm_problem other = q.p;
  other.n = 768;
  EXPECT_EQ(
      mxgemm_pack_weights(c.ctx, &other, w.ptr, packed.ptr, &bytes, nullptr),
      MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_EQ(f.launches("mxgemm_pack_panels_32"), before);
  std::vector<uint8_t> after(packed.bytes);
  ASSERT_EQ(mxgemm_copy_to_host(c.ctx, after.data(), packed.ptr, after.size()),
            MXGEMM_STATUS_OK);
  EXPECT_EQ(after, std::vector<uint8_t>(packed.bytes, 0xa5));
}

TEST(RuntimePackWeights, NothingIsPackedWhereCodeObjectsCannotLoad) {
  REQUIRE_FACADE();
  Facade f;
  ASSERT_TRUE(f.ok());
  // Test hook: hand HIP a corrupted copy of every code object (the GEMM
  // kernel's too, so the decision refuses before any packing).
  ::setenv("MXGEMM_RUNTIME_FAULT", "code_object", 1);
  Context lenient, strict(/*strict=*/1);
  ::unsetenv("MXGEMM_RUNTIME_FAULT");
  PanelsKey q;
  DeviceBuffer w(lenient.ctx, q.w), packed(lenient.ctx, q.w.size());
  ASSERT_EQ(mxgemm_device_memset(lenient.ctx, packed.ptr, 0xa5, packed.bytes),
            MXGEMM_STATUS_OK);
  const unsigned long long before = f.launches("mxgemm_pack_panels_32");
  size_t bytes = 0;
  EXPECT_EQ(mxgemm_pack_weights(lenient.ctx, &q.p, w.ptr, packed.ptr, &bytes,
                                nullptr),
            MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_EQ(
      mxgemm_pack_weights(strict.ctx, &q.p, w.ptr, packed.ptr, &bytes, nullptr),
      MXGEMM_STATUS_HIP_ERROR);
  EXPECT_EQ(f.launches("mxgemm_pack_panels_32"), before);
  EXPECT_EQ(q.read(lenient.ctx, packed.ptr),
            std::vector<uint8_t>(packed.bytes, 0xa5));
}

} // namespace
