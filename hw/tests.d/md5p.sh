# hw/tests.d/md5p.sh -- md5p_core (MD5-P/K, as defined in docs/md5p.md).
# Sourced by hw/run-tests.sh (helpers lint_files, sim_params, count_result;
# $HW, $LOG).
#   * Verilator -Wall lint for K = 4 and 16 (K = 16 with COUNTER=gray GATING=1).
#   * cocotb/Icarus: test_md5p_core for K = 4, 8, 16 (spec vectors except the
#     1,000,000-byte ones, boundary lengths, back to back, random stalls,
#     exact data-phase timing).
#   * Verilator simulation (verilator --binary): all 18 spec vectors verbatim,
#     "a" * 1000000 included, on K = 4, 8 and 16 side by side, full rate.

lint_files "md5p_core K=4" md5p_core -GK=4 "$HW/rtl/md5_iter.v" "$HW/rtl/md5_words.v" "$HW/rtl/md5p_core.v"
lint_files "md5p_core K=16 gray gated" md5p_core -GK=16 -GCOUNTER='"gray"' -GGATING=1 \
    "$HW/rtl/md5_iter.v" "$HW/rtl/md5_words.v" "$HW/rtl/md5p_core.v"

sim_params md5p_core test_md5p_core k4 "-Pmd5p_core.K=4"
sim_params md5p_core test_md5p_core k8_gray_gated "-Pmd5p_core.K=8 -Pmd5p_core.COUNTER=\\\"gray\\\" -Pmd5p_core.GATING=1"
sim_params md5p_core test_md5p_core k16 "-Pmd5p_core.K=16"

md5p_vectors() {
    local dir="$HW/tb/sim_build/md5p_vectors"
    mkdir -p "$dir"
    cat >"$dir/md5p_vectors_tb.v" <<'EOF'
// Spec vectors of docs/md5p.md through md5p_core, K = 4, 8, 16.
// Message v: 0 "", 1 "abc", 2 "a"*64, 3 "a"*65, 4 bytes(0..255)*4,
// 5 "a"*1000000, sent back to back at full rate, m_ready held high.
`timescale 1ns/1ps
module md5p_vectors_tb;
    reg clk = 1'b0;
    reg rst = 1'b1;
    always #5 clk = ~clk;

    function [127:0] bswap;   // hex string order -> m_digest (byte k = [8k+7:8k])
        input [127:0] x;
        integer i;
        begin
            for (i = 0; i < 16; i = i + 1)
                bswap[8*i +: 8] = x[8*(15-i) +: 8];
        end
    endfunction

    function [31:0] vlen;
        input [2:0] v;
        case (v)
        3'd0: vlen = 0;
        3'd1: vlen = 3;
        3'd2: vlen = 64;
        3'd3: vlen = 65;
        3'd4: vlen = 1024;
        default: vlen = 1000000;
        endcase
    endfunction

    function [7:0] vbyte;
        input [2:0]  v;
        input [31:0] i;
        case (v)
        3'd1: vbyte = 8'h61 + i[7:0];
        3'd4: vbyte = i[7:0];
        default: vbyte = 8'h61;
        endcase
    endfunction

    function [127:0] want;
        input [4:0] k;   // 4, 8, 16
        input [2:0] v;
        case ({k, v})
        {5'd4, 3'd0}: want = 128'h90b83c0fe892d7b4c2bdc38deba7a3cb;
        {5'd4, 3'd1}: want = 128'h148ae4e6d92bdddaaf1c1d44cb112e53;
        {5'd4, 3'd2}: want = 128'h1cd4d19f391f872372be9de3997e1a22;
        {5'd4, 3'd3}: want = 128'heacb3022f9e16b685f32d9821ab3c2ac;
        {5'd4, 3'd4}: want = 128'hfe64925ed82fdfa9a546a34522ea3a5c;
        {5'd4, 3'd5}: want = 128'hb5f77859e9903739d22a551c22180815;
        {5'd8, 3'd0}: want = 128'he7dd4330655dc61ec7f53e526532adfa;
        {5'd8, 3'd1}: want = 128'h900092a79d6aa7b87fbc1193b9ae7be5;
        {5'd8, 3'd2}: want = 128'h519f4809b525160700055883a146e6f3;
        {5'd8, 3'd3}: want = 128'h53eb84bc44b4b4eef9fd3eda65e6d1b5;
        {5'd8, 3'd4}: want = 128'h3c6d322a68f4d28869efc1e09b5be13e;
        {5'd8, 3'd5}: want = 128'h46b7d6e5cd24d98217d03d18b015df35;
        {5'd16, 3'd0}: want = 128'h6452dea751220e2d7b7af19575fe8d81;
        {5'd16, 3'd1}: want = 128'h8a814c93bae856e7e8001a63e313ee31;
        {5'd16, 3'd2}: want = 128'hfd29efb584dec3dfb282a26e6b297475;
        {5'd16, 3'd3}: want = 128'hbd6a8831350dcb1f465ef63b450203f3;
        {5'd16, 3'd4}: want = 128'h33094636830764a6d2b4f7bfba70b1ba;
        {5'd16, 3'd5}: want = 128'h34423f521d3731eb91d73798eb44c5df;
        default: want = 128'h0;
        endcase
    endfunction

    integer cycle = 0;
    always @(posedge clk) cycle <= cycle + 1;

    wire [2:0] fin;   // per instance: all 6 digests seen
    integer errors = 0;
    integer passes = 0;

    genvar g;
    generate
        for (g = 0; g < 3; g = g + 1) begin : g_k
            localparam integer KK = (g == 0) ? 4 : (g == 1) ? 8 : 16;
            reg  [2:0]  v = 3'd0;     // message being sent
            reg  [31:0] off = 0;      // byte offset of the current beat
            reg  [2:0]  vo = 3'd0;    // message whose digest comes next
            integer     t0 = 0;       // cycle of the message's first beat
            wire [31:0] len  = vlen(v);
            wire        more = (v <= 3'd5);
            wire        last = (len == 0) || (off + 4 >= len);
            wire [31:0] rem  = len - off;
            wire [3:0]  keep = (len == 0) ? 4'b0000 :
                               (rem >= 4) ? 4'b1111 : (4'b1111 >> (4 - rem[2:0]));
            wire [31:0] data = {vbyte(v, off + 3), vbyte(v, off + 2),
                                vbyte(v, off + 1), vbyte(v, off)};
            wire        tready, mvalid;
            wire [127:0] digest;

            md5p_core #(.K(KK)) dut (
                .clk(clk), .rst(rst),
                .s_tdata(data), .s_tkeep(keep), .s_tlast(last),
                .s_tvalid(more & ~rst), .s_tready(tready),
                .m_digest(digest), .m_valid(mvalid), .m_ready(1'b1));

            always @(posedge clk) begin
                if (!rst && more && tready) begin
                    if (off == 0) t0 <= cycle;
                    if (last) begin
                        v   <= v + 3'd1;
                        off <= 0;
                    end else begin
                        off <= off + 4;
                    end
                end
                if (!rst && mvalid) begin
                    if (digest == bswap(want(KK[4:0], vo))) begin
                        passes = passes + 1;
                        $display("PASS K=%0d message %0d (%0d bytes): %032h, done at cycle %0d",
                                 KK, vo, vlen(vo), bswap(digest), cycle);
                    end else begin
                        errors = errors + 1;
                        $display("FAIL K=%0d message %0d (%0d bytes): got %032h want %032h",
                                 KK, vo, vlen(vo), bswap(digest), want(KK[4:0], vo));
                    end
                    vo <= vo + 3'd1;
                end
            end
            assign fin[g] = (vo == 3'd6);
        end
    endgenerate

    initial begin
        repeat (3) @(posedge clk);
        rst <= 1'b0;
        wait (&fin);
        @(posedge clk);
        $display("md5p vectors: %0d passed, %0d failed, %0d cycles", passes, errors, cycle);
        if (errors != 0 || passes != 18)
            $fatal(1, "md5p spec vectors failed");
        $finish;
    end

    initial begin
        #(10 * 2000000);
        $fatal(1, "md5p spec vectors: timeout");
    end
endmodule
EOF
    local log="$LOG/sim_md5p_vectors.log"
    (cd "$dir" \
        && verilator --binary --timing -Wno-fatal -Wno-lint -Wno-style -j 2 -MAKEFLAGS "OPT_FAST=-O1 OPT_SLOW=-O0 OPT_GLOBAL=-O0" \
               --top-module md5p_vectors_tb -Mdir obj -I"$HW/rtl" \
               "$HW/rtl/md5_iter.v" "$HW/rtl/md5_words.v" "$HW/rtl/md5p_core.v" md5p_vectors_tb.v \
        && ./obj/Vmd5p_vectors_tb) >"$log" 2>&1 \
        && grep -q "md5p vectors: 18 passed, 0 failed" "$log"
    local rc=$?
    count_result "sim md5p_core spec vectors (Verilator, K=4/8/16, incl. a*1000000)" $rc
    [ $rc -eq 0 ] || tail -30 "$log"
    grep -E "^md5p vectors" "$log"
}
md5p_vectors
