#c = #mxgemm.config<tile_m = 256, tile_n = 256, waves_m = 1, waves_n = 2>
