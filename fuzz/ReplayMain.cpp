//===- ReplayMain.cpp - run a fuzz target over files, without libFuzzer ---===//
//
// The `main` of every fuzz target in a normal build (no clang, no
// sanitizers): each argument is a file or a directory, and every file is
// passed once to LLVMFuzzerTestOneInput, in sorted order so that runs are
// reproducible. The corpus test of each target runs it over the committed
// seeds, so each regression input keeps being replayed by ctest; a crash
// fails the test. The same files reproduce under the libFuzzer binary of
// an -DMXGEMM_ENABLE_FUZZERS=ON build (docs/Fuzzing.md).
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int *argc,
                                                          char ***argv);

namespace fs = std::filesystem;

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    fs::path path(argv[i]);
    if (fs::is_directory(path, ec)) {
      for (const auto &entry : fs::recursive_directory_iterator(path, ec))
        if (entry.is_regular_file())
          files.push_back(entry.path());
    } else if (fs::is_regular_file(path, ec)) {
      files.push_back(path);
    } else {
      std::fprintf(stderr, "%s: no such file or directory: %s\n", argv[0],
                   argv[i]);
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  for (const fs::path &file : files) {
    std::ifstream in(file, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    if (!in.eof() && in.fail()) {
      std::fprintf(stderr, "%s: cannot read %s\n", argv[0], file.c_str());
      return 2;
    }
    // An empty vector's data() may be null; libFuzzer never passes null.
    uint8_t empty = 0;
    LLVMFuzzerTestOneInput(bytes.empty() ? &empty : bytes.data(), bytes.size());
  }
  std::printf("replayed %zu input(s)\n", files.size());
  return files.empty() ? 2 : 0;
}
