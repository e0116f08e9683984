//===- PrivateFiles.h - files only the calling user can change --*- C++ -*-===//
//
// Code objects read from disk (a loaded tuning directory, the kernel cache)
// run on the GPU with the caller's rights, so they are read only from
// directories and files that no other user can have written: owned by the
// effective user, not writable by group or others, no symbolic links.
// Files are opened relative to the directory's descriptor, so the checked
// directory is the one read from, and with a size bound, so a huge file is
// an error rather than an allocation failure.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_LIB_RUNTIME_PRIVATEFILES_H
#define MXGEMM_LIB_RUNTIME_PRIVATEFILES_H

#include <cstddef>
#include <string>
#include <vector>

namespace mxgemm::runtime {

/// An open directory that passed the ownership and permission rule.
class PrivateDirectory {
public:
  PrivateDirectory() = default;
  PrivateDirectory(const PrivateDirectory &) = delete;
  PrivateDirectory &operator=(const PrivateDirectory &) = delete;
  ~PrivateDirectory();

  /// Opens `path` (a directory, not a symbolic link) and checks it: owned
  /// by the effective user, not writable by group or others. Returns ""
  /// or why it is refused.
  std::string open(const std::string &path);
  /// Reads the regular file `name` of the directory (no symbolic link,
  /// same ownership rule, at most `maxBytes`) into `out`. Returns "" or
  /// why not.
  std::string read(const std::string &name, size_t maxBytes,
                   std::vector<unsigned char> &out) const;
  std::string read(const std::string &name, size_t maxBytes,
                   std::string &out) const;
  int fd() const { return dirFd; }
  const std::string &path() const { return dirPath; }

private:
  int dirFd = -1;
  std::string dirPath;
};

/// Why a file or directory with owner `uid` and mode `mode` is not
/// private to the effective user ("" if it is). `what` names it.
std::string describeUntrusted(const std::string &what, unsigned uid,
                              unsigned mode);

} // namespace mxgemm::runtime

#endif // MXGEMM_LIB_RUNTIME_PRIVATEFILES_H
