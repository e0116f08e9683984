#c = #mxgemm.config<mfma = m8n8k8>
