//===- DeviceMemory.cpp - emulator-owned device allocations ---------------===//
//
// Allocations live at synthetic device addresses separated by unmapped guard
// gaps, so an access that runs off the end of one buffer cannot land in the
// next one and is reported instead. Externally synchronised (see the
// header): allocate/free change the map, everything else only reads it.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Emulator/DeviceMemory.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace mxgemm::emu;

DeviceMemory::~DeviceMemory() {
  for (auto &b : Blocks)
    std::free(b.second.host);
}

uint64_t DeviceMemory::allocate(size_t bytes) {
  // Host bytes rounded to 256, device address space to 4 KiB plus a guard
  // gap; every step is checked so that a huge request fails instead of
  // wrapping into a small one.
  size_t rounded;
  if (__builtin_add_overflow(bytes, size_t(255), &rounded))
    return 0;
  rounded = std::max(rounded & ~size_t(255), size_t(256));
  uint64_t span, next;
  if (__builtin_add_overflow(uint64_t(rounded), uint64_t(4095), &span))
    return 0;
  span &= ~uint64_t(4095);
  if (__builtin_add_overflow(span, GuardBytes, &span) ||
      __builtin_add_overflow(Next, span, &next))
    return 0;
  auto *host = static_cast<uint8_t *>(std::calloc(rounded, 1));
  if (!host)
    return 0;
  uint64_t address = Next;
  Next = next;
  Blocks[address] = Block{bytes, host};
  return address;
}

bool DeviceMemory::free(uint64_t address) {
  auto it = Blocks.find(address);
  if (it == Blocks.end())
    return false;
  std::free(it->second.host);
  Blocks.erase(it);
  return true;
}

bool DeviceMemory::lookup(uint64_t address, uint64_t &base, uint64_t &size,
                          uint8_t *&host) const {
  auto it = Blocks.upper_bound(address);
  if (it == Blocks.begin())
    return false;
  --it;
  if (address - it->first >= it->second.size)
    return false;
  base = it->first;
  size = it->second.size;
  host = it->second.host;
  return true;
}

uint8_t *DeviceMemory::translate(uint64_t address, size_t bytes) const {
  uint64_t base, size;
  uint8_t *host;
  if (!lookup(address, base, size, host))
    return nullptr;
  if (bytes > size - (address - base))
    return nullptr;
  return host + (address - base);
}

bool DeviceMemory::copyToDevice(uint64_t address, const void *src,
                                size_t bytes) {
  if (bytes == 0)
    return true;
  uint8_t *p = translate(address, bytes);
  if (!p)
    return false;
  std::memcpy(p, src, bytes);
  return true;
}

bool DeviceMemory::copyFromDevice(void *dst, uint64_t address,
                                  size_t bytes) const {
  if (bytes == 0)
    return true;
  const uint8_t *p = translate(address, bytes);
  if (!p)
    return false;
  std::memcpy(dst, p, bytes);
  return true;
}

size_t DeviceMemory::numAllocations() const { return Blocks.size(); }
