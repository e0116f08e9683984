#c = #mxgemm.config<tile_k = 64, mfma = m16n16k128>
