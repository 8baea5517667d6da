// top_md5_iter.v -- synthesis-only wrapper for md5_iter (not simulated, not
// part of the RTL deliverable).
//
// md5_iter has 640 input bits and 128 output bits, more than any of the target
// packages has pins (the iCE40UP5K SG48 has 39).  This wrapper serialises
// them through W-bit ports so that place-and-route sees the real core:
//
//   * din/shift_in : a (512+128)-bit input shift register, W bits per clock;
//                    its parallel outputs drive {cv_in, blk_in}.
//   * start        : registered once, then drives the core's start.
//   * done         : captures cv_out into a 128-bit output shift register,
//                    which shift_out moves out W bits per clock on dout.
//
// Every core port is a register in the wrapper, so the measured reg-to-reg
// fMax is the core's (plus one hop to/from these wrapper flops).  The
// wrapper's own flops (640 + 128 + W + a few) are NOT in the `luts`/`ffs`
// columns of hw/results: run.sh synthesises with the hierarchy kept and
// reports the md5_iter module's cells; the whole-design place-and-route
// utilisation is reported separately (`pnr_*` fields).
module top_md5_iter #(
    parameter COUNTER = "binary",
    parameter GATING  = 0,
    parameter ROT_PAIRS = 0,
    parameter W       = 8
) (
    input  wire         clk,
    input  wire         rst,
    input  wire [W-1:0] din,
    input  wire         shift_in,
    input  wire         start,
    input  wire         shift_out,
    output wire [W-1:0] dout,
    output wire         ready,
    output reg          done_q
);
    localparam NIN = 640;

    reg [W-1:0]   din_q;
    reg           shift_in_q, start_q, shift_out_q;
    reg [NIN-1:0] in_sr;
    reg [127:0]   out_sr;

    wire         done;
    wire [127:0] cv_out;

    always @(posedge clk) begin
        din_q       <= din;
        shift_in_q  <= shift_in;
        shift_out_q <= shift_out;
        start_q     <= start;
        done_q      <= done;
        if (shift_in_q)
            in_sr <= {in_sr[NIN-W-1:0], din_q};
        if (done)
            out_sr <= cv_out;
        else if (shift_out_q)
            out_sr <= {out_sr[127-W:0], {W{1'b0}}};
    end

    assign dout = out_sr[127:128-W];

    md5_iter #(.COUNTER(COUNTER), .GATING(GATING), .ROT_PAIRS(ROT_PAIRS)) u_core (
        .clk    (clk),
        .rst    (rst),
        .start  (start_q),
        .ready  (ready),
        .cv_in  (in_sr[639:512]),
        .blk_in (in_sr[511:0]),
        .done   (done),
        .cv_out (cv_out)
    );
endmodule
