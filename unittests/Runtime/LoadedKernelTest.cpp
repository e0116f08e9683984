//===- LoadedKernelTest.cpp - mxgemm_kernel_load/query/launch/unload ------===//
//
// A compiled kernel launched through the runtime: the code object and
// descriptor of an embedded kernel stand in for mxgemm-compile's output
// (test/Runtime/mxgemm-run-kernel.test uses a freshly compiled one): the
// test database's `panels` entry, linked against libmxgemm_runtime_testdb
// because the production database has no panel kernel (TestDb.h). What
// must be refused before HIP sees it (a corrupted code object, a tampered
// descriptor, an image that is not the kernel's), what a launch must be
// given (the kernel's problem), the handle lifecycle, and a launch on the
// emulator's HIP facade checked bit for bit against the CPU reference with
// numerics::checkGemmOutput.
//
//===----------------------------------------------------------------------===//

#include "FacadeTestUtil.h"
#include "TestDb.h"

#include "mxgemm/Contract/Digest.h"
#include "mxgemm/Contract/WeightPanels.h"
#include "mxgemm/Numerics/GemmCheck.h"

#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using namespace mxgemm::testing;
namespace contract = mxgemm::contract;

constexpr const char *kMissingHip = "/nonexistent/libamdhip64.so";

/// The code object and descriptor of the test database's `panels` kernel
/// (N = 512, K = 256, W packed in MFMA panels).
struct Material : EmbeddedKernel {
  Material() : EmbeddedKernel("panels") {}
  /// The descriptor with its code_object_sha256 replaced by that of `bytes`
  /// (so that the next check, the ELF walk, sees an edited image).
  std::string rehashed(const std::vector<uint8_t> &bytes) const {
    return replaced(descriptor, contract::sha256Hex(code.data(), code.size()),
                    contract::sha256Hex(bytes.data(), bytes.size()));
  }
  static std::string replaced(std::string text, const std::string &from,
                              const std::string &to) {
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos)
      text.replace(at, from.size(), to);
    return text;
  }
};

struct MissingHipContext {
  mxgemm_context *ctx = nullptr;
  MissingHipContext() {
    mxgemm_context_options o;
    mxgemm_context_options_init(&o);
    o.hip_library = kMissingHip;
    o.log = [](void *, const char *) {};
    EXPECT_EQ(mxgemm_context_create(&o, &ctx), MXGEMM_STATUS_OK);
  }
  ~MissingHipContext() { mxgemm_context_destroy(ctx); }
};

/// Loads into a context without HIP: every check before HIP passes when the
/// answer is HIP_ERROR "HIP unavailable".
mxgemm_status load(mxgemm_context *ctx, const std::vector<uint8_t> &code,
                   const std::string &descriptor) {
  mxgemm_loaded_kernel *k = reinterpret_cast<mxgemm_loaded_kernel *>(1);
  mxgemm_status s =
      mxgemm_kernel_load(ctx, code.data(), code.size(), descriptor.c_str(), &k);
  EXPECT_EQ(k, nullptr) << "a failed load must not return a handle";
  return s;
}

bool contains(const char *text, const std::string &part) {
  return std::strstr(text, part.c_str()) != nullptr;
}

TEST(LoadedKernel, ChecksPassBeforeHipIsNeeded) {
  Material m;
  MissingHipContext c;
  EXPECT_EQ(load(c.ctx, m.code, m.descriptor), MXGEMM_STATUS_HIP_ERROR);
  EXPECT_TRUE(contains(mxgemm_last_error(), "HIP unavailable"))
      << mxgemm_last_error();
  // NULL inputs.
  mxgemm_loaded_kernel *k;
  EXPECT_EQ(mxgemm_kernel_load(c.ctx, nullptr, 10, "{}", &k),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(mxgemm_last_error(), "code object is NULL or empty");
  EXPECT_EQ(mxgemm_kernel_load(c.ctx, m.code.data(), 0, "{}", &k),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(mxgemm_kernel_load(c.ctx, m.code.data(), 10, nullptr, &k),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(mxgemm_last_error(), "kernel descriptor is NULL");
  EXPECT_EQ(mxgemm_kernel_load(c.ctx, m.code.data(), 10, "{}", nullptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(mxgemm_last_error(), "kernel output pointer is NULL");
}

TEST(LoadedKernel, CorruptedCodeObjectIsRefused) {
  Material m;
  MissingHipContext c;
  const std::string want = contract::sha256Hex(m.code.data(), m.code.size());
  // One flipped bit in the middle of the code.
  std::vector<uint8_t> flipped = m.code;
  flipped[flipped.size() / 2] ^= 1;
  EXPECT_EQ(load(c.ctx, flipped, m.descriptor), MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(mxgemm_last_error(),
                       "code object: its SHA-256 is " +
                           contract::sha256Hex(flipped.data(), flipped.size()) +
                           ", but the kernel descriptor's code_object_sha256 "
                           "is " +
                           want))
      << mxgemm_last_error();
  // Truncated by one byte.
  std::vector<uint8_t> truncated(m.code.begin(), m.code.end() - 1);
  EXPECT_EQ(load(c.ctx, truncated, m.descriptor),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(mxgemm_last_error(), "not the code object it describes"))
      << mxgemm_last_error();
}

TEST(LoadedKernel, TamperedDescriptorIsRefused) {
  Material m;
  MissingHipContext c;
  const struct {
    const char *what;
    std::string descriptor;
    const char *message;
  } cases[] = {
      {"not JSON", "{\"format_version\": 2,", "kernel descriptor: "},
      {"config edited, grid not",
       Material::replaced(m.descriptor, "\"group_m\": 8", "\"group_m\": 4"),
       "kernel descriptor: grid disagrees with the problem and config"},
      {"N edited",
       Material::replaced(m.descriptor, "\"n\": 512", "\"n\": 8192"),
       "kernel descriptor: grid disagrees"},
      {"another chip",
       Material::replaced(m.descriptor, "\"chip\": \"gfx950\"",
                          "\"chip\": \"gfx942\""),
       "kernel descriptor: unknown chip 'gfx942'"},
      {"a future format",
       Material::replaced(m.descriptor, "\"format_version\": 2",
                          "\"format_version\": 3"),
       "format_version 3 is not supported"},
      {"an unknown field",
       Material::replaced(m.descriptor, "\"format_version\": 2",
                          "\"format_version\": 2, \"launcher\": \"x\""),
       "launcher"},
      {"a duplicate key",
       Material::replaced(m.descriptor, "\"format_version\": 2",
                          "\"format_version\": 2, \"format_version\": 2"),
       "duplicate"},
      {"a bad hash",
       Material::replaced(m.descriptor, "\"code_object_sha256\": \"",
                          "\"code_object_sha256\": \"X"),
       "code_object_sha256 must be 64 lower-case hex digits"},
      {"a kernarg segment the runtime cannot pass",
       Material::replaced(m.descriptor, "\"kernarg_segment_bytes\": 44",
                          "\"kernarg_segment_bytes\": 1000"),
       "kernel descriptor: the kernarg segment (1000 bytes) is larger than "
       "this runtime passes (256)"},
      {"an argument outside the kernarg segment",
       Material::replaced(m.descriptor, "\"kernarg_segment_bytes\": 44",
                          "\"kernarg_segment_bytes\": 40"),
       "kernel argument 'M' (offset 40, 4 bytes) is not 4 bytes inside the "
       "40-byte kernarg segment"},
      // The hash matches, but the image defines another kernel.
      {"another kernel name",
       Material::replaced(m.descriptor, "\"kernel\": \"mxgemm_panels\"",
                          "\"kernel\": \"mxgemm_wq_b\""),
       "code object: defines no kernel 'mxgemm_wq_b'"},
  };
  for (const auto &t : cases) {
    EXPECT_EQ(load(c.ctx, m.code, t.descriptor), MXGEMM_STATUS_INVALID_ARGUMENT)
        << t.what;
    EXPECT_TRUE(contains(mxgemm_last_error(), t.message))
        << t.what << ": " << mxgemm_last_error();
  }
}

/// Little-endian field writes into an ELF image.
template <typename T>
void put(std::vector<uint8_t> &image, size_t offset, T value) {
  std::memcpy(image.data() + offset, &value, sizeof(T));
}
template <typename T> T get(const std::vector<uint8_t> &image, size_t offset) {
  T v;
  std::memcpy(&v, image.data() + offset, sizeof(T));
  return v;
}

TEST(LoadedKernel, ImagesThatAreNotTheKernelAreRefused) {
  Material m;
  MissingHipContext c;
  const uint64_t shoff = get<uint64_t>(m.code, 40);
  const uint16_t shnum = get<uint16_t>(m.code, 60);
  // The section header of the dynamic symbol table.
  size_t dynsym = 0;
  for (uint16_t i = 0; i < shnum; ++i)
    if (get<uint32_t>(m.code, shoff + 64 * i + 4) == 11)
      dynsym = shoff + 64 * i;
  ASSERT_NE(dynsym, 0u);
  const struct {
    const char *what;
    std::function<void(std::vector<uint8_t> &)> edit;
    const char *message;
  } cases[] = {
      {"magic", [](auto &b) { b[1] = 'X'; }, "is not an ELF file"},
      {"32-bit", [](auto &b) { b[4] = 1; }, "not a 64-bit little-endian ELF"},
      {"OS/ABI", [](auto &b) { b[7] = 0; }, "ELF OS/ABI is 0, not AMDGPU HSA"},
      {"machine", [](auto &b) { put<uint16_t>(b, 18, 62); },
       "is not an AMDGPU shared object (e_type 3, e_machine 62)"},
      {"gfx942", [](auto &b) { b[48] = 0x4c; },
       "is built for EF_AMDGPU_MACH 76, not gfx950 (79)"},
      {"section headers past the end",
       [](auto &b) { put<uint64_t>(b, 40, uint64_t(1) << 62); },
       "section header table (offset 4611686018427387904"},
      {"too many section headers", [](auto &b) { put<uint16_t>(b, 60, 60000); },
       "does not lie in the"},
      {"no section headers", [](auto &b) { put<uint16_t>(b, 60, 0); },
       "section header table"},
      {"symbols past the end",
       [&](auto &b) { put<uint64_t>(b, dynsym + 24, ~uint64_t(0) - 8); },
       "the dynamic symbol table does not lie in the image"},
      {"symbol table size past the end",
       [&](auto &b) { put<uint64_t>(b, dynsym + 32, uint64_t(1) << 40); },
       "the dynamic symbol table does not lie in the image"},
      {"string table index",
       [&](auto &b) { put<uint32_t>(b, dynsym + 40, 999); },
       "names no string table"},
      {"no dynamic symbol table",
       [&](auto &b) { put<uint32_t>(b, dynsym + 4, 2); },
       "has no dynamic symbol table"},
      {"shorter than a header", [](auto &b) { b.resize(40); },
       "is 40 bytes, shorter than an ELF header"},
      {"cut before the section headers", [](auto &b) { b.resize(4096); },
       "does not lie in the 4096-byte image"},
  };
  for (const auto &t : cases) {
    std::vector<uint8_t> image = m.code;
    t.edit(image);
    EXPECT_EQ(load(c.ctx, image, m.rehashed(image)),
              MXGEMM_STATUS_INVALID_ARGUMENT)
        << t.what;
    EXPECT_TRUE(contains(mxgemm_last_error(), t.message))
        << t.what << ": " << mxgemm_last_error();
  }
  // Every byte of the ELF header, the section header table and the dynamic
  // symbol and string tables, inverted one at a time: a clean answer each
  // time, never a read outside the image (ASan/valgrind would see it).
  std::vector<size_t> offsets;
  for (size_t i = 0; i < 64; ++i)
    offsets.push_back(i);
  for (size_t i = 0; i < size_t(shnum) * 64; ++i)
    offsets.push_back(shoff + i);
  const uint64_t symOffset = get<uint64_t>(m.code, dynsym + 24);
  const uint64_t symSize = get<uint64_t>(m.code, dynsym + 32);
  for (size_t i = 0; i < symSize; ++i)
    offsets.push_back(symOffset + i);
  for (size_t at : offsets) {
    std::vector<uint8_t> image = m.code;
    image[at] ^= 0xff;
    mxgemm_status s = load(c.ctx, image, m.rehashed(image));
    EXPECT_TRUE(s == MXGEMM_STATUS_INVALID_ARGUMENT ||
                s == MXGEMM_STATUS_HIP_ERROR)
        << "byte " << at << ": " << mxgemm_status_string(s);
    EXPECT_NE(mxgemm_last_error()[0], '\0');
  }
}

//===----------------------------------------------------------------------===//
// On the facade
//===----------------------------------------------------------------------===//

struct Loaded {
  mxgemm_context *ctx;
  mxgemm_loaded_kernel *kernel = nullptr;
  Loaded(mxgemm_context *c, const Material &m) : ctx(c) {
    EXPECT_EQ(mxgemm_kernel_load(ctx, m.code.data(), m.code.size(),
                                 m.descriptor.c_str(), &kernel),
              MXGEMM_STATUS_OK)
        << mxgemm_last_error();
  }
  ~Loaded() {
    if (kernel)
      mxgemm_kernel_unload(ctx, kernel);
  }
};

TEST(LoadedKernel, PlanIsTheEmbeddedKernelsPlan) {
  REQUIRE_FACADE();
  Material m;
  Context c;
  Loaded k(c.ctx, m);
  ASSERT_NE(k.kernel, nullptr);
  mxgemm_problem p = panelsProblem(4096);
  mxgemm_plan loaded, embedded;
  ASSERT_EQ(mxgemm_kernel_query(c.ctx, k.kernel, &p, &loaded), MXGEMM_STATUS_OK)
      << loaded.message;
  ASSERT_EQ(mxgemm_query(c.ctx, &p, &embedded), MXGEMM_STATUS_OK);
  EXPECT_STREQ(loaded.kernel, "mxgemm_panels");
  EXPECT_STREQ(loaded.config, embedded.config);
  EXPECT_STREQ(loaded.entry, "");
  EXPECT_STREQ(loaded.note, "");
  EXPECT_EQ(loaded.grid_x, embedded.grid_x);
  EXPECT_EQ(loaded.grid_x, 32u * 2u);
  EXPECT_EQ(loaded.block_x, embedded.block_x);
  EXPECT_EQ(loaded.k_step, 64u);
  EXPECT_EQ(loaded.program_tile_m, 128u);
  EXPECT_EQ(loaded.num_tiles_n, 2u);
  EXPECT_EQ(loaded.group_m, embedded.group_m);
  EXPECT_EQ(loaded.xcd_remap, 1u);
  EXPECT_EQ(loaded.w_layout, MXGEMM_WEIGHTS_MFMA_PANELS);
  EXPECT_EQ(loaded.m_min, 1);
  EXPECT_EQ(loaded.m_max, 2147483647);
  // Outside the database's M range (1..4096), the loaded kernel still
  // serves.
  p.m = 4097;
  EXPECT_EQ(mxgemm_query(c.ctx, &p, &embedded), MXGEMM_STATUS_NOT_ELIGIBLE);
  ASSERT_EQ(mxgemm_kernel_query(c.ctx, k.kernel, &p, &loaded), MXGEMM_STATUS_OK)
      << loaded.message;
  EXPECT_EQ(loaded.grid_x, 33u * 2u);
}

// mxgemm_descriptor_query: the plan from the descriptor alone (no context,
// no HIP, no code object) is the embedded kernel's plan, by the same rules.
TEST(LoadedKernel, DescriptorQueryNeedsNoContext) {
  Material m;
  mxgemm_problem p = panelsProblem(4096);
  mxgemm_plan plan;
  ASSERT_EQ(mxgemm_descriptor_query(m.descriptor.c_str(), &p, &plan),
            MXGEMM_STATUS_OK)
      << plan.message;
  EXPECT_EQ(plan.grid_x, 32u * 2u);
  EXPECT_EQ(plan.block_x, 256u);
  EXPECT_EQ(plan.k_step, 64u);
  EXPECT_EQ(plan.program_tile_m, 128u);
  EXPECT_EQ(plan.num_tiles_n, 2u);
  EXPECT_EQ(plan.group_m, 8u);
  EXPECT_EQ(plan.xcd_remap, 1u);
  EXPECT_EQ(plan.w_layout, MXGEMM_WEIGHTS_MFMA_PANELS);
  EXPECT_STREQ(plan.kernel, "");
  EXPECT_STREQ(plan.config, "");
  int64_t row = -1, col = -1;
  EXPECT_EQ(mxgemm_plan_workgroup_tile(&plan, plan.grid_x - 1, &row, &col),
            MXGEMM_STATUS_OK);
  EXPECT_GE(row, 0);
  p.m = 1;
  ASSERT_EQ(mxgemm_descriptor_query(m.descriptor.c_str(), &p, &plan),
            MXGEMM_STATUS_OK);
  EXPECT_EQ(plan.grid_x, 2u);

  // The kernel's problem is required; M is an i32.
  p.n = 8192;
  EXPECT_EQ(mxgemm_descriptor_query(m.descriptor.c_str(), &p, &plan),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(mxgemm_last_error(), "does not match kernel"), nullptr)
      << mxgemm_last_error();
  p = panelsProblem(int64_t(1) << 31);
  EXPECT_EQ(mxgemm_descriptor_query(m.descriptor.c_str(), &p, &plan),
            MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_EQ(plan.reason, MXGEMM_REASON_M_OUT_OF_RANGE);

  // A descriptor that does not parse or is inconsistent, NULLs.
  p = panelsProblem(4096);
  const std::string edited =
      Material::replaced(m.descriptor, "\"group_m\": 8", "\"group_m\": 4");
  EXPECT_EQ(mxgemm_descriptor_query(edited.c_str(), &p, &plan),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(plan.message, "grid disagrees"), nullptr)
      << plan.message;
  EXPECT_STREQ(mxgemm_last_error(), plan.message);
  EXPECT_EQ(mxgemm_descriptor_query("{", &p, &plan),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(plan.grid_x, 0u);
  EXPECT_EQ(mxgemm_descriptor_query(nullptr, &p, &plan),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(mxgemm_last_error(), "kernel descriptor is NULL");
  EXPECT_EQ(mxgemm_descriptor_query(m.descriptor.c_str(), nullptr, &plan),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(mxgemm_descriptor_query(m.descriptor.c_str(), &p, nullptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(mxgemm_last_error(), "plan is NULL");
}

TEST(LoadedKernel, LaunchMatchesReference) {
  REQUIRE_FACADE();
  Material m;
  Context c;
  Loaded k(c.ctx, m);
  ASSERT_NE(k.kernel, nullptr);
  // M = 300: three tile rows, the last a partial one (44 rows).
  Problem prob(300, kPanelsN, kPanelsK, 5);
  prob.p.w_layout = MXGEMM_WEIGHTS_MFMA_PANELS;
  mxgemm_plan plan;
  ASSERT_EQ(mxgemm_kernel_query(c.ctx, k.kernel, &prob.p, &plan),
            MXGEMM_STATUS_OK)
      << plan.message;
  ASSERT_EQ(plan.grid_x, 3u * 2u);
  // W packed on the host with the contract's layout.
  std::vector<uint8_t> panels(prob.w.data.size());
  contract::packWeightPanels(prob.w.data.data(), panels.data(), kPanelsN,
                             kPanelsK, 32);
  DeviceBuffer x(c.ctx, prob.x.data), xs(c.ctx, prob.x.scales),
      w(c.ctx, panels), ws(c.ctx, prob.w.scales);
  const size_t yBytes = size_t(300) * kPanelsN * 2;
  DeviceBuffer y(c.ctx, yBytes);
  ASSERT_EQ(mxgemm_device_memset(c.ctx, y.ptr, 0xff, yBytes), MXGEMM_STATUS_OK);
  // Workgroup 0, two of the partial last tile row (rows 256..299) and one
  // of the middle tile row, located through the kernel's tile order.
  std::vector<uint32_t> workgroups = {0};
  nx::GemmCheckOptions check;
  check.reference.kStep = int(plan.k_step);
  uint64_t expected = 0;
  int edgeTiles = 0;
  bool interiorTile = false;
  for (uint32_t g = 0; g < plan.grid_x; ++g) {
    int64_t row, col;
    ASSERT_EQ(mxgemm_plan_workgroup_tile(&plan, g, &row, &col),
              MXGEMM_STATUS_OK);
    const bool edge = row == 256 && edgeTiles < 2;
    const bool interior = row == 128 && !interiorTile;
    if (edge || interior || g == 0) {
      edgeTiles += edge;
      interiorTile |= interior;
      if (g != 0)
        workgroups.push_back(g);
      const int64_t rowEnd = std::min<int64_t>(row + plan.program_tile_m, 300);
      check.expected.push_back({row, rowEnd, col, col + int64_t(plan.tile_n)});
      expected += uint64_t(rowEnd - row) * plan.tile_n;
    }
  }
  ASSERT_EQ(workgroups.size(), 4u);
  std::string list;
  for (uint32_t g : workgroups)
    list += (list.empty() ? "" : ",") + std::to_string(g);
  ::setenv("MXGEMM_EMU_WORKGROUPS", list.c_str(), 1);
  mxgemm_tensors t{x.ptr, xs.ptr, w.ptr, ws.ptr, y.ptr};
  mxgemm_status s =
      mxgemm_kernel_launch(c.ctx, k.kernel, &prob.p, &t, nullptr, &plan);
  ::unsetenv("MXGEMM_EMU_WORKGROUPS");
  ASSERT_EQ(s, MXGEMM_STATUS_OK) << plan.message;
  ASSERT_EQ(mxgemm_synchronize(c.ctx, nullptr), MXGEMM_STATUS_OK);
  std::vector<uint8_t> got(yBytes);
  ASSERT_EQ(mxgemm_copy_to_host(c.ctx, got.data(), y.ptr, yBytes),
            MXGEMM_STATUS_OK);
  nx::GemmCheckResult r = nx::checkGemmOutput(prob.operands(), got.data(),
                                              nx::OutputType::BF16, check);
  EXPECT_EQ(r.mismatches, 0u);
  EXPECT_EQ(r.stray, 0u);
  EXPECT_EQ(r.compared, expected);
  EXPECT_TRUE(r.lastRowWritten);
}

TEST(LoadedKernel, MismatchedProblemIsRefused) {
  REQUIRE_FACADE();
  Material m;
  Context c;
  Loaded k(c.ctx, m);
  ASSERT_NE(k.kernel, nullptr);
  DeviceBuffer buf(c.ctx, 4096);
  char *base = static_cast<char *>(buf.ptr);
  mxgemm_tensors t{base, base, base, base, base};
  const struct {
    const char *what;
    void (*edit)(mxgemm_problem &);
    mxgemm_status status;
    mxgemm_reason reason;
    const char *message;
  } cases[] = {
      {"N", [](mxgemm_problem &p) { p.n = 1024; },
       MXGEMM_STATUS_INVALID_ARGUMENT, MXGEMM_REASON_NONE,
       "the problem (N = 1024, K = 256) does not match kernel "
       "'mxgemm_panels', compiled for N = 512, K = 256"},
      {"K", [](mxgemm_problem &p) { p.k = 1152; },
       MXGEMM_STATUS_INVALID_ARGUMENT, MXGEMM_REASON_NONE, "K = 1152"},
      {"W format", [](mxgemm_problem &p) { p.w_type = MXGEMM_DTYPE_E5M2; },
       MXGEMM_STATUS_INVALID_ARGUMENT, MXGEMM_REASON_NONE,
       "the problem's formats (x e4m3, w e5m2, out bf16) do not match kernel "
       "'mxgemm_panels', compiled for x e4m3, w e4m3, out bf16"},
      {"output", [](mxgemm_problem &p) { p.out_type = MXGEMM_DTYPE_F32; },
       MXGEMM_STATUS_INVALID_ARGUMENT, MXGEMM_REASON_NONE, "out f32"},
      {"scale kind",
       [](mxgemm_problem &p) { p.w_scale = MXGEMM_SCALE_PER_ROW; },
       MXGEMM_STATUS_INVALID_ARGUMENT, MXGEMM_REASON_NONE,
       "the problem's w_scale (per_row) does not match kernel "
       "'mxgemm_panels', compiled for block32x32"},
      {"W layout",
       [](mxgemm_problem &p) { p.w_layout = MXGEMM_WEIGHTS_ROW_MAJOR; },
       MXGEMM_STATUS_INVALID_ARGUMENT, MXGEMM_REASON_NONE,
       "the problem's w_layout (row_major) does not match kernel "
       "'mxgemm_panels', which reads mfma_panels"},
      {"M = 0", [](mxgemm_problem &p) { p.m = 0; },
       MXGEMM_STATUS_INVALID_ARGUMENT, MXGEMM_REASON_NONE,
       "M, N and K must be positive"},
      {"M = 2^31", [](mxgemm_problem &p) { p.m = int64_t(1) << 31; },
       MXGEMM_STATUS_NOT_ELIGIBLE, MXGEMM_REASON_M_OUT_OF_RANGE,
       "M = 2147483648 is above 2147483647, the largest M a kernel takes (M "
       "is an i32 kernel argument)"},
      {"strided X", [](mxgemm_problem &p) { p.ld_x = 8192; },
       MXGEMM_STATUS_NOT_ELIGIBLE, MXGEMM_REASON_NOT_CONTIGUOUS,
       "X is not contiguous"},
  };
  for (const auto &tc : cases) {
    mxgemm_problem p = panelsProblem(1000);
    tc.edit(p);
    mxgemm_plan plan;
    EXPECT_EQ(mxgemm_kernel_query(c.ctx, k.kernel, &p, &plan), tc.status)
        << tc.what;
    EXPECT_EQ(plan.reason, tc.reason) << tc.what;
    EXPECT_EQ(plan.grid_x, 0u) << tc.what;
    EXPECT_TRUE(contains(plan.message, tc.message))
        << tc.what << ": " << plan.message;
    // The launch says the same, with and without a plan, and runs nothing.
    EXPECT_EQ(mxgemm_kernel_launch(c.ctx, k.kernel, &p, &t, nullptr, nullptr),
              tc.status)
        << tc.what;
    EXPECT_TRUE(contains(mxgemm_last_error(), tc.message))
        << tc.what << ": " << mxgemm_last_error();
  }
  // Pointer rules of the launch.
  mxgemm_problem p = panelsProblem(1000);
  mxgemm_plan plan;
  mxgemm_tensors misaligned{base, base, base, base + 8, base};
  EXPECT_EQ(
      mxgemm_kernel_launch(c.ctx, k.kernel, &p, &misaligned, nullptr, &plan),
      MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_EQ(plan.reason, MXGEMM_REASON_MISALIGNED);
  EXPECT_TRUE(contains(plan.message, "Ws is not 16-byte aligned"));
  mxgemm_tensors null{base, base, nullptr, base, base};
  EXPECT_EQ(mxgemm_kernel_launch(c.ctx, k.kernel, &p, &null, nullptr, &plan),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(plan.message, "a tensor pointer"));
  EXPECT_EQ(mxgemm_kernel_launch(c.ctx, k.kernel, &p, nullptr, nullptr, &plan),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(mxgemm_last_error(), "tensors is NULL");
  EXPECT_STREQ(plan.message, "tensors is NULL");
  EXPECT_EQ(mxgemm_kernel_query(c.ctx, k.kernel, &p, nullptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(mxgemm_last_error(), "plan is NULL");
}

TEST(LoadedKernel, HandleLifecycle) {
  REQUIRE_FACADE();
  Material m;
  Context a, b;
  mxgemm_problem p = panelsProblem(1000);
  mxgemm_plan plan;
  mxgemm_loaded_kernel *kernel = nullptr;
  ASSERT_EQ(mxgemm_kernel_load(a.ctx, m.code.data(), m.code.size(),
                               m.descriptor.c_str(), &kernel),
            MXGEMM_STATUS_OK)
      << mxgemm_last_error();
  // Another context's kernel.
  EXPECT_EQ(mxgemm_kernel_query(b.ctx, kernel, &p, &plan),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(plan.message, "kernel was loaded into another context");
  EXPECT_EQ(mxgemm_kernel_unload(b.ctx, kernel),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(mxgemm_last_error(), "kernel was loaded into another context");
  // Kinds do not mix: a context is not a kernel.
  EXPECT_EQ(mxgemm_kernel_query(a.ctx,
                                reinterpret_cast<mxgemm_loaded_kernel *>(a.ctx),
                                &p, &plan),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(plan.message, "not a live handle made by "
                                     "mxgemm_kernel_load"));
  EXPECT_EQ(mxgemm_kernel_query(a.ctx, nullptr, &p, &plan),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(plan.message, "kernel is NULL");
  // Unload, then every use and a second unload are refused.
  EXPECT_EQ(mxgemm_kernel_query(a.ctx, kernel, &p, &plan), MXGEMM_STATUS_OK);
  EXPECT_EQ(mxgemm_kernel_unload(a.ctx, kernel), MXGEMM_STATUS_OK);
  const std::string unloaded = "kernel was unloaded";
  EXPECT_EQ(mxgemm_kernel_query(a.ctx, kernel, &p, &plan),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(plan.message, unloaded)) << plan.message;
  alignas(16) static char buf[64];
  mxgemm_tensors t{buf, buf, buf, buf, buf};
  EXPECT_EQ(mxgemm_kernel_launch(a.ctx, kernel, &p, &t, nullptr, nullptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(mxgemm_last_error(), unloaded));
  EXPECT_EQ(mxgemm_kernel_unload(a.ctx, kernel),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(mxgemm_last_error(), unloaded));
  // Destroying a context unloads its kernels.
  mxgemm_context_options o;
  mxgemm_context_options_init(&o);
  std::string path = facadePath();
  o.hip_library = path.c_str();
  mxgemm_context *c = nullptr;
  ASSERT_EQ(mxgemm_context_create(&o, &c), MXGEMM_STATUS_OK);
  mxgemm_loaded_kernel *k1 = nullptr, *k2 = nullptr;
  ASSERT_EQ(mxgemm_kernel_load(c, m.code.data(), m.code.size(),
                               m.descriptor.c_str(), &k1),
            MXGEMM_STATUS_OK);
  ASSERT_EQ(mxgemm_kernel_load(c, m.code.data(), m.code.size(),
                               m.descriptor.c_str(), &k2),
            MXGEMM_STATUS_OK);
  EXPECT_NE(k1, k2);
  ASSERT_EQ(mxgemm_context_destroy(c), MXGEMM_STATUS_OK);
  for (mxgemm_loaded_kernel *k : {k1, k2}) {
    EXPECT_EQ(mxgemm_kernel_query(a.ctx, k, &p, &plan),
              MXGEMM_STATUS_INVALID_ARGUMENT);
    EXPECT_TRUE(contains(plan.message, "with its context")) << plan.message;
  }
}

TEST(LoadedKernel, DryRunPacksButDoesNotLaunch) {
  REQUIRE_FACADE();
  Material m;
  Context c(/*strict=*/0, /*dryRun=*/1);
  Loaded k(c.ctx, m);
  ASSERT_NE(k.kernel, nullptr);
  mxgemm_problem p = panelsProblem(1000);
  // Plausible aligned addresses; nothing is launched, so nothing is read.
  mxgemm_tensors t{reinterpret_cast<const void *>(0x10000),
                   reinterpret_cast<const void *>(0x20000),
                   reinterpret_cast<const void *>(0x30000),
                   reinterpret_cast<const void *>(0x40000),
                   reinterpret_cast<void *>(0x50000)};
  mxgemm_plan plan;
  EXPECT_EQ(mxgemm_kernel_launch(c.ctx, k.kernel, &p, &t, nullptr, &plan),
            MXGEMM_STATUS_OK)
      << plan.message;
  EXPECT_EQ(plan.grid_x, 8u * 2u);
}

TEST(LoadedKernel, DeviceAndHipFailuresAreMessages) {
  REQUIRE_FACADE();
  Material m;
  const struct {
    const char *fault;
    mxgemm_status status;
    const char *message;
  } cases[] = {
      {"arch", MXGEMM_STATUS_NOT_ELIGIBLE,
       "has compute capability 9.4; kernel 'mxgemm_panels' is for "
       "gfx950 (9.5)"},
      {"code_object", MXGEMM_STATUS_HIP_ERROR,
       "hipModuleLoadData(mxgemm_panels): "},
      {"function", MXGEMM_STATUS_HIP_ERROR,
       "hipModuleGetFunction(mxgemm_panels): "},
  };
  for (const auto &t : cases) {
    ::setenv("MXGEMM_RUNTIME_FAULT", t.fault, 1);
    Context c;
    ::unsetenv("MXGEMM_RUNTIME_FAULT");
    mxgemm_loaded_kernel *k = nullptr;
    EXPECT_EQ(mxgemm_kernel_load(c.ctx, m.code.data(), m.code.size(),
                                 m.descriptor.c_str(), &k),
              t.status)
        << t.fault;
    EXPECT_EQ(k, nullptr);
    EXPECT_TRUE(contains(mxgemm_last_error(), t.message))
        << t.fault << ": " << mxgemm_last_error();
  }
  // The "function" hook reaches the embedded kernels too.
  ::setenv("MXGEMM_RUNTIME_FAULT", "function", 1);
  Context c;
  ::unsetenv("MXGEMM_RUNTIME_FAULT");
  mxgemm_problem p = panelsProblem(1000);
  mxgemm_plan plan;
  EXPECT_EQ(mxgemm_query(c.ctx, &p, &plan), MXGEMM_STATUS_NOT_ELIGIBLE);
  EXPECT_EQ(plan.reason, MXGEMM_REASON_CODE_OBJECT_LOAD);
  EXPECT_TRUE(contains(plan.message, "hipModuleGetFunction(mxgemm_panels)"))
      << plan.message;
}

} // namespace
