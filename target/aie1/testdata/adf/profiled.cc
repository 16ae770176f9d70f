// A kernel that profiles itself the way UG1079 "Profiling Kernel Code" shows (read the tile's
// cycle counter before and after the work, keep the difference), written for sumac's tests.
// The reads return the cycle simulator's counter; the interpreter and the g++ emulation return
// the same values, so the difference written out is checked like any other output.
#include <adf.h>
#include <aie_api/aie.hpp>

#ifndef N
#define N 64
#endif

void profiled(input_window<int16> *in, output_window<int16> *out, output_stream<int32> *prof) {
    aie::tile tile = aie::tile::current();
    unsigned t0 = tile.cycles();
    for (int i = 0; i < N / 16; i++)
        chess_prepare_for_pipelining
    {
        aie::vector<int16, 16> x = window_readincr_v<16>(in);
        aie::vector<int16, 16> y = aie::add(x, x);
        window_writeincr(out, y);
    }
    unsigned t1 = tile.cycles();
    writeincr(prof, (int32)(t1 - t0));
}
