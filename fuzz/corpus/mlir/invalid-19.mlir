#c = #mxgemm.config<stages = 2>
