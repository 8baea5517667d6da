// md5_iter.v -- iterative MD5 compression core (RFC 1321), one step per clock.
//
// Synthesisable Verilog-2005, no vendor primitives.
//
// Block timing (65 cycles per 512-bit block, back to back):
//   edge L     : start && ready -> load b,c,d,cv_out <= cv_in, msg <= blk_in,
//                akm <= cv_in.a + K[0] + M[0]          (precompute, "a step early"),
//                km <= K[1] + M[1], kr <= K[2], mr <= M[2], la <= 3 (look-ahead),
//                fx/fy <= step 0's round function split on b (from cv_in.c, .d)
//   edges L+1..L+64 : steps 0..63, one per clock
//   edge L+64  : step 63 plus cv_out <= cv_out + {a,b,c,d}; done <= 1
//                (the b word as (cv.b + b) + rot(t), so no adder is added in
//                series with the step)
//   The step path is b -> fn = b ? fx : fy (one LUT) -> akm + fn -> one-hot
//   rotate (AND-OR, registered select) -> + b (or + (cv.b + b) in step 63).
//   cycle after L+64: done = 1, ready = 1, cv_out valid -> the next start may be
//                taken on this very cycle (edge L+65), giving 65 cycles per block.
//
// Word order: a = cv[31:0], b = cv[63:32], c = cv[95:64], d = cv[127:96];
// message word j (little-endian, as RFC 1321 decodes it) = blk_in[32*j+31:32*j].
// cv_out is the final chaining value from `done` until the next accepted start
// (at that edge it is overwritten with cv_in, so a chained caller may feed
// cv_out straight back into cv_in).
//
// Parameters
//   COUNTER = "binary" | "gray"   encoding of the 6-bit step counter register.
//                                 "gray" changes exactly one bit per step
//                                 (including the 63 -> 0 wrap).  The
//                                 ROMs and selects do not decode it on the
//                                 step path (registered rsel/nrnd/last,
//                                 binary look-ahead la).
//   GATING  = 0 | 1               0: the step datapath registers (b,c,d,akm
//                                 and the look-ahead fx,fy,km,kr,mr,la) are
//                                 clocked every cycle and run free while
//                                 idle.  1: they are only enabled while busy
//                                 or loading (en = busy | load).  On an FPGA
//                                 this becomes the flip-flops' clock enable; in
//                                 an ASIC flow the same `en` drives an
//                                 integrated clock-gating cell (latch + AND,
//                                 e.g. a library ICG, inferred by the synthesis
//                                 tool's clock-gating insertion) so the 128
//                                 datapath flops see no clock edges when idle.
//   ROT_PAIRS = 0 | 1             logic shape of the rotate only (same
//                                 function): 1 keeps its AND-OR pairs as
//                                 nets (faster on iCE40), 0 lets the tool
//                                 restructure it (faster on ECP5).
module md5_iter #(
    parameter COUNTER = "binary",
    parameter GATING  = 0,
    parameter ROT_PAIRS = 0
) (
    input  wire         clk,
    input  wire         rst,        // synchronous, active high
    input  wire         start,      // load cv_in/blk_in when ready
    output wire         ready,      // core idle: a start is accepted
    input  wire [127:0] cv_in,
    input  wire [511:0] blk_in,
    output reg          done,       // one-cycle pulse: cv_out holds the result
    output reg  [127:0] cv_out
);

    localparam GRAY = (COUNTER == "gray");

    // ------------------------------------------------------------------
    // ROMs: K constants (md5_k, from md5_k.vh), message-word index, both
    // explicit case muxes.
    // ------------------------------------------------------------------
    `include "md5_k.vh"

    function [3:0] md5_g;
        input [5:0] i;
        begin
            case (i)
            6'd0: md5_g = 4'd0;
            6'd1: md5_g = 4'd1;
            6'd2: md5_g = 4'd2;
            6'd3: md5_g = 4'd3;
            6'd4: md5_g = 4'd4;
            6'd5: md5_g = 4'd5;
            6'd6: md5_g = 4'd6;
            6'd7: md5_g = 4'd7;
            6'd8: md5_g = 4'd8;
            6'd9: md5_g = 4'd9;
            6'd10: md5_g = 4'd10;
            6'd11: md5_g = 4'd11;
            6'd12: md5_g = 4'd12;
            6'd13: md5_g = 4'd13;
            6'd14: md5_g = 4'd14;
            6'd15: md5_g = 4'd15;
            6'd16: md5_g = 4'd1;
            6'd17: md5_g = 4'd6;
            6'd18: md5_g = 4'd11;
            6'd19: md5_g = 4'd0;
            6'd20: md5_g = 4'd5;
            6'd21: md5_g = 4'd10;
            6'd22: md5_g = 4'd15;
            6'd23: md5_g = 4'd4;
            6'd24: md5_g = 4'd9;
            6'd25: md5_g = 4'd14;
            6'd26: md5_g = 4'd3;
            6'd27: md5_g = 4'd8;
            6'd28: md5_g = 4'd13;
            6'd29: md5_g = 4'd2;
            6'd30: md5_g = 4'd7;
            6'd31: md5_g = 4'd12;
            6'd32: md5_g = 4'd5;
            6'd33: md5_g = 4'd8;
            6'd34: md5_g = 4'd11;
            6'd35: md5_g = 4'd14;
            6'd36: md5_g = 4'd1;
            6'd37: md5_g = 4'd4;
            6'd38: md5_g = 4'd7;
            6'd39: md5_g = 4'd10;
            6'd40: md5_g = 4'd13;
            6'd41: md5_g = 4'd0;
            6'd42: md5_g = 4'd3;
            6'd43: md5_g = 4'd6;
            6'd44: md5_g = 4'd9;
            6'd45: md5_g = 4'd12;
            6'd46: md5_g = 4'd15;
            6'd47: md5_g = 4'd2;
            6'd48: md5_g = 4'd0;
            6'd49: md5_g = 4'd7;
            6'd50: md5_g = 4'd14;
            6'd51: md5_g = 4'd5;
            6'd52: md5_g = 4'd12;
            6'd53: md5_g = 4'd3;
            6'd54: md5_g = 4'd10;
            6'd55: md5_g = 4'd1;
            6'd56: md5_g = 4'd8;
            6'd57: md5_g = 4'd15;
            6'd58: md5_g = 4'd6;
            6'd59: md5_g = 4'd13;
            6'd60: md5_g = 4'd4;
            6'd61: md5_g = 4'd11;
            6'd62: md5_g = 4'd2;
            6'd63: md5_g = 4'd9;
            default: md5_g = 4'd0;
            endcase
        end
    endfunction

    // Per-step left rotation: a case over the 16 (round, step mod 4) pairs,
    // each arm a fixed wiring -- no barrel shifter.
    function [31:0] md5_rot;
        input [3:0]  sel;   // {round, step mod 4}
        input [31:0] x;
        begin
            case (sel)
            4'h0: md5_rot = {x[24:0], x[31:25]}; //  7
            4'h1: md5_rot = {x[19:0], x[31:20]}; // 12
            4'h2: md5_rot = {x[14:0], x[31:15]}; // 17
            4'h3: md5_rot = {x[9:0],  x[31:10]}; // 22
            4'h4: md5_rot = {x[26:0], x[31:27]}; //  5
            4'h5: md5_rot = {x[22:0], x[31:23]}; //  9
            4'h6: md5_rot = {x[17:0], x[31:18]}; // 14
            4'h7: md5_rot = {x[11:0], x[31:12]}; // 20
            4'h8: md5_rot = {x[27:0], x[31:28]}; //  4
            4'h9: md5_rot = {x[20:0], x[31:21]}; // 11
            4'ha: md5_rot = {x[15:0], x[31:16]}; // 16
            4'hb: md5_rot = {x[8:0],  x[31:9]};  // 23
            4'hc: md5_rot = {x[25:0], x[31:26]}; //  6
            4'hd: md5_rot = {x[21:0], x[31:22]}; // 10
            4'he: md5_rot = {x[16:0], x[31:17]}; // 15
            default: md5_rot = {x[10:0], x[31:11]}; // 21
            endcase
        end
    endfunction

    // Message word select: 16:1 mux driven by the index ROM.
    function [31:0] md5_word;
        input [511:0] m;
        input [3:0]   j;
        begin
            case (j)
            4'd0:  md5_word = m[ 31:  0];
            4'd1:  md5_word = m[ 63: 32];
            4'd2:  md5_word = m[ 95: 64];
            4'd3:  md5_word = m[127: 96];
            4'd4:  md5_word = m[159:128];
            4'd5:  md5_word = m[191:160];
            4'd6:  md5_word = m[223:192];
            4'd7:  md5_word = m[255:224];
            4'd8:  md5_word = m[287:256];
            4'd9:  md5_word = m[319:288];
            4'd10: md5_word = m[351:320];
            4'd11: md5_word = m[383:352];
            4'd12: md5_word = m[415:384];
            4'd13: md5_word = m[447:416];
            4'd14: md5_word = m[479:448];
            default: md5_word = m[511:480];
            endcase
        end
    endfunction

    // Counter encoding.
    function [5:0] cnt_enc;
        input [5:0] b;
        begin
            cnt_enc = GRAY ? (b ^ {1'b0, b[5:1]}) : b;
        end
    endfunction

    function [5:0] cnt_dec;
        input [5:0] g;
        begin
            if (GRAY) begin
                cnt_dec[5] = g[5];
                cnt_dec[4] = cnt_dec[5] ^ g[4];
                cnt_dec[3] = cnt_dec[4] ^ g[3];
                cnt_dec[2] = cnt_dec[3] ^ g[2];
                cnt_dec[1] = cnt_dec[2] ^ g[1];
                cnt_dec[0] = cnt_dec[1] ^ g[0];
            end else begin
                cnt_dec = g;
            end
        end
    endfunction

    // ------------------------------------------------------------------
    // State
    // ------------------------------------------------------------------
    reg         busy;
    reg  [5:0]  cnt;            // step counter, binary or Gray encoded
    // There is no `a` register: a enters a step only through akm, which is
    // formed from the previous step's d (a <- d) one clock early.
    reg  [31:0] b, c, d;
    reg  [31:0] akm;            // a + K[step] + M[g(step)], precomputed
    reg  [511:0] msg;

    assign ready = ~busy;
    wire load  = start & ~busy;

    wire [5:0] step  = cnt_dec(cnt);
    wire [5:0] nstep = step + 6'd1;
    // round of step + 2 (step mod 16 >= 14 carries into the round)
    wire [1:0] n2rnd = step[5:4] + {1'b0, step[3:1] == 3'b111};

    // Registered step decodes, so that no counter decode sits on the step
    // path: rsel = one-hot {round, step mod 4} of the current step (below),
    // nrnd = round of the next step, last = step 63.
    reg         last;

    // Operand lookahead (all from registers, no counter decode on the path):
    //   km = K[s+1] + M[g(s+1)]       (so akm_nx is one 2-input add: d + km)
    //   kr = K[s+2], mr = M[g(s+2)]   (so km_nx is one 2-input add)
    //   la = s+3 (binary)             (indexes the K / word-index ROMs)
    reg  [31:0] km, kr, mr;
    reg  [5:0]  la;

    // Round function, split on b.  Bitwise, each of F/G/H/I is a 2:1 mux on
    // b between two functions of (c, d) alone: fx = f(1, c, d) and
    // fy = f(0, c, d).  The next step's c and d are this step's b and c
    // (registers), and its round is known (nrnd), so fx/fy are formed a
    // step early into registers and the step itself only does
    // fn = b ? fx : fy (one LUT level, no round select on the path).
    //            b = 1 (fx)    b = 0 (fy)
    //   F  b?c:d      c             d
    //   G  d?b:c      c | d         c & ~d
    //   H  b^c^d      ~(c ^ d)      c ^ d
    //   I  c^(b|~d)   ~c            c ^ ~d
    reg  [31:0] fx, fy;
    reg  [1:0]  nrnd;           // round of step s+1 (s = current step)
    function [63:0] fxy;        // {fx, fy} of a round from its (c, d)
        input [1:0]  rnd;
        input [31:0] cc, dd;
        begin
            case (rnd)
            2'd0:    fxy = {cc,           dd};
            2'd1:    fxy = {cc | dd,      cc & ~dd};
            2'd2:    fxy = {~(cc ^ dd),   cc ^ dd};
            default: fxy = {~cc,          cc ^ ~dd};
            endcase
        end
    endfunction
    wire [63:0] fxy_nx = fxy(nrnd, b, c);
    wire [31:0] fn     = (b & fx) | (~b & fy);

    // Rotation select, one-hot and registered (rsel[k] <=> {round, step mod
    // 4} == k), so the rotate is an AND-OR of 16 fixed wirings with no
    // select decode.  ROT_PAIRS only shapes the logic, the function is the
    // same: 1 keeps the 8 pairs (s0 & x0 | s1 & x1, one LUT4 each) as nets
    // so that logic optimisation cannot fold them back into a deeper mux
    // tree, leaving an 8-input OR behind them (best on iCE40's plain LUT4s);
    // 0 leaves the whole AND-OR to the tool (best on ECP5, whose PFUMX/L6MUX
    // wide-mux cells the tool then uses).
    reg  [15:0] rsel;
    wire [31:0] t      = akm + fn;
    wire [31:0] rot_pair [0:7];
    genvar gp;
    generate
        for (gp = 0; gp < 8; gp = gp + 1) begin : g_rot
            wire [31:0] pv =
                (md5_rot(2*gp,   t) & {32{rsel[2*gp]}}) |
                (md5_rot(2*gp+1, t) & {32{rsel[2*gp+1]}});
            if (ROT_PAIRS != 0) begin : g_keep
                (* keep *) wire [31:0] p = pv;
                assign rot_pair[gp] = p;
            end else begin : g_free
                assign rot_pair[gp] = pv;
            end
        end
    endgenerate
    wire [31:0] rot_t  = rot_pair[0] | rot_pair[1] | rot_pair[2] | rot_pair[3] |
                         rot_pair[4] | rot_pair[5] | rot_pair[6] | rot_pair[7];
    wire [31:0] new_b  = b + rot_t;
    // Chaining add for the b word re-associated: cv.b + (b + rot_t) =
    // (cv.b + b) + rot_t, where cv.b + b is formed from registers in parallel
    // with t, so the final add is no longer in series with step 63's add.
    wire [31:0] cvb_b  = cv_out[63:32] + b;
    // Next step's a is the current d: d + (K[s+1] + M[g(s+1)]).
    wire [31:0] akm_nx = d + km;
    wire [31:0] akm_ld = cv_in[31:0] + md5_k(6'd0) + blk_in[31:0];

    wire dp_en = (GATING != 0) ? (busy | load) : 1'b1;

    // Control.
    always @(posedge clk) begin
        if (rst) begin
            busy <= 1'b0;
            done <= 1'b0;
            cnt  <= 6'd0;
            rsel <= 16'd1;
            nrnd <= 2'd0;
            last <= 1'b0;
        end else begin
            done <= busy & last;
            if (load) begin
                busy <= 1'b1;
                cnt  <= cnt_enc(6'd0);
                rsel <= 16'd1;
                nrnd <= 2'd0;           // round of step 1
                last <= 1'b0;
            end else if (busy) begin
                cnt  <= cnt_enc(nstep);
                rsel <= 16'd1 << {nstep[5:4], nstep[1:0]};
                nrnd <= n2rnd;          // round of step s+2
                last <= (nstep == 6'd63);
                if (last)
                    busy <= 1'b0;
            end
        end
    end

    // Datapath (b,c,d,akm and the operand lookahead): clock-enabled by dp_en.
    always @(posedge clk) begin
        if (dp_en) begin
            if (load) begin
                b   <= cv_in[63:32];
                c   <= cv_in[95:64];
                d   <= cv_in[127:96];
                akm <= akm_ld;
                fx  <= cv_in[95:64];    // step 0 is round F: fx = c, fy = d
                fy  <= cv_in[127:96];
                km  <= md5_k(6'd1) + blk_in[63:32];
                kr  <= md5_k(6'd2);
                mr  <= blk_in[95:64];
                la  <= 6'd3;
            end else begin
                b   <= new_b;
                c   <= b;
                d   <= c;
                akm <= akm_nx;
                {fx, fy} <= fxy_nx;
                km  <= kr + mr;
                kr  <= md5_k(la);
                mr  <= md5_word(msg, md5_g(la));
                la  <= la + 6'd1;
            end
        end
    end

    // Message block and chaining value / result.
    always @(posedge clk) begin
        if (load) begin
            msg    <= blk_in;
            cv_out <= cv_in;
        end else if (busy & last) begin
            cv_out <= {cv_out[127:96] + c,
                       cv_out[95:64]  + b,
                       cvb_b          + rot_t,
                       cv_out[31:0]   + d};
        end
    end

endmodule
