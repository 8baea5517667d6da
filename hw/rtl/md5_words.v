// md5_words.v -- the word writer shared by md5_stream and md5p_core: a
// 16-word (512-bit) block buffer filled one 32-bit word per clock with the
// message's beats and MD5's padding words (RFC 1321, sections 3.1-3.2).
//
// Synthesisable Verilog-2005, no vendor primitives.
//
// What it does (the same for both front ends):
//   * decodes the input beat: nbytes = the message bytes it carries (4 on a
//     beat without s_tlast; 0..4 on the s_tlast beat, s_tkeep = 0000, 0001,
//     0011, 0111 or 1111), and its word, with the 0x80 pad byte put right
//     after the last valid byte when the s_tlast beat is partial;
//   * writes, on an edge with wr, the word of `phase` at position widx:
//       W_DATA   the beat's word
//       W_P80    0x00000080 (the message ended on a word boundary)
//       W_ZERO   zero, except len[31:0] at word 14
//       W_LENHI  len[63:32] (word 15)
//     and advances widx (wrapping 15 -> 0);
//   * keeps `full`: set by the write of word 15, cleared by `take` (the block
//     has been handed to a core; a write of word 15 on the same edge wins,
//     so the buffer can refill in the clock of its hand-off).
// What it leaves to the caller: when to write (flow control: wr must be low
// while full && !take) and the padding sequence (which phase comes next, and
// where the message's length goes when it does not fit), which differ
// between md5_stream (plain MD5) and md5p_core (MD5-P/K, docs/md5p.md).
// The caller's phase encoding is that of both front ends' states 0..3.
module md5_words (
    input  wire         clk,
    input  wire         rst,        // synchronous, active high

    input  wire [31:0]  s_tdata,    // the beat (message byte 0 = s_tdata[7:0])
    input  wire [3:0]   s_tkeep,
    input  wire         s_tlast,
    output reg  [2:0]   nbytes,     // message bytes in the beat

    input  wire [1:0]   phase,      // which word to write (W_* below)
    input  wire         wr,         // write it at widx on this edge
    input  wire [63:0]  len,        // the bit length for words 14 and 15
    input  wire         take,       // the full block is handed over: clear full
    output reg  [31:0]  wword,      // the word written when wr
    output reg  [3:0]   widx,       // next word position in the block
    output reg          full,       // buf_q holds a complete block
    output reg  [511:0] buf_q       // the block being assembled
);

    localparam [1:0] W_DATA  = 2'd0,   // the beat's word
                     W_P80   = 2'd1,   // the 0x80 word
                     W_ZERO  = 2'd2,   // zero fill; at word 14 the length low word
                     W_LENHI = 2'd3;   // the length high word (word 15)

    // Bytes in the beat, and the beat's word with the 0x80 pad byte inserted
    // after the last valid byte when the last beat is partial.
    reg  [31:0] dword;
    always @(*) begin
        if (!s_tlast) begin
            nbytes = 3'd4;
            dword  = s_tdata;
        end else begin
            case (s_tkeep)
            4'b0000: begin nbytes = 3'd0; dword = 32'h00000080; end
            4'b0001: begin nbytes = 3'd1; dword = {16'h0000, 8'h80, s_tdata[7:0]}; end
            4'b0011: begin nbytes = 3'd2; dword = {8'h00, 8'h80, s_tdata[15:0]}; end
            4'b0111: begin nbytes = 3'd3; dword = {8'h80, s_tdata[23:0]}; end
            default: begin nbytes = 3'd4; dword = s_tdata; end
            endcase
        end
    end

    // The word of the phase, as an AND-OR of the four (the phases exclude
    // each other).  Yosys maps this form, with the module synthesised on its
    // own (hw/syn/run.sh keeps the hierarchy), into about half the LUTs of
    // the same select written as a case statement.
    always @(*)
        wword = ({32{phase == W_DATA}}                   & dword) |
                ({32{phase == W_P80}}                    & 32'h00000080) |
                ({32{phase == W_ZERO && widx == 4'd14}}  & len[31:0]) |
                ({32{phase == W_LENHI}}                  & len[63:32]);

    integer j;
    always @(posedge clk) begin
        if (wr) begin
            for (j = 0; j < 16; j = j + 1)
                if (widx == j[3:0])
                    buf_q[32*j +: 32] <= wword;
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            widx <= 4'd0;
            full <= 1'b0;
        end else begin
            if (take)
                full <= 1'b0;
            if (wr) begin
                widx <= widx + 4'd1;
                if (widx == 4'd15)
                    full <= 1'b1;
            end
        end
    end

endmodule
