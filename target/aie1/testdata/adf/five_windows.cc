// Five input windows concatenated row by row into a stream, with a local array written at
// the start and the end (as onnx2versal's ConcatInt8 stores its cycle counter reads), written
// for sumac's tests: flattened, more pointers are live than the pointer registers hold, so
// the backend rematerializes the array's address and splits the spilled window positions'
// live ranges (regalloc.go).
#include <adf.h>

void five_windows(input_window<int8> *__restrict in0, input_window<int8> *__restrict in1,
                  input_window<int8> *__restrict in2, input_window<int8> *__restrict in3,
                  input_window<int8> *__restrict in4, output_stream<int8> *__restrict out) {
    int32 marks[2];
    marks[0] = 7;
    for (int h = 0; h < 3; h++) {
        for (int i = 0; i < 32; i += 16)
            writeincr_v16(out, window_readincr_v16(in0));
        for (int i = 0; i < 32; i += 16)
            writeincr_v16(out, window_readincr_v16(in1));
        for (int i = 0; i < 32; i += 16)
            writeincr_v16(out, window_readincr_v16(in2));
        for (int i = 0; i < 32; i += 16)
            writeincr_v16(out, window_readincr_v16(in3));
        writeincr_v16(out, window_readincr_v16(in4));
        window_incr(in4, 16);
    }
    marks[1] = marks[0] + 1;
    writeincr(out, (int8)marks[1]);
}
