/* A C program using libgemmforge_blas.so as a BLAS: the 8 GEMM symbols on
 * several shapes, ops, alpha and beta against the netlib reference BLAS
 * (dlopen'ed privately from argv[1]), and every argument error reported to
 * this program's own xerbla_ / cblas_xerbla with C left untouched.
 * Prints one line per failure and "FAILURES n" at the end; exit status 1 on
 * any failure. Built and run by tests/c_program.rs. */
#include "blas_c_common.h"

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

static const fortran_gemm OURS_F[4] = {(fortran_gemm)sgemm_, (fortran_gemm)dgemm_,
                                      (fortran_gemm)cgemm_, (fortran_gemm)zgemm_};
static void *OURS_CBLAS[4] = {(void *)cblas_sgemm, (void *)cblas_dgemm, (void *)cblas_cgemm,
                             (void *)cblas_zgemm};

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
