/* GEMMs on memory the program allocated with CUDA: device memory (all
 * three operands, or some of them beside host memory) and managed memory,
 * passed to the ordinary CBLAS symbols and to the strided-batched ones. gemmforge-blas must use them in
 * place on their GPU, whatever GEMMFORGE_BLAS_BACKEND says (no CPU can read
 * device memory). Each result is compared with a plain loop in double.
 *
 * The driver API is loaded with dlopen, so this compiles without CUDA's
 * headers. Without a driver or a GPU it prints SKIP and exits 0 (77 when
 * GEMMFORGE_REQUIRE_GPU=1 is set, which the Rust test turns into a failure).
 * Prints "FAILURES <n>" last; exits 1 when n > 0. */
#include <complex.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RowMajor = 101, ColMajor = 102, NoTrans = 111, Trans = 112, ConjTrans = 113 };
void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *,
                 int);
void cblas_dgemm(int, int, int, int, int, int, double, const double *, int, const double *, int, double,
                 double *, int);
void cblas_zgemm(int, int, int, int, int, int, const void *, const void *, int, const void *, int, const void *,
                 void *, int);

void cblas_sgemm_batch_strided(int, int, int, int, int, int, float, const float *, int, int, const float *, int, int,
                               float, float *, int, int, int);
void cblas_dgemm_batch_strided(int, int, int, int, int, int, double, const double *, int, int, const double *, int,
                               int, double, double *, int, int, int);
void cblas_zgemm_batch_strided(int, int, int, int, int, int, const void *, const void *, int, int, const void *, int,
                               int, const void *, void *, int, int, int);

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
static CUresult (*cuInit)(unsigned);
static CUresult (*cuDeviceGet)(int *, int);
static CUresult (*cuDevicePrimaryCtxRetain)(void **, int);
static CUresult (*cuCtxSetCurrent)(void *);
static CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
static CUresult (*cuMemAllocManaged)(CUdeviceptr *, size_t, unsigned);
static CUresult (*cuMemFree)(CUdeviceptr);
static CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
static CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
static CUresult (*cuCtxSynchronize)(void);

static int failures = 0;

#define LOAD(lib, name, sym)                                                                                        \
    do {                                                                                                          \
        *(void **)(&name) = dlsym(lib, sym);                                                                      \
        if (!name) return 0;                                                                                      \
    } while (0)

static int load_driver(void) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!lib) return 0;
    LOAD(lib, cuInit, "cuInit");
    LOAD(lib, cuDeviceGet, "cuDeviceGet");
    LOAD(lib, cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    LOAD(lib, cuCtxSetCurrent, "cuCtxSetCurrent");
    LOAD(lib, cuMemAlloc, "cuMemAlloc_v2");
    LOAD(lib, cuMemAllocManaged, "cuMemAllocManaged");
    LOAD(lib, cuMemFree, "cuMemFree_v2");
    LOAD(lib, cuMemcpyHtoD, "cuMemcpyHtoD_v2");
    LOAD(lib, cuMemcpyDtoH, "cuMemcpyDtoH_v2");
    LOAD(lib, cuCtxSynchronize, "cuCtxSynchronize");
    int dev;
    void *ctx;
    if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) || cuCtxSetCurrent(ctx)) return 0;
    return 1;
}

/* Where an operand lives. */
enum Where { HOST, DEVICE, MANAGED };
static const char *where_name[] = {"host", "device", "managed"};

/* A copy of `bytes` of `host` in `where` memory (the host pointer itself for HOST). */
static void *place(const void *host, size_t bytes, enum Where where, CUdeviceptr *owned) {
    *owned = 0;
    if (where == HOST) return (void *)host;
    if (where == DEVICE ? cuMemAlloc(owned, bytes) : cuMemAllocManaged(owned, bytes, 1)) {
        fprintf(stderr, "allocation of %zu bytes failed\n", bytes);
        exit(2);
    }
    cuMemcpyHtoD(*owned, host, bytes);
    return (void *)(uintptr_t)*owned;
}

/* C back to the host (from device, managed or host memory) and freed. */
static void fetch(void *dst, void *c, size_t bytes, enum Where where, CUdeviceptr owned) {
    cuCtxSynchronize();
    if (where == HOST) return;
    cuMemcpyDtoH(dst, owned, bytes);
    cuMemFree(owned);
}

/* Element (i, j) of op(X) for a column-major X with leading dimension ld. */
static double complex elem(const double complex *x, int ld, int trans, int i, int j) {
    double complex v = trans == NoTrans ? x[i + (size_t)j * ld] : x[j + (size_t)i * ld];
    return trans == ConjTrans ? conj(v) : v;
}

/* One column-major call of type `t` ('s', 'd', 'z') with A, B, C in `wa`, `wb`, `wc` memory. */
static void check(char t, int ta, int tb, int m, int n, int k, enum Where wa, enum Where wb, enum Where wc) {
    int lda = (ta == NoTrans ? m : k) + 1, ldb = (tb == NoTrans ? k : n) + 2, ldc = m + 3;
    size_t la = (size_t)lda * (ta == NoTrans ? k : m), lb = (size_t)ldb * (tb == NoTrans ? n : k),
           lc = (size_t)ldc * n;
    size_t es = t == 's' ? 4 : t == 'd' ? 8 : 16;
    double complex *a = malloc(la * 16), *b = malloc(lb * 16), *c = malloc(lc * 16);
    for (size_t i = 0; i < la; i++) a[i] = (double)((i * 7) % 13) / 8 - 0.75 + (t == 'z' ? I * ((double)(i % 5) / 4) : 0);
    for (size_t i = 0; i < lb; i++) b[i] = (double)((i * 5) % 11) / 8 - 0.5 + (t == 'z' ? I * ((double)(i % 3) / 2) : 0);
    for (size_t i = 0; i < lc; i++) c[i] = (double)(i % 9) / 4 + (t == 'z' ? I * 0.25 : 0);
    /* Typed host copies. */
    void *ha = malloc(la * es), *hb = malloc(lb * es), *hc = malloc(lc * es);
    for (size_t i = 0; i < la; i++) {
        if (t == 's') ((float *)ha)[i] = creal(a[i]);
        else if (t == 'd') ((double *)ha)[i] = creal(a[i]);
        else ((double complex *)ha)[i] = a[i];
    }
    for (size_t i = 0; i < lb; i++) {
        if (t == 's') ((float *)hb)[i] = creal(b[i]);
        else if (t == 'd') ((double *)hb)[i] = creal(b[i]);
        else ((double complex *)hb)[i] = b[i];
    }
    for (size_t i = 0; i < lc; i++) {
        if (t == 's') ((float *)hc)[i] = creal(c[i]);
        else if (t == 'd') ((double *)hc)[i] = creal(c[i]);
        else ((double complex *)hc)[i] = c[i];
    }
    if (t != 'z') {
        for (size_t i = 0; i < la; i++) a[i] = creal(a[i]);
        for (size_t i = 0; i < lb; i++) b[i] = creal(b[i]);
        for (size_t i = 0; i < lc; i++) c[i] = creal(c[i]);
    }
    CUdeviceptr oa, ob, oc;
    void *pa = place(ha, la * es, wa, &oa), *pb = place(hb, lb * es, wb, &ob), *pc = place(hc, lc * es, wc, &oc);
    double complex alpha = t == 'z' ? 1.5 - 0.5 * I : 1.5, beta = t == 'z' ? -0.5 + 0.25 * I : -0.5;
    if (t == 's') cblas_sgemm(ColMajor, ta, tb, m, n, k, 1.5f, pa, lda, pb, ldb, -0.5f, pc, ldc);
    else if (t == 'd') cblas_dgemm(ColMajor, ta, tb, m, n, k, 1.5, pa, lda, pb, ldb, -0.5, pc, ldc);
    else cblas_zgemm(ColMajor, ta, tb, m, n, k, &alpha, pa, lda, pb, ldb, &beta, pc, ldc);
    fetch(hc, pc, lc * es, wc, oc);
    if (oa) cuMemFree(oa);
    if (ob) cuMemFree(ob);
    double worst = 0;
    int gap_written = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldc; i++) {
            size_t at = i + (size_t)j * ldc;
            double complex got = t == 's' ? ((float *)hc)[at] : t == 'd' ? ((double *)hc)[at] : ((double complex *)hc)[at];
            if (i >= m) {
                gap_written |= got != c[at];
                continue;
            }
            double complex want = beta * c[at];
            for (int l = 0; l < k; l++) want += alpha * elem(a, lda, ta, i, l) * elem(b, ldb, tb, l, j);
            double err = cabs(got - want) / (1 + cabs(want));
            if (err > worst) worst = err;
        }
    double tol = t == 's' ? 1e-4 : 1e-11;
    int ok = worst <= tol && !gap_written;
    failures += !ok;
    printf("%s %cgemm ta=%d tb=%d %dx%dx%d A %s B %s C %s: max rel err %.1e%s\n", ok ? "ok  " : "FAIL", t, ta, tb, m,
           n, k, where_name[wa], where_name[wb], where_name[wc], worst, gap_written ? ", rows past m written" : "");
    free(a), free(b), free(c), free(ha), free(hb), free(hc);
}

/* A strided batch of 3 column-major N·N problems of type `t`, A, B, C in
 * `wa`, `wb`, `wc` memory, strides with gaps between the problems. */
static void check_batch(char t, enum Where wa, enum Where wb, enum Where wc) {
    enum { M = 33, N = 20, K = 17, COUNT = 3 };
    int lda = M + 1, ldb = K + 2, ldc = M + 3;
    int sa = lda * K + 5, sb = ldb * N + 7, sc = ldc * N + 11;
    size_t la = (size_t)sa * COUNT, lb = (size_t)sb * COUNT, lc = (size_t)sc * COUNT;
    size_t es = t == 's' ? 4 : t == 'd' ? 8 : 16;
    double complex *a = malloc(la * 16), *b = malloc(lb * 16), *c = malloc(lc * 16);
    void *ha = malloc(la * es), *hb = malloc(lb * es), *hc = malloc(lc * es);
    double complex *all[3] = {a, b, c};
    void *typed[3] = {ha, hb, hc};
    size_t lens[3] = {la, lb, lc};
    for (int x = 0; x < 3; x++)
        for (size_t i = 0; i < lens[x]; i++) {
            double complex v = (double)((i * (5 + 2 * x)) % 13) / 8 - 0.5 + (t == 'z' ? I * ((double)(i % 7) / 8) : 0);
            all[x][i] = v;
            if (t == 's') ((float *)typed[x])[i] = creal(v);
            else if (t == 'd') ((double *)typed[x])[i] = creal(v);
            else ((double complex *)typed[x])[i] = v;
        }
    CUdeviceptr oa, ob, oc;
    void *pa = place(ha, la * es, wa, &oa), *pb = place(hb, lb * es, wb, &ob), *pc = place(hc, lc * es, wc, &oc);
    double complex alpha = t == 'z' ? 0.5 + 1.0 * I : 0.5, beta = t == 'z' ? 2.0 - 1.0 * I : 2.0;
    if (t == 's')
        cblas_sgemm_batch_strided(ColMajor, NoTrans, NoTrans, M, N, K, 0.5f, pa, lda, sa, pb, ldb, sb, 2.0f, pc, ldc,
                                  sc, COUNT);
    else if (t == 'd')
        cblas_dgemm_batch_strided(ColMajor, NoTrans, NoTrans, M, N, K, 0.5, pa, lda, sa, pb, ldb, sb, 2.0, pc, ldc, sc,
                                  COUNT);
    else
        cblas_zgemm_batch_strided(ColMajor, NoTrans, NoTrans, M, N, K, &alpha, pa, lda, sa, pb, ldb, sb, &beta, pc,
                                  ldc, sc, COUNT);
    fetch(hc, pc, lc * es, wc, oc);
    if (oa) cuMemFree(oa);
    if (ob) cuMemFree(ob);
    double worst = 0;
    int outside_written = 0;
    for (size_t at = 0; at < lc; at++) {
        size_t p = at / sc, in = at % sc, i = in % ldc, j = in / ldc;
        double complex got = t == 's' ? ((float *)hc)[at] : t == 'd' ? ((double *)hc)[at] : ((double complex *)hc)[at];
        if (i >= M || j >= N) {
            outside_written |= got != c[at];
            continue;
        }
        double complex want = beta * c[at];
        for (int l = 0; l < K; l++) want += alpha * a[p * sa + i + (size_t)l * lda] * b[p * sb + l + j * ldb];
        double err = cabs(got - want) / (1 + cabs(want));
        if (err > worst) worst = err;
    }
    double tol = t == 's' ? 1e-4 : 1e-11;
    int ok = worst <= tol && !outside_written;
    failures += !ok;
    printf("%s %cgemm_batch_strided x%d %dx%dx%d A %s B %s C %s: max rel err %.1e%s\n", ok ? "ok  " : "FAIL", t,
           COUNT, M, N, K, where_name[wa], where_name[wb], where_name[wc], worst,
           outside_written ? ", elements outside the problems written" : "");
    free(a), free(b), free(c), free(ha), free(hb), free(hc);
}

int main(void) {
    if (!load_driver()) {
        const char *req = getenv("GEMMFORGE_REQUIRE_GPU");
        printf("SKIP: no CUDA driver or GPU (device-pointer GEMMs not tested)\n");
        return req && strcmp(req, "1") == 0 ? 77 : 0;
    }
    const char types[] = {'s', 'd', 'z'};
    const enum Where all[][3] = {{DEVICE, DEVICE, DEVICE}, {DEVICE, HOST, HOST}, {HOST, DEVICE, HOST},
                                 {HOST, HOST, DEVICE},     {MANAGED, MANAGED, MANAGED}, {DEVICE, MANAGED, HOST}};
    for (int t = 0; t < 3; t++)
        for (size_t w = 0; w < sizeof all / sizeof all[0]; w++) {
            check(types[t], NoTrans, NoTrans, 67, 45, 33, all[w][0], all[w][1], all[w][2]);
            check(types[t], Trans, types[t] == 'z' ? ConjTrans : Trans, 300, 129, 17, all[w][0], all[w][1], all[w][2]);
        }
    for (int t = 0; t < 3; t++) {
        check_batch(types[t], DEVICE, DEVICE, DEVICE);
        check_batch(types[t], DEVICE, HOST, HOST);
        check_batch(types[t], HOST, HOST, MANAGED);
    }
    printf("FAILURES %d\n", failures);
    return failures ? 1 : 0;
}
