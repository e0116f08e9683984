#c = #mxgemm.config<tile_m = 128, tile_n = 256, tile_k = 256, stage_x = lds_async, stage_w = lds_async, stages = 2, waves_n = 4>
