#c = #mxgemm.config<tile_n = 96>
