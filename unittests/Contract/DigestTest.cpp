//===- DigestTest.cpp - the SHA-256 the compiler and runtime share --------===//
//
// FIPS 180-2 test vectors through contract::sha256Hex (libmd), lower-case
// hex as the kernel descriptor's code_object_sha256 spells it.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Contract/Digest.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using mxgemm::contract::sha256Hex;

TEST(Digest, KnownVectors) {
  EXPECT_EQ(sha256Hex(nullptr, 0),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc", 3),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const std::string two =
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  EXPECT_EQ(sha256Hex(two.data(), two.size()),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  const std::vector<char> million(1000000, 'a');
  EXPECT_EQ(sha256Hex(million.data(), million.size()),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
