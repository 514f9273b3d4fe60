/* A C program using libgemmforge_blas.so as a BLAS: the 8 GEMM symbols on
 * several shapes, ops, alpha and beta against the netlib reference BLAS
 * (dlopen'ed privately from argv[1]), and every argument error reported to
 * this program's own xerbla_ / cblas_xerbla with C left untouched.
 * Prints one line per failure and "FAILURES n" at the end; exit status 1 on
 * any failure. Built and run by tests/c_program.rs. */
#define _GNU_SOURCE
#include <complex.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RowMajor = 101, ColMajor = 102 };
enum { NoTrans = 111, Trans = 112, ConjTrans = 113 };

/* The library's symbols, declared as a program using BLAS declares them. */
void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *,
            const double *, const int *, const double *, const int *, const double *, double *,
            const int *, size_t, size_t);
void cgemm_(const char *, const char *, const int *, const int *, const int *, const void *,
            const void *, const int *, const void *, const int *, const void *, void *,
            const int *, size_t, size_t);
void zgemm_(const char *, const char *, const int *, const int *, const int *, const void *,
            const void *, const int *, const void *, const int *, const void *, void *,
            const int *, size_t, size_t);
void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int,
                 float, float *, int);
void cblas_dgemm(int, int, int, int, int, int, double, const double *, int, const double *, int,
                 double, double *, int);
void cblas_cgemm(int, int, int, int, int, int, const void *, const void *, int, const void *, int,
                 const void *, void *, int);
void cblas_zgemm(int, int, int, int, int, int, const void *, const void *, int, const void *, int,
                 const void *, void *, int);

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

void xerbla_(const char *name, const int *info, size_t len) {
    size_t n = len < sizeof err_name - 1 ? len : sizeof err_name - 1;
    memcpy(err_name, name, n);
    err_name[n] = 0;
    err_info = *info;
    err_calls++;
}

void cblas_xerbla(int info, const char *rout, const char *form, ...) {
    (void)form;
    snprintf(err_name, sizeof err_name, "%s", rout);
    err_info = info;
    err_calls++;
}

/* ---- element types: 0 s, 1 d, 2 c, 3 z ---- */
static const char *const PREFIX = "sdcz";
static const size_t ELEM[4] = {4, 8, 8, 16};
static int is_complex(int t) { return t >= 2; }
static int is_double(int t) { return t == 1 || t == 3; }

/* Small integers: every product and sum is exact in every type. */
static unsigned seed = 12345;
static double small_int(void) {
    seed = seed * 1103515245u + 12345u;
    return (double)((int)((seed >> 16) % 7) - 3);
}

static void set(int t, void *buf, size_t i, double re, double im) {
    switch (t) {
    case 0: ((float *)buf)[i] = (float)re; break;
    case 1: ((double *)buf)[i] = re; break;
    case 2: ((float *)buf)[2 * i] = (float)re; ((float *)buf)[2 * i + 1] = (float)im; break;
    default: ((double *)buf)[2 * i] = re; ((double *)buf)[2 * i + 1] = im; break;
    }
}

static void get(int t, const void *buf, size_t i, double *re, double *im) {
    *im = 0;
    switch (t) {
    case 0: *re = ((const float *)buf)[i]; break;
    case 1: *re = ((const double *)buf)[i]; break;
    case 2: *re = ((const float *)buf)[2 * i]; *im = ((const float *)buf)[2 * i + 1]; break;
    default: *re = ((const double *)buf)[2 * i]; *im = ((const double *)buf)[2 * i + 1]; break;
    }
}

static void *random_matrix(int t, size_t len) {
    void *p = malloc(ELEM[t] * (len ? len : 1));
    for (size_t i = 0; i < len; i++) set(t, p, i, small_int(), is_complex(t) ? small_int() : 0);
    return p;
}

static void *nan_matrix(int t, size_t len) {
    void *p = malloc(ELEM[t] * (len ? len : 1));
    for (size_t i = 0; i < len; i++) set(t, p, i, NAN, NAN);
    return p;
}

/* ---- the netlib reference BLAS ---- */
static fortran_gemm ref_f[4];
static void *ref_cblas[4];

static int load_reference(const char *path) {
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

static const fortran_gemm OURS_F[4] = {(fortran_gemm)sgemm_, (fortran_gemm)dgemm_,
                                      (fortran_gemm)cgemm_, (fortran_gemm)zgemm_};

/* One CBLAS call through `fn` (ours or the reference's) of type t. */
static void call_cblas(int t, void *fn, int layout, int ta, int tb, int m, int n, int k,
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

static void *OURS_CBLAS[4] = {(void *)cblas_sgemm, (void *)cblas_dgemm, (void *)cblas_cgemm,
                             (void *)cblas_zgemm};

static const char OPS[3] = {'N', 'T', 'C'};
static const int CBLAS_OPS[3] = {NoTrans, Trans, ConjTrans};

/* Compares our C with the reference's over the whole buffer: values in the
 * m x n part (0 == -0), bits everywhere else (the gaps of ldc > rows). */
static void compare(const char *what, int t, const void *ours, const void *ref, size_t len,
                    int rows, int cols, int ldc) {
    for (size_t idx = 0; idx < len; idx++) {
        int inside = (int)(idx % (size_t)ldc) < rows && (int)(idx / (size_t)ldc) < cols;
        double ore, oim, rre, rim;
        get(t, ours, idx, &ore, &oim);
        get(t, ref, idx, &rre, &rim);
        int same = inside ? (ore == rre && oim == rim)
                          : memcmp((const char *)ours + idx * ELEM[t], (const char *)ref + idx * ELEM[t], ELEM[t]) == 0;
        if (!same) {
            FAIL("%s: element %zu (%s): ours (%g, %g), reference (%g, %g)", what, idx,
                 inside ? "inside C" : "outside C", ore, oim, rre, rim);
            return;
        }
    }
}

/* One case on every entry point of type t: Fortran, CBLAS column- and row-major. */
static void run_case(int t, int opa, int opb, int m, int n, int k, const double *alpha,
                     const double *beta, int pad) {
    for (int api = 0; api < 3; api++) {
        int row = api == 2;
        /* Stored shapes (rows x cols of storage order's "column" layout). */
        int a_rows = (opa == 0) ? m : k, a_cols = (opa == 0) ? k : m;
        int b_rows = (opb == 0) ? k : n, b_cols = (opb == 0) ? n : k;
        int c_rows = m, c_cols = n;
        if (row) { int x; x = a_rows; a_rows = a_cols; a_cols = x; x = b_rows; b_rows = b_cols; b_cols = x;
                   x = c_rows; c_rows = c_cols; c_cols = x; }
        int lda = (a_rows > 1 ? a_rows : 1) + pad, ldb = (b_rows > 1 ? b_rows : 1) + pad;
        int ldc = (c_rows > 1 ? c_rows : 1) + pad;
        size_t la = (size_t)lda * a_cols, lb = (size_t)ldb * b_cols, lc = (size_t)ldc * c_cols;
        void *a = random_matrix(t, la), *b = random_matrix(t, lb);
        void *c = beta[0] == 0 && beta[1] == 0 ? nan_matrix(t, lc) : random_matrix(t, lc);
        void *c_ref = malloc(ELEM[t] * (lc ? lc : 1));
        memcpy(c_ref, c, ELEM[t] * lc);
        char what[160];
        snprintf(what, sizeof what, "%s %cgemm %c%c m=%d n=%d k=%d alpha=(%g,%g) beta=(%g,%g) pad=%d",
                 api == 0 ? "fortran" : row ? "cblas row-major" : "cblas col-major", PREFIX[t],
                 OPS[opa], OPS[opb], m, n, k, alpha[0], alpha[1], beta[0], beta[1], pad);
        float fa[2] = {(float)alpha[0], (float)alpha[1]}, fb[2] = {(float)beta[0], (float)beta[1]};
        const void *al = is_double(t) ? (const void *)alpha : fa, *be = is_double(t) ? (const void *)beta : fb;
        err_calls = 0;
        if (api == 0) {
            OURS_F[t](&OPS[opa], &OPS[opb], &m, &n, &k, al, a, &lda, b, &ldb, be, c, &ldc, 1, 1);
            ref_f[t](&OPS[opa], &OPS[opb], &m, &n, &k, al, a, &lda, b, &ldb, be, c_ref, &ldc, 1, 1);
        } else if (ref_cblas[t]) {
            int layout = row ? RowMajor : ColMajor;
            call_cblas(t, OURS_CBLAS[t], layout, CBLAS_OPS[opa], CBLAS_OPS[opb], m, n, k, alpha, a, lda,
                       b, ldb, beta, c, ldc);
            call_cblas(t, ref_cblas[t], layout, CBLAS_OPS[opa], CBLAS_OPS[opb], m, n, k, alpha, a, lda,
                       b, ldb, beta, c_ref, ldc);
        }
        if (err_calls) FAIL("%s: an error was reported for a valid call", what);
        compare(what, t, c, c_ref, lc, c_rows, c_cols, ldc);
        free(a); free(b); free(c); free(c_ref);
    }
}

static void product_cases(void) {
    const double one[2] = {1, 0}, zero[2] = {0, 0}, two[2] = {2, 0}, odd[2] = {-1.5, 0.5};
    const double half[2] = {0.5, -2};
    for (int t = 0; t < 4; t++) {
        /* Every op pair on a ragged shape with padded leading dimensions. */
        for (int opa = 0; opa < 3; opa++)
            for (int opb = 0; opb < 3; opb++) run_case(t, opa, opb, 9, 7, 5, odd, half, 2);
        /* Shapes past a Table 2 tile, alpha and beta special values. */
        run_case(t, 0, 0, 37, 33, 21, one, zero, 0);
        run_case(t, 1, 2, 19, 40, 3, two, one, 1);
        run_case(t, 2, 0, 1, 1, 1, one, one, 0);
        run_case(t, 0, 1, 6, 5, 4, zero, zero, 1);  /* alpha = 0, beta = 0: C = 0 over NaN */
        run_case(t, 0, 1, 6, 5, 4, zero, odd, 0);   /* alpha = 0: C = beta C */
        run_case(t, 1, 0, 6, 5, 0, two, zero, 1);   /* k = 0, beta = 0 */
        run_case(t, 1, 0, 6, 5, 0, two, half, 0);   /* k = 0: C = beta C */
        run_case(t, 0, 0, 0, 5, 3, two, half, 0);   /* m = 0 */
        run_case(t, 0, 0, 4, 3, 2, zero, one, 0);   /* alpha = 0, beta = 1: quick return */
    }
}

/* ---- argument errors ---- */
struct fortran_err { char ta, tb; int m, n, k, lda, ldb, ldc, info; };
struct cblas_err { int layout, ta, tb, m, n, k, lda, ldb, ldc, pos; };

static void error_cases(void) {
    static const struct fortran_err F[] = {
        {'X', 'N', 2, 2, 2, 2, 2, 2, 1}, {'n', 'Q', -1, 2, 2, 2, 2, 2, 2}, {'t', 'c', -1, -1, -1, 0, 0, 0, 3},
        {'N', 'N', 2, -1, -1, 0, 0, 0, 4}, {'N', 'N', 2, 2, -1, 0, 0, 0, 5}, {'N', 'N', 3, 2, 2, 2, 0, 0, 8},
        {'T', 'N', 3, 2, 4, 3, 0, 0, 8}, {'N', 'N', 3, 2, 4, 3, 3, 0, 10}, {'N', 'T', 3, 5, 4, 3, 4, 0, 10},
        {'N', 'N', 3, 2, 4, 3, 4, 2, 13}, {'N', 'N', 0, 0, 0, 0, 1, 1, 8},
    };
    static const struct cblas_err C[] = {
        {100, NoTrans, NoTrans, 2, 2, 2, 2, 2, 2, 1}, {ColMajor, 110, 0, 2, 2, 2, 2, 2, 2, 2},
        {RowMajor, 114, NoTrans, 2, 2, 2, 2, 2, 2, 2}, {ColMajor, Trans, 0, 2, 2, 2, 2, 2, 2, 3},
        {RowMajor, NoTrans, 1, -1, -1, -1, 0, 0, 0, 3}, {ColMajor, NoTrans, NoTrans, -1, -1, 0, 0, 0, 0, 4},
        {ColMajor, NoTrans, NoTrans, 2, -1, -1, 0, 0, 0, 5}, {ColMajor, NoTrans, NoTrans, 2, 2, -1, 0, 0, 0, 6},
        {ColMajor, NoTrans, NoTrans, 3, 2, 4, 2, 0, 0, 9}, {ColMajor, NoTrans, Trans, 3, 2, 4, 3, 1, 0, 11},
        {ColMajor, NoTrans, NoTrans, 3, 2, 4, 3, 4, 2, 14},
        /* Row-major: the reference checks the swapped call: N before M, ldb before lda. */
        {RowMajor, NoTrans, NoTrans, -1, -1, 0, 0, 0, 0, 5}, {RowMajor, NoTrans, NoTrans, -1, 2, 0, 1, 2, 2, 4},
        {RowMajor, NoTrans, NoTrans, 2, 2, -1, 0, 0, 0, 6}, {RowMajor, NoTrans, NoTrans, 3, 4, 5, 4, 3, 4, 11},
        {RowMajor, NoTrans, NoTrans, 3, 4, 5, 4, 4, 4, 9}, {RowMajor, Trans, Trans, 3, 4, 5, 2, 5, 4, 9},
        {RowMajor, NoTrans, NoTrans, 3, 4, 5, 5, 4, 3, 14},
    };
    const double alpha[2] = {1, 0}, beta[2] = {0, 0};
    static const char *const FNAME[4] = {"SGEMM ", "DGEMM ", "CGEMM ", "ZGEMM "};
    static const char *const CNAME[4] = {"cblas_sgemm", "cblas_dgemm", "cblas_cgemm", "cblas_zgemm"};
    for (int t = 0; t < 4; t++) {
        unsigned char buf[64 * 16], before[sizeof buf];
        memset(buf, 42, sizeof buf);
        memcpy(before, buf, sizeof buf);
        float fa[2] = {1, 0}, fb[2] = {0, 0};
        const void *al = is_double(t) ? (const void *)alpha : fa, *be = is_double(t) ? (const void *)beta : fb;
        for (size_t i = 0; i < sizeof F / sizeof F[0]; i++) {
            const struct fortran_err *e = &F[i];
            err_calls = 0; err_info = -1; err_name[0] = 0;
            OURS_F[t](&e->ta, &e->tb, &e->m, &e->n, &e->k, al, buf, &e->lda, buf, &e->ldb, be, buf, &e->ldc, 1, 1);
            if (err_calls != 1 || err_info != e->info || strcmp(err_name, FNAME[t]) != 0)
                FAIL("%cgemm_ error case %zu: xerbla_ called %d times, last ('%s', %d), expected ('%s', %d)",
                     PREFIX[t], i, err_calls, err_name, err_info, FNAME[t], e->info);
            if (memcmp(buf, before, sizeof buf) != 0) FAIL("%cgemm_ error case %zu: C was written", PREFIX[t], i);
        }
        for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
            const struct cblas_err *e = &C[i];
            err_calls = 0; err_info = -1; err_name[0] = 0;
            call_cblas(t, OURS_CBLAS[t], e->layout, e->ta, e->tb, e->m, e->n, e->k, alpha, buf, e->lda, buf,
                       e->ldb, beta, buf, e->ldc);
            if (err_calls != 1 || err_info != e->pos || strcmp(err_name, CNAME[t]) != 0)
                FAIL("%s error case %zu: cblas_xerbla called %d times, last ('%s', %d), expected ('%s', %d)",
                     CNAME[t], i, err_calls, err_name, err_info, CNAME[t], e->pos);
            if (memcmp(buf, before, sizeof buf) != 0) FAIL("%s error case %zu: C was written", CNAME[t], i);
        }
    }
}

int main(int argc, char **argv) {
    error_cases();
    if (argc > 1 && load_reference(argv[1])) {
        if (!ref_cblas[0]) printf("SKIP: %s has no CBLAS symbols; CBLAS results not compared\n", argv[1]);
        product_cases();
    } else {
        printf("SKIP: the netlib reference BLAS (%s) could not be loaded; results not compared\n",
               argc > 1 ? argv[1] : "no path given");
    }
    printf("FAILURES %d\n", failures);
    return failures != 0;
}
