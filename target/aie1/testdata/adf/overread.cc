// A kernel class that reads past the end of its bias array, written for sumac's tests: the
// pattern of onnx2versal's GemmReluMKKN, which loads bias 16 floats at a time (two v8float)
// whatever its length, so --instance 'BiasRelu<10>' reads bytes [32, 64) of a 40-byte bias.
// The hardware returns what the memory holds there; sumac's memory image holds zeros or the
// next buffer (interp.OutsideRead) and `sumac sim` warns.
#include <adf.h>

template <int N>
class BiasRelu {
    alignas(32) float (&bias)[N];

  public:
    BiasRelu(float (&b)[N]) : bias(b) {}

    void run(input_window<float> *__restrict in, output_window<float> *__restrict out) {
        float *b = (float *)bias;
        v8float zeros = null_v8float();
        for (int j = 0; j < N; j += 16) chess_flatten_loop {
            v8float lo = *(v8float *)(b + j);
            v8float hi = *(v8float *)(b + j + 8); // past bias when N % 16 is below 9
            lo = fpadd(lo, window_readincr_v8(in), 0, 0x76543210);
            hi = fpadd(hi, window_readincr_v8(in), 0, 0x76543210);
            window_writeincr(out, fpmax(lo, zeros, 0, 0x76543210));
            window_writeincr(out, fpmax(hi, zeros, 0, 0x76543210));
        }
    }

    static void registerKernelClass() {
        REGISTER_FUNCTION(BiasRelu::run);
        REGISTER_PARAMETER(bias);
    }
};
