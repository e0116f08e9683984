// RUN: mxgemm-opt %s --mxgemm-tile --mxgemm-group-tiles --mxgemm-stage-copies --mxgemm-pipeline --convert-mxgemm-to-amdgpu --canonicalize --cse | FileCheck %s
// RUN: mxgemm-opt %s --mxgemm-tile --mxgemm-group-tiles --mxgemm-stage-copies --mxgemm-pipeline --convert-mxgemm-to-amdgpu=allow-pattern-rollback=false --canonicalize --cse | FileCheck %s

// In a pipelined loop the MMA's global loads (scales, W panels) are issued
// right after the publishing barrier and before the refill copies of the
// next tile, so that waiting for them never waits for the copies (vmcnt
// retires in order); the LDS operand reads follow the copies. The ring
// barrier is s_barrier between single-thread fences: no wait of its own.
// CHECK-LABEL: gpu.func @pipelined
// CHECK: scf.for
// CHECK: amdgpu.memory_counter_wait load(0) ds(0)
// CHECK-NEXT: llvm.fence syncscope("singlethread") release
// CHECK-NEXT: rocdl.s.barrier
// CHECK-NEXT: llvm.fence syncscope("singlethread") acquire
// CHECK-NOT: amdgpu.gather_to_lds
// CHECK: vector.load %arg1[{{.+}}] {alignment = 4 : i64} : memref<{{[0-9]+}}xf8E8M0FNU>, vector<4xf8E8M0FNU>
// CHECK-NOT: amdgpu.gather_to_lds
// CHECK: vector.load %arg2[{{.+}}] {alignment = 16 : i64} : memref<131072xf8E4M3FN>
// CHECK-NOT: amdgpu.gather_to_lds
// CHECK: vector.load %arg3[{{.+}}] {alignment = 4 : i64}
// CHECK: amdgpu.gather_to_lds
// CHECK-NOT: memref.load
// CHECK-NOT: vector.load %arg1
// CHECK-NOT: vector.load %arg3
// CHECK-NOT: vector.load %arg2
// CHECK: vector.load %subview
// CHECK: amdgpu.scaled_mfma
// CHECK: scf.yield
func.func @pipelined(%x: memref<?x512xf8E4M3FN>, %xs: memref<?x16xf8E8M0FNU>,
                     %w: memref<256x512xf8E4M3FN>, %ws: memref<8x16xf8E8M0FNU>,
                     %y: memref<?x256xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 128, tile_n = 256, tile_k = 128,
                               waves_m = 1, waves_n = 4, stage_x = lds_async,
                               stage_w = packed_registers, stages = 2,
                               lds_layout = padded>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>, memref<256x512xf8E4M3FN>,
        memref<8x16xf8E8M0FNU> into memref<?x256xbf16>
  return
}
