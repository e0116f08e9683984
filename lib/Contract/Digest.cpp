//===- Digest.cpp - SHA-256 through libmd ---------------------------------===//

#include "mxgemm/Contract/Digest.h"

#include <sha2.h>

#include <cstdint>

std::string mxgemm::contract::sha256Hex(const void *data, size_t size) {
  // SHA256Data writes the lower-case hex digest and its NUL.
  char hex[SHA256_DIGEST_STRING_LENGTH];
  static const uint8_t empty = 0;
  SHA256Data(size ? static_cast<const uint8_t *>(data) : &empty, size, hex);
  return std::string(hex, SHA256_DIGEST_STRING_LENGTH - 1);
}

bool mxgemm::contract::isSha256Hex(std::string_view text) {
  if (text.size() != 64)
    return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return false;
  return true;
}
