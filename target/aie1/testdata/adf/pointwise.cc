// A pointwise (1x1) fp32 filter of C channels into M maps, written for sumac's tests of
// backend/flatten.go: the channel loop, marked for pipelining, runs C = 2 times with a run-time
// weight index inside an unmarked column loop of 3 vectors, inside a marked row loop. The
// channel and column loops flatten (the marked one too: it runs fewer than 9 times) and the
// row loop is the one software-pipelined; --instance 'pointwise<8, 24, 2, 2>'.
#include <adf.h>

template <int H, int W, int C, int M>
void pointwise(input_window<float> *__restrict in, output_window<float> *__restrict out,
               const float (&wt)[C * M], const float (&bias)[M]) {
    int wi = 0;
    for (int m = 0; m < M; m++) chess_prepare_for_pipelining chess_loop_range(M, ) {
        for (int h = 0; h < H; h++) chess_prepare_for_pipelining chess_loop_range(H, ) {
            for (int w = 0; w < W; w += 8) {
                v8float acc = aie::broadcast<float, 8>(bias[m]);
                for (int c = 0; c < C; c++) chess_prepare_for_pipelining chess_loop_range(C, ) {
                    v8float x = window_read_v8(in);
                    window_incr(in, H * W);
                    v8float s = upd_elem(null_v8float(), 0, wt[wi]);
                    acc = fpmac(acc, x, 0, 0x76543210, s, 0, 0);
                    wi++;
                }
                window_incr(in, 8 - C * H * W);
                wi -= C;
                acc = fpmax(acc, null_v8float(), 0, 0x76543210);
                window_writeincr(out, acc);
            }
        }
        window_incr(in, -H * W);
        wi += C;
    }
}
