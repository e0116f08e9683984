//===- TestDb.h - the entries of unittests/Runtime/test-db.json -----------===//
//
// For the tests linked against libmxgemm_runtime_testdb.so (the runtime
// built from test-db.json). The production database has no panel kernel,
// so the panel path (mxgemm_pack_weights, PACKED_WEIGHTS, a loaded kernel
// or library that reads MFMA panels) is tested on this database's `panels`
// entry; `rowmajor` is its row-major counterpart.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_UNITTESTS_RUNTIME_TESTDB_H
#define MXGEMM_UNITTESTS_RUNTIME_TESTDB_H

#include "mxgemm/Runtime/mxgemm_runtime.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace mxgemm::testing {

/// `rowmajor`: reads row-major W, M 1..4096.
constexpr int64_t kRowMajorN = 256, kRowMajorK = 512;
/// `panels`: reads W in m32n32k64 MFMA panels, 128 x 256 tiles, M 1..4096.
constexpr int64_t kPanelsN = 512, kPanelsK = 256;
/// The largest M of both entries.
constexpr int64_t kTestDbMaxM = 4096;

/// The code object and descriptor of the embedded entry `entry`.
struct EmbeddedKernel {
  std::vector<uint8_t> code;
  std::string descriptor;
  explicit EmbeddedKernel(const char *entry) {
    for (size_t i = 0; i < mxgemm_kernel_count(); ++i) {
      mxgemm_kernel_info info;
      EXPECT_EQ(mxgemm_kernel_get(i, &info), MXGEMM_STATUS_OK);
      if (std::strcmp(info.entry, entry) != 0)
        continue;
      const void *data;
      size_t bytes;
      EXPECT_EQ(mxgemm_kernel_code_object(i, &data, &bytes), MXGEMM_STATUS_OK);
      code.assign(static_cast<const uint8_t *>(data),
                  static_cast<const uint8_t *>(data) + bytes);
      descriptor = mxgemm_kernel_descriptor(i);
    }
    EXPECT_FALSE(code.empty()) << "no embedded entry '" << entry << "'";
  }
};

/// A problem of the `panels` entry with W packed, as its kernel reads it.
inline mxgemm_problem panelsProblem(int64_t m) {
  mxgemm_problem p;
  mxgemm_problem_init(&p, m, kPanelsN, kPanelsK);
  p.w_layout = MXGEMM_WEIGHTS_MFMA_PANELS;
  return p;
}

} // namespace mxgemm::testing

#endif // MXGEMM_UNITTESTS_RUNTIME_TESTDB_H
