// RUN: mxgemm-opt %s --mxgemm-lower-pack-panels -split-input-file -verify-diagnostics

// The function is the kernel's specification: nothing else may live in it.
func.func @extra_op(%w: memref<?x?xi8>, %p: memref<?xi8>) {
  %c0 = arith.constant 0 : index
  // expected-error @-1 {{cannot be compiled into an mxgemm kernel: the function must contain only one mxgemm.pack_panels}}
  mxgemm.pack_panels %w into %p {non_k = 32} : memref<?x?xi8> into memref<?xi8>
  return
}

// -----

// Not in a top-level func.func.
module {
  module @inner {
    func.func @nested(%w: memref<?x?xi8>, %p: memref<?xi8>) {
      // expected-error @+1 {{must be inside a top-level func.func}}
      mxgemm.pack_panels %w into %p {non_k = 16} : memref<?x?xi8> into memref<?xi8>
      return
    }
  }
}
