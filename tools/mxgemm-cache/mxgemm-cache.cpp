//===- mxgemm-cache.cpp - list, clear and prune the kernel cache ----------===//
//
// A thin main over runtime::KernelCache (include/mxgemm/Runtime/
// KernelCache.h): the directory the runtime uses ($MXGEMM_CACHE_DIR, else
// $XDG_CACHE_HOME/mxgemm, else ~/.cache/mxgemm) or --dir, checked as the
// runtime checks it (a directory others can write is refused).
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Runtime/KernelCache.h"
#include "mxgemm/Support/Options.h"
#include "mxgemm/Support/Tool.h"

#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

using namespace mxgemm;
using namespace mxgemm::runtime;

namespace {

ToolOptions opts(
    "mxgemm-cache", "mxgemm-cache list|clear|prune [options]",
    "Lists, clears or prunes the on-disk cache of kernels compiled at run "
    "time (docs/Runtime.md, 'Kernel cache').",
    {{"--dir", "DIR",
      "the cache directory (default: $MXGEMM_CACHE_DIR, else "
      "$XDG_CACHE_HOME/mxgemm, else ~/.cache/mxgemm)"},
     {"--max-bytes", "N",
      "prune: keep at most N bytes, least recently used deleted first "
      "(default: $MXGEMM_CACHE_MAX_BYTES, else 1 GiB)"}},
    "list: one line per entry, least recently used first, bad entries "
    "marked BAD with the reason. exit status: 0 done, 1 bad entries listed, "
    "2 usage, 3 the cache directory is refused or unusable");

std::string formatTime(int64_t seconds) {
  std::time_t t = std::time_t(seconds);
  std::tm tm;
  char text[32];
  gmtime_r(&t, &tm);
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

} // namespace

int main(int argc, char **argv) {
  std::string command = argc > 1 ? argv[1] : "";
  const bool known =
      command == "list" || command == "clear" || command == "prune";
  if (known) {
    // The options after the command word.
    argv[1] = argv[0];
    if (argc > 2)
      opts.parse(argc - 1, argv + 1);
  } else {
    opts.parse(argc, argv); // --help, --version, or a usage error
    opts.usageError("expected a command: list, clear or prune");
  }
  if (opts.has("--max-bytes") && command != "prune")
    opts.usageError("--max-bytes is for prune");
  int64_t maxBytes = opts.integer(
      "--max-bytes", int64_t(KernelCache::defaultMaxBytes() & INT64_MAX));
  if (maxBytes < 0)
    opts.usageError("--max-bytes must be >= 0");

  KernelCache cache;
  const std::string dir = opts.text("--dir", KernelCache::defaultDirectory());
  if (std::string e = cache.open(dir, uint64_t(maxBytes)); !e.empty())
    opts.fail(ExitIO, "kernel cache " + dir + ": " + e);

  if (command == "clear") {
    size_t n = cache.clear();
    std::printf("cleared %s: %zu files deleted\n", dir.c_str(), n);
    return ExitSuccess;
  }
  if (command == "prune") {
    size_t n = cache.prune(uint64_t(maxBytes));
    uint64_t total = 0;
    std::vector<KernelCacheEntryInfo> left = cache.list();
    for (const KernelCacheEntryInfo &e : left)
      total += e.bytes;
    std::printf("pruned %s to %lld bytes: %zu files deleted, %zu entries "
                "(%llu bytes) left\n",
                dir.c_str(), (long long)maxBytes, n, left.size(),
                (unsigned long long)total);
    return ExitSuccess;
  }
  std::vector<KernelCacheEntryInfo> entries = cache.list();
  uint64_t total = 0;
  size_t bad = 0;
  for (const KernelCacheEntryInfo &e : entries) {
    total += e.bytes;
    bad += !e.error.empty();
  }
  std::printf("cache %s: %zu entries, %llu bytes\n", dir.c_str(),
              entries.size(), (unsigned long long)total);
  for (const KernelCacheEntryInfo &e : entries) {
    std::printf("%s %10llu %s ", e.key.c_str(), (unsigned long long)e.bytes,
                formatTime(e.mtime).c_str());
    if (e.error.empty())
      std::printf("%s (%s)\n", e.kernel.c_str(), e.problem.c_str());
    else
      std::printf("BAD: %s\n", e.error.c_str());
  }
  return bad ? ExitFailure : ExitSuccess;
}
