//===- KernelCache.cpp - the on-disk cache of compiled kernels ------------===//

#include "mxgemm/Runtime/KernelCache.h"

#include "PrivateFiles.h"

#include "mxgemm/Contract/CodeObjectCheck.h"
#include "mxgemm/Contract/Digest.h"
#include "mxgemm/Contract/KernelDescriptor.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mxgemm;
using namespace mxgemm::runtime;

namespace {

constexpr std::string_view kMagic = "MXGEMM-KERNEL-CACHE 1\n";
constexpr std::string_view kSuffix = ".mxk";
constexpr std::string_view kAliasSuffix = ".mxa";
constexpr std::string_view kAliasMagic = "MXGEMM-KERNEL-ALIAS 1\n";
// The magic, a key and a newline.
constexpr size_t kAliasBytes = kAliasMagic.size() + 64 + 1;
constexpr std::string_view kTempPrefix = ".tmp-";
// Far above any kernel; a larger file is a bad entry, not an allocation.
constexpr size_t kMaxEntryBytes = size_t(256) << 20;
constexpr int64_t kStaleTempSeconds = 3600;

/// Keys are SHA-256 digests in sha256Hex's spelling.
bool isKey(std::string_view key) { return contract::isSha256Hex(key); }

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.substr(s.size() - suffix.size()) == suffix;
}

/// A directory entry as prune and clear see it.
struct FileStat {
  std::string name;
  uint64_t bytes = 0;
  int64_t mtimeNs = 0;
  bool temp = false;
  bool alias = false;
};

/// `name` is `<key><suffix>`.
bool isNamed(std::string_view name, std::string_view suffix) {
  return endsWith(name, suffix) &&
         isKey(name.substr(0, name.size() - suffix.size()));
}

/// The entry, alias and temporary files of the directory `fd` (others
/// ignored).
std::vector<FileStat> scan(int fd) {
  std::vector<FileStat> files;
  int copy = ::dup(fd);
  if (copy < 0)
    return files;
  DIR *d = ::fdopendir(copy);
  if (!d) {
    ::close(copy);
    return files;
  }
  ::rewinddir(d);
  while (struct dirent *e = ::readdir(d)) {
    std::string name = e->d_name;
    FileStat f;
    f.name = name;
    f.temp = name.compare(0, kTempPrefix.size(), kTempPrefix) == 0;
    f.alias = isNamed(name, kAliasSuffix);
    if (!f.temp && !f.alias && !isNamed(name, kSuffix))
      continue;
    struct stat st;
    if (::fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
      continue; // deleted meanwhile by another process
    f.bytes = uint64_t(st.st_size);
    f.mtimeNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    files.push_back(std::move(f));
  }
  ::closedir(d);
  return files;
}

/// Creates `path` and its missing parents with mode 0700.
std::string makeDirectories(const std::string &path) {
  for (size_t at = 1; at <= path.size(); ++at) {
    if (at != path.size() && path[at] != '/')
      continue;
    std::string prefix = path.substr(0, at);
    if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST)
      return "cannot create " + prefix + ": " + std::strerror(errno);
  }
  return "";
}

} // namespace

std::string KernelCacheKey::hash() const {
  std::string text;
  for (const std::string *field :
       {&mxgemmVersion, &llvmVersion, &chip, &problem, &config})
    text += std::to_string(field->size()) + ":" + *field + "\n";
  return contract::sha256Hex(text.data(), text.size());
}

KernelCache::KernelCache() = default;
KernelCache::~KernelCache() = default;

std::string KernelCache::defaultDirectory() {
  auto env = [](const char *name) -> std::string {
    const char *v = std::getenv(name);
    return v ? v : "";
  };
  if (std::string d = env("MXGEMM_CACHE_DIR"); !d.empty())
    return d;
  // XDG: a relative $XDG_CACHE_HOME is invalid and ignored.
  if (std::string d = env("XDG_CACHE_HOME"); !d.empty() && d[0] == '/')
    return d + "/mxgemm";
  if (std::string d = env("HOME"); !d.empty())
    return d + "/.cache/mxgemm";
  return "";
}

uint64_t KernelCache::defaultMaxBytes() {
  const char *v = std::getenv("MXGEMM_CACHE_MAX_BYTES");
  if (!v || !*v)
    return kDefaultMaxBytes;
  char *end = nullptr;
  errno = 0;
  unsigned long long n = std::strtoull(v, &end, 10);
  if (errno || *end || n == 0 || *v == '-')
    return kDefaultMaxBytes;
  return uint64_t(n);
}

std::string KernelCache::open(const std::string &directory,
                              uint64_t maxBytesBound) {
  handle.reset();
  dir = directory;
  maxBytes = maxBytesBound;
  if (directory.empty())
    return "no cache directory ($MXGEMM_CACHE_DIR, $XDG_CACHE_HOME and "
           "$HOME are unset)";
  if (std::string e = makeDirectories(directory); !e.empty())
    return e;
  auto d = std::make_unique<PrivateDirectory>();
  if (std::string e = d->open(directory); !e.empty())
    return e;
  handle = std::move(d);
  return "";
}

bool KernelCache::isOpen() const { return handle != nullptr; }

std::vector<unsigned char> KernelCache::encode(const CachedKernel &entry) {
  std::string header = std::string(kMagic) +
                       std::to_string(entry.descriptor.size()) + "\n" +
                       entry.descriptor;
  std::vector<unsigned char> bytes(header.begin(), header.end());
  bytes.insert(bytes.end(), entry.codeObject.begin(), entry.codeObject.end());
  return bytes;
}

std::string KernelCache::decode(const std::vector<unsigned char> &file,
                                CachedKernel &out) {
  std::string_view text(reinterpret_cast<const char *>(file.data()),
                        file.size());
  if (text.substr(0, kMagic.size()) != kMagic)
    return "not a kernel cache entry (bad header)";
  text.remove_prefix(kMagic.size());
  size_t newline = text.find('\n');
  if (newline == std::string_view::npos || newline == 0 || newline > 12)
    return "bad descriptor length";
  uint64_t length = 0;
  for (char c : text.substr(0, newline)) {
    if (c < '0' || c > '9')
      return "bad descriptor length";
    length = length * 10 + uint64_t(c - '0');
  }
  text.remove_prefix(newline + 1);
  if (length > text.size())
    return "truncated (the descriptor runs past the end)";
  CachedKernel e;
  e.descriptor = std::string(text.substr(0, length));
  text.remove_prefix(length);
  e.codeObject.assign(text.begin(), text.end());
  if (e.codeObject.empty())
    return "no code object";
  contract::KernelDescriptor d;
  if (contract::ErrorMessage err =
          contract::KernelDescriptor::parse(e.descriptor, d))
    return "descriptor: " + *err;
  // The SHA-256 first (checkCodeObjectAgainst does it too, with the ELF).
  if (contract::ErrorMessage err = contract::checkCodeObjectAgainst(
          d, e.codeObject.data(), e.codeObject.size()))
    return *err;
  out = std::move(e);
  return "";
}

bool KernelCache::present(const std::string &name) const {
  struct stat st;
  return ::fstatat(handle->fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

bool KernelCache::lookup(const std::string &key, CachedKernel &out,
                         std::string &note) {
  note.clear();
  if (!handle || !isKey(key))
    return false;
  const std::string name = key + std::string(kSuffix);
  if (!present(name))
    return false; // a miss
  std::vector<unsigned char> bytes;
  std::string error = handle->read(name, kMaxEntryBytes, bytes);
  if (error.empty())
    error = decode(bytes, out);
  if (!error.empty()) {
    // Never loaded; deleted so that the caller rebuilds it.
    ::unlinkat(handle->fd(), name.c_str(), 0);
    note = "deleted bad cache entry " + dir + "/" + name + ": " + error;
    return false;
  }
  // The use that least-recently-used eviction orders by.
  ::utimensat(handle->fd(), name.c_str(), nullptr, AT_SYMLINK_NOFOLLOW);
  return true;
}

std::string KernelCache::store(const std::string &key,
                               const CachedKernel &entry) {
  if (!handle)
    return "the cache is not open";
  if (!isKey(key))
    return "bad cache key '" + key + "'";
  std::vector<unsigned char> bytes = encode(entry);
  CachedKernel check;
  if (std::string e = decode(bytes, check); !e.empty())
    return "refusing to cache a bad entry: " + e;
  if (std::string e = writeFile(key + std::string(kSuffix), bytes); !e.empty())
    return e;
  prune(maxBytes);
  return "";
}

std::string KernelCache::writeFile(const std::string &name,
                                   const std::vector<unsigned char> &bytes) {
  static std::atomic<uint64_t> counter{0};
  const std::string temp = std::string(kTempPrefix) +
                           std::to_string(::getpid()) + "-" +
                           std::to_string(counter++) + "-" + name;
  int fd = ::openat(handle->fd(), temp.c_str(),
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return "cannot create " + dir + "/" + temp + ": " + std::strerror(errno);
  std::string error;
  for (size_t done = 0; done < bytes.size() && error.empty();) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      error = "cannot write " + dir + "/" + temp + ": " +
              std::strerror(n < 0 ? errno : ENOSPC);
    else
      done += size_t(n);
  }
  if (::close(fd) != 0 && error.empty())
    error = "cannot write " + dir + "/" + temp + ": " + std::strerror(errno);
  // rename is atomic: readers see the old file, none, or this one whole.
  if (error.empty() &&
      ::renameat(handle->fd(), temp.c_str(), handle->fd(), name.c_str()) != 0)
    error = "cannot rename " + temp + " to " + name + " in " + dir + ": " +
            std::strerror(errno);
  if (!error.empty())
    ::unlinkat(handle->fd(), temp.c_str(), 0);
  return error;
}

bool KernelCache::lookupAlias(const std::string &alias, CachedKernel &out,
                              std::string &target, std::string &note) {
  note.clear();
  target.clear();
  if (!handle || !isKey(alias))
    return false;
  const std::string name = alias + std::string(kAliasSuffix);
  if (!present(name))
    return false; // a miss
  std::string text;
  std::string error = handle->read(name, kAliasBytes, text);
  if (error.empty() &&
      (text.size() != kAliasBytes ||
       text.compare(0, kAliasMagic.size(), kAliasMagic) != 0 ||
       text.back() != '\n' ||
       !isKey(std::string_view(text).substr(kAliasMagic.size(), 64))))
    error = "not an alias file";
  if (error.empty()) {
    target = text.substr(kAliasMagic.size(), 64);
    // The entry is checked as always; a missing or bad one ends the alias.
    if (!lookup(target, out, note))
      error = note.empty() ? "its entry " + target + " is gone" : note;
  }
  if (!error.empty()) {
    ::unlinkat(handle->fd(), name.c_str(), 0);
    note = "deleted cache alias " + dir + "/" + name + ": " + error;
    target.clear();
    return false;
  }
  ::utimensat(handle->fd(), name.c_str(), nullptr, AT_SYMLINK_NOFOLLOW);
  return true;
}

std::string KernelCache::storeAlias(const std::string &alias,
                                    const std::string &target) {
  if (!handle)
    return "the cache is not open";
  if (!isKey(alias) || !isKey(target))
    return "bad cache key '" + (isKey(alias) ? target : alias) + "'";
  std::string text = std::string(kAliasMagic) + target + "\n";
  return writeFile(alias + std::string(kAliasSuffix),
                   std::vector<unsigned char>(text.begin(), text.end()));
}

std::vector<KernelCacheEntryInfo> KernelCache::list() const {
  std::vector<KernelCacheEntryInfo> out;
  if (!handle)
    return out;
  std::vector<FileStat> files = scan(handle->fd());
  std::sort(
      files.begin(), files.end(), [](const FileStat &a, const FileStat &b) {
        return a.mtimeNs != b.mtimeNs ? a.mtimeNs < b.mtimeNs : a.name < b.name;
      });
  for (const FileStat &f : files) {
    if (f.temp || f.alias)
      continue;
    KernelCacheEntryInfo info;
    info.key = f.name.substr(0, f.name.size() - kSuffix.size());
    info.bytes = f.bytes;
    info.mtime = f.mtimeNs / 1000000000;
    std::vector<unsigned char> bytes;
    CachedKernel e;
    info.error = handle->read(f.name, kMaxEntryBytes, bytes);
    if (info.error.empty())
      info.error = decode(bytes, e);
    contract::KernelDescriptor d;
    if (info.error.empty() &&
        !contract::KernelDescriptor::parse(e.descriptor, d)) {
      info.kernel = d.kernel;
      info.problem = "N = " + std::to_string(d.problem.n) +
                     ", K = " + std::to_string(d.problem.k);
    }
    out.push_back(std::move(info));
  }
  return out;
}

size_t KernelCache::prune(uint64_t bound) {
  if (!handle)
    return 0;
  std::vector<FileStat> files = scan(handle->fd());
  const int64_t now = int64_t(std::time(nullptr)) * 1000000000;
  size_t deleted = 0;
  uint64_t total = 0;
  std::vector<FileStat> entries;
  for (FileStat &f : files) {
    if (f.temp) {
      // A writer that died; a live one renames within seconds.
      if (now - f.mtimeNs > kStaleTempSeconds * 1000000000 &&
          ::unlinkat(handle->fd(), f.name.c_str(), 0) == 0)
        ++deleted;
      continue;
    }
    total += f.bytes;
    entries.push_back(std::move(f));
  }
  std::sort(entries.begin(), entries.end(),
            [](const FileStat &a, const FileStat &b) {
              return a.mtimeNs < b.mtimeNs;
            });
  for (const FileStat &f : entries) {
    if (total <= bound)
      break;
    total -= f.bytes;
    // Another process may have deleted it first: counted by that one.
    if (::unlinkat(handle->fd(), f.name.c_str(), 0) == 0)
      ++deleted;
  }
  return deleted;
}

size_t KernelCache::clear() {
  if (!handle)
    return 0;
  size_t deleted = 0;
  for (const FileStat &f : scan(handle->fd()))
    if (::unlinkat(handle->fd(), f.name.c_str(), 0) == 0)
      ++deleted;
  return deleted;
}
