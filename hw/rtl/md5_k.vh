// md5_k.vh -- MD5's 64 additive constants K[0..63] (RFC 1321, section 3.4:
// K[i] = floor(abs(sin(i + 1)) * 2^32)), as the function md5_k(i).
//
// Included inside the body of every module that needs K (md5_iter, md5_pipe),
// so each gets its own copy of the function:
//     `include "md5_k.vh"
// md5_iter indexes it with a register (a 64-entry case ROM), md5_pipe with
// elaboration-time constants (each stage's K folds into its adder).  There
// is deliberately no include guard: a guard would leave the second module
// read in one compilation unit without the function.  The tools find the
// file through the include path hw/rtl (Verilator/Icarus -I, Yosys
// read_verilog -I, hw/formal/*.sby [files]).
    function [31:0] md5_k;
        input [5:0] i;
        begin
            case (i)
            6'd0: md5_k = 32'hd76aa478;
            6'd1: md5_k = 32'he8c7b756;
            6'd2: md5_k = 32'h242070db;
            6'd3: md5_k = 32'hc1bdceee;
            6'd4: md5_k = 32'hf57c0faf;
            6'd5: md5_k = 32'h4787c62a;
            6'd6: md5_k = 32'ha8304613;
            6'd7: md5_k = 32'hfd469501;
            6'd8: md5_k = 32'h698098d8;
            6'd9: md5_k = 32'h8b44f7af;
            6'd10: md5_k = 32'hffff5bb1;
            6'd11: md5_k = 32'h895cd7be;
            6'd12: md5_k = 32'h6b901122;
            6'd13: md5_k = 32'hfd987193;
            6'd14: md5_k = 32'ha679438e;
            6'd15: md5_k = 32'h49b40821;
            6'd16: md5_k = 32'hf61e2562;
            6'd17: md5_k = 32'hc040b340;
            6'd18: md5_k = 32'h265e5a51;
            6'd19: md5_k = 32'he9b6c7aa;
            6'd20: md5_k = 32'hd62f105d;
            6'd21: md5_k = 32'h02441453;
            6'd22: md5_k = 32'hd8a1e681;
            6'd23: md5_k = 32'he7d3fbc8;
            6'd24: md5_k = 32'h21e1cde6;
            6'd25: md5_k = 32'hc33707d6;
            6'd26: md5_k = 32'hf4d50d87;
            6'd27: md5_k = 32'h455a14ed;
            6'd28: md5_k = 32'ha9e3e905;
            6'd29: md5_k = 32'hfcefa3f8;
            6'd30: md5_k = 32'h676f02d9;
            6'd31: md5_k = 32'h8d2a4c8a;
            6'd32: md5_k = 32'hfffa3942;
            6'd33: md5_k = 32'h8771f681;
            6'd34: md5_k = 32'h6d9d6122;
            6'd35: md5_k = 32'hfde5380c;
            6'd36: md5_k = 32'ha4beea44;
            6'd37: md5_k = 32'h4bdecfa9;
            6'd38: md5_k = 32'hf6bb4b60;
            6'd39: md5_k = 32'hbebfbc70;
            6'd40: md5_k = 32'h289b7ec6;
            6'd41: md5_k = 32'heaa127fa;
            6'd42: md5_k = 32'hd4ef3085;
            6'd43: md5_k = 32'h04881d05;
            6'd44: md5_k = 32'hd9d4d039;
            6'd45: md5_k = 32'he6db99e5;
            6'd46: md5_k = 32'h1fa27cf8;
            6'd47: md5_k = 32'hc4ac5665;
            6'd48: md5_k = 32'hf4292244;
            6'd49: md5_k = 32'h432aff97;
            6'd50: md5_k = 32'hab9423a7;
            6'd51: md5_k = 32'hfc93a039;
            6'd52: md5_k = 32'h655b59c3;
            6'd53: md5_k = 32'h8f0ccc92;
            6'd54: md5_k = 32'hffeff47d;
            6'd55: md5_k = 32'h85845dd1;
            6'd56: md5_k = 32'h6fa87e4f;
            6'd57: md5_k = 32'hfe2ce6e0;
            6'd58: md5_k = 32'ha3014314;
            6'd59: md5_k = 32'h4e0811a1;
            6'd60: md5_k = 32'hf7537e82;
            6'd61: md5_k = 32'hbd3af235;
            6'd62: md5_k = 32'h2ad7d2bb;
            6'd63: md5_k = 32'heb86d391;
            default: md5_k = 32'h0;
            endcase
        end
    endfunction
