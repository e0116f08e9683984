#c = #mxgemm.config<tile_q = 4>
