/* A CPU BLAS the program loads privately (dlopen RTLD_LOCAL, as Python
 * loads NumPy's OpenBLAS) is out of RTLD_NEXT's reach; gemmforge-blas must
 * still find its ILP64 sgemm_64_ among the loaded objects and run a CPU
 * call there. argv[1]: that library (tests/fake_batch_blas.c, which says
 * on stderr each sgemm_64_ call it gets). Prints "RESULT OK" when C is
 * right. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

void sgemm_64_(const char *, const char *, const int64_t *, const int64_t *, const int64_t *, const float *,
               const float *, const int64_t *, const float *, const int64_t *, const float *, float *,
               const int64_t *, size_t, size_t);

int main(int argc, char **argv) {
    if (argc < 2 || !dlopen(argv[1], RTLD_NOW | RTLD_LOCAL)) {
        fprintf(stderr, "usage: private_blas LIBRARY (which must load)\n");
        return 2;
    }
    const int64_t m = 2, n = 2, k = 2, ld = 2;
    const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, one = 1, zero = 0;
    float c[4] = {0};
    sgemm_64_("N", "N", &m, &n, &k, &one, a, &ld, b, &ld, &zero, c, &ld, 1, 1);
    /* Column-major: C = A B = [[23, 31], [34, 46]]. */
    int ok = c[0] == 23 && c[1] == 34 && c[2] == 31 && c[3] == 46;
    printf("RESULT %s\n", ok ? "OK" : "WRONG");
    return ok ? 0 : 1;
}
