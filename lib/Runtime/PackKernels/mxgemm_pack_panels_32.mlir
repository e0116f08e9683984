// The runtime's m32n32k64 weight packer (panels of 32 rows x 64 K elements), embedded by
// cmake/MXGemmEmbeddedKernels.cmake and launched by mxgemm_pack_weights.
func.func @mxgemm_pack_panels_32(%w: memref<?x?xi8>, %p: memref<?xi8>) {
  mxgemm.pack_panels %w into %p {non_k = 32} : memref<?x?xi8> into memref<?xi8>
  return
}
