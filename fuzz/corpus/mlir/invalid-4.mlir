#c = #mxgemm.config<xcd_remap = yes>
