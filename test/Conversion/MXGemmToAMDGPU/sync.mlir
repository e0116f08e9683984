// RUN: mxgemm-opt %s --convert-mxgemm-to-amdgpu | FileCheck %s
// RUN: mxgemm-opt %s --convert-mxgemm-to-amdgpu=allow-pattern-rollback=false | FileCheck %s

// wait_copies is s_waitcnt vmcnt(pending) lgkmcnt(0); the ring barrier is
// s_barrier between single-thread fences, so that it orders the compiler
// but waits for no memory operation of its own.
// CHECK-LABEL: func.func @wait_and_barrier
// CHECK-NEXT: amdgpu.memory_counter_wait load(4) ds(0)
// CHECK-NEXT: llvm.fence syncscope("singlethread") release
// CHECK-NEXT: rocdl.s.barrier
// CHECK-NEXT: llvm.fence syncscope("singlethread") acquire
// CHECK-NEXT: amdgpu.memory_counter_wait load(0) ds(0)
// CHECK-NEXT: return
func.func @wait_and_barrier() {
  mxgemm.wait_copies {pending = 4 : i64}
  mxgemm.ring_barrier
  mxgemm.wait_copies {pending = 0 : i64}
  return
}
