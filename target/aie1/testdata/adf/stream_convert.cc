// writeincr's implicit conversions, written for sumac's tests. ADF declares one writeincr per
// stream type (UG1079 "Window and Streaming Data API": writeincr(output_stream<float> *,
// float), writeincr(output_stream<int16> *, int16), ...), so an int value passed to it is
// converted by C++'s implicit conversion: to the nearest float, or wrapped to 16 bits. The
// values here are int constants (a literal, a const variable, a flattened loop's counter),
// which the backend encodes in the instruction, and int values read at run time.
#include <adf.h>

void stream_convert(input_stream<int32> *__restrict sin, output_stream<float> *__restrict fout, output_stream<int16> *__restrict hout) {
    const int c = 100000;
    writeincr(hout, c);  // 100000 wraps to -31072
    writeincr(fout, 3);  // 3.0f, not the bits 0x00000003
    float f = 7;         // an int constant moved into a float
    writeincr(fout, f);
    for (int i = 0; i < 4; i++) {    // the backend flattens this loop: the counter is a
        writeincr(fout, i);          // constant in each copy
        writeincr(hout, i * 20000);  // 40000 and 60000 wrap
    }
    for (int i = 0; i < 4; i++) chess_prepare_for_pipelining {
        int x = readincr(sin);
        writeincr(fout, x);
        writeincr(hout, x);
    }
}
