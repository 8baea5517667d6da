# hw/tests.d/pipe.sh -- md5_pipe (64-stage MD5 compression pipeline); sourced by hw/run-tests.sh.
# Lint both storage styles (STORE = "ram", the default, and "flops") and
# TAG_W=1; simulate both with TAG_W=16 under Icarus (the stream test puts
# the stream id and block number in the tag), and the memory style once
# more under Verilator.  (md5_pipe.v includes md5_k.vh: lint_files and the
# cocotb Makefile pass -I hw/rtl.)
lint_files "md5_pipe" md5_pipe "$HW/rtl/md5_pipe.v" "$HW/rtl/md5_pipe_delay.v"
lint_files "md5_pipe STORE=flops" md5_pipe -GSTORE='"flops"' "$HW/rtl/md5_pipe.v" "$HW/rtl/md5_pipe_delay.v"
lint_files "md5_pipe TAG_W=1" md5_pipe -GTAG_W=1 "$HW/rtl/md5_pipe.v" "$HW/rtl/md5_pipe_delay.v"
sim_params md5_pipe test_md5_pipe w16 "-Pmd5_pipe.TAG_W=16"
sim_params md5_pipe test_md5_pipe w16_flops "-Pmd5_pipe.TAG_W=16 -Pmd5_pipe.STORE=\\\"flops\\\""
SIM=verilator sim_params md5_pipe test_md5_pipe verilator_w16 "-GTAG_W=16"
