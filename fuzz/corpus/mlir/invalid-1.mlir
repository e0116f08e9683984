#c = #mxgemm.config<stages = 1, stages = 2>
