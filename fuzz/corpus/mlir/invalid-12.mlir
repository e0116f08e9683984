#c = #mxgemm.config<split = 3>
