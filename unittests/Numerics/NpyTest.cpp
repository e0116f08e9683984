//===- NpyTest.cpp - NumPy .npy files -------------------------------------===//
//
// Header bytes are checked against the .npy v1.0 specification (magic,
// version, little-endian header length, dict text, 64-byte alignment, '\n'
// terminator); data round-trips for every supported dtype; the reader accepts
// a 1-D array and rejects Fortran order.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Numerics/Npy.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <cstring>
#include <fstream>

using namespace mxgemm::numerics;

namespace {

std::string tempPath(const std::string &name) {
  return ::testing::TempDir() + "mxgemm_npy_" + name + ".npy";
}

TEST(Npy, HeaderFollowsSpec) {
  std::string h = npyHeader(NpyDType::UInt8, 3, 4);
  ASSERT_GE(h.size(), 10u);
  EXPECT_EQ(h.substr(0, 6), std::string("\x93NUMPY", 6));
  EXPECT_EQ(h[6], '\x01');
  EXPECT_EQ(h[7], '\x00');
  size_t len = uint8_t(h[8]) | size_t(uint8_t(h[9])) << 8;
  EXPECT_EQ(len + 10, h.size());
  EXPECT_EQ(h.size() % 64, 0u);
  EXPECT_EQ(h.back(), '\n');
  std::string dict = h.substr(10);
  const std::string expected =
      "{'descr': '|u1', 'fortran_order': False, 'shape': (3, 4), }";
  EXPECT_EQ(dict.substr(0, expected.size()), expected);
  EXPECT_EQ(dict.find_first_not_of(' ', expected.size()), dict.size() - 1);

  EXPECT_NE(npyHeader(NpyDType::UInt16, 1, 1).find("'<u2'"), std::string::npos);
  EXPECT_NE(npyHeader(NpyDType::Float32, 1, 1).find("'<f4'"),
            std::string::npos);
  std::string big = npyHeader(NpyDType::Bool, 16384, 16384);
  EXPECT_NE(big.find("'|b1'"), std::string::npos);
  EXPECT_NE(big.find("(16384, 16384)"), std::string::npos);
  EXPECT_EQ(big.size() % 64, 0u);
}

template <typename T>
void roundTrip(NpyDType dtype, const std::vector<T> &values, int64_t rows,
               int64_t cols) {
  std::string path = tempPath(std::to_string(int(dtype)));
  std::string error;
  ASSERT_TRUE(writeNpy(path, dtype, values.data(), rows, cols, &error))
      << error;
  NpyArray a;
  ASSERT_TRUE(readNpy(path, a, &error)) << error;
  EXPECT_EQ(a.dtype, dtype);
  EXPECT_EQ(a.rows, rows);
  EXPECT_EQ(a.cols, cols);
  ASSERT_EQ(a.bytes.size(), values.size() * sizeof(T));
  EXPECT_EQ(std::memcmp(a.bytes.data(), values.data(), a.bytes.size()), 0);
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  EXPECT_EQ(size_t(f.tellg()),
            npyHeader(dtype, rows, cols).size() + values.size() * sizeof(T));
  std::remove(path.c_str());
}

TEST(Npy, RoundTripsEveryDType) {
  roundTrip<uint8_t>(NpyDType::UInt8, {0, 1, 0x7f, 0xff, 0x38, 0x80}, 2, 3);
  roundTrip<uint16_t>(NpyDType::UInt16, {0x3f80, 0xffc0, 1, 0x8000}, 4, 1);
  roundTrip<float>(NpyDType::Float32, {1.5f, -0.0f, 3e38f}, 1, 3);
  roundTrip<uint8_t>(NpyDType::Bool, {1, 0, 0, 1}, 2, 2);
}

TEST(Npy, BoolIsNormalized) {
  std::string path = tempPath("bool");
  uint8_t values[2] = {0, 7};
  ASSERT_TRUE(writeNpy(path, NpyDType::Bool, values, 1, 2));
  NpyArray a;
  ASSERT_TRUE(readNpy(path, a));
  EXPECT_EQ(a.bytes[1], 1);
  std::remove(path.c_str());
}

void writeRaw(const std::string &path, const std::string &dict,
              const std::string &data) {
  std::string padded = dict;
  while ((10 + padded.size() + 1) % 64)
    padded.push_back(' ');
  padded.push_back('\n');
  std::ofstream f(path, std::ios::binary);
  f.write("\x93NUMPY\x01\x00", 8);
  char len[2] = {char(padded.size() & 0xff), char(padded.size() >> 8)};
  f.write(len, 2);
  f << padded << data;
}

TEST(Npy, ReadsOneDimensionalAndRejectsFortranOrder) {
  std::string path = tempPath("raw");
  writeRaw(path, "{'descr': '|u1', 'fortran_order': False, 'shape': (5,), }",
           "abcde");
  NpyArray a;
  std::string error;
  ASSERT_TRUE(readNpy(path, a, &error)) << error;
  EXPECT_EQ(a.rows, 5);
  EXPECT_EQ(a.cols, 1);
  EXPECT_EQ(std::string(a.bytes.begin(), a.bytes.end()), "abcde");

  writeRaw(path, "{'descr': '<f4', 'fortran_order': True, 'shape': (1, 1), }",
           "abcd");
  EXPECT_FALSE(readNpy(path, a, &error));
  writeRaw(path, "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }",
           "abcdefgh");
  EXPECT_FALSE(readNpy(path, a, &error));
  EXPECT_NE(error.find("dtype"), std::string::npos);
  std::remove(path.c_str());
}

} // namespace
