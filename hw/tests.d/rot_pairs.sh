# Sourced by hw/run-tests.sh (helpers lint_files, sim_params, count_result).
# md5_iter with ROT_PAIRS = 1, the rotate's logic shape hw/syn/run.sh uses
# on iCE40: the same function, so the same tests must pass.  (md5_iter.v
# includes md5_k.vh: lint_files and the cocotb Makefile pass -I hw/rtl.)
lint_files "md5_iter ROT_PAIRS=1" md5_iter -GROT_PAIRS=1 "$HW/rtl/md5_iter.v"
COUNTER=gray GATING=1 sim_params md5_iter test_md5_iter rot_pairs_gray_1 \
    "-Pmd5_iter.ROT_PAIRS=1 -Pmd5_iter.COUNTER=\\\"gray\\\" -Pmd5_iter.GATING=1"
COUNTER=binary GATING=0 sim_params md5_iter test_md5_iter rot_pairs_binary_0 \
    "-Pmd5_iter.ROT_PAIRS=1 -Pmd5_iter.COUNTER=\\\"binary\\\" -Pmd5_iter.GATING=0"
