# hw/tests.d/pipe.sh -- md5_pipe (64-stage MD5 compression pipeline); sourced by hw/run-tests.sh.
# Lint at the default tag width and at TAG_W=1; simulate with TAG_W=16 (the
# stream test puts the stream id and block number in the tag).
lint_files "md5_pipe" md5_pipe "$HW/rtl/md5_pipe.v"
lint_files "md5_pipe TAG_W=1" md5_pipe -GTAG_W=1 "$HW/rtl/md5_pipe.v"
sim_params md5_pipe test_md5_pipe w16 "-Pmd5_pipe.TAG_W=16"
