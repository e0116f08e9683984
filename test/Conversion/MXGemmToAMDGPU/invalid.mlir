// RUN: mxgemm-opt %s --split-input-file --convert-mxgemm-to-amdgpu --verify-diagnostics

// The whole mxgemm dialect is illegal after the conversion: an op it does
// not lower means a pass before it did not run, and the error names it.
func.func @group_tiles_missing(%pid: index, %tiles_m: index) -> (index, index) {
  // expected-error @+1 {{'mxgemm.program_tile' op is not lowered by convert-mxgemm-to-amdgpu, which leaves no mxgemm op behind; run mxgemm-group-tiles first}}
  %tm, %tn = mxgemm.program_tile %pid, %tiles_m
      {num_tiles_n = 4 : i64, group_m = 1 : i64, group_n = 0 : i64,
       xcd_remap = false, num_xcds = 8 : i64}
  return %tm, %tn : index, index
}

// -----

func.func @tile_missing(%x: memref<?x256xf8E4M3FN>, %xs: memref<?x8xf8E8M0FNU>,
                        %w: memref<128x256xf8E4M3FN>, %ws: memref<4x8xf8E8M0FNU>,
                        %y: memref<?x128xbf16>) {
  // expected-error @+1 {{'mxgemm.scaled_matmul' op is not lowered by convert-mxgemm-to-amdgpu, which leaves no mxgemm op behind; run mxgemm-tile first}}
  mxgemm.scaled_matmul %x, %xs, %w, %ws into %y
      {config = #mxgemm.config<>, w_scale = #mxgemm.w_scale<block32x32>}
      : memref<?x256xf8E4M3FN>, memref<?x8xf8E8M0FNU>, memref<128x256xf8E4M3FN>,
        memref<4x8xf8E8M0FNU> into memref<?x128xbf16>
  return
}

// -----

// Every op that cannot be lowered is reported, not just the first; the ops
// that could be are left alone (the pass fails before converting).
func.func @two_missing(%pid: index, %tiles_m: index) -> (index, index, index, index) {
  // expected-error @+1 {{'mxgemm.program_tile' op is not lowered by convert-mxgemm-to-amdgpu}}
  %a, %b = mxgemm.program_tile %pid, %tiles_m
      {num_tiles_n = 4 : i64, group_m = 1 : i64, group_n = 0 : i64,
       xcd_remap = false, num_xcds = 8 : i64}
  mxgemm.ring_barrier
  // expected-error @+1 {{'mxgemm.program_tile' op is not lowered by convert-mxgemm-to-amdgpu}}
  %c, %d = mxgemm.program_tile %pid, %tiles_m
      {num_tiles_n = 4 : i64, group_m = 8 : i64, group_n = 0 : i64,
       xcd_remap = true, num_xcds = 8 : i64}
  return %a, %b, %c, %d : index, index, index, index
}

// -----

// The kernel's config says W comes packed in MFMA panels, but the MMA reads
// it row-major (mxgemm-stage-copies, which marks it w_panels, did not run):
// lowering it would misread W.
gpu.module @kernels {
  gpu.func @packed_w_row_major(%x: memref<8192xf8E4M3FN>, %xs: memref<256xf8E8M0FNU>,
                               %w: memref<8192xf8E4M3FN>, %ws: memref<256xf8E8M0FNU>,
                               %acc: vector<16xf32>, %row0: index, %col0: index,
                               %k0: index, %m: index) kernel
      attributes {mxgemm.config = #mxgemm.config<stage_w = packed_registers>} {
    // expected-error @+1 {{'mxgemm.wave_mma' op kernel takes W packed in MFMA panels (stage_w = packed_registers) but this op reads row-major W; run mxgemm-stage-copies first}}
    %r = mxgemm.wave_mma %x, %xs, %w, %ws, %acc [%row0, %col0, %k0, %m]
        {mfma = #mxgemm<mfma m32n32k64>, wave_m = 32 : i64, wave_n = 32 : i64,
         tile_k = 64 : i64, k = 128 : i64, w_scale = #mxgemm.w_scale<per_row>}
        : memref<8192xf8E4M3FN>, memref<256xf8E8M0FNU>, memref<8192xf8E4M3FN>,
          memref<256xf8E8M0FNU>, vector<16xf32>
    gpu.return
  }
}
