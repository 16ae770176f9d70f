// Run-time ifs that only assign scalars, written for sumac's tests: the backend turns them
// into selects (if-conversion); the first keeps the index of the largest value of each group
// of 8, the second has an else branch and assigns its own condition's variable.
#include <adf.h>

void if_select(input_window<int32> *__restrict in, output_window<int32> *__restrict out) {
    for (int g = 0; g < 4; g++) {
        int best = window_readincr(in);
        int idx = 0;
        for (int j = 1; j < 8; j++) {
            int a = window_readincr(in);
            if (a > best) {
                best = a;
                idx = j;
            }
        }
        int flag = best & 1;
        int odd = 0;
        if (flag) {
            flag = 0;
            odd = best - 1;
        } else {
            odd = best + idx;
        }
        window_writeincr(out, idx);
        window_writeincr(out, odd + flag);
    }
}
