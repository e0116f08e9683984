//===- Npy.cpp - NumPy .npy v1.0 files for MX test data -------------------===//
//
// Implements the .npy format as specified by numpy.lib.format: a 6-byte magic
// "\x93NUMPY", a major/minor version, a little-endian header length (2 bytes
// in v1.0, 4 in v2.0), and a Python dict literal giving descr, fortran_order
// and shape, padded so that the array data is 64-byte aligned. The reader
// accepts what NumPy itself writes for our dtypes and rejects anything else.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Numerics/Npy.h"

#include <cstring>
#include <fstream>

using namespace mxgemm::numerics;

namespace {

const char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

const char *descr(NpyDType dtype) {
  switch (dtype) {
  case NpyDType::UInt8:
    return "|u1";
  case NpyDType::UInt16:
    return "<u2";
  case NpyDType::Float32:
    return "<f4";
  case NpyDType::Bool:
    return "|b1";
  }
  return "";
}

bool fail(std::string *error, const std::string &message) {
  if (error)
    *error = message;
  return false;
}

// Value text following "'key':" in the header dict, up to the matching
// delimiter (a quoted string, a parenthesised tuple or a bare word).
bool dictValue(const std::string &dict, const std::string &key,
               std::string &value) {
  size_t pos = dict.find("'" + key + "'");
  if (pos == std::string::npos)
    return false;
  pos = dict.find(':', pos);
  if (pos == std::string::npos)
    return false;
  pos = dict.find_first_not_of(' ', pos + 1);
  if (pos == std::string::npos)
    return false;
  size_t end;
  if (dict[pos] == '\'')
    end = dict.find('\'', pos + 1) + 1;
  else if (dict[pos] == '(')
    end = dict.find(')', pos) + 1;
  else
    end = dict.find_first_of(",}", pos);
  if (end == std::string::npos || end == 0)
    return false;
  value = dict.substr(pos, end - pos);
  return true;
}

} // namespace

size_t mxgemm::numerics::npyElementSize(NpyDType dtype) {
  switch (dtype) {
  case NpyDType::UInt16:
    return 2;
  case NpyDType::Float32:
    return 4;
  default:
    return 1;
  }
}

std::string mxgemm::numerics::npyHeader(NpyDType dtype, int64_t rows,
                                        int64_t cols) {
  std::string dict = std::string("{'descr': '") + descr(dtype) +
                     "', 'fortran_order': False, 'shape': (" +
                     std::to_string(rows) + ", " + std::to_string(cols) +
                     "), }";
  // magic + version + uint16 length = 10 bytes, then dict, spaces and '\n'.
  size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict.push_back('\n');
  std::string header(kMagic, kMagicLen);
  header.push_back('\x01');
  header.push_back('\x00');
  header.push_back(char(dict.size() & 0xff));
  header.push_back(char(dict.size() >> 8));
  return header + dict;
}

bool mxgemm::numerics::writeNpy(const std::string &path, NpyDType dtype,
                                const void *data, int64_t rows, int64_t cols,
                                std::string *error) {
  std::ofstream file(path, std::ios::binary);
  if (!file)
    return fail(error, "cannot open '" + path + "' for writing");
  std::string header = npyHeader(dtype, rows, cols);
  file.write(header.data(), std::streamsize(header.size()));
  size_t bytes = size_t(rows * cols) * npyElementSize(dtype);
  if (dtype == NpyDType::Bool) {
    // NumPy bools must be exactly 0 or 1.
    std::vector<char> normalized(bytes);
    const uint8_t *src = static_cast<const uint8_t *>(data);
    for (size_t i = 0; i < bytes; ++i)
      normalized[i] = src[i] ? 1 : 0;
    file.write(normalized.data(), std::streamsize(bytes));
  } else {
    // The format is little-endian; so are all our hosts (x86-64, AArch64).
    file.write(static_cast<const char *>(data), std::streamsize(bytes));
  }
  if (!file)
    return fail(error, "error writing '" + path + "'");
  return true;
}

bool mxgemm::numerics::readNpy(const std::string &path, NpyArray &array,
                               std::string *error) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return fail(error, "cannot open '" + path + "'");
  char prefix[12];
  if (!file.read(prefix, 8) || std::memcmp(prefix, kMagic, kMagicLen) != 0)
    return fail(error, "'" + path + "' is not a .npy file");
  uint8_t major = uint8_t(prefix[6]);
  size_t headerLen;
  if (major == 1) {
    if (!file.read(prefix + 8, 2))
      return fail(error, "truncated header");
    headerLen = uint8_t(prefix[8]) | size_t(uint8_t(prefix[9])) << 8;
  } else if (major == 2) {
    if (!file.read(prefix + 8, 4))
      return fail(error, "truncated header");
    headerLen = 0;
    for (int i = 3; i >= 0; --i)
      headerLen = headerLen << 8 | uint8_t(prefix[8 + i]);
  } else {
    return fail(error, "unsupported .npy version " + std::to_string(major));
  }
  std::string dict(headerLen, '\0');
  if (!file.read(&dict[0], std::streamsize(headerLen)))
    return fail(error, "truncated header");
  std::string value;
  if (!dictValue(dict, "descr", value))
    return fail(error, "header has no descr");
  if (value == "'|u1'" || value == "'u1'")
    array.dtype = NpyDType::UInt8;
  else if (value == "'<u2'")
    array.dtype = NpyDType::UInt16;
  else if (value == "'<f4'")
    array.dtype = NpyDType::Float32;
  else if (value == "'|b1'")
    array.dtype = NpyDType::Bool;
  else
    return fail(error, "unsupported dtype " + value);
  if (!dictValue(dict, "fortran_order", value) || value != "False")
    return fail(error, "only C-order arrays are supported");
  if (!dictValue(dict, "shape", value))
    return fail(error, "header has no shape");
  std::vector<int64_t> dims;
  for (size_t i = 1; i < value.size();) {
    size_t j = value.find_first_of(",)", i);
    std::string item = value.substr(i, j - i);
    size_t digits = item.find_first_not_of(' ');
    if (digits != std::string::npos)
      dims.push_back(std::stoll(item.substr(digits)));
    if (j == std::string::npos || value[j] == ')')
      break;
    i = j + 1;
  }
  if (dims.size() == 1)
    dims.push_back(1);
  if (dims.size() != 2)
    return fail(error, "only 1-D and 2-D arrays are supported");
  array.rows = dims[0];
  array.cols = dims[1];
  array.bytes.resize(size_t(array.rows * array.cols) *
                     npyElementSize(array.dtype));
  if (!file.read(reinterpret_cast<char *>(array.bytes.data()),
                 std::streamsize(array.bytes.size())))
    return fail(error, "truncated data in '" + path + "'");
  return true;
}
