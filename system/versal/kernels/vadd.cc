// The adder kernel of an adder-tree reduction (MaxEVA's vectorized_add, restated for sumac):
// OUT = IN1 + IN2 elementwise over N 32-bit values, 8 per vector (int32, or float with
// -D FLOAT=1), two values per loop iteration.

#ifndef N
#define N 1024
#endif

#ifdef FLOAT
#define VT v8float
#define WIN_IN input_window_float
#define WIN_OUT output_window_float
#else
#define VT v8int32
#define WIN_IN input_window_int32
#define WIN_OUT output_window_int32
#endif

void vadd(WIN_IN * __restrict IN1, WIN_IN * __restrict IN2, WIN_OUT * __restrict OUT) {
    VT a0, b0, a1, b1, c0, c1;
    for (unsigned int i=0; i<N/16; i+=1)
        chess_prepare_for_pipelining
        chess_loop_range(N/16, ) {
        a0 = window_readincr_v8(IN1);
        b0 = window_readincr_v8(IN2);
        a1 = window_readincr_v8(IN1);
        b1 = window_readincr_v8(IN2);
        c0 = operator+(a0, b0);
        c1 = operator+(a1, b1);
        window_writeincr(OUT, c0);
        window_writeincr(OUT, c1);
    }
}
