/* A C program using libgemmforge_blas.so as a BLAS: the 8 GEMM symbols, their
 * 8 ILP64 twins (sgemm_64_ ... zgemm_64_, cblas_sgemm64_ ... cblas_zgemm64_:
 * every integer an int64_t) and the 4 aliases NumPy >= 2 calls
 * (scipy_cblas_sgemm64_ ...), on several shapes, ops, alpha and beta
 * against the netlib reference BLAS (dlopen'ed privately from argv[1]), and
 * every argument error reported to this program's own xerbla_ / xerbla_64_ /
 * cblas_xerbla with C left untouched, also for sizes past 32 bits, which a
 * cut to int would turn into other sizes.
 * With "beyond-32-bits" as argv[2] it runs instead products whose lda is
 * 2^32 + 1 (A mapped, mostly unbacked, at 16 GiB) through the ILP64
 * symbols, compared with netlib on a compact copy.
 * Prints one line per failure and "FAILURES n" at the end; exit status 1 on
 * any failure. Built and run by tests/c_program.rs. */
#include "blas_c_common.h"

#include <sys/mman.h>

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

/* The ILP64 symbols: every integer an int64_t (the CBLAS enums stay int). */
#define F64_ARGS(T) const char *, const char *, const int64_t *, const int64_t *, const int64_t *, const T *, \
    const T *, const int64_t *, const T *, const int64_t *, const T *, T *, const int64_t *, size_t, size_t
#define C64_REAL(T) int, int, int, int64_t, int64_t, int64_t, T, const T *, int64_t, const T *, int64_t, T, T *, \
    int64_t
#define C64_CPLX int, int, int, int64_t, int64_t, int64_t, const void *, const void *, int64_t, const void *, \
    int64_t, const void *, void *, int64_t
void sgemm_64_(F64_ARGS(float));
void dgemm_64_(F64_ARGS(double));
void cgemm_64_(F64_ARGS(void));
void zgemm_64_(F64_ARGS(void));
void cblas_sgemm64_(C64_REAL(float));
void cblas_dgemm64_(C64_REAL(double));
void cblas_cgemm64_(C64_CPLX);
void cblas_zgemm64_(C64_CPLX);
void scipy_cblas_sgemm64_(C64_REAL(float));
void scipy_cblas_dgemm64_(C64_REAL(double));
void scipy_cblas_cgemm64_(C64_CPLX);
void scipy_cblas_zgemm64_(C64_CPLX);

typedef void (*fortran_gemm64)(F64_ARGS(void));
typedef void (*cblas64_s)(C64_REAL(float));
typedef void (*cblas64_d)(C64_REAL(double));
typedef void (*cblas64_cplx)(C64_CPLX);

static const fortran_gemm64 OURS_F64[4] = {(fortran_gemm64)sgemm_64_, (fortran_gemm64)dgemm_64_,
                                          (fortran_gemm64)cgemm_64_, (fortran_gemm64)zgemm_64_};
static void *const OURS_CBLAS64[4] = {(void *)cblas_sgemm64_, (void *)cblas_dgemm64_, (void *)cblas_cgemm64_,
                                      (void *)cblas_zgemm64_};
static void *const OURS_SCIPY64[4] = {(void *)scipy_cblas_sgemm64_, (void *)scipy_cblas_dgemm64_,
                                      (void *)scipy_cblas_cgemm64_, (void *)scipy_cblas_zgemm64_};

/* One ILP64 Fortran call of type t; alpha and beta in double. */
static void call_fortran64(int t, char ta, char tb, int64_t m, int64_t n, int64_t k, const double *alpha,
                           const void *a, int64_t lda, const void *b, int64_t ldb, const double *beta, void *c,
                           int64_t ldc) {
    float fa[2] = {(float)alpha[0], (float)alpha[1]}, fb[2] = {(float)beta[0], (float)beta[1]};
    const void *al = is_double(t) ? (const void *)alpha : fa, *be = is_double(t) ? (const void *)beta : fb;
    OURS_F64[t](&ta, &tb, &m, &n, &k, al, a, &lda, b, &ldb, be, c, &ldc, 1, 1);
}

/* One ILP64 CBLAS call through `fn` (cblas_xgemm64_ or its scipy_ alias) of type t. */
static void call_cblas64(int t, void *fn, int layout, int ta, int tb, int64_t m, int64_t n, int64_t k,
                         const double *alpha, const void *a, int64_t lda, const void *b, int64_t ldb,
                         const double *beta, void *c, int64_t ldc) {
    float sa[2] = {(float)alpha[0], (float)alpha[1]}, sb[2] = {(float)beta[0], (float)beta[1]};
    switch (t) {
    case 0: ((cblas64_s)fn)(layout, ta, tb, m, n, k, sa[0], a, lda, b, ldb, sb[0], c, ldc); break;
    case 1: ((cblas64_d)fn)(layout, ta, tb, m, n, k, alpha[0], a, lda, b, ldb, beta[0], c, ldc); break;
    case 2: ((cblas64_cplx)fn)(layout, ta, tb, m, n, k, sa, a, lda, b, ldb, sb, c, ldc); break;
    default: ((cblas64_cplx)fn)(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); break;
    }
}

/* The entry points a case runs through. */
enum api { FORTRAN, CBLAS_COL, CBLAS_ROW, FORTRAN64, CBLAS64_COL, CBLAS64_ROW, SCIPY64_COL, SCIPY64_ROW, APIS };
static const char *const API_NAME[APIS] = {"fortran", "cblas col-major", "cblas row-major",
                                           "fortran ILP64", "cblas64 col-major", "cblas64 row-major",
                                           "scipy cblas64 col-major", "scipy cblas64 row-major"};
static int is_row(int api) { return api == CBLAS_ROW || api == CBLAS64_ROW || api == SCIPY64_ROW; }
static int is_fortran(int api) { return api == FORTRAN || api == FORTRAN64; }

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

/* One case on every entry point of type t: Fortran, CBLAS column- and row-major,
 * each in both interfaces (and the scipy aliases), against netlib's LP64 call. */
static void run_case(int t, int opa, int opb, int m, int n, int k, const double *alpha,
                     const double *beta, int pad) {
    for (int api = 0; api < APIS; api++) {
        if (!is_fortran(api) && !ref_cblas[t]) continue;
        int row = is_row(api);
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
                 API_NAME[api], PREFIX[t], OPS[opa], OPS[opb], m, n, k, alpha[0], alpha[1], beta[0], beta[1],
                 pad);
        float fa[2] = {(float)alpha[0], (float)alpha[1]}, fb[2] = {(float)beta[0], (float)beta[1]};
        const void *al = is_double(t) ? (const void *)alpha : fa, *be = is_double(t) ? (const void *)beta : fb;
        int layout = row ? RowMajor : ColMajor, ta = CBLAS_OPS[opa], tb = CBLAS_OPS[opb];
        err_calls = 0;
        switch (api) {
        case FORTRAN: OURS_F[t](&OPS[opa], &OPS[opb], &m, &n, &k, al, a, &lda, b, &ldb, be, c, &ldc, 1, 1); break;
        case FORTRAN64: call_fortran64(t, OPS[opa], OPS[opb], m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); break;
        case CBLAS_COL: case CBLAS_ROW:
            call_cblas(t, OURS_CBLAS[t], layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
            break;
        case CBLAS64_COL: case CBLAS64_ROW:
            call_cblas64(t, OURS_CBLAS64[t], layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
            break;
        default:
            call_cblas64(t, OURS_SCIPY64[t], layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
            break;
        }
        if (is_fortran(api))
            ref_f[t](&OPS[opa], &OPS[opb], &m, &n, &k, al, a, &lda, b, &ldb, be, c_ref, &ldc, 1, 1);
        else
            call_cblas(t, ref_cblas[t], layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c_ref, ldc);
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
struct fortran64_err { char ta, tb; int64_t m, n, k, lda, ldb, ldc; int info; };
struct cblas64_err { int layout, ta, tb; int64_t m, n, k, lda, ldb, ldc; int pos; };

/* One report, to `handler` as (`name`, `info`), with C (all of `buf`) as it was. */
static void check_report(const char *what, const char *handler, const char *name, int info,
                         const unsigned char *buf, const unsigned char *before, size_t len) {
    if (err_calls != 1 || err_info != info || strcmp(err_name, name) != 0 || strcmp(err_handler, handler) != 0)
        FAIL("%s: %d reports, last to %s ('%s', %d), expected one to %s ('%s', %d)", what, err_calls,
             err_handler[0] ? err_handler : "nothing", err_name, err_info, handler, name, info);
    if (memcmp(buf, before, len) != 0) FAIL("%s: C was written", what);
}

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
    /* Sizes past 32 bits through the ILP64 symbols: cut to an int, each
     * would be another size (2^32 -> 0: a quick return, -2^32 -> 0, 2^32 + 1
     * -> 1: valid calls), so only whole values give these reports. */
    static const struct fortran64_err F64[] = {
        {'N', 'N', 1LL << 32, 2, 2, 1, 2, 1LL << 32, 8},
        {'N', 'N', 2, -(1LL << 32), 2, 2, 2, 2, 4},
        {'N', 'N', 2, 2, (1LL << 32) + 1, 2, 1, 2, 10},
    };
    static const struct cblas64_err C64[] = {
        {ColMajor, NoTrans, NoTrans, 1LL << 32, 2, 2, 1, 2, 1LL << 32, 9},
        {ColMajor, NoTrans, NoTrans, 2, -(1LL << 32), 2, 2, 2, 2, 5},
        {RowMajor, NoTrans, NoTrans, 2, 1LL << 32, 2, 2, 1, 1LL << 32, 11},
        {RowMajor, NoTrans, NoTrans, 2, 2, (1LL << 32) + 1, 1, 2, 2, 9},
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
        char what[64];
        for (size_t i = 0; i < sizeof F / sizeof F[0]; i++) {
            const struct fortran_err *e = &F[i];
            expect_report();
            OURS_F[t](&e->ta, &e->tb, &e->m, &e->n, &e->k, al, buf, &e->lda, buf, &e->ldb, be, buf, &e->ldc, 1, 1);
            snprintf(what, sizeof what, "%cgemm_ error case %zu", PREFIX[t], i);
            check_report(what, "xerbla_", FNAME[t], e->info, buf, before, sizeof buf);
            /* The same call through the ILP64 symbol reports to xerbla_64_. */
            expect_report();
            call_fortran64(t, e->ta, e->tb, e->m, e->n, e->k, alpha, buf, e->lda, buf, e->ldb, beta, buf, e->ldc);
            snprintf(what, sizeof what, "%cgemm_64_ error case %zu", PREFIX[t], i);
            check_report(what, "xerbla_64_", FNAME[t], e->info, buf, before, sizeof buf);
        }
        for (size_t i = 0; i < sizeof F64 / sizeof F64[0]; i++) {
            const struct fortran64_err *e = &F64[i];
            expect_report();
            call_fortran64(t, e->ta, e->tb, e->m, e->n, e->k, alpha, buf, e->lda, buf, e->ldb, beta, buf, e->ldc);
            snprintf(what, sizeof what, "%cgemm_64_ case %zu past 32 bits", PREFIX[t], i);
            check_report(what, "xerbla_64_", FNAME[t], e->info, buf, before, sizeof buf);
        }
        void *const cblas[3] = {OURS_CBLAS[t], OURS_CBLAS64[t], OURS_SCIPY64[t]};
        static const char *const SUFFIX[3] = {"", "64_", "64_ (scipy_)"};
        for (int api = 0; api < 3; api++) {
            for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
                const struct cblas_err *e = &C[i];
                expect_report();
                if (api == 0)
                    call_cblas(t, cblas[api], e->layout, e->ta, e->tb, e->m, e->n, e->k, alpha, buf, e->lda, buf,
                               e->ldb, beta, buf, e->ldc);
                else
                    call_cblas64(t, cblas[api], e->layout, e->ta, e->tb, e->m, e->n, e->k, alpha, buf, e->lda,
                                 buf, e->ldb, beta, buf, e->ldc);
                snprintf(what, sizeof what, "%s%s error case %zu", CNAME[t], SUFFIX[api], i);
                check_report(what, "cblas_xerbla", CNAME[t], e->pos, buf, before, sizeof buf);
            }
            for (size_t i = 0; api > 0 && i < sizeof C64 / sizeof C64[0]; i++) {
                const struct cblas64_err *e = &C64[i];
                expect_report();
                call_cblas64(t, cblas[api], e->layout, e->ta, e->tb, e->m, e->n, e->k, alpha, buf, e->lda, buf,
                             e->ldb, beta, buf, e->ldc);
                snprintf(what, sizeof what, "%s%s case %zu past 32 bits", CNAME[t], SUFFIX[api], i);
                check_report(what, "cblas_xerbla", CNAME[t], e->pos, buf, before, sizeof buf);
            }
        }
    }
}

/* ---- products past 32 bits (GEMMFORGE_BLAS_BACKEND=cpu: the emulator copies whole buffers) ---- */

/* C = alpha A B + beta C, m = 2, n = 3, k = 2, with lda = 2^32 + 1: A's two
 * columns (rows, row-major) 16 GiB apart in a mapping whose untouched pages
 * cost nothing, through sgemm_64_, cblas_sgemm64_ (row-major) and
 * scipy_cblas_sgemm64_; compared with netlib's sgemm_ on a compact copy.
 * An lda cut to 32 bits (1) would be rejected, or read the wrong elements. */
static void beyond_32_bits(void) {
    const int64_t lda = (1LL << 32) + 1;
    const size_t bytes = (size_t)(lda + 2) * sizeof(float);
    float *a = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (a == MAP_FAILED) {
        printf("SKIP: no 16 GiB mapping for lda = 2^32 + 1 (overcommit refused): not run\n");
        return;
    }
    const float compact[4] = {1, -2, 3, 5}; /* A (2 x 2, ld 2): a(0,0), a(1,0), a(0,1), a(1,1) */
    a[0] = compact[0]; a[1] = compact[1]; a[lda] = compact[2]; a[lda + 1] = compact[3];
    const float b[6] = {2, -1, 0, 3, -3, 1};
    const double alpha[2] = {2, 0}, beta[2] = {0.5, 0};
    const float fa = 2, fb = 0.5;
    const int m = 2, n = 3, k = 2, two = 2;
    static const char *const NAME[3] = {"sgemm_64_", "cblas_sgemm64_ row-major", "scipy_cblas_sgemm64_"};
    for (int api = 0; api < 3; api++) {
        float c[6] = {1, 2, 3, 4, 5, 6}, want[6];
        memcpy(want, c, sizeof c);
        expect_report();
        if (api == 0) {
            call_fortran64(0, 'N', 'N', m, n, k, alpha, a, lda, b, 2, beta, c, 2);
            ref_f[0]("N", "N", &m, &n, &k, &fa, compact, &two, b, &two, &fb, want, &two, 1, 1);
        } else {
            /* Row-major: A's rows lda apart; the same four values at the same places. */
            int layout = api == 1 ? RowMajor : ColMajor, ldb = api == 1 ? 3 : 2, ldc = api == 1 ? 3 : 2;
            void *fn = api == 1 ? OURS_CBLAS64[0] : OURS_SCIPY64[0];
            call_cblas64(0, fn, layout, NoTrans, NoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
            call_cblas(0, ref_cblas[0], layout, NoTrans, NoTrans, m, n, k, alpha, compact, 2, b, ldb, beta,
                       want, ldc);
        }
        if (err_calls) FAIL("%s with lda = 2^32 + 1: reported ('%s', %d)", NAME[api], err_name, err_info);
        for (int i = 0; i < 6; i++)
            if (c[i] != want[i]) {
                FAIL("%s with lda = 2^32 + 1: C[%d] = %g, netlib %g", NAME[api], i, c[i], want[i]);
                break;
            }
    }
    munmap(a, bytes);
}

int main(int argc, char **argv) {
    int beyond = argc > 2 && strcmp(argv[2], "beyond-32-bits") == 0;
    if (!beyond) error_cases();
    if (argc > 1 && load_reference(argv[1])) {
        if (!ref_cblas[0]) printf("SKIP: %s has no CBLAS symbols; CBLAS results not compared\n", argv[1]);
        if (beyond && ref_cblas[0]) beyond_32_bits();
        else if (!beyond) product_cases();
    } else {
        printf("SKIP: the netlib reference BLAS (%s) could not be loaded; results not compared\n",
               argc > 1 ? argv[1] : "no path given");
    }
    printf("FAILURES %d\n", failures);
    return failures != 0;
}
