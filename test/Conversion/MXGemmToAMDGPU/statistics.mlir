// REQUIRES: pass-statistics
// RUN: mxgemm-opt %s --mxgemm-to-gfx950 --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s

// The statistics of every mxgemm pass on one pipelined kernel: X staged
// through a 2-slot LDS ring of 128 x 144 bytes (lds_async, padded), W packed
// in MFMA panels, wave tile 128 x 64 (4 x 2 blocks of 32x32x64, 2 K-steps
// per 128-wide K tile). Counts are of ops in the IR: the prologue copy and
// the refill copy in the loop, 5 gather_to_lds each (128 x 9 chunks, 256
// per pass of the 4 waves); per MMA 2 x 4 x 2 = 16 MFMAs, 16 ds_reads of X,
// 8 panel loads and 6 scale loads (one 4-byte load per block row and
// column serves both steps); the epilogue staged through a 4 x 32 x 64
// BF16 LDS buffer (16384 bytes): per block row 4 passes of 16-byte reads
// and stores, in both the unguarded and the guarded branch (32 stores; the
// 32 staging reads are LDS loads the aliasing pass annotates beside the 16
// operand reads). Passes and statistics are listed by name.
// CHECK: Pass statistics report
// CHECK-LABEL: ConvertMXGemmToAMDGPU
// CHECK-DAG: (S) 1 num-barriers - mxgemm.ring_barrier ops lowered
// CHECK-DAG: (S) 16 num-ds-reads - 16-byte LDS operand reads (ds_read_b128) emitted
// CHECK-DAG: (S) 14 num-global-loads - global loads emitted (MMA operands and scales, lds_sync data)
// CHECK-DAG: (S) 1 num-hoisted-mmas - MMAs whose global loads were issued ahead of refill copies
// CHECK-DAG: (S) 2 num-lds-copies - mxgemm.copy_to_lds ops lowered
// CHECK-DAG: (S) 10 num-lds-copy-instructions - global-to-LDS transfers emitted (gather_to_lds or LDS store)
// CHECK-DAG: (S) 16 num-mfmas - amdgpu.scaled_mfma ops emitted
// CHECK-DAG: (S) 32 num-stores - output stores emitted (guarded and unguarded)
// CHECK-DAG: (S) 1 num-waits - mxgemm.wait_copies ops lowered
// CHECK-LABEL: MXGemmAnnotateLdsAliasing
// CHECK-DAG: (S) 1 num-annotated-functions - functions with LDS copies whose accesses were annotated
// CHECK-DAG: (S) 10 num-annotated-copies - LDS copies put in the mxgemm.lds.copies scope
// CHECK-DAG: (S) 48 num-annotated-reads - LDS loads marked noalias to the copies
// CHECK-LABEL: MXGemmGroupTiles
// CHECK-DAG: (S) 0 num-grouped-orders - of which in a grouped or XCD-remapped (not row-major) order
// CHECK-DAG: (S) 1 num-program-tiles - mxgemm.program_tile ops expanded
// CHECK-LABEL: MXGemmPipeline
// CHECK-DAG: (S) 1 num-pipelined-loops - staged K loops pipelined (depth > 1)
// CHECK-DAG: (S) 2 num-pipeline-stages - pipeline stages, summed over pipelined loops
// CHECK-DAG: (S) 1 num-prologue-copies - mxgemm.copy_to_lds ops issued in prologues
// CHECK-LABEL: MXGemmScheduleMfma
// CHECK-DAG: (S) 48 num-sched-group-barriers - rocdl.sched.group.barrier ops emitted
// CHECK-DAG: (S) 1 num-scheduled-loops - K-loop bodies given an MFMA/load interleave
// CHECK-DAG: (S) 16 num-scheduled-mfmas - MFMAs placed by the sched-group barriers
// CHECK-LABEL: MXGemmStageCopies
// CHECK-DAG: (S) 36864 num-lds-bytes - LDS bytes allocated to rings, summed over kernels
// CHECK-DAG: (S) 1 num-packed-w-mmas - MMAs marked to read W from packed panels
// CHECK-DAG: (S) 1 num-staged-kernels - kernels given an LDS ring
// CHECK-DAG: (S) 1 num-staged-operands - operands staged through LDS
// CHECK-LABEL: MXGemmStageStores
// CHECK-DAG: (S) 0 num-direct-stores - kernels left with direct stores (no LDS room)
// CHECK-DAG: (S) 16384 num-staging-bytes - LDS bytes of staging buffers, summed over kernels
// CHECK-DAG: (S) 1 num-staged-stores - kernels whose epilogue goes through LDS
// CHECK-LABEL: MXGemmTile
// CHECK: (S) 1 num-kernels - gpu.func kernels built from mxgemm.scaled_matmul
func.func @stats(%x: memref<?x512xf8E4M3FN>, %xs: memref<?x16xf8E8M0FNU>,
                 %w: memref<256x512xf8E4M3FN>, %ws: memref<8x16xf8E8M0FNU>,
                 %y: memref<?x256xbf16>) {
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<tile_m = 128, tile_n = 256, tile_k = 128,
                               waves_m = 1, waves_n = 4, stage_x = lds_async,
                               stage_w = packed_registers, stages = 2,
                               lds_layout = padded, schedule = interleave>,
       w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x512xf8E4M3FN>, memref<?x16xf8E8M0FNU>, memref<256x512xf8E4M3FN>,
        memref<8x16xf8E8M0FNU> into memref<?x256xbf16>
  return
}
