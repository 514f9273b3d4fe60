/* What the C programs testing libgemmforge_blas.so share: the CBLAS enums,
 * the failure count, this program's own xerbla_ / xerbla_64_ / cblas_xerbla
 * (which record the last report and the handler that took it), element
 * types 0 s, 1 d, 2 c, 3 z with exact small-integer data, and the netlib
 * reference BLAS dlopen'ed privately.
 * Include it first (it defines _GNU_SOURCE). */
#ifndef BLAS_C_COMMON_H
#define BLAS_C_COMMON_H
#define _GNU_SOURCE
#include <complex.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RowMajor = 101, ColMajor = 102 };
enum { NoTrans = 111, Trans = 112, ConjTrans = 113 };

/* The reference BLAS's single GEMMs, as pointers (netlib's, or this library's). */
typedef void (*fortran_gemm)(const char *, const char *, const int *, const int *, const int *,
                             const void *, const void *, const int *, const void *, const int *,
                             const void *, void *, const int *, size_t, size_t);
typedef void (*cblas_real_s)(int, int, int, int, int, int, float, const float *, int,
                             const float *, int, float, float *, int);
typedef void (*cblas_real_d)(int, int, int, int, int, int, double, const double *, int,
                             const double *, int, double, double *, int);
typedef void (*cblas_cplx)(int, int, int, int, int, int, const void *, const void *, int,
                           const void *, int, const void *, void *, int);

static int failures = 0;
#define FAIL(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); failures++; } while (0)

/* ---- this program's own error handlers, as the reference test programs define them ---- */
static char err_name[32];
static int err_info = -1, err_calls = 0;
static const char *err_handler = ""; /* which handler took the last report */

static inline void record_fortran(const char *handler, const char *name, long long info, size_t len) {
    size_t n = len < sizeof err_name - 1 ? len : sizeof err_name - 1;
    memcpy(err_name, name, n);
    err_name[n] = 0;
    err_info = (int)info;
    err_handler = handler;
    err_calls++;
}

void xerbla_(const char *name, const int *info, size_t len) { record_fortran("xerbla_", name, *info, len); }

/* The ILP64 interface's handler: INFO is an INTEGER*8. */
void xerbla_64_(const char *name, const int64_t *info, size_t len) {
    record_fortran("xerbla_64_", name, *info, len);
}

void cblas_xerbla(int info, const char *rout, const char *form, ...) {
    (void)form;
    snprintf(err_name, sizeof err_name, "%s", rout);
    err_info = info;
    err_handler = "cblas_xerbla";
    err_calls++;
}

/* Clears the record before a call that should report. */
static inline void expect_report(void) {
    err_calls = 0;
    err_info = -1;
    err_name[0] = 0;
    err_handler = "";
}

/* ---- element types: 0 s, 1 d, 2 c, 3 z ---- */
static const char *const PREFIX = "sdcz";
static const size_t ELEM[4] = {4, 8, 8, 16};
static inline int is_complex(int t) { return t >= 2; }
static inline int is_double(int t) { return t == 1 || t == 3; }

/* Small integers: every product and sum is exact in every type. */
static unsigned seed = 12345;
static inline double small_int(void) {
    seed = seed * 1103515245u + 12345u;
    return (double)((int)((seed >> 16) % 7) - 3);
}

static inline void set(int t, void *buf, size_t i, double re, double im) {
    switch (t) {
    case 0: ((float *)buf)[i] = (float)re; break;
    case 1: ((double *)buf)[i] = re; break;
    case 2: ((float *)buf)[2 * i] = (float)re; ((float *)buf)[2 * i + 1] = (float)im; break;
    default: ((double *)buf)[2 * i] = re; ((double *)buf)[2 * i + 1] = im; break;
    }
}

static inline void get(int t, const void *buf, size_t i, double *re, double *im) {
    *im = 0;
    switch (t) {
    case 0: *re = ((const float *)buf)[i]; break;
    case 1: *re = ((const double *)buf)[i]; break;
    case 2: *re = ((const float *)buf)[2 * i]; *im = ((const float *)buf)[2 * i + 1]; break;
    default: *re = ((const double *)buf)[2 * i]; *im = ((const double *)buf)[2 * i + 1]; break;
    }
}

static inline void *random_matrix(int t, size_t len) {
    void *p = malloc(ELEM[t] * (len ? len : 1));
    for (size_t i = 0; i < len; i++) set(t, p, i, small_int(), is_complex(t) ? small_int() : 0);
    return p;
}

static inline void *nan_matrix(int t, size_t len) {
    void *p = malloc(ELEM[t] * (len ? len : 1));
    for (size_t i = 0; i < len; i++) set(t, p, i, NAN, NAN);
    return p;
}

/* ---- the netlib reference BLAS ---- */
static fortran_gemm ref_f[4];
static void *ref_cblas[4];

static inline int load_reference(const char *path) {
    /* RTLD_DEEPBIND: the reference's CBLAS must call its own sgemm_, not ours. */
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!h) return 0;
    const char *f[4] = {"sgemm_", "dgemm_", "cgemm_", "zgemm_"};
    const char *c[4] = {"cblas_sgemm", "cblas_dgemm", "cblas_cgemm", "cblas_zgemm"};
    for (int t = 0; t < 4; t++) {
        ref_f[t] = (fortran_gemm)dlsym(h, f[t]);
        ref_cblas[t] = dlsym(h, c[t]);
        if (!ref_f[t]) return 0;
    }
    return 1;
}

/* One CBLAS call through `fn` (ours or the reference's) of type t. */
static inline void call_cblas(int t, void *fn, int layout, int ta, int tb, int m, int n, int k,
                       const double *alpha, const void *a, int lda, const void *b, int ldb,
                       const double *beta, void *c, int ldc) {
    float sa[2] = {(float)alpha[0], (float)alpha[1]}, sb[2] = {(float)beta[0], (float)beta[1]};
    switch (t) {
    case 0: ((cblas_real_s)fn)(layout, ta, tb, m, n, k, sa[0], a, lda, b, ldb, sb[0], c, ldc); break;
    case 1: ((cblas_real_d)fn)(layout, ta, tb, m, n, k, alpha[0], a, lda, b, ldb, beta[0], c, ldc); break;
    case 2: ((cblas_cplx)fn)(layout, ta, tb, m, n, k, sa, a, lda, b, ldb, sb, c, ldc); break;
    default: ((cblas_cplx)fn)(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); break;
    }
}

static const char OPS[3] = {'N', 'T', 'C'};
static const int CBLAS_OPS[3] = {NoTrans, Trans, ConjTrans};

#endif
