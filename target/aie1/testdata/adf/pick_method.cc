// A kernel class with one method per number of outputs, its registerKernelClass choosing the
// method from a constant member computed from the template arguments (as an ADF graph's
// kernel::create_object does when it calls registerKernelClass), written for sumac's tests.
// Deal<int32, 24, 8> has PARTS = 3, so the kernel is deal3; every other method is there to
// be left out.
#include <adf.h>

template <typename T, int N, int PART>
class Deal {
  private:
    static constexpr int PARTS = N / PART;
    static constexpr int LAST = PARTS - 1;

  public:
    void deal1(input_stream<T> *in, output_window<T> *out0);
    void deal2(input_stream<T> *in, output_window<T> *out0, output_window<T> *out1);
    void deal3(input_stream<T> *in, output_window<T> *out0, output_window<T> *out1,
               output_window<T> *out2);

    static void registerKernelClass() {
        if (PARTS == 1) {
            REGISTER_FUNCTION(Deal::deal1);
        } else if (LAST == 1) {
            REGISTER_FUNCTION(Deal::deal2);
        } else {
            REGISTER_FUNCTION(Deal::deal3);
        }
    }
};

template <typename T, int N, int PART>
void Deal<T, N, PART>::deal1(input_stream<T> *in, output_window<T> *out0) {
    for (int i = 0; i < N; i++)
        window_writeincr(out0, readincr(in));
}

template <typename T, int N, int PART>
void Deal<T, N, PART>::deal2(input_stream<T> *in, output_window<T> *out0, output_window<T> *out1) {
    for (int i = 0; i < N / 2; i++) {
        window_writeincr(out0, readincr(in));
        window_writeincr(out1, readincr(in));
    }
}

template <typename T, int N, int PART>
void Deal<T, N, PART>::deal3(input_stream<T> *in, output_window<T> *out0, output_window<T> *out1,
                             output_window<T> *out2) {
    for (int i = 0; i < PART; i++) {
        window_writeincr(out0, readincr(in));
        window_writeincr(out1, readincr(in) + 1);
        window_writeincr(out2, readincr(in) - 1);
    }
}
