//===- ConfigAttrTest.cpp - derived quantities of #mxgemm.config
//--------------===//
//
// The LDS and register budgets the verifier enforces are arithmetic, not IR
// shape, so they are checked here against hand-computed figures.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/IR/MXGemm.h"
#include "mxgemm/InitAll.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mxgemm;

namespace {
class ConfigAttrTest : public ::testing::Test {
protected:
  ConfigAttrTest() {
    DialectRegistry registry;
    ::mxgemm::registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }
  /// Parses a config; on failure returns null and keeps the diagnostic.
  ConfigAttr parse(StringRef text) {
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
      lastError = d.str();
      return success();
    });
    return llvm::dyn_cast_or_null<ConfigAttr>(parseAttribute(text, &ctx));
  }
  MLIRContext ctx;
  std::string lastError;
};
} // namespace

TEST_F(ConfigAttrTest, DefaultsFillOmittedFields) {
  ConfigAttr c = parse("#mxgemm.config<>");
  ASSERT_TRUE(c) << lastError;
  EXPECT_EQ(c, ConfigAttr::getDefault(&ctx));
  EXPECT_EQ(c.getTileM(), 128);
  EXPECT_EQ(c.getStages(), 1);
  EXPECT_EQ(c.getLdsBytes(), 0);
  EXPECT_EQ(c.getWorkgroupSize(), 256);
}

TEST_F(ConfigAttrTest, LdsBytesCountEveryStagedOperandAndStage) {
  // 2 stages x (64 rows of X + 256 rows of W) x 128 bytes.
  ConfigAttr c = parse("#mxgemm.config<tile_m = 128, tile_n = 256, "
                       "waves_m = 1, waves_n = 4, split = 2, stages = 2, "
                       "stage_x = lds_async, stage_w = lds_sync>");
  ASSERT_TRUE(c) << lastError;
  EXPECT_EQ(c.getProgramTileM(), 64);
  EXPECT_EQ(c.getLdsBytes(), 2 * (64 + 256) * 128);
  // Padding adds 16 bytes per staged row.
  ConfigAttr p = parse("#mxgemm.config<stage_x = lds_async, "
                       "lds_layout = padded>");
  ASSERT_TRUE(p) << lastError;
  EXPECT_EQ(p.getLdsBytes(), 128 * (128 + 16));
}

TEST_F(ConfigAttrTest, AccumulatorRegistersPerLane) {
  ConfigAttr c = parse("#mxgemm.config<tile_m = 256, tile_n = 256, "
                       "waves_m = 2, waves_n = 2>");
  ASSERT_TRUE(c) << lastError;
  // Each wave owns 128x128 floats spread over 64 lanes.
  EXPECT_EQ(c.getAccumulatorRegsPerLane(), 128 * 128 / 64);
}

TEST_F(ConfigAttrTest, LdsLimitIsInclusive) {
  // Exactly 163840 bytes: 4 stages x 320 rows x 128 B.
  EXPECT_TRUE(parse("#mxgemm.config<tile_m = 64, tile_n = 256, waves_m = 1, "
                    "waves_n = 4, stage_x = lds_async, stage_w = lds_async, "
                    "stages = 4>"))
      << lastError;
  EXPECT_FALSE(parse("#mxgemm.config<tile_m = 64, tile_n = 256, "
                     "waves_m = 1, waves_n = 4, stage_x = lds_async, "
                     "stage_w = lds_async, stages = 4, lds_layout = padded>"));
  EXPECT_NE(lastError.find("bytes of LDS"), std::string::npos) << lastError;
}

TEST_F(ConfigAttrTest, PrintRoundTripsNonDefaultFields) {
  ConfigAttr c = parse("#mxgemm.config<mfma = m16n16k128, xcd_remap = true, "
                       "group_m = 4, group_n = 8, schedule = interleave>");
  ASSERT_TRUE(c) << lastError;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << Attribute(c);
  EXPECT_EQ(parse(text), c) << text;
  EXPECT_NE(text.find("group_n = 8"), std::string::npos) << text;
  EXPECT_EQ(text.find("stages"), std::string::npos) << text;
}
