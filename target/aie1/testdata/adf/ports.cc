// Stream moves by port number (get_ss / getf_wss / put_ms / put_wms): ports are the stream
// parameters counted from the left, inputs and outputs apart. Frames each row of a float
// stream with a zero word on both sides, moving the row in 128-bit steps and its last two
// words one at a time, and drops a trailing pad word; the int stream's words are doubled.
// Written for sumac's tests.
#include <adf.h>

void ports(input_stream<float> *__restrict fin, input_stream<int32> *__restrict iin,
           output_stream<float> *__restrict fout, output_stream<int32> *__restrict iout) {
    for (int r = 0; r < 4; r++) {
        put_ms(0, 0);
        for (int w = 0; w < 8; w += 4)
            put_wms(0, getf_wss(0));
        put_ms(0, get_ss(0));
        put_ms(0, get_ss(0));
        get_ss(0);
        put_ms(0, 0);
        int x = get_ss(1);
        put_ms(1, x * 2);
    }
}
