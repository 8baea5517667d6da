// fv_md5_stream.v -- formal property wrapper for hw/rtl/md5_stream.v
// (SymbiYosys, see md5_stream.sby).
//
// md5_stream.sby exposes internal signals of md5_stream as ports (yosys
// `expose`; the RTL is not touched) and cuts the step datapath of the core
// (md5_iter's b, c, d and akm registers become free values every cycle), so
// the proofs are about words, blocks and handshakes, not digest values.
//
// Reference model.  Everything below is driven from the input and output
// ports only (plus the exposed write port of the block buffer): `sp` follows
// the message being padded (0: taking data beats, 1: padding after the tlast
// beat, 2: the length's high word is next), `mbits` counts the message's
// bits, `wp` the word position in the block, `need80` whether the 0x80 byte
// still has to be written as a word of its own.  `expword` is the word the
// MD5 padding rule puts next (RFC 1321 3.1, 3.2).
//
// Properties (all unbounded, by k-induction of depth 1; the `assert`s marked
// INV are the strengthening invariants that make the set inductive, and
// hold too):
//   W1  every accepted beat (s_tvalid && s_tready) is written into the block
//       buffer on the same edge, and a data word is written only for an
//       accepted beat: no input word lost or duplicated, under any
//       s_tvalid/m_ready back-pressure;
//   W2  every word written is the one the padding rule dictates (the beat's
//       bytes, the 0x80 byte after the last one, zeros, the 64-bit length =
//       8 x the bytes accepted for the message, at words 14/15 of the first
//       block where it fits), at the next position of the block (a message
//       starts at word 0);
//   W3  no write while the buffer is full (a block is never overwritten
//       before the core took it); blocks filled - blocks dispatched == full;
//       for a symbolic slot J the dispatched block (blk_in) holds, in slot J,
//       the word written there for this block;
//   W4  the first/last-block flags of a dispatched block match the message;
//   W5  one digest per message: messages accepted (tlast beats) - digests
//       delivered == messages still in padding + a full last block + a
//       last block in the core or its digest waiting (so no digest is lost,
//       duplicated or invented);
//   W6  AXI output rule: once m_valid is high it stays high with m_digest
//       unchanged until m_ready;
//   W7  no idle cycles: s_tready is high whenever the buffer is not full and
//       no padding is due, and the padding writes one word per clock while
//       the buffer is not full.
module fv_md5_stream (
    input  wire         clk,
    input  wire         rst,
    input  wire [31:0]  s_tdata,
    input  wire [3:0]   s_tkeep,
    input  wire         s_tlast,
    input  wire         s_tvalid,
    input  wire         m_ready
);
    wire         s_tready, m_valid;
    wire [127:0] m_digest;
    // exposed internals of md5_stream
    wire         wr, full, dispatch, core_done, core_ready;
    wire         blk_first, blk_last, msg_first, fly_last, pend;
    wire [31:0]  wword;
    wire [3:0]   widx;
    wire [1:0]   state;
    wire [63:0]  bitlen;
    wire [511:0] buf_q;

    md5_stream u_dut (
        .clk(clk), .rst(rst),
        .s_tdata(s_tdata), .s_tkeep(s_tkeep), .s_tlast(s_tlast),
        .s_tvalid(s_tvalid), .s_tready(s_tready),
        .m_digest(m_digest), .m_valid(m_valid), .m_ready(m_ready),
        .wr(wr), .wword(wword), .widx(widx), .state(state), .full(full),
        .dispatch(dispatch), .core_done(core_done), .core_ready(core_ready),
        .blk_first(blk_first), .blk_last(blk_last), .msg_first(msg_first),
        .fly_last(fly_last), .pend(pend), .bitlen(bitlen), .buf_q(buf_q)
    );

`ifdef FORMAL
    localparam [1:0] S_DATA = 2'd0, S_P80 = 2'd1, S_ZERO = 2'd2, S_LENHI = 2'd3;

    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @(*) if (init) assume (rst);

    // Input protocol (md5_stream's header): the tlast beat carries 0..4 bytes
    // from the low end, other beats are full words.  Nothing else is assumed:
    // s_tvalid, s_tdata, s_tlast and m_ready are free every cycle (a master
    // may even withdraw a beat; the properties are about accepted beats).
    always @(*) if (s_tvalid)
        assume (s_tlast ? (s_tkeep == 4'b0000 || s_tkeep == 4'b0001 ||
                           s_tkeep == 4'b0011 || s_tkeep == 4'b0111 ||
                           s_tkeep == 4'b1111)
                        : (s_tkeep == 4'b1111));

    // A symbolic buffer slot, fixed for the whole trace, and the buffer's
    // word in it (a case mux: no multiplier or shifter for the solver).
    (* anyconst *) reg [3:0] J;
    reg [31:0] bufj;
    always @(*) begin
        case (J)
        4'd0:  bufj = buf_q[ 31:  0];
        4'd1:  bufj = buf_q[ 63: 32];
        4'd2:  bufj = buf_q[ 95: 64];
        4'd3:  bufj = buf_q[127: 96];
        4'd4:  bufj = buf_q[159:128];
        4'd5:  bufj = buf_q[191:160];
        4'd6:  bufj = buf_q[223:192];
        4'd7:  bufj = buf_q[255:224];
        4'd8:  bufj = buf_q[287:256];
        4'd9:  bufj = buf_q[319:288];
        4'd10: bufj = buf_q[351:320];
        4'd11: bufj = buf_q[383:352];
        4'd12: bufj = buf_q[415:384];
        4'd13: bufj = buf_q[447:416];
        4'd14: bufj = buf_q[479:448];
        default: bufj = buf_q[511:480];
        endcase
    end

    wire beat = s_tvalid && s_tready;
    wire [2:0] nb = !s_tlast   ? 3'd4 :
                    s_tkeep[3] ? 3'd4 : s_tkeep[2] ? 3'd3 :
                    s_tkeep[1] ? 3'd2 : s_tkeep[0] ? 3'd1 : 3'd0;
    // The beat's word: its bytes, then the 0x80 byte when it is a partial
    // last beat, zeros above.
    reg  [31:0] expw;
    always @(*) begin
        case (nb)
        3'd0:    expw = 32'h00000080;
        3'd1:    expw = {16'h0000, 8'h80, s_tdata[7:0]};
        3'd2:    expw = {8'h00, 8'h80, s_tdata[15:0]};
        3'd3:    expw = {8'h80, s_tdata[23:0]};
        default: expw = s_tdata;
        endcase
    end

    reg  [1:0]  sp     = 2'd0;   // 0 data, 1 padding, 2 length high word next
    reg         need80 = 1'b0;   // the 0x80 word is still to be written
    reg  [63:0] mbits  = 64'd0;  // bits of the current message (mod 2^64)
    reg  [3:0]  wp     = 4'd0;   // next word position in the block
    reg         mfirst = 1'b1;   // the block being filled is a message's first
    reg         sh_first = 1'b0, sh_last = 1'b0;   // flags of the full block
    reg         fb     = 1'b0;   // blocks filled - blocks dispatched
    reg  [31:0] expj   = 32'd0;  // word written into slot J
    reg         jcur   = 1'b0;   // slot J written for the block being filled / full
    reg  [1:0]  dl     = 2'd0;   // last blocks dispatched - digests delivered
    reg  [2:0]  mq     = 3'd0;   // messages accepted - digests delivered

    // The word the padding rule puts next.
    reg [31:0] expword;
    always @(*) begin
        case (sp)
        2'd0:    expword = expw;
        2'd1:    expword = need80 ? 32'h00000080 :
                           (wp == 4'd14) ? mbits[31:0] : 32'h0;
        default: expword = mbits[63:32];
        endcase
    end

    wire fill    = wr && wp == 4'd15;           // the write completes a block
    wire lenhi   = wr && sp == 2'd2;
    wire deliver = m_valid && m_ready;

    always @(posedge clk) begin
        if (rst) begin
            sp <= 2'd0; need80 <= 1'b0; mbits <= 64'd0; wp <= 4'd0;
            mfirst <= 1'b1; sh_first <= 1'b0; sh_last <= 1'b0; fb <= 1'b0;
            jcur <= 1'b0; dl <= 2'd0; mq <= 3'd0;
        end else begin
            if (beat) begin
                mbits <= mbits + {58'd0, nb, 3'd0};
                if (s_tlast) begin
                    sp     <= 2'd1;
                    need80 <= (nb == 3'd4);
                end
            end
            if (wr) begin
                wp <= wp + 4'd1;
                if (sp == 2'd1) begin
                    if (need80)
                        need80 <= 1'b0;
                    else if (wp == 4'd14)
                        sp <= 2'd2;
                end
                if (lenhi) begin
                    sp     <= 2'd0;
                    mbits  <= 64'd0;
                end
                if (wp == J) begin
                    expj <= expword;
                    jcur <= 1'b1;
                end
            end
            if (fill) begin
                sh_first <= mfirst;
                sh_last  <= lenhi;
                mfirst   <= lenhi;
            end
            if (dispatch)
                jcur <= 1'b0;
            fb <= fb + fill - dispatch;
            dl <= dl + (dispatch && blk_last) - deliver;
            mq <= mq + (beat && s_tlast) - deliver;
        end
    end

    always @(*) if (!init && !rst) begin
        // ---- W1: accepted beats <-> data words written ----
        assert (beat == (wr && sp == 2'd0));
        // ---- W2: contents and position of every write ----
        if (wr) assert (wword == expword);
        assert (widx == wp);
        if (lenhi)
            assert (wp == 4'd15);
        // ---- W3: the buffer ----
        if (wr) assert (!full);
        if (dispatch) assert (full);
        assert (fb == full);
        if (dispatch) begin
            assert (jcur);
            assert (bufj == expj);
        end
        // ---- W4: flags of the dispatched block ----
        if (dispatch) begin
            assert (blk_first == sh_first);
            assert (blk_last  == sh_last);
        end
        // ---- W5: one digest per message ----
        assert (dl == (((!core_ready || core_done) && fly_last) || pend));
        assert (mq == (sp != 2'd0) + (full && blk_last) + dl);
        if (m_valid) assert (dl == 2'd1);
        // ---- W7: no idle cycles ----
        if (sp == 2'd0) assert (s_tready == !full);
        else            assert (!s_tready && wr == !full);

        // ---- INV: strengthening invariants for the induction ----
        // (the shadow model and the RTL's state agree; the buffer slot J
        // holds the word written there while it belongs to this block)
        assert (sp != 2'd3);
        assert (bitlen == mbits);
        assert (msg_first == mfirst);
        assert (state == (sp == 2'd0 ? S_DATA :
                          sp == 2'd2 ? S_LENHI :
                          need80     ? S_P80 : S_ZERO));
        if (sp == 2'd2) assert (wp == 4'd15);
        if (full) begin
            assert (wp == 4'd0);
            assert (jcur);
            assert (blk_first == sh_first && blk_last == sh_last);
        end
        if (!full) assert (jcur == (wp > J));
        if (jcur) assert (bufj == expj);
        if (core_done || pend) assert (core_ready);
        assert (mq <= 3'd3);
    end

    // ---- W6: AXI output rule ----
    // vnr: m_valid && !m_ready in the previous cycle; dig_q: m_digest then.
    reg         vnr   = 1'b0;
    reg [127:0] dig_q = 128'd0;
    always @(posedge clk) begin
        vnr   <= !rst && m_valid && !m_ready;
        dig_q <= m_digest;
    end
    always @(*) if (!init && !rst) begin
        if (vnr) begin
            assert (m_valid);
            assert (m_digest == dig_q);
        end
        assert (vnr == pend);                       // INV
    end

    // ---- Not vacuous ----
    // cover_short (depth 20): a beat is refused while the full buffer waits
    // for the core, and accepted again after the hand-off.
    // cover_digest (depth 90, by hand: about 2 minutes): a digest is held
    // under back-pressure and then delivered; a digest is delivered on the
    // same edge as a beat of the next message.
    reg refused = 1'b0;
    always @(posedge clk)
        if (rst) refused <= 1'b0;
        else if (s_tvalid && !s_tready && full) refused <= 1'b1;
    always @(*) if (!init && !rst) begin
`ifndef COVER_DIGEST
        cover (refused && beat);
`else
        cover (vnr && deliver);
        cover (deliver && beat);
`endif
    end
`endif
endmodule
