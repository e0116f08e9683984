//===- TuningDatabaseFuzzer.cpp - fuzz the tuning-database reader ---------===//
//
// The build and the runtime compile and dispatch whatever this reader
// accepts; every accepted entry must have a config the verifier accepts on
// its chip and a valid grid whose first tile exists at m_min.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/TileGrouping.h"
#include "mxgemm/Contract/TuningDatabase.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  namespace contract = mxgemm::contract;
  std::string_view text(reinterpret_cast<const char *>(data), size);
  contract::TuningDatabase db;
  if (contract::TuningDatabase::parse(text, db))
    return 0;
  for (const contract::TuningEntry &e : db.entries) {
    const auto *target = mxgemm::target::findTargetModel(e.arch);
    if (!target || contract::verifyConfig(e.config, *target))
      std::abort();
    contract::TileGrid grid =
        contract::TileGrid::of(e.config, e.problem.n, *target);
    if (grid.validate() || !grid.tileOrigin(0, e.mMin))
      std::abort();
  }
  return 0;
}
