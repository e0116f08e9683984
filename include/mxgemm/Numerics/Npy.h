//===- Npy.h - NumPy .npy v1.0 files for MX test data -----------*- C++ -*-===//
//
// Reads and writes 2-D NumPy .npy (format version 1.0) arrays so that MX
// operands (raw FP8/E8M0 bytes as uint8), BF16 outputs (uint16 bits), FP32
// data and masks (bool) can be exchanged with Python tooling without a NumPy
// dependency on the C++ side. Little-endian, C order only.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_NUMERICS_NPY_H
#define MXGEMM_NUMERICS_NPY_H

#include <cstdint>
#include <string>
#include <vector>

namespace mxgemm::numerics {

/// Element types we exchange; descr strings '|u1', '<u2', '<f4', '|b1'.
enum class NpyDType : uint8_t { UInt8, UInt16, Float32, Bool };

/// Bytes per element of `dtype`.
size_t npyElementSize(NpyDType dtype);

/// The complete v1.0 header (magic, version, little-endian header length,
/// the dict padded with spaces and terminated by '\n' so that the data starts
/// at a multiple of 64 bytes) for a C-order [rows, cols] array.
std::string npyHeader(NpyDType dtype, int64_t rows, int64_t cols);

/// Writes `rows * cols` elements from `data` (bool: one byte, 0 or 1, per
/// element). Returns false and sets `error` on failure.
bool writeNpy(const std::string &path, NpyDType dtype, const void *data,
              int64_t rows, int64_t cols, std::string *error = nullptr);

/// A loaded array; a 1-D file [n] loads as rows = n, cols = 1.
struct NpyArray {
  NpyDType dtype = NpyDType::UInt8;
  int64_t rows = 0, cols = 0;
  std::vector<uint8_t> bytes;
};

/// Reads a v1.0/v2.0 .npy file with one of the dtypes above, C order, 1-D or
/// 2-D. Returns false and sets `error` on failure.
bool readNpy(const std::string &path, NpyArray &array,
             std::string *error = nullptr);

} // namespace mxgemm::numerics

#endif // MXGEMM_NUMERICS_NPY_H
