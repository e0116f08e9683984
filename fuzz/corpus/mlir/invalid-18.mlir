#c = #mxgemm.config<stages = 5, stage_x = lds_async>
