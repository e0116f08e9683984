#c = #mxgemm.config<tile_n = 9223372036854775807>
