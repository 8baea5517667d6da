// md5_pipe.v -- fully unrolled 64-stage MD5 compression pipeline (RFC 1321)
// for many independent messages: one 512-bit block accepted per clock,
// results in order 65 clocks later.
//
// Synthesisable Verilog-2005, no vendor primitives.
//
// WHAT THE PIPELINE BUYS, AND WHAT IT DOES NOT.  One chained message (one
// stream) still runs at the iterative rate: block n+1 of a message needs
// block n's chaining value, which leaves the pipe 65 clocks after block n
// went in, so a single stream gets one block per 65 clocks -- exactly
// md5_iter's rate, with 64 times the hardware.  This is RFC 1810's point:
// MD5's steps are serial within a message, and no amount of hardware speeds
// up one stream.  The pipeline's one-block-per-clock rate only helps when
// there are many independent messages (or independent chains, e.g. the
// lanes of MD5-P/K) to interleave: with 65 or more streams in flight every
// stage is busy; with N < 65 streams the rate is N/65 blocks per clock.
//
// Interface (valid/ready, in order; a user tag travels with every block so
// that a caller can interleave blocks of many chained messages and route a
// result back to its stream):
//   in_valid, in_ready, in_cv[127:0], in_blk[511:0], in_tag[TAG_W-1:0]
//     A block is accepted on a rising edge with in_valid && in_ready.
//     in_cv: a = [31:0], b = [63:32], c = [95:64], d = [127:96] (as md5_iter);
//     in_blk: message word j (little-endian) = [32j+31:32j].
//   out_valid, out_ready, out_cv[127:0], out_tag[TAG_W-1:0]
//     out_cv = the chaining value after the block (same packing as in_cv; for
//     a message's last block it is the digest, byte k = out_cv[8k+7:8k]).
//     Held stable while out_valid && !out_ready.
//
// Flow control: the whole pipe advances together on en = !out_valid ||
// out_ready, and in_ready = en.  So in_ready follows out_ready
// combinationally (no other combinational in->out path), bubbles are not
// squeezed out during a stall, and with out_ready tied high in_ready is
// constantly 1 and the enable logic disappears (a pure valid-in/valid-out
// pipeline).  `en` fans out to every data flop; a caller that needs
// back-pressure at high fMax can instead tie out_ready high and put a
// 65-entry FIFO (credit counted) behind out_*.
//
// Timing (exact, counting only clocks with en = 1):
//   edge L      : in_valid && in_ready -> input register R0: b, c, d, cv, tag,
//                 the message, akm = a + K[0] + M[0], km = K[1] + M[1]
//   edge L+1+i  : step i (i = 0..63), R_i -> R_{i+1}; step 63 also adds the
//                 chaining value into the output register
//   out_valid is high in the clock after edge L+64: a block presented in
//   clock c (accepted at the end of c) comes out in clock c+65, and blocks
//   accepted on consecutive clocks come out on consecutive clocks.
//   Latency 65 clocks, throughput 1 block per clock (512 bits per clock).
//
// Stage structure.  Stage i is step i of the compression function and
// nothing else: its round (F/G/H/I), rotation amount, K constants and
// message-word indices are elaboration-time constants, so a stage has no
// ROM, no word mux and no counter -- the rotation is wiring and F/G/H/I is
// one fixed function.  As in md5_iter the a word only exists as a
// precomputed sum; register R_i holds
//   b, c, d                  the state before step i
//   akm = a + K[i] + M[g(i)] (a = the previous step's d)
//   km  = K[i+1] + M[g(i+1)] (i <= 62; so akm for the next stage is d + km)
//   cv, tag, valid           carried to the end for the chaining add / caller
//   the message words still needed (below)
// and step i computes b' = b + rot(akm + f(b,c,d)), akm' = d + km and
// km' = K[i+2] + M[g(i+2)] (a constant add) in parallel, so the longest
// path is the step itself, akm + f -> rotate -> + b.  In step 63 the
// chaining add of the b word is re-associated as (cv.b + b) + rot(t), with
// cv.b + b formed from registers beside t (as in md5_iter), so no adder is
// in series with the step; the other three words are cv.x + register.
//
// Message words: each stage keeps only the words it still needs.  Word w is
// read last by step 48 + (7w mod 16) (round 4 uses g(i) = 7i mod 16, and 7
// is its own inverse mod 16, so each word's round-4 use is its last), and it
// is read two steps early (the km look-ahead: step j forms K[j+2] + M[g(j+2)]).
// So R_i holds word w iff 48 + (7w mod 16) >= i + 2: all 16 words in R_0..R_46,
// then one word fewer per stage (R_47 drops word 0, R_48 word 7, ..., R_61
// keeps only word 9), and none in R_62, R_63.  That is 872 words instead of
// 64 x 16 = 1024 (4,864 flops saved).  A dropped word is driven as constant 0
// and never read; the rounds before 4 cannot drop anything because every
// word is used again in round 4.  In all: 46,497 + 65 x TAG_W flops
// (47,017 at TAG_W = 8, as Yosys counts them) and 260 32-bit adders.
//
// Storage (parameter STORE).  Most of those flops only delay data: the
// message words, and the chaining value and tag that are needed again only
// at the end.  With STORE = "ram" (the default) they are written once, at
// the input, into small memories that each stage reads at a fixed age
// instead: one 64 x 32 memory per stage 2..61 holding the one word that
// stage's look-ahead reads (its data written with the block, read at
// address wr_ptr - (I - 1), two registers before use so that the memory's
// clock-to-out has a clock of its own), and one 64 x (128 + TAG_W) memory
// for the chaining value and tag, read for stage 63.  wr_ptr advances with
// en, so a stall freezes writes, reads and ages together.  A read address
// is never the address written on the same edge (ages 1..62 of 64 slots),
// so no read-during-write rule is involved.  On ECP5 each memory maps to
// one block RAM (cv + tag: four), and the flops fall from about 47k to
// about 11k (stage registers b, c, d, akm, km, valid, and the read
// registers).  STORE = "flops" keeps every word in flops as described above
// (no memories at all).
//
// Parameters
//   TAG_W  width of the user tag (>= 1).
//   STORE  "ram" or "flops" (see above); same function, same timing.
module md5_pipe #(
    parameter TAG_W = 8,
    parameter STORE = "ram"
) (
    input  wire             clk,
    input  wire             rst,        // synchronous, active high (clears the valid bits)

    input  wire             in_valid,
    output wire             in_ready,
    input  wire [127:0]     in_cv,
    input  wire [511:0]     in_blk,
    input  wire [TAG_W-1:0] in_tag,

    output wire             out_valid,
    input  wire             out_ready,
    output wire [127:0]     out_cv,
    output wire [TAG_W-1:0] out_tag
);

    // ------------------------------------------------------------------
    // Elaboration-time constants of each step.
    // ------------------------------------------------------------------
    // K[i] (md5_k, from md5_k.vh): called with constants only.
    `include "md5_k.vh"

    // Message-word index g(i).
    function integer md5_g;
        input integer i;
        begin
            if (i < 16)      md5_g = i;
            else if (i < 32) md5_g = (5 * i + 1) % 16;
            else if (i < 48) md5_g = (3 * i + 5) % 16;
            else             md5_g = (7 * i) % 16;
        end
    endfunction

    // Left-rotation amount of step i.
    function integer md5_s;
        input integer i;
        begin
            case ((i / 16) * 4 + (i % 4))
            0:  md5_s = 7;   1:  md5_s = 12;  2:  md5_s = 17;  3:  md5_s = 22;
            4:  md5_s = 5;   5:  md5_s = 9;   6:  md5_s = 14;  7:  md5_s = 20;
            8:  md5_s = 4;   9:  md5_s = 11;  10: md5_s = 16;  11: md5_s = 23;
            12: md5_s = 6;   13: md5_s = 10;  14: md5_s = 15;  default: md5_s = 21;
            endcase
        end
    endfunction

    // The last step that reads word w (round 4, g(i) = 7i mod 16).
    function integer md5_last;
        input integer w;
        begin
            md5_last = 48 + (7 * w) % 16;
        end
    endfunction

    // ------------------------------------------------------------------
    // Stage registers R_0..R_63 as net arrays (element i = R_i).
    // ------------------------------------------------------------------
    wire              en = ~out_valid | out_ready;
    assign in_ready = en;

    localparam RAM = (STORE == "ram");

    // The memories' write address: advances on every enabled edge, so the
    // block in R_I was written at wr_ptr - I (mod 64).
    reg [5:0] wr_ptr;
    always @(posedge clk)
        if (rst)
            wr_ptr <= 6'd0;
        else if (en)
            wr_ptr <= wr_ptr + 6'd1;

    // (Arrays of nets, one element per stage or word, rather than flat
    // buses: simulators then re-evaluate only what changed.)
    wire [31:0]      b_w [0:63];
    wire [31:0]      c_w [0:63];
    wire [31:0]      d_w [0:63];
    wire [31:0]      akm_w [0:63];
    wire [31:0]      km_w [0:62];             // R_0..R_62
    wire             v_w [0:63];
    // With STORE = "ram", cv_w and tag_w exist only for R_0 and R_63, and
    // m_w only for R_0 and R_1: the other elements are neither driven nor
    // read.  Message word W of R_i is m_w[16*i + W], for R_0..R_61 (R_62 and
    // R_63 need none).  Words a stage has dropped are constant 0 and unread.
    /* verilator lint_off UNUSEDSIGNAL */
    /* verilator lint_off UNDRIVEN */
    wire [127:0]     cv_w [0:63];
    wire [TAG_W-1:0] tag_w [0:63];
    wire [31:0]      m_w [0:62*16-1];
    /* verilator lint_on UNDRIVEN */
    /* verilator lint_on UNUSEDSIGNAL */

    // R_0: the input register.  a enters only as akm = a + K[0] + M[0].
    reg  [31:0]      b0, c0, d0, akm0, km0;
    reg  [127:0]     cv0;
    reg  [511:0]     m0;
    reg  [TAG_W-1:0] tag0;
    reg              v0;
    always @(posedge clk) begin
        if (en) begin
            b0   <= in_cv[63:32];
            c0   <= in_cv[95:64];
            d0   <= in_cv[127:96];
            akm0 <= in_cv[31:0] + in_blk[31:0] + md5_k(6'd0);
            km0  <= in_blk[63:32] + md5_k(6'd1);
            cv0  <= in_cv;
            m0   <= in_blk;
            tag0 <= in_tag;
        end
    end
    always @(posedge clk) begin
        if (rst)
            v0 <= 1'b0;
        else if (en)
            v0 <= in_valid;
    end
    assign b_w[0]   = b0;
    assign c_w[0]   = c0;
    assign d_w[0]   = d0;
    assign akm_w[0] = akm0;
    assign km_w[0]  = km0;
    assign cv_w[0]  = cv0;
    assign tag_w[0] = tag0;

    // With memories, the chaining value and tag skip stages 1..62: written
    // with the block, read for stage 63 (age 63, read two edges early).
    generate
        if (RAM) begin : cv_mem
            wire [TAG_W+127:0] q;
            md5_pipe_delay #(.W(TAG_W + 128), .AGE(62)) u_delay (
                .clk(clk), .en(en), .wr_ptr(wr_ptr), .d({in_tag, in_cv}), .q(q)
            );
            assign cv_w[63]  = q[127:0];
            assign tag_w[63] = q[TAG_W+127:128];
        end
    endgenerate
    assign v_w[0]   = v0;
    genvar W0;
    generate
        for (W0 = 0; W0 < 16; W0 = W0 + 1) begin : r0_word
            assign m_w[W0] = m0[32*W0 +: 32];
        end
    endgenerate

    // ------------------------------------------------------------------
    // Steps 0..63.  Step I reads R_I and writes R_{I+1} (step 63 writes the
    // output register).
    // ------------------------------------------------------------------
    genvar I, W;
    generate
        for (I = 0; I < 64; I = I + 1) begin : step
            localparam integer S = md5_s(I);
            localparam integer R = I / 16;

            wire [31:0]      b   = b_w[I];
            wire [31:0]      c   = c_w[I];
            wire [31:0]      d   = d_w[I];
            wire [31:0]      akm = akm_w[I];
            wire             v   = v_w[I];

            // The round function is fixed per stage.
            wire [31:0] fn;
            if (R == 0) begin : f_f
                assign fn = (b & c) | (~b & d);
            end else if (R == 1) begin : f_g
                assign fn = (b & d) | (c & ~d);
            end else if (R == 2) begin : f_h
                assign fn = b ^ c ^ d;
            end else begin : f_i
                assign fn = c ^ (b | ~d);
            end

            wire [31:0] t     = akm + fn;
            wire [31:0] rot_t = {t[31-S:0], t[31:32-S]};   // fixed wiring

            if (I < 63) begin : mid
                wire [31:0] km = km_w[I];
                reg  [31:0]      b_q, c_q, d_q, akm_q;
                reg              v_q;
                always @(posedge clk) begin
                    if (en) begin
                        b_q   <= b + rot_t;
                        c_q   <= b;
                        d_q   <= c;
                        akm_q <= d + km;          // a' = d
                    end
                end
                if (!RAM) begin : carry
                    reg  [127:0]     cv_q;
                    reg  [TAG_W-1:0] tag_q;
                    always @(posedge clk)
                        if (en) begin
                            cv_q  <= cv_w[I];
                            tag_q <= tag_w[I];
                        end
                    assign cv_w[I+1]  = cv_q;
                    assign tag_w[I+1] = tag_q;
                end
                always @(posedge clk) begin
                    if (rst)
                        v_q <= 1'b0;
                    else if (en)
                        v_q <= v;
                end
                assign b_w[I+1]   = b_q;
                assign c_w[I+1]   = c_q;
                assign d_w[I+1]   = d_q;
                assign akm_w[I+1] = akm_q;
                assign v_w[I+1]   = v_q;

                // km for step I+2 = K[I+2] + M[g(I+2)]: a constant add.
                if (I < 62) begin : la
                    localparam [5:0]   KI = I + 2;
                    localparam integer G  = md5_g(I + 2);
                    wire [31:0] word;
                    if (RAM && I >= 2) begin : mem
                        // This stage's word, written with the block I
                        // enabled edges ago (see "Storage" above).
                        md5_pipe_delay #(.W(32), .AGE(I - 1)) u_delay (
                            .clk(clk), .en(en), .wr_ptr(wr_ptr),
                            .d(in_blk[32*G +: 32]), .q(word)
                        );
                    end else begin : reg_word
                        assign word = m_w[16*I + G];
                    end
                    reg [31:0] km_q;
                    always @(posedge clk)
                        if (en)
                            km_q <= word + md5_k(KI);
                    assign km_w[I+1] = km_q;
                end

                // The words R_{I+1} still needs (see the header); with
                // memories, only R_1's word 3 (stage 1's look-ahead).
                if (I < 61 && (!RAM || I == 0)) begin : words
                    for (W = 0; W < 16; W = W + 1) begin : w
                        if (md5_last(W) >= I + 3) begin : keep
                            reg [31:0] q;
                            always @(posedge clk)
                                if (en)
                                    q <= m_w[16*I + W];
                            assign m_w[16*(I+1) + W] = q;
                        end else begin : drop
                            assign m_w[16*(I+1) + W] = 32'd0;
                        end
                    end
                end
            end else begin : fin
                // Step 63 and the chaining add: result = cv + (d, b', b, c).
                wire [127:0]     cv  = cv_w[63];
                wire [TAG_W-1:0] tag = tag_w[63];
                wire [31:0] cvb_b = cv[63:32] + b;
                reg  [127:0]     cv_q;
                reg  [TAG_W-1:0] tag_q;
                reg              v_q;
                always @(posedge clk) begin
                    if (en) begin
                        cv_q  <= {cv[127:96] + c,
                                  cv[95:64]  + b,
                                  cvb_b      + rot_t,
                                  cv[31:0]   + d};
                        tag_q <= tag;
                    end
                end
                always @(posedge clk) begin
                    if (rst)
                        v_q <= 1'b0;
                    else if (en)
                        v_q <= v;
                end
                assign out_cv    = cv_q;
                assign out_tag   = tag_q;
                assign out_valid = v_q;
            end
        end
    endgenerate

endmodule
