//===- LoweredLoads.h - the loads convert-mxgemm-to-amdgpu emits -*- C++
//-*-===//
//
// The passes that reshape the converted K loops (mxgemm-prefetch-registers,
// mxgemm-schedule-mfma) classify its loads the same way: vector.load and
// memref.load from LDS (workgroup memory) or from global memory, and how
// many 16-byte instructions each becomes.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_LIB_DIALECT_MXGEMM_TRANSFORMS_LOWEREDLOADS_H
#define MXGEMM_LIB_DIALECT_MXGEMM_TRANSFORMS_LOWEREDLOADS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <algorithm>
#include <optional>

namespace mxgemm {

inline bool isWorkgroupMemory(mlir::Value memref) {
  auto type = mlir::dyn_cast<mlir::MemRefType>(memref.getType());
  auto space = type ? mlir::dyn_cast_or_null<mlir::gpu::AddressSpaceAttr>(
                          type.getMemorySpace())
                    : nullptr;
  return space && space.getValue() == mlir::gpu::AddressSpace::Workgroup;
}

/// A load of the converted IR: whether it reads LDS, and its instructions.
struct LoweredLoad {
  bool lds;
  int64_t instructions;
};

/// `op` as a load, or nothing if it is not one.
inline std::optional<LoweredLoad> classifyLoad(mlir::Operation &op) {
  if (auto load = mlir::dyn_cast<mlir::vector::LoadOp>(op)) {
    // A load wider than 16 bytes is several instructions.
    const int64_t bytes = load.getVectorType().getNumElements() *
                          load.getVectorType().getElementTypeBitWidth() / 8;
    return LoweredLoad{isWorkgroupMemory(load.getBase()),
                       std::max<int64_t>(1, (bytes + 15) / 16)};
  }
  if (auto load = mlir::dyn_cast<mlir::memref::LoadOp>(op))
    return LoweredLoad{isWorkgroupMemory(load.getMemRef()), 1};
  return std::nullopt;
}

/// Global load instructions of `op`, 0 if it is no global load.
inline int64_t globalLoadInstructions(mlir::Operation &op) {
  std::optional<LoweredLoad> load = classifyLoad(op);
  return load && !load->lds ? load->instructions : 0;
}

} // namespace mxgemm

#endif // MXGEMM_LIB_DIALECT_MXGEMM_TRANSFORMS_LOWEREDLOADS_H
