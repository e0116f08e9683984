//===- Handles.h - validated handles for the C API's objects ----*- C++ -*-===//
//
// The C API hands out contexts and loaded kernels as opaque handles that are
// never pointers to the objects: a handle encodes (kind tag, slot index,
// generation). The slots live in a process-wide table whose memory is never
// freed, so checking a handle reads only that table, never the object:
//
//   - a live handle finds its slot's generation marked live;
//   - after destroy/unload the slot's generation is marked dead, and when
//     the slot is reused it gets the next generation, so an old handle
//     never finds the new object (no ABA until 2^32 reuses of one slot);
//   - a handle of another kind, or a value the table never issued, fails
//     the tag or range check.
//
// Lookup is lock-free (two acquire loads); insertion and removal take the
// table's mutex. The rule for callers is in mxgemm_runtime.h: destroying an
// object while another thread is still inside a call that uses it is not
// allowed (the object would be deleted under that call); every call that
// *starts* after the destroy returned is refused with a message.
//
//===----------------------------------------------------------------------===//

#ifndef MXGEMM_LIB_RUNTIME_HANDLES_H
#define MXGEMM_LIB_RUNTIME_HANDLES_H

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace mxgemm::runtime {

/// Why a handle does not name a live object.
enum class HandleState {
  Live,
  /// The handle is 0 (NULL).
  Null,
  /// The handle was issued by this table, and its object was removed.
  Removed,
  /// Not a handle of this kind (another kind's, or never issued).
  Foreign,
};

/// A table of live objects of type T, at most `Capacity` at a time.
/// Constant-initialised with a trivial destructor, so that it can be a
/// global that outlives every other static object (calls made from other
/// static destructors still find it).
template <typename T, uint8_t Tag, uint32_t Capacity> class HandleTable {
  static_assert(sizeof(uintptr_t) == 8, "handles need 64-bit pointers");
  static constexpr uint32_t kChunkSlots = 256;
  static constexpr uint32_t kChunks =
      (Capacity + kChunkSlots - 1) / kChunkSlots;
  static_assert(Capacity <= (1u << 24), "the slot index has 24 bits");

  struct Slot {
    /// generation << 1 | live. Generation 0 is never issued.
    std::atomic<uint64_t> state{0};
    std::atomic<T *> object{nullptr};
    /// Next free slot + 1 (0: none); under the mutex.
    uint32_t nextFree = 0;
  };

public:
  constexpr HandleTable() = default;
  HandleTable(const HandleTable &) = delete;
  HandleTable &operator=(const HandleTable &) = delete;

  static constexpr uint32_t capacity() { return Capacity; }

  /// Registers `object` and returns its handle, or 0 when `Capacity`
  /// objects are live.
  uintptr_t insert(T *object) {
    std::lock_guard<std::mutex> lock(mutex);
    uint32_t index;
    if (freeHead) {
      index = freeHead - 1;
      freeHead = slot(index).nextFree;
    } else {
      if (used == Capacity)
        return 0;
      index = used;
      if (index % kChunkSlots == 0) // never freed: see the file comment
        chunks[index / kChunkSlots].store(new Slot[kChunkSlots],
                                          std::memory_order_release);
      ++used;
    }
    Slot &s = slot(index);
    uint32_t generation =
        uint32_t(s.state.load(std::memory_order_relaxed) >> 1) + 1;
    if (generation == 0) // wrapped: skip the never-issued generation
      generation = 1;
    s.object.store(object, std::memory_order_relaxed);
    s.state.store(uint64_t(generation) << 1 | 1, std::memory_order_release);
    return encode(index, generation);
  }

  /// The live object of `handle`, or null with the reason in `state`.
  T *find(uintptr_t handle, HandleState &state) const {
    const Slot *s = slotOf(handle, state);
    if (!s)
      return nullptr;
    const uint64_t want = uint64_t(generationOf(handle)) << 1 | 1;
    const uint64_t have = s->state.load(std::memory_order_acquire);
    if (have != want) {
      // A generation this slot has reached was issued and is now dead.
      state = (have >> 1) >= generationOf(handle) ? HandleState::Removed
                                                  : HandleState::Foreign;
      return nullptr;
    }
    state = HandleState::Live;
    return s->object.load(std::memory_order_relaxed);
  }

  /// Unregisters `handle` and returns its object (the caller deletes it),
  /// or null with the reason in `state`. Exactly one of several concurrent
  /// removals of one handle succeeds.
  T *remove(uintptr_t handle, HandleState &state) {
    std::lock_guard<std::mutex> lock(mutex);
    T *object = find(handle, state);
    if (!object)
      return nullptr;
    const uint32_t index = indexOf(handle);
    Slot &s = slot(index);
    s.state.store(uint64_t(generationOf(handle)) << 1,
                  std::memory_order_release);
    s.object.store(nullptr, std::memory_order_relaxed);
    s.nextFree = freeHead;
    freeHead = index + 1;
    return object;
  }

private:
  static constexpr uintptr_t encode(uint32_t index, uint32_t generation) {
    return uintptr_t(Tag) << 56 | uintptr_t(generation) << 24 | index;
  }
  static constexpr uint32_t indexOf(uintptr_t h) { return h & 0xffffff; }
  static constexpr uint32_t generationOf(uintptr_t h) {
    return uint32_t(h >> 24);
  }

  Slot &slot(uint32_t index) {
    return chunks[index / kChunkSlots].load(
        std::memory_order_relaxed)[index % kChunkSlots];
  }
  const Slot *slotOf(uintptr_t handle, HandleState &state) const {
    state = HandleState::Foreign;
    if (handle == 0) {
      state = HandleState::Null;
      return nullptr;
    }
    if (handle >> 56 != Tag || generationOf(handle) == 0 ||
        indexOf(handle) >= Capacity)
      return nullptr;
    const Slot *chunk =
        chunks[indexOf(handle) / kChunkSlots].load(std::memory_order_acquire);
    return chunk ? &chunk[indexOf(handle) % kChunkSlots] : nullptr;
  }

  std::atomic<Slot *> chunks[kChunks] = {};
  std::mutex mutex;
  uint32_t used = 0;     // slots ever handed out (under the mutex)
  uint32_t freeHead = 0; // first free slot + 1 (under the mutex)
};

} // namespace mxgemm::runtime

#endif // MXGEMM_LIB_RUNTIME_HANDLES_H
