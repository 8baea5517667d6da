// fv_md5_iter.v -- formal property wrapper for hw/rtl/md5_iter.v (SymbiYosys).
//
// The core's step counter register `cnt` is internal; md5_iter.sby exposes it
// as an output port (yosys `expose`) before this wrapper is elaborated, so the
// RTL itself is not touched.  COUNTER/GATING are set on md5_iter with chparam
// in the .sby file; GRAY here must match COUNTER.
//
// Shadow state: `ph` counts the clock edges since the edge that accepted a
// start (start && ready): 0 = idle, 1..64 = busy.  The properties are
//   A1  ready == (ph == 0): ready is low for exactly 64 cycles after an accepted
//       start and high when idle (so a start is taken again 65 cycles later);
//   A2  done is high exactly in the cycle after the 64th edge (ph went 64 -> 0),
//       i.e. `done` rises 64 clocks after the accepting edge, for one cycle;
//   A3  cnt encodes step ph-1 while busy (binary or reflected Gray) and is 0
//       while idle, so the counter visits every code in order;
//   A4  (Gray) every step changes exactly one bit of cnt, including the
//       63 -> 0 wrap, and cnt never changes when no step is taken.
// The datapath (cv_in, blk_in, cv_out) is left unconstrained and unobserved.
module fv_md5_iter #(
    parameter GRAY = 0
) (
    input  wire         clk,
    input  wire         rst,
    input  wire         start,
    input  wire [127:0] cv_in,
    input  wire [511:0] blk_in
);
    wire         ready, done;
    wire [127:0] cv_out;
    wire [5:0]   cnt;
    wire         busy;

    md5_iter u_core (
        .clk(clk), .rst(rst), .start(start), .ready(ready),
        .cv_in(cv_in), .blk_in(blk_in), .done(done), .cv_out(cv_out),
        .cnt(cnt), .busy(busy)           // exposed internal registers
    );

`ifdef FORMAL
    function [5:0] enc;
        input [5:0] s;
        enc = GRAY ? (s ^ {1'b0, s[5:1]}) : s;
    endfunction

    reg        init = 1'b1;
    reg  [6:0] ph   = 7'd0;
    reg        fin  = 1'b0;    // ph was 64 in the previous cycle
    wire [5:0] step = ph[5:0] - 6'd1;

    always @(posedge clk) begin
        init <= 1'b0;
        if (rst) begin
            ph  <= 7'd0;
            fin <= 1'b0;
        end else begin
            fin <= (ph == 7'd64);
            if (ph == 7'd0)
                ph <= start ? 7'd1 : 7'd0;
            else if (ph == 7'd64)
                ph <= 7'd0;
            else
                ph <= ph + 7'd1;
        end
    end

    // Reset in the first cycle; reset is also allowed at any later time.
    always @(*) if (init) assume (rst);

    always @(posedge clk) if (!init && !$past(rst)) begin
        assert (ph <= 7'd64);      // shadow invariant (for k-induction)
        // A1: ready low while busy (64 cycles), high while idle
        assert (ready == (ph == 7'd0));
        assert (busy  == (ph != 7'd0));
        // A2: done exactly 64 clocks after the accepting edge, one cycle
        assert (done == fin);
        // A3: counter contents
        if (ph == 7'd0)
            assert (cnt == 6'd0);
        else
            assert (cnt == enc(step));
        // A4: Gray counter, one bit per step (also the wrap), none otherwise
        if (GRAY) begin
            if ($past(busy))
                assert ((cnt ^ $past(cnt)) != 6'd0 &&
                        (((cnt ^ $past(cnt)) & ((cnt ^ $past(cnt)) - 6'd1)) == 6'd0));
            else
                assert (cnt == $past(cnt));
        end
    end

    // Not vacuous: a block completes and the next is accepted back to back
    // (done && start in the same cycle, i.e. 65 cycles per block).
    always @(posedge clk) if (!init && !rst) cover (done && start);
`endif
endmodule
