//===- Version.cpp - mxgemm's version and the commit it was built from ----===//
//
// The commit comes from a file the build regenerates only when HEAD moves
// (cmake/MXGemmGitCommit.cmake), so a commit relinks the tools but rebuilds
// nothing else, and no kernel or descriptor depends on it.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Support/Tool.h"

#include "GitCommit.inc"

const char *mxgemm::getVersion() { return MXGEMM_VERSION_STRING; }
const char *mxgemm::getGitCommit() { return MXGEMM_GIT_COMMIT; }
std::string mxgemm::getVersionLine() {
  return std::string("mxgemm ") + getVersion() + " (git " + getGitCommit() +
         ")";
}
