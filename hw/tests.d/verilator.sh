# hw/tests.d/verilator.sh -- the md5_iter and md5_stream testbenches again,
# compiled by Verilator instead of interpreted by Icarus: a second,
# independent simulator. One variant each (Verilator builds take ~25 s);
# Icarus runs all four.
sim_verilator() {  # top module counter gating
    local top=$1 module=$2 counter=$3 gating=$4
    SIM=verilator COUNTER="$counter" GATING="$gating" \
        sim_params "$top" "$module" "verilator_${counter}_${gating}" \
        "-GCOUNTER=\\\"$counter\\\" -GGATING=$gating"
}

sim_verilator md5_iter test_md5_iter gray 1
sim_verilator md5_stream test_md5_stream binary 0
