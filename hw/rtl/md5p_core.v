// md5p_core.v -- MD5-P/K (RFC 1810's K-way interleaved MD5, as defined by the
// project spec docs/md5p.md) on K md5_iter cores.
//
// Synthesisable Verilog-2005, no vendor primitives.
//
// Definition (spec): cut the message M into 64-byte blocks M_0..M_{n-1}; chain
// j is S_j = M_j || M_{j+K} || ..., D_j = MD5(S_j) (plain RFC 1321 MD5 with
// S_j's own padding and bit length, from the standard IV; an empty S_j gives
// MD5("")); the digest is MD5(D_0 || D_1 || ... || D_{K-1}), plain MD5 again
// (K/4 blocks of chain digests plus one padding block).
//
// Ports: the same conventions as md5_stream.
//   Input (AXI4-Stream subset, message byte 0 = s_tdata[7:0]):
//     s_tdata[31:0], s_tkeep[3:0], s_tlast, s_tvalid, s_tready.  Every beat
//     without s_tlast has s_tkeep = 4'b1111; the s_tlast beat carries 0..4
//     bytes packed from the low end (0000, 0001, 0011, 0111, 1111); an empty
//     message is one s_tlast beat with s_tkeep = 0000.
//   Output: m_digest[127:0], m_valid, m_ready; digest byte k =
//     m_digest[8k+7:8k]; m_digest is held stable while m_valid && !m_ready.
//
// Structure
//   * One word writer (md5_words, shared with md5_stream) fills a 16-word
//     block buffer, one input word per clock, exactly as md5_stream does.  A full buffer is dealt to lane
//     (block index mod K) -- lane j is md5_iter instance g_lane[j].u_core --
//     as soon as that lane is ready.  The buffer refills in the same clock as
//     the hand-off (s_tready = !full | dispatch), so with input on every clock
//     the port delivers one block per 16 clocks.
//   * Each lane chains its own sub-message: cv_in is MD5's IV for the lane's
//     first block of a message, else the lane's own cv_out.
//   * Padding.  The message's partial last block (1..63 bytes, lane p) is
//     padded in the buffer like md5_stream (0x80, zeros, and, if the 0x80 lands
//     in words 0..13, lane p's 64-bit bit length in words 14..15).  Every other
//     chain, and lane p when its length did not fit (or when the message ends
//     on a block boundary), gets a "tail" block that is formed
//     combinationally at the lane's blk_in, not in the buffer:
//     word 0 = 0x80 (0 for lane p's length-only block), words 1..13 = 0,
//     words 14..15 = the chain's bit length.  Tail blocks go to all lanes in
//     parallel, each as soon as it is idle.  Chain j's length is derived from
//     the message bit length L (64-bit counter): with NB = L >> 9 full blocks
//     and r = L mod 512 bits, len_j = 512 * (NB/K + (j < NB mod K)) +
//     (j == NB mod K ? r : 0).
//   * Final MD5: it REUSES LANE 0's core (no separate md5_iter; K cores in
//     all).  When every chain is done, lane 0 hashes K/4 blocks
//     {D_{4b+3},..,D_{4b}} (block 0 from the IV, the chain digests read from
//     the lanes' cv_out, which hold until their next start; D_0 is captured by
//     lane 0's message register when final block 0 is loaded) and one padding
//     block (0x80, bit length 128*K).  The digest is lane 0's cv_out; it stays
//     there until m_ready.  No lane takes a block of the next message before
//     the clock after the digest has been taken (the next message's first
//     block may already wait in the buffer; go_ok is a register, so there is
//     no combinational path from m_ready to s_tready).
//
// Timing (clocks), with input on every clock and m_ready high:
//   * Data: block i is dispatched at D_i = max(D_{i-1} + 16, D_{i-K} + 65).
//     K = 4: the lanes limit, 4 blocks per 65 clocks (s_tready low for one
//     clock in every 65); K >= 8: the 32-bit input port limits, one block per
//     16 clocks (s_tready stays high), i.e. the K lanes are only 16*K/65 of
//     the way busy.  A port of 8*K bits (64 for K = 8, 128 for K = 16) would
//     let the lanes run at K blocks per 65 clocks.
//   * Per message: the tail blocks (up to 65 clocks after the lane's last
//     data block is done), then the final MD5, (K/4 + 1) * 65 clocks.
//
// Parameters
//   K        number of chains/lanes: a power of two, 4 <= K <= 256 (the spec
//            allows any multiple of 4; this core needs a power of two).
//   COUNTER, GATING   passed to every md5_iter (see md5_iter.v).
module md5p_core #(
    parameter K       = 4,
    parameter COUNTER = "binary",
    parameter GATING  = 0
) (
    input  wire         clk,
    input  wire         rst,        // synchronous, active high

    input  wire [31:0]  s_tdata,
    input  wire [3:0]   s_tkeep,
    input  wire         s_tlast,
    input  wire         s_tvalid,
    output wire         s_tready,

    output wire [127:0] m_digest,
    output wire         m_valid,
    input  wire         m_ready
);

    function integer clog2;
        input integer v;
        integer t;
        begin
            clog2 = 0;
            t = v - 1;
            while (t > 0) begin
                clog2 = clog2 + 1;
                t = t >> 1;
            end
        end
    endfunction

    localparam LK  = clog2(K);              // lane index width
    localparam NF  = K / 4;                 // final blocks holding chain digests
    localparam FBW = clog2(NF + 2);         // final block counter 0..NF+1
    localparam QW  = 55 - LK;               // width of NB / K

    // Unsupported K: elaboration fails on a module that does not exist.
    generate
        if (K < 4 || K > 256 || (1 << LK) != K) begin : g_bad_k
            md5p_core_K_must_be_a_power_of_two_from_4_to_256 u_bad_k ();
        end
    endgenerate

    localparam [127:0] MD5_IV = {32'h10325476, 32'h98badcfe,
                                 32'hefcdab89, 32'h67452301};
    localparam [31:0]  FIN_BITS = 128 * K;   // bit length of D_0..D_{K-1}
    localparam [511:0] FIN_PAD  = {32'h0, FIN_BITS, 416'h0, 32'h00000080};

    localparam [2:0] S_DATA  = 3'd0,   // taking message words
                     S_P80   = 3'd1,   // write the 0x80 word (message was word aligned)
                     S_ZERO  = 3'd2,   // zero fill; at word 14 write the length low word
                     S_LENHI = 3'd3,   // write the length high word (word 15)
                     S_TAIL  = 3'd4;   // message written: tail blocks to the lanes

    reg  [2:0]   state;
    wire [3:0]   widx;         // next word position in the block buffer
    wire [511:0] buf_q;        // block being assembled
    wire         full;         // buf_q complete, waiting for its lane
    reg  [LK-1:0] blp;         // lane of the block in buf_q
    reg  [63:0]  bitlen;       // message length in bits (mod 2^64)
    reg          fin_busy;     // final MD5 running (or its digest waiting)
    reg  [FBW-1:0] fb;         // next final block (NF = padding block, NF+1 = done)

    // Message geometry: NB = full 64-byte blocks, r = bits in the partial one.
    wire [LK-1:0] nb_lo = bitlen[8+LK:9];      // NB mod K: lane of the partial block
    wire [QW-1:0] nb_q  = bitlen[63:9+LK];     // NB / K
    wire [8:0]    r_bits = bitlen[8:0];
    // Lane p's bit length, written into the padded partial block.
    wire [63:0]   plen  = {{LK{1'b0}}, nb_q, r_bits};

    // ---------------- lanes ----------------
    wire [K-1:0]     core_ready;
    wire [K-1:0]     core_start;
    wire [128*K-1:0] dig;          // lane j's cv_out = dig[128j +: 128]

    wire [K-1:0]     tail_ok;      // lane has had its tail block, or needs none
    wire             tail_done = &tail_ok;   // every chain has its final block
    wire fin_go;                   // lane 0 loads final block fb
    wire release_d = m_valid & m_ready;
    // Lanes take message blocks only once the previous digest has been taken
    // (registered: no combinational path from m_ready to s_tready).
    wire go_ok     = ~fin_busy;
    wire data_go   = full & go_ok & core_ready[blp];
    wire all_idle  = &core_ready;

    // Final block fb: chain digests, or the padding block.
    reg  [511:0] fblk;
    integer b;
    always @(*) begin
        fblk = FIN_PAD;
        for (b = 0; b < NF; b = b + 1)
            if (fb == b[FBW-1:0])
                fblk = dig[512*b +: 512];
    end

    assign fin_go   = fin_busy & core_ready[0] & (fb <= NF[FBW-1:0]) &
                      ((fb != {FBW{1'b0}}) | all_idle);
    assign m_valid  = fin_busy & core_ready[0] & (fb == NF[FBW-1:0] + 1'b1);
    assign m_digest = dig[127:0];

    genvar j;
    generate
        for (j = 0; j < K; j = j + 1) begin : g_lane
            localparam [LK:0] JL = j;
            reg  first;       // lane has had no block of this message yet
            reg  tail_sent;   // lane has had its tail block
            wire [LK:0] nbl = {1'b0, nb_lo};
            // Chain j's tail block: needed unless its length went into the
            // padded partial block (lane p with 1..55 bytes in it).
            wire is_p     = (nbl == JL);
            wire tail_req = ~(is_p & (r_bits != 9'd0) & (r_bits <= 9'd440));
            wire len_only = is_p & (r_bits >= 9'd448);
            wire [QW-1:0] cnt_j = nb_q + {{(QW-1){1'b0}}, (nbl > JL)};
            wire [63:0] len_j = {{LK{1'b0}}, cnt_j, (is_p ? r_bits : 9'd0)};
            wire [511:0] tblk = {len_j[63:32], len_j[31:0], 416'h0,
                                 (len_only ? 32'h0 : 32'h00000080)};
            wire tail_go = (state == S_TAIL) & ~full & go_ok & core_ready[j] &
                           tail_req & ~tail_sent;
            wire data_j  = data_go & (blp == JL[LK-1:0]);
            wire [127:0] cv_in_j;
            wire [511:0] blk_in_j;

            if (j == 0) begin : g_l0
                assign core_start[j] = data_j | tail_go | fin_go;
                assign cv_in_j  = fin_go ? ((fb == {FBW{1'b0}}) ? MD5_IV : dig[127:0])
                                         : (first ? MD5_IV : dig[127:0]);
                assign blk_in_j = fin_go ? fblk : (full ? buf_q : tblk);
            end else begin : g_ln
                assign core_start[j] = data_j | tail_go;
                assign cv_in_j  = first ? MD5_IV : dig[128*j +: 128];
                assign blk_in_j = full ? buf_q : tblk;
            end

            md5_iter #(.COUNTER(COUNTER), .GATING(GATING)) u_core (
                .clk    (clk),
                .rst    (rst),
                .start  (core_start[j]),
                .ready  (core_ready[j]),
                .cv_in  (cv_in_j),
                .blk_in (blk_in_j),
                /* verilator lint_off PINCONNECTEMPTY */
                .done   (),
                /* verilator lint_on PINCONNECTEMPTY */
                .cv_out (dig[128*j +: 128])
            );

            always @(posedge clk) begin
                if (rst) begin
                    first     <= 1'b1;
                    tail_sent <= 1'b0;
                end else if (state == S_TAIL && tail_done) begin
                    first     <= 1'b1;          // next message
                    tail_sent <= 1'b0;
                end else begin
                    if (data_j | tail_go)
                        first <= 1'b0;
                    if (tail_go)
                        tail_sent <= 1'b1;
                end
            end

            assign tail_ok[j] = tail_sent | ~tail_req;
        end
    endgenerate

    // ---------------- word writer (md5_words.v, as md5_stream) ----------------
    // States S_DATA..S_LENHI are the phase of the word written next
    // (md5_words' W_* codes); S_TAIL writes nothing.
    wire   room     = ~full | data_go;
    assign s_tready = (state == S_DATA) & room;
    wire   beat     = s_tvalid & s_tready;

    wire [2:0]  nbytes;        // bytes in the beat

    // A message that ends on a block boundary (or is empty): its tlast beat
    // carries no bytes at word 0, so nothing is written for it.
    wire aligned_end = s_tlast & (nbytes == 3'd0) & (widx == 4'd0);
    wire [63:0] bitlen_nx = bitlen + {58'd0, nbytes, 3'd0};

    reg         wr;
    always @(*) begin
        case (state)
        S_DATA:                 wr = room & beat & ~aligned_end;
        S_P80, S_ZERO, S_LENHI: wr = room;
        default:                wr = 1'b0;
        endcase
    end

    md5_words u_words (
        .clk    (clk),
        .rst    (rst),
        .s_tdata(s_tdata),
        .s_tkeep(s_tkeep),
        .s_tlast(s_tlast),
        .nbytes (nbytes),
        .phase  (state[1:0]),
        .wr     (wr),
        .len    (plen),
        .take   (data_go),
        /* verilator lint_off PINCONNECTEMPTY */
        .wword  (),
        /* verilator lint_on PINCONNECTEMPTY */
        .widx   (widx),
        .full   (full),
        .buf_q  (buf_q)
    );

    always @(posedge clk) begin
        if (rst) begin
            state    <= S_DATA;
            blp      <= {LK{1'b0}};
            bitlen   <= 64'd0;
            fin_busy <= 1'b0;
            fb       <= {FBW{1'b0}};
        end else begin
            if (wr && widx == 4'd15)    // the block is full (md5_words)
                blp <= nb_lo;

            case (state)
            S_DATA:
                if (beat) begin
                    bitlen <= bitlen_nx;
                    if (s_tlast) begin
                        if (aligned_end || widx == 4'd15)
                            state <= S_TAIL;
                        else if (nbytes == 3'd4)
                            state <= S_P80;
                        else
                            state <= S_ZERO;
                    end
                end
            S_P80:
                if (wr)
                    state <= (widx == 4'd15) ? S_TAIL : S_ZERO;
            S_ZERO:
                if (wr) begin
                    if (widx == 4'd14)
                        state <= S_LENHI;
                    else if (widx == 4'd15)
                        state <= S_TAIL;     // the length did not fit: lane p gets a tail
                end
            S_LENHI:
                if (wr)
                    state <= S_TAIL;
            default:                          // S_TAIL
                if (tail_done) begin
                    state    <= S_DATA;
                    bitlen   <= 64'd0;
                    fin_busy <= 1'b1;         // final MD5 once every chain is done
                    fb       <= {FBW{1'b0}};
                end
            endcase

            // Final MD5 on lane 0 (tail_done and release never coincide:
            // tail blocks need !fin_busy, so fin_busy is clear when S_TAIL ends).
            if (fin_go)
                fb <= fb + 1'b1;
            if (release_d)
                fin_busy <= 1'b0;
        end
    end

endmodule
