// Constants stored into a local array (the front end makes each a temporary assigned once,
// which the backend folds into its users), written for sumac's tests: the stored value still
// needs a register.
#include <adf.h>

void const_store(input_window<int16> *__restrict in, output_window<int16> *__restrict out) {
    int16 a[8];
    a[0] = 5;
    a[1] = -3;
    a[2] = 300;
    for (int i = 3; i < 8; i++)
        a[i] = window_readincr(in);
    for (int i = 0; i < 8; i++)
        window_writeincr(out, a[i]);
}
