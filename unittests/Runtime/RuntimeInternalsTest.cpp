//===- RuntimeInternalsTest.cpp - handle tables and argument packing ------===//
//
// The pieces of lib/Runtime that the C API cannot reach on every path: a
// handle table at its capacity, generations across slot reuse, handles of
// another kind, concurrent insert/find/remove; and the argument packing
// for descriptors this runtime cannot serve (which the descriptor reader
// refuses before the runtime sees them today).
//
//===----------------------------------------------------------------------===//

#include "EmbeddedFiles.h"
#include "Handles.h"
#include "KernelLibrary.h"

#include "mxgemm/Target/TargetModel.h"

#include "gtest/gtest.h"

#include <atomic>
#include <set>
#include <thread>
#include <vector>

// No embedded files: KernelLibrary.cpp is linked for ArgumentPacking only.
namespace mxgemm::runtime {
const EmbeddedFile kEmbeddedFiles[] = {{"", nullptr, 0}};
const size_t kEmbeddedFileCount = 0;
} // namespace mxgemm::runtime

namespace {

using namespace mxgemm::runtime;
namespace contract = mxgemm::contract;

using SmallTable = HandleTable<int, 0x11, 300>;
using OtherTable = HandleTable<int, 0x22, 300>;

TEST(HandleTable, CapacityGenerationsAndKinds) {
  static SmallTable table;
  static OtherTable other;
  std::vector<int> objects(301);
  std::vector<uintptr_t> handles;
  for (int i = 0; i < 300; ++i) {
    uintptr_t h = table.insert(&objects[i]);
    ASSERT_NE(h, 0u);
    handles.push_back(h);
  }
  EXPECT_EQ(table.insert(&objects[300]), 0u) << "full";
  HandleState state;
  for (int i = 0; i < 300; ++i) {
    EXPECT_EQ(table.find(handles[i], state), &objects[i]);
    EXPECT_EQ(state, HandleState::Live);
    // The same bits are no handle of another table.
    EXPECT_EQ(other.find(handles[i], state), nullptr);
    EXPECT_EQ(state, HandleState::Foreign);
  }
  EXPECT_EQ(table.find(0, state), nullptr);
  EXPECT_EQ(state, HandleState::Null);
  EXPECT_EQ(table.find(0x1234, state), nullptr);
  EXPECT_EQ(state, HandleState::Foreign);
  // A generation that was never issued for a live slot.
  EXPECT_EQ(table.find(handles[5] + (uintptr_t(7) << 24), state), nullptr);
  EXPECT_EQ(state, HandleState::Foreign);

  // Remove, then the slot is reused under a new generation.
  EXPECT_EQ(table.remove(handles[5], state), &objects[5]);
  EXPECT_EQ(table.remove(handles[5], state), nullptr);
  EXPECT_EQ(state, HandleState::Removed);
  EXPECT_EQ(table.find(handles[5], state), nullptr);
  EXPECT_EQ(state, HandleState::Removed);
  uintptr_t again = table.insert(&objects[300]);
  ASSERT_NE(again, 0u);
  EXPECT_NE(again, handles[5]);
  EXPECT_EQ(table.find(again, state), &objects[300]);
  EXPECT_EQ(table.find(handles[5], state), nullptr);
  EXPECT_EQ(state, HandleState::Removed);
  for (int i = 0; i < 300; ++i)
    table.remove(i == 5 ? again : handles[i], state);
}

TEST(HandleTable, ConcurrentUseFindsOnlyLiveObjects) {
  static HandleTable<int, 0x33, 64> table;
  constexpr int kThreads = 4, kRounds = 2000;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      int mine[8];
      std::vector<uintptr_t> dead;
      for (int r = 0; r < kRounds; ++r) {
        uintptr_t h[8];
        for (int i = 0; i < 8; ++i)
          h[i] = table.insert(&mine[i]);
        HandleState s;
        for (int i = 0; i < 8; ++i)
          wrong += h[i] == 0 || table.find(h[i], s) != &mine[i];
        for (uintptr_t d : dead)
          wrong += table.find(d, s) != nullptr;
        dead.clear();
        for (int i = 0; i < 8; ++i) {
          wrong += table.remove(h[i], s) != &mine[i];
          dead.push_back(h[i]);
        }
      }
      (void)t;
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(wrong.load(), 0);
}

contract::KernelDescriptor descriptor() {
  contract::KernelConfig c;
  contract::KernelDescriptor d = contract::KernelDescriptor::describe(
      "mxgemm_k", {4096, 1280}, c, mxgemm::target::kGFX950);
  d.resources.kernargSegmentBytes = 44;
  return d;
}

TEST(ArgumentPacking, DescriptorsTheRuntimeCannotServe) {
  ArgumentPacking packing;
  contract::KernelDescriptor d = descriptor();
  ASSERT_FALSE(ArgumentPacking::build(d, packing));
  EXPECT_EQ(packing.count, 6u);
  EXPECT_EQ(packing.bytes, 44u);
  EXPECT_EQ(packing.slots[5].offset, 40u);
  EXPECT_EQ(packing.slots[5].source, ArgumentPacking::Source::M);

  d = descriptor();
  d.arguments.push_back({"Stride", contract::ArgumentKind::I32, 44, 4});
  d.resources.kernargSegmentBytes = 48;
  auto e = ArgumentPacking::build(d, packing);
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, "kernel argument 'Stride' is not one this runtime passes (X, "
                "Xs, W, Ws, Y, M, N, K, ldX, ldXs, ldY, Work, Phase)");

  // A generic kernel's N and K (docs/Design.md section 4) are passed.
  d = descriptor();
  d.arguments.push_back({"N", contract::ArgumentKind::I32, 44, 4});
  d.arguments.push_back({"K", contract::ArgumentKind::I32, 48, 4});
  d.resources.kernargSegmentBytes = 52;
  ASSERT_FALSE(ArgumentPacking::build(d, packing));
  EXPECT_EQ(packing.count, 8u);
  EXPECT_EQ(packing.slots[6].source, ArgumentPacking::Source::N);
  EXPECT_EQ(packing.slots[7].source, ArgumentPacking::Source::K);
  EXPECT_EQ(packing.slots[7].offset, 48u);
  EXPECT_FALSE(packing.rowStrides);

  // Its row strides: all three are passed, or the kernel is refused.
  for (const char *name : {"ldX", "ldXs", "ldY"}) {
    d.arguments.push_back({name, contract::ArgumentKind::I32,
                           uint32_t(d.resources.kernargSegmentBytes), 4});
    d.resources.kernargSegmentBytes += 4;
    e = ArgumentPacking::build(d, packing);
    if (std::string(name) != "ldY") {
      ASSERT_TRUE(e) << name;
      EXPECT_EQ(*e, "the kernel takes some of the row strides ldX, ldXs and "
                    "ldY but not all three");
    }
  }
  ASSERT_FALSE(ArgumentPacking::build(d, packing));
  EXPECT_EQ(packing.count, 11u);
  EXPECT_TRUE(packing.rowStrides);
  EXPECT_EQ(packing.slots[8].source, ArgumentPacking::Source::LdX);
  EXPECT_EQ(packing.slots[10].source, ArgumentPacking::Source::LdY);
  EXPECT_EQ(packing.slots[10].offset, 60u);

  // A workspace argument on a kernel that does not split K.
  d = descriptor();
  d.arguments.push_back({"Work", contract::ArgumentKind::GlobalPointer, 48, 8});
  d.resources.kernargSegmentBytes = 56;
  e = ArgumentPacking::build(d, packing);
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, "the kernel's Work and Phase arguments do not match its "
                "k_splits (1)");

  d = descriptor();
  d.arguments[0].offset = 0xfffffff8u;
  e = ArgumentPacking::build(d, packing);
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("kernel argument 'X' (offset 4294967288, 8 bytes)"),
            std::string::npos)
      << *e;

  d = descriptor();
  d.resources.kernargSegmentBytes = -1;
  e = ArgumentPacking::build(d, packing);
  ASSERT_TRUE(e);
  EXPECT_NE(e->find("kernarg segment (-1 bytes)"), std::string::npos) << *e;

  d = descriptor();
  for (int i = 0; i < 8; ++i) // 14 arguments, 13 slots
    d.arguments.push_back(d.arguments[0]);
  e = ArgumentPacking::build(d, packing);
  ASSERT_TRUE(e);
  EXPECT_EQ(*e, "the kernel has more arguments than this runtime passes");
}

} // namespace
