// A kernel class template in the ADF packaging (UG1079 "C++ Kernel Class Support", "C++
// Template Support"), written for sumac's tests: the graph creates it with
// kernel::create_object<ScaleBias<int16, 64, 3, true>>(taps, 5), which `sumac sim` reads as
// --instance 'ScaleBias<int16, 64, 3, true>(5)' (the array argument is an input).
#pragma once
#include <adf.h>

template <typename T, int N, int SHIFT, bool RELU>
class ScaleBias {
  private:
    alignas(32) T (&taps)[16]; // a run-time parameter array the graph passes (REGISTER_PARAMETER)
    int16 offset;              // set by the constructor
    alignas(32) T hist[16];    // state kept in the object

  public:
    ScaleBias(T (&t)[16], int16 off) : taps(t), offset(off) {}

    void run(input_window<T> *__restrict in, output_window<T> *__restrict out);

    static void registerKernelClass() {
        REGISTER_FUNCTION(ScaleBias::run);
        REGISTER_PARAMETER(taps);
    }
};
