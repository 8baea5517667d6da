// md5_pipe_delay.v -- md5_pipe's delay line in a memory (its STORE = "ram").
//
// d is written at wr_ptr on every enabled edge and read back at
// wr_ptr - AGE, then held in one more register (so that the memory's
// clock-to-out has a clock of its own): after an enabled edge, q is the d
// written AGE + 1 enabled edges earlier.  A stall (en low) freezes the
// write, the read and the age together.  AGE must lie in 1..62: the read
// address is then never the one written on the same edge.
module md5_pipe_delay #(
    parameter integer W   = 32,
    parameter integer AGE = 1
) (
    input  wire         clk,
    input  wire         en,
    input  wire [5:0]   wr_ptr,
    input  wire [W-1:0] d,
    output wire [W-1:0] q
);
    (* ram_style = "block" *)
    reg [W-1:0] store [0:63];
    // A 6-bit net, so the address wraps mod 64 in every tool (an index
    // expression alone need not).
    localparam [5:0] AGE6 = AGE[5:0];
    wire [5:0] ra = wr_ptr - AGE6;
    reg [W-1:0] rd, rd_q;
    always @(posedge clk)
        if (en) begin
            store[wr_ptr] <= d;
            rd   <= store[ra];
            rd_q <= rd;
        end
    assign q = rd_q;
endmodule
