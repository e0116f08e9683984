//===- PassRegistration.cpp - anchor for the mxgemm pass library
//-------------===//
//
// Pass implementations live one per file beside this one; this file only
// gives the library an object when no pass is compiled in.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Dialect/MXGemm/Transforms/Passes.h"
