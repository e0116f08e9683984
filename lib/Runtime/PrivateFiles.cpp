//===- PrivateFiles.cpp - files only the calling user can change ----------===//

#include "PrivateFiles.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mxgemm;
using namespace mxgemm::runtime;

namespace {
std::string errnoText(const std::string &what) {
  return what + ": " + std::strerror(errno);
}

/// Reads the whole of `fd` (`size` bytes by fstat) into `out`.
template <typename Buffer>
std::string readAll(int fd, size_t size, Buffer &out, const std::string &what) {
  out.resize(size);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, &out[done], size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return errnoText("cannot read " + what);
    if (n == 0)
      return what + " shrank while it was read";
    done += size_t(n);
  }
  return "";
}

template <typename Buffer>
std::string readPrivate(int dirFd, const std::string &dirPath,
                        const std::string &name, size_t maxBytes, Buffer &out) {
  const std::string what = dirPath + "/" + name;
  if (dirFd < 0)
    return "internal: " + what + " read from a directory that is not open";
  int fd = ::openat(dirFd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return errno == ELOOP ? what + " is a symbolic link; refused"
                          : errnoText("cannot open " + what);
  struct stat st;
  std::string error;
  if (::fstat(fd, &st) != 0)
    error = errnoText("cannot stat " + what);
  else if (!S_ISREG(st.st_mode))
    error = what + " is not a regular file";
  else if (!(error = describeUntrusted(what, st.st_uid, st.st_mode)).empty())
    ;
  else if (uint64_t(st.st_size) > maxBytes)
    error = what + " is " + std::to_string(st.st_size) +
            " bytes, more than the " + std::to_string(maxBytes) + " allowed";
  else
    error = readAll(fd, size_t(st.st_size), out, what);
  ::close(fd);
  return error;
}
} // namespace

std::string runtime::describeUntrusted(const std::string &what, unsigned uid,
                                       unsigned mode) {
  if (uid != unsigned(::geteuid()))
    return what + " is owned by user " + std::to_string(uid) +
           ", not by this user (" + std::to_string(::geteuid()) + "); refused";
  if (mode & (S_IWGRP | S_IWOTH))
    return what + " is writable by " +
           ((mode & S_IWOTH) ? "others" : "its group") + " (mode " +
           [&] {
             char octal[8];
             std::snprintf(octal, sizeof(octal), "%04o", mode & 07777);
             return std::string(octal);
           }() +
           "); refused";
  return "";
}

PrivateDirectory::~PrivateDirectory() {
  if (dirFd >= 0)
    ::close(dirFd);
}

std::string PrivateDirectory::open(const std::string &path) {
  if (dirFd >= 0)
    ::close(dirFd);
  dirPath = path;
  dirFd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dirFd < 0)
    return errno == ELOOP || errno == ENOTDIR
               ? path + " is not a directory (or is a symbolic link)"
               : errnoText("cannot open directory " + path);
  struct stat st;
  std::string error;
  if (::fstat(dirFd, &st) != 0)
    error = errnoText("cannot stat " + path);
  else
    error = describeUntrusted("directory " + path, st.st_uid, st.st_mode);
  if (!error.empty()) {
    ::close(dirFd);
    dirFd = -1;
  }
  return error;
}

std::string PrivateDirectory::read(const std::string &name, size_t maxBytes,
                                   std::vector<unsigned char> &out) const {
  return readPrivate(dirFd, dirPath, name, maxBytes, out);
}

std::string PrivateDirectory::read(const std::string &name, size_t maxBytes,
                                   std::string &out) const {
  return readPrivate(dirFd, dirPath, name, maxBytes, out);
}
