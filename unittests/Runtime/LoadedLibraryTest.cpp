//===- LoadedLibraryTest.cpp - mxgemm_context_load_library ----------------===//
//
// A directory in the layout `mxgemm-tune --export` writes, assembled from
// the test database's embedded `panels` kernel (code object and
// descriptor; linked against libmxgemm_runtime_testdb because the
// production database has no panel kernel, TestDb.h) with a tuning
// database whose M range (1..100000) reaches above the embedded one
// (1..4096): a query at M = 5000 shows which kind served it. What must
// be refused, with the context left as it was (a corrupted code object, a
// hash that is not the manifest's or the descriptor's, another chip, a
// directory or file others can write, a symbolic link); precedence over
// the embedded entry; and a GEMM through the loaded entry, bit-exact on the
// emulator's HIP facade. test/Runtime/load-library.test loads what
// mxgemm-tune really exports.
//
//===----------------------------------------------------------------------===//

#include "FacadeTestUtil.h"
#include "TestDb.h"

#include "mxgemm/Contract/Digest.h"
#include "mxgemm/Contract/KernelDescriptor.h"
#include "mxgemm/Contract/TuningDatabase.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace {

using namespace mxgemm::testing;
namespace contract = mxgemm::contract;

/// The files of an exported directory, editable before they are written.
struct Export : EmbeddedKernel {
  std::string database, manifest;
  std::string sha;
  int64_t mMin = 1, mMax = 100000;
  /// Directories written, removed with the object.
  mutable std::vector<std::string> written;

  Export() : EmbeddedKernel("panels") {
    sha = contract::sha256Hex(code.data(), code.size());
    rebuild();
  }
  ~Export() {
    for (const std::string &dir : written)
      std::system(("rm -rf '" + dir + "'").c_str());
  }
  /// The database and manifest for the current descriptor and M range.
  void rebuild() {
    contract::KernelDescriptor d;
    ASSERT_FALSE(contract::KernelDescriptor::parse(descriptor, d));
    contract::TuningDatabase db;
    contract::TuningEntry e;
    e.name = "panels";
    e.arch = "gfx950";
    e.problem = d.problem;
    e.config = d.config;
    e.mMin = mMin;
    e.mMax = mMax;
    db.entries.push_back(e);
    database = db.toJson("LoadedLibraryTest");
    manifest = R"({"format": "mxgemm-tune-export", "version": 1,
  "target_hash": "", "database": "db.json", "kernels": [
  {"name": "panels", "kernel": "mxgemm_panels",
   "code_object": "panels.hsaco", "descriptor": "panels.hsaco.json",
   "sha256": ")" +
               sha + R"(", "m_range": [)" + std::to_string(mMin) + ", " +
               std::to_string(mMax) + R"(], "n": 512, "k": 256, "config": ")" +
               contract::formatConfigBody(d.config) + R"("}]})";
  }
  /// Writes the directory (mode 0755, files 0644) and returns its path.
  std::string write(const std::string &tag) const {
    std::string dir = ::testing::TempDir() + "mxgemm-lib-" + tag + "-" +
                      std::to_string(::getpid());
    std::string rm = "rm -rf '" + dir + "'";
    EXPECT_EQ(std::system(rm.c_str()), 0);
    EXPECT_EQ(::mkdir(dir.c_str(), 0755), 0);
    written.push_back(dir);
    EXPECT_EQ(::chmod(dir.c_str(), 0755), 0);
    auto put = [&](const std::string &name, const void *data, size_t size) {
      std::string path = dir + "/" + name;
      std::ofstream(path, std::ios::binary)
          .write(static_cast<const char *>(data), std::streamsize(size));
      EXPECT_EQ(::chmod(path.c_str(), 0644), 0);
    };
    put("panels.hsaco", code.data(), code.size());
    put("panels.hsaco.json", descriptor.data(), descriptor.size());
    put("db.json", database.data(), database.size());
    put("manifest.json", manifest.data(), manifest.size());
    return dir;
  }
};

std::string replaced(std::string text, const std::string &from,
                     const std::string &to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

/// The plan of the `panels` key at `m` (W packed, as its kernel reads it).
mxgemm_plan planAt(mxgemm_context *ctx, int64_t m) {
  mxgemm_problem p = panelsProblem(m);
  mxgemm_plan plan;
  mxgemm_query(ctx, &p, &plan);
  return plan;
}

/// M above the embedded range of the key (1..4096), inside the loaded one.
constexpr int64_t kAboveEmbedded = 5000;

/// The load is refused with `status` and a message containing `what`, and
/// the context still dispatches as before (embedded only: kAboveEmbedded
/// is out of range).
void expectRefused(const std::string &dir, const std::string &what,
                   mxgemm_status status = MXGEMM_STATUS_INVALID_ARGUMENT) {
  Context c;
  EXPECT_EQ(mxgemm_context_load_library(c.ctx, dir.c_str()), status);
  EXPECT_NE(std::string(mxgemm_last_error()).find(what), std::string::npos)
      << mxgemm_last_error();
  mxgemm_plan plan = planAt(c.ctx, kAboveEmbedded);
  EXPECT_EQ(plan.reason, MXGEMM_REASON_M_OUT_OF_RANGE) << plan.message;
  EXPECT_EQ(plan.kind, MXGEMM_PLAN_KIND_NONE);
  EXPECT_EQ(planAt(c.ctx, 1000).kind, MXGEMM_PLAN_KIND_EMBEDDED);
}

TEST(LoadedLibrary, PlanKindString) {
  EXPECT_STREQ(mxgemm_plan_kind_string(MXGEMM_PLAN_KIND_LIBRARY),
               "MXGEMM_PLAN_KIND_LIBRARY");
}

TEST(LoadedLibrary, TakesPrecedenceOverTheEmbeddedEntry) {
  REQUIRE_FACADE();
  Export e;
  std::string dir = e.write("good");
  Context c;
  EXPECT_EQ(planAt(c.ctx, kAboveEmbedded).reason, MXGEMM_REASON_M_OUT_OF_RANGE);
  EXPECT_EQ(planAt(c.ctx, 300).kind, MXGEMM_PLAN_KIND_EMBEDDED);
  ASSERT_EQ(mxgemm_context_load_library(c.ctx, dir.c_str()), MXGEMM_STATUS_OK)
      << mxgemm_last_error();
  for (int64_t m : {int64_t(300), int64_t(1000), kAboveEmbedded}) {
    mxgemm_plan plan = planAt(c.ctx, m);
    EXPECT_EQ(plan.status, MXGEMM_STATUS_OK) << plan.message;
    EXPECT_EQ(plan.kind, MXGEMM_PLAN_KIND_LIBRARY);
    EXPECT_STREQ(plan.entry, "panels");
    EXPECT_EQ(plan.m_min, 1);
    EXPECT_EQ(plan.m_max, 100000);
  }
  // Another key stays embedded; another context sees nothing loaded.
  mxgemm_problem p;
  mxgemm_problem_init(&p, 300, kRowMajorN, kRowMajorK);
  mxgemm_plan plan;
  ASSERT_EQ(mxgemm_query(c.ctx, &p, &plan), MXGEMM_STATUS_OK) << plan.message;
  EXPECT_EQ(plan.kind, MXGEMM_PLAN_KIND_EMBEDDED);
  Context other;
  EXPECT_EQ(planAt(other.ctx, kAboveEmbedded).reason,
            MXGEMM_REASON_M_OUT_OF_RANGE);

  // A second directory with a narrower range replaces the key's entries.
  Export narrow;
  narrow.mMin = 200, narrow.mMax = 400;
  narrow.rebuild();
  std::string dir2 = narrow.write("narrow");
  ASSERT_EQ(mxgemm_context_load_library(c.ctx, dir2.c_str()), MXGEMM_STATUS_OK)
      << mxgemm_last_error();
  EXPECT_EQ(planAt(c.ctx, 300).kind, MXGEMM_PLAN_KIND_LIBRARY);
  plan = planAt(c.ctx, 1000); // in the embedded range, not in the loaded one
  EXPECT_EQ(plan.reason, MXGEMM_REASON_M_OUT_OF_RANGE);
  EXPECT_NE(std::string(plan.message).find("200..400"), std::string::npos)
      << plan.message;
}

TEST(LoadedLibrary, GemmThroughALoadedEntryMatchesReference) {
  REQUIRE_FACADE();
  Export e;
  std::string dir = e.write("gemm");
  Context c;
  ASSERT_EQ(mxgemm_context_load_library(c.ctx, dir.c_str()), MXGEMM_STATUS_OK)
      << mxgemm_last_error();
  // The loaded entry replaces the key's embedded one (M = 300 is in the
  // embedded range): first and last workgroups (the last in the partial
  // tile row).
  Problem prob(300, kPanelsN, kPanelsK, 11);
  mxgemm_plan plan = planAt(c.ctx, 300);
  ASSERT_EQ(plan.kind, MXGEMM_PLAN_KIND_LIBRARY);
  runAndCheck(c.ctx, prob, {0, plan.grid_x - 1});
}

TEST(LoadedLibrary, CorruptedCodeObjectIsRefused) {
  REQUIRE_FACADE();
  Export e;
  e.code[e.code.size() / 2] ^= 0x40;
  expectRefused(e.write("corrupt"), "the manifest says " + e.sha);
}

TEST(LoadedLibrary, HashesMustAgree) {
  REQUIRE_FACADE();
  // Manifest and bytes agree, the descriptor does not.
  Export e;
  e.code[1] = 'X'; // not an ELF any more
  std::string good = e.sha;
  e.sha = contract::sha256Hex(e.code.data(), e.code.size());
  e.rebuild();
  expectRefused(e.write("hash"), "code_object_sha256 " + good +
                                     " is not the manifest's " + e.sha);
  // All three hashes agree on the edited bytes: the ELF checks see them.
  e.descriptor = replaced(e.descriptor, good, e.sha);
  expectRefused(e.write("elf"), "panels.hsaco: ");
}

TEST(LoadedLibrary, WrongChipIsRefused) {
  REQUIRE_FACADE();
  Export e;
  e.descriptor =
      replaced(e.descriptor, "\"chip\": \"gfx950\"", "\"chip\": \"gfx942\"");
  expectRefused(e.write("chip"), "gfx942");
  Export db;
  db.database = replaced(db.database, "\"gfx950\"", "\"gfx942\"");
  expectRefused(db.write("dbchip"), "gfx942");
}

TEST(LoadedLibrary, ManifestMustMatchTheDatabase) {
  REQUIRE_FACADE();
  Export e;
  e.manifest = replaced(e.manifest, "[1, 100000]", "[1, 99999]");
  expectRefused(e.write("range"), "does not match db.json");
  Export v;
  v.manifest = replaced(v.manifest, "\"version\": 1", "\"version\": 2");
  expectRefused(v.write("version"), "expected format 'mxgemm-tune-export' "
                                    "version 1");
  Export escape;
  escape.manifest =
      replaced(escape.manifest, "\"panels.hsaco\"", "\"../panels.hsaco\"");
  expectRefused(escape.write("escape"), "must be file names in the directory");
}

TEST(LoadedLibrary, WritableByOthersIsRefused) {
  REQUIRE_FACADE();
  Export e;
  std::string dir = e.write("perm");
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
  expectRefused(dir, "is writable by others (mode 0777); refused");
  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  ASSERT_EQ(::chmod((dir + "/panels.hsaco").c_str(), 0664), 0);
  expectRefused(dir, "panels.hsaco is writable by its group");
  ASSERT_EQ(::chmod((dir + "/panels.hsaco").c_str(), 0644), 0);
  // A symbolic link could point anywhere: refused.
  ASSERT_EQ(
      std::rename((dir + "/db.json").c_str(), (dir + "/real.json").c_str()), 0);
  ASSERT_EQ(::symlink("real.json", (dir + "/db.json").c_str()), 0);
  expectRefused(dir, "db.json is a symbolic link");
}

TEST(LoadedLibrary, BadArgumentsAndMissingHip) {
  Export e;
  std::string dir = e.write("nohip");
  EXPECT_EQ(mxgemm_context_load_library(nullptr, dir.c_str()),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  mxgemm_context_options o;
  mxgemm_context_options_init(&o);
  o.hip_library = "/nonexistent/libamdhip64.so";
  o.log = [](void *, const char *) {};
  mxgemm_context *ctx;
  ASSERT_EQ(mxgemm_context_create(&o, &ctx), MXGEMM_STATUS_OK);
  EXPECT_EQ(mxgemm_context_load_library(ctx, nullptr),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(mxgemm_context_load_library(ctx, "/nonexistent/dir"),
            MXGEMM_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(mxgemm_last_error()).find("No such file"),
            std::string::npos)
      << mxgemm_last_error();
  // Every file checks out; then HIP is missing.
  EXPECT_EQ(mxgemm_context_load_library(ctx, dir.c_str()),
            MXGEMM_STATUS_HIP_ERROR);
  EXPECT_NE(std::string(mxgemm_last_error()).find("HIP unavailable"),
            std::string::npos)
      << mxgemm_last_error();
  mxgemm_context_destroy(ctx);
}

} // namespace
