//===- DeviceMemory.h - emulator device memory ------------------*- C++ -*-===//
//
// The emulator owns every device allocation: host malloc'd blocks handed out
// at synthetic 64-bit device addresses with guard gaps between them, so that
// each global or buffer access of an emulated kernel is checked against the
// allocation it falls in and a stray pointer cannot touch host memory.
//
// Thread safety is that of a standard container, and DeviceMemory has no
// lock: allocate() and free() change the allocation map and must not run
// concurrently with any other call on the same object; every other call
// only reads the map and may run concurrently with other readers (a
// launch's worker threads do). A host pointer from translate()/lookup() is
// valid until its allocation is freed, so the caller must also keep free()
// away while it uses one. The HIP facade meets all of this with its one
// mutex (lib/HipEmu/HipFacade.cpp, docs/Emulator.md).
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_EMULATOR_DEVICEMEMORY_H
#define MXGEMM_EMULATOR_DEVICEMEMORY_H

#include <cstddef>
#include <cstdint>
#include <map>

namespace mxgemm::emu {

class DeviceMemory {
public:
  /// First address handed out; far from 0 so null-ish pointers fault.
  static constexpr uint64_t BaseAddress = 0x100000000000ull;
  /// Unmapped bytes between two allocations.
  static constexpr uint64_t GuardBytes = 1 << 16;

  DeviceMemory() = default;
  DeviceMemory(const DeviceMemory &) = delete;
  DeviceMemory &operator=(const DeviceMemory &) = delete;
  ~DeviceMemory();

  /// Returns 0 on failure (no host memory, or no device addresses left).
  /// Contents are zero-initialised.
  uint64_t allocate(size_t bytes);
  /// False if `address` is not the start of a live allocation.
  bool free(uint64_t address);
  /// Host pointer for [address, address + bytes), or nullptr if the range is
  /// not inside one allocation.
  uint8_t *translate(uint64_t address, size_t bytes) const;
  /// Start and size of the allocation containing `address` (false if none).
  bool lookup(uint64_t address, uint64_t &base, uint64_t &size,
              uint8_t *&host) const;
  bool copyToDevice(uint64_t address, const void *src, size_t bytes);
  bool copyFromDevice(void *dst, uint64_t address, size_t bytes) const;
  size_t numAllocations() const;

private:
  struct Block {
    uint64_t size;
    uint8_t *host;
  };
  std::map<uint64_t, Block> Blocks;
  uint64_t Next = BaseAddress;
};

} // namespace mxgemm::emu

#endif // MXGEMM_EMULATOR_DEVICEMEMORY_H
