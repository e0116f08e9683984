//===- KernelCache.h - the on-disk cache of compiled kernels ----*- C++ -*-===//
//
// Kernels compiled at run time (the JIT) are kept on disk so that the next
// process loads them instead of compiling again. One directory per user:
// $MXGEMM_CACHE_DIR, else $XDG_CACHE_HOME/mxgemm, else ~/.cache/mxgemm,
// created private (0700). A directory that another user owns or that group
// or others can write is refused (the caller warns once and runs without a
// cache): a code object from it would run with the caller's rights.
//
// One entry is one file, <key>.mxk, with the key the SHA-256 of everything
// that determines the kernel (mxgemm version and git commit, LLVM version,
// chip, problem, config): "MXGEMM-KERNEL-CACHE 1\n", the descriptor's byte
// count in decimal and "\n", the kernel descriptor (JSON, format_version 2),
// then the code object. It is written to a temporary file in the same
// directory and renamed into place, so a reader (in any process) sees a
// whole entry or none. Every read checks the entry (header, descriptor,
// SHA-256 of the code object = the descriptor's code_object_sha256, the
// ELF against the descriptor); a bad entry is deleted and reported as a
// miss, never returned. A hit touches the file's mtime; the cache is kept
// under a byte bound (default 1 GiB, $MXGEMM_CACHE_MAX_BYTES) by deleting
// the least recently used entries after each store.
//
// An alias, <alias>.mxa ("MXGEMM-KERNEL-ALIAS 1\n", an entry's key, "\n"),
// names the entry that another key led to: the runtime keys the kernel its
// own JIT library chose for a problem by what decided that choice, so a
// later process finds it without loading the compiler to ask for the
// config. An alias is only a pointer: the entry it names is checked as
// always, and a malformed alias or one whose entry is gone or bad is
// deleted and is a miss. Aliases are pruned with the entries (by last use)
// and cleared with them; list() shows entries only.
//
// LLVM-free: the runtime and the mxgemm-cache tool use it.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_RUNTIME_KERNELCACHE_H
#define MXGEMM_RUNTIME_KERNELCACHE_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mxgemm::runtime {

class PrivateDirectory;

/// What determines a compiled kernel (the cache key hashes all of it).
struct KernelCacheKey {
  std::string mxgemmVersion; // version and git commit
  std::string llvmVersion;   // of the compiler that builds the kernel
  std::string chip;
  std::string problem; // a canonical text of the problem
  std::string config;  // the #mxgemm.config body

  /// Lower-case hex SHA-256 of the fields (length-prefixed, so that no two
  /// different keys join into the same text).
  std::string hash() const;
};

/// One cached kernel.
struct CachedKernel {
  std::string descriptor; // JSON
  std::vector<unsigned char> codeObject;
};

/// One entry file as `list` reports it.
struct KernelCacheEntryInfo {
  std::string key; // the file name without ".mxk"
  uint64_t bytes = 0;
  int64_t mtime = 0;  // seconds since the epoch (last use)
  std::string kernel; // the descriptor's kernel ("" if the entry is bad)
  std::string problem;
  std::string error; // why the entry is bad ("" if it is good)
};

class KernelCache {
public:
  static constexpr uint64_t kDefaultMaxBytes = uint64_t(1) << 30;

  KernelCache();
  ~KernelCache();
  KernelCache(const KernelCache &) = delete;
  KernelCache &operator=(const KernelCache &) = delete;

  /// $MXGEMM_CACHE_DIR, else $XDG_CACHE_HOME/mxgemm, else $HOME/.cache/
  /// mxgemm; "" if none of them is set.
  static std::string defaultDirectory();
  /// $MXGEMM_CACHE_MAX_BYTES if it is a positive integer, else 1 GiB.
  static uint64_t defaultMaxBytes();

  /// Opens `directory`, creating it (and missing parents) with mode 0700
  /// if it does not exist, and checks that it is private to this user.
  /// Returns "" or why there is no cache (then every call below is a
  /// miss or an error).
  std::string open(const std::string &directory,
                   uint64_t maxBytes = kDefaultMaxBytes);
  bool isOpen() const;
  const std::string &directory() const { return dir; }

  /// The valid entry of `key` into `out` (true), touching it; false on a
  /// miss. A bad entry is deleted (`note` says why) and is a miss.
  bool lookup(const std::string &key, CachedKernel &out, std::string &note);
  /// Stores `entry` under `key` atomically (temporary file + rename), then
  /// prunes to the byte bound. The descriptor must be valid for the code
  /// object (checked: a bad entry is never written). Returns "" or why not.
  std::string store(const std::string &key, const CachedKernel &entry);
  /// The valid entry that the alias `alias` names into `out` and its key
  /// into `target` (true), touching both; false on a miss. A bad alias is
  /// deleted (`note` says why) and is a miss.
  bool lookupAlias(const std::string &alias, CachedKernel &out,
                   std::string &target, std::string &note);
  /// Stores the alias `alias` -> `target` atomically. Returns "" or why not.
  std::string storeAlias(const std::string &alias, const std::string &target);

  /// Every entry file, checked, oldest use first.
  std::vector<KernelCacheEntryInfo> list() const;
  /// Deletes the least recently used entries until at most `maxBytes`
  /// remain, and temporary files older than an hour (a writer that died).
  /// Only stats the files (bad entries are found by lookup and list).
  /// Returns the number of files deleted.
  size_t prune(uint64_t maxBytes);
  /// Deletes every entry and temporary file. Returns the number deleted.
  size_t clear();

  /// Parses an entry file's bytes and checks them (header, descriptor,
  /// hash, ELF). Returns "" or why the entry is bad.
  static std::string decode(const std::vector<unsigned char> &file,
                            CachedKernel &out);
  /// The bytes of the entry file for `entry`.
  static std::vector<unsigned char> encode(const CachedKernel &entry);

private:
  /// Whether the directory has a file (or link) `name`.
  bool present(const std::string &name) const;
  /// Writes the file `name` atomically (temporary file + rename).
  std::string writeFile(const std::string &name,
                        const std::vector<unsigned char> &bytes);

  std::unique_ptr<PrivateDirectory> handle;
  std::string dir;
  uint64_t maxBytes = kDefaultMaxBytes;
};

} // namespace mxgemm::runtime

#endif // MXGEMM_RUNTIME_KERNELCACHE_H
