#c = #mxgemm.config<tile_m = 0>
