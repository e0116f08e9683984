//===- InitAll.h - register everything mxgemm-opt knows -------------*- C++
//-*-===//
//
// The one registration point for tools and for the C API: our dialect and
// passes plus the upstream dialects, passes and translations the
// mxgemm-to-gfx950 pipeline runs through.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_INITALL_H
#define MXGEMM_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mxgemm {
/// Adds the mxgemm dialect and every upstream dialect the pipeline uses.
void registerAllDialects(mlir::DialectRegistry &registry);
/// Registers the mxgemm passes and pipelines and the upstream passes the
/// pipeline is built from (so `mxgemm-opt --help` lists all of them).
void registerAllPasses();
} // namespace mxgemm

#endif // MXGEMM_INITALL_H
