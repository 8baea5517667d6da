; Calls isa-l_crypto's md5_mb_x16x2_avx512(MD5_ARGS_X32 *args, uint64_t blocks)
; with the System V callee-saved registers preserved: the kernel is written
; for isa-l's own managers and clobbers rbx and r12-r15.
default rel
section .text
extern md5_mb_x16x2_avx512
global isal_x16x2:function
isal_x16x2:
	push rbx
	push rbp
	push r12
	push r13
	push r14
	push r15
	sub rsp, 8
	call md5_mb_x16x2_avx512
	add rsp, 8
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbp
	pop rbx
	vzeroupper
	ret
section .note.GNU-stack noalloc noexec nowrite progbits
