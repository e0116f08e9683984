//===- KernelCacheTest.cpp - the on-disk kernel cache ---------------------===//
//
// runtime::KernelCache with real entries (the embedded kernels' code
// objects and descriptors): the key, the private directory (created 0700,
// one others can write or another user owns refused), the round trip, a
// corrupted or truncated entry deleted and never returned, least-recently-
// used eviction under the byte bound, aliases (followed only to a checked
// entry, deleted when malformed or dangling), and 4 processes storing and
// loading the same 3 keys at once ending with 3 valid entries and no stray
// files.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Runtime/KernelCache.h"
#include "mxgemm/Runtime/mxgemm_runtime.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <set>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

using namespace mxgemm::runtime;

/// A fresh directory path under the test temp dir (not created).
struct TempDir {
  std::string path;
  explicit TempDir(const std::string &tag) {
    path = ::testing::TempDir() + "mxgemm-cache-" + tag + "-" +
           std::to_string(::getpid());
    std::system(("rm -rf '" + path + "'").c_str());
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
};

/// Embedded kernel `i` as a cache entry.
CachedKernel embedded(size_t i) {
  CachedKernel e;
  const void *data;
  size_t bytes;
  EXPECT_EQ(mxgemm_kernel_code_object(i, &data, &bytes), MXGEMM_STATUS_OK);
  e.codeObject.assign(static_cast<const unsigned char *>(data),
                      static_cast<const unsigned char *>(data) + bytes);
  e.descriptor = mxgemm_kernel_descriptor(i);
  return e;
}

std::string keyOf(const std::string &problem) {
  KernelCacheKey k{"0.1.0 (git test)", "22.1.0", "gfx950", problem, "cfg"};
  return k.hash();
}

std::vector<std::string> files(const std::string &dir) {
  std::vector<std::string> out;
  if (DIR *d = ::opendir(dir.c_str())) {
    while (struct dirent *e = ::readdir(d))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
        out.push_back(e->d_name);
    ::closedir(d);
  }
  return out;
}

void setMtime(const std::string &path, time_t seconds) {
  struct timespec times[2] = {{seconds, 0}, {seconds, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

TEST(KernelCache, KeyHashesEveryField) {
  KernelCacheKey a{"v", "llvm", "gfx950", "p", "c"};
  std::set<std::string> seen = {a.hash()};
  for (std::string KernelCacheKey::*field :
       {&KernelCacheKey::mxgemmVersion, &KernelCacheKey::llvmVersion,
        &KernelCacheKey::chip, &KernelCacheKey::problem,
        &KernelCacheKey::config}) {
    KernelCacheKey b = a;
    b.*field += "x";
    EXPECT_TRUE(seen.insert(b.hash()).second);
  }
  // Fields are length-prefixed: moving a character across a boundary
  // changes the key.
  KernelCacheKey c{"vl", "lvm", "gfx950", "p", "c"};
  EXPECT_NE(c.hash(), KernelCacheKey({"v", "llvm", "gfx950", "p", "c"}).hash());
  EXPECT_EQ(a.hash().size(), 64u);
}

TEST(KernelCache, DefaultDirectoryFollowsTheEnvironment) {
  ::setenv("MXGEMM_CACHE_DIR", "/x/cache", 1);
  EXPECT_EQ(KernelCache::defaultDirectory(), "/x/cache");
  ::unsetenv("MXGEMM_CACHE_DIR");
  ::setenv("XDG_CACHE_HOME", "/x/xdg", 1);
  EXPECT_EQ(KernelCache::defaultDirectory(), "/x/xdg/mxgemm");
  ::setenv("XDG_CACHE_HOME", "relative", 1); // invalid: ignored
  ::setenv("HOME", "/x/home", 1);
  EXPECT_EQ(KernelCache::defaultDirectory(), "/x/home/.cache/mxgemm");
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("MXGEMM_CACHE_MAX_BYTES", "12345", 1);
  EXPECT_EQ(KernelCache::defaultMaxBytes(), 12345u);
  ::setenv("MXGEMM_CACHE_MAX_BYTES", "-1", 1);
  EXPECT_EQ(KernelCache::defaultMaxBytes(), KernelCache::kDefaultMaxBytes);
  ::unsetenv("MXGEMM_CACHE_MAX_BYTES");
}

TEST(KernelCache, DirectoryIsCreatedPrivateAndCheckedOnOpen) {
  TempDir t("perm");
  KernelCache cache;
  ASSERT_EQ(cache.open(t.path + "/a/b"), "");
  struct stat st;
  ASSERT_EQ(::stat((t.path + "/a/b").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);

  ASSERT_EQ(::chmod((t.path + "/a/b").c_str(), 0777), 0);
  std::string e = cache.open(t.path + "/a/b");
  EXPECT_NE(e.find("is writable by others (mode 0777); refused"),
            std::string::npos)
      << e;
  EXPECT_FALSE(cache.isOpen());
  CachedKernel out;
  std::string note;
  EXPECT_FALSE(cache.lookup(keyOf("p"), out, note));
  EXPECT_NE(cache.store(keyOf("p"), embedded(0)), "");

  ASSERT_EQ(::chmod((t.path + "/a/b").c_str(), 0700), 0);
  if (::geteuid() == 0) { // only root can give the directory away
    ASSERT_EQ(::chown((t.path + "/a/b").c_str(), 65534, 65534), 0);
    e = cache.open(t.path + "/a/b");
    EXPECT_NE(e.find("is owned by user 65534"), std::string::npos) << e;
  }
}

TEST(KernelCache, RoundTripAndBadEntriesAreDeleted) {
  TempDir t("bad");
  KernelCache cache;
  ASSERT_EQ(cache.open(t.path), "");
  const std::string key = keyOf("round");
  CachedKernel in = embedded(0), out;
  std::string note;
  EXPECT_FALSE(cache.lookup(key, out, note));
  EXPECT_EQ(note, "");
  ASSERT_EQ(cache.store(key, in), "");
  ASSERT_TRUE(cache.lookup(key, out, note)) << note;
  EXPECT_EQ(out.codeObject, in.codeObject);
  EXPECT_EQ(out.descriptor, in.descriptor);

  // A byte of the code object flipped on disk: deleted, a miss.
  const std::string path = t.path + "/" + key + ".mxk";
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-100, std::ios::end);
    f.put('\x5a');
  }
  EXPECT_FALSE(cache.lookup(key, out, note));
  EXPECT_NE(note.find("deleted bad cache entry"), std::string::npos) << note;
  EXPECT_NE(note.find("SHA-256"), std::string::npos) << note;
  EXPECT_NE(::access(path.c_str(), F_OK), 0);

  // Truncated (a writer that did not use rename would leave this).
  ASSERT_EQ(cache.store(key, in), "");
  ASSERT_EQ(::truncate(path.c_str(), 100), 0);
  EXPECT_FALSE(cache.lookup(key, out, note));
  EXPECT_NE(note.find("truncated"), std::string::npos) << note;

  // A bad entry is never written either.
  CachedKernel mismatched = in;
  mismatched.codeObject[10] ^= 1;
  EXPECT_NE(cache.store(key, mismatched).find("refusing to cache"),
            std::string::npos);
  EXPECT_TRUE(files(t.path).empty());
}

TEST(KernelCache, AliasesPointAtCheckedEntriesAndBadOnesAreDeleted) {
  TempDir t("alias");
  KernelCache cache;
  ASSERT_EQ(cache.open(t.path), "");
  const std::string key = keyOf("target"), alias = keyOf("alias");
  CachedKernel in = embedded(0), out;
  std::string target, note;
  EXPECT_FALSE(cache.lookupAlias(alias, out, target, note));
  EXPECT_EQ(note, "");
  ASSERT_EQ(cache.store(key, in), "");
  ASSERT_EQ(cache.storeAlias(alias, key), "");
  EXPECT_NE(cache.storeAlias(alias, "not-a-key"), "");
  ASSERT_TRUE(cache.lookupAlias(alias, out, target, note)) << note;
  EXPECT_EQ(target, key);
  EXPECT_EQ(out.codeObject, in.codeObject);
  // list() shows the entry only.
  std::vector<KernelCacheEntryInfo> listed = cache.list();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].key, key);

  // A malformed alias (its target not a key) is deleted, never followed.
  const std::string aliasPath = t.path + "/" + alias + ".mxa";
  {
    std::ofstream f(aliasPath, std::ios::binary | std::ios::trunc);
    f << "MXGEMM-KERNEL-ALIAS 1\n" << std::string(64, 'z') << "\n";
  }
  EXPECT_FALSE(cache.lookupAlias(alias, out, target, note));
  EXPECT_NE(note.find("not an alias file"), std::string::npos) << note;
  EXPECT_NE(::access(aliasPath.c_str(), F_OK), 0);

  // An alias whose entry is bad: the entry and the alias are deleted.
  ASSERT_EQ(cache.storeAlias(alias, key), "");
  const std::string entryPath = t.path + "/" + key + ".mxk";
  ASSERT_EQ(::truncate(entryPath.c_str(), 100), 0);
  EXPECT_FALSE(cache.lookupAlias(alias, out, target, note));
  EXPECT_NE(note.find("truncated"), std::string::npos) << note;
  EXPECT_TRUE(files(t.path).empty());

  // One whose entry is gone: deleted. clear() takes aliases too.
  ASSERT_EQ(cache.storeAlias(alias, key), "");
  EXPECT_FALSE(cache.lookupAlias(alias, out, target, note));
  EXPECT_NE(note.find("is gone"), std::string::npos) << note;
  EXPECT_TRUE(files(t.path).empty());
  ASSERT_EQ(cache.store(key, in), "");
  ASSERT_EQ(cache.storeAlias(alias, key), "");
  EXPECT_EQ(cache.clear(), 2u);
  EXPECT_TRUE(files(t.path).empty());
}

TEST(KernelCache, LeastRecentlyUsedIsEvictedFirst) {
  TempDir t("lru");
  KernelCache cache;
  ASSERT_EQ(cache.open(t.path), "");
  std::vector<std::string> keys = {keyOf("0"), keyOf("1"), keyOf("2")};
  std::vector<uint64_t> sizes;
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(cache.store(keys[i], embedded(i)), "");
    sizes.push_back(KernelCache::encode(embedded(i)).size());
  }
  // Uses: 1 oldest, then 0, then 2; a hit on 1 makes it the newest.
  setMtime(t.path + "/" + keys[1] + ".mxk", 1000);
  setMtime(t.path + "/" + keys[0] + ".mxk", 2000);
  setMtime(t.path + "/" + keys[2] + ".mxk", 3000);
  CachedKernel out;
  std::string note;
  ASSERT_TRUE(cache.lookup(keys[1], out, note)) << note;
  // Room for two: 0, the least recently used now, goes.
  EXPECT_EQ(cache.prune(sizes[1] + sizes[2]), 1u);
  EXPECT_FALSE(cache.lookup(keys[0], out, note));
  EXPECT_TRUE(cache.lookup(keys[1], out, note));
  EXPECT_TRUE(cache.lookup(keys[2], out, note));
  // A store prunes to the bound given to open. (Explicit times: file times
  // have the kernel's clock tick, and ties have no order.)
  setMtime(t.path + "/" + keys[1] + ".mxk", 1000);
  setMtime(t.path + "/" + keys[2] + ".mxk", 2000);
  KernelCache small;
  ASSERT_EQ(small.open(t.path, sizes[0]), "");
  ASSERT_EQ(small.store(keys[0], embedded(0)), "");
  std::vector<KernelCacheEntryInfo> left = small.list();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].key, keys[0]);
  EXPECT_EQ(small.clear(), 1u);
}

TEST(KernelCache, ConcurrentProcessesLeaveValidEntriesOnly) {
  TempDir t("procs");
  std::vector<CachedKernel> entries = {embedded(0), embedded(1), embedded(2)};
  std::vector<std::string> keys = {keyOf("a"), keyOf("b"), keyOf("c")};
  std::vector<pid_t> children;
  for (int p = 0; p < 4; ++p) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // Each process: open (creating the directory, racing the others),
      // then store and load every key several times.
      KernelCache cache;
      if (!cache.open(t.path).empty())
        ::_exit(10);
      for (int round = 0; round < 5; ++round)
        for (size_t i = 0; i < keys.size(); ++i) {
          size_t k = (i + size_t(p)) % keys.size();
          if (!cache.store(keys[k], entries[k]).empty())
            ::_exit(11);
          CachedKernel out;
          std::string note;
          if (!cache.lookup(keys[k], out, note) ||
              out.codeObject != entries[k].codeObject)
            ::_exit(12);
        }
      ::_exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "child exit status " << WEXITSTATUS(status);
  }
  KernelCache cache;
  ASSERT_EQ(cache.open(t.path), "");
  std::vector<KernelCacheEntryInfo> list = cache.list();
  ASSERT_EQ(list.size(), 3u);
  for (const KernelCacheEntryInfo &e : list)
    EXPECT_EQ(e.error, "") << e.key;
  // No temporary file left behind.
  EXPECT_EQ(files(t.path).size(), 3u);
}

} // namespace
