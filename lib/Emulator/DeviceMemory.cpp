//===- DeviceMemory.cpp - emulator-owned device allocations
//----------------===//
//
// Allocations live at synthetic device addresses separated by unmapped guard
// gaps, so an access that runs off the end of one buffer cannot land in the
// next one and is reported instead. Allocation and free take a lock;
// translation during a launch only reads the map.
//
//===----------------------------------------------------------------------===//

#include "mxgemm/Emulator/DeviceMemory.h"

#include <cstdlib>
#include <cstring>

using namespace mxgemm::emu;

DeviceMemory::~DeviceMemory() {
  for (auto &b : Blocks)
    std::free(b.second.host);
}

uint64_t DeviceMemory::allocate(size_t bytes) {
  std::lock_guard<std::mutex> lock(Mutex);
  size_t rounded = (bytes + 255) & ~size_t(255);
  if (rounded == 0)
    rounded = 256;
  if (rounded < bytes) // overflow
    return 0;
  auto *host = static_cast<uint8_t *>(std::calloc(rounded, 1));
  if (!host)
    return 0;
  uint64_t address = Next;
  Next += ((rounded + 4095) & ~uint64_t(4095)) + GuardBytes;
  Blocks[address] = Block{bytes, host};
  return address;
}

bool DeviceMemory::free(uint64_t address) {
  std::lock_guard<std::mutex> lock(Mutex);
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

size_t DeviceMemory::numAllocations() const {
  std::lock_guard<std::mutex> lock(Mutex);
  return Blocks.size();
}
