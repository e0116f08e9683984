#c = #mxgemm.config<stage_x = lds>
