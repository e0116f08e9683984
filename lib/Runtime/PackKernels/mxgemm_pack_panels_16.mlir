// The runtime's m16n16k128 weight packer (panels of 16 rows x 128 K elements), embedded by
// cmake/MXGemmEmbeddedKernels.cmake and launched by mxgemm_pack_weights.
func.func @mxgemm_pack_panels_16(%w: memref<?x?xi8>, %p: memref<?xi8>) {
  mxgemm.pack_panels %w into %p {non_k = 16} : memref<?x?xi8> into memref<?xi8>
  return
}
