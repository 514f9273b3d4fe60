/* A C program using libgemmforge_blas.so's strided-batched extension: the 8
 * symbols (sgemm_batch_strided_ ... zgemm_batch_strided_, cblas_sgemm_batch_strided
 * ... cblas_zgemm_batch_strided) on batches with gaps between and inside the
 * problems, interleaved Cs, a shared A or B (stride 0), one problem and several,
 * alpha = 0, beta = 0 over NaN, each problem compared with the netlib
 * reference BLAS's single GEMM (dlopen'ed privately from argv[1]) and every
 * element outside the problems' Cs (gaps, guards) left as it was; and every
 * argument error reported to this program's own xerbla_ / cblas_xerbla at its
 * position with C left untouched.
 * Prints one line per failure and "FAILURES n" at the end; exit status 1 on
 * any failure. Built and run by tests/c_program.rs. */
#include "blas_c_common.h"

/* The library's symbols, declared as MKL's and OpenBLAS's headers declare them. */
void sgemm_batch_strided_(const char *, const char *, const int *, const int *, const int *,
                          const float *, const float *, const int *, const int *, const float *,
                          const int *, const int *, const float *, float *, const int *,
                          const int *, const int *, size_t, size_t);
void dgemm_batch_strided_(const char *, const char *, const int *, const int *, const int *,
                          const double *, const double *, const int *, const int *, const double *,
                          const int *, const int *, const double *, double *, const int *,
                          const int *, const int *, size_t, size_t);
void cgemm_batch_strided_(const char *, const char *, const int *, const int *, const int *,
                          const void *, const void *, const int *, const int *, const void *,
                          const int *, const int *, const void *, void *, const int *, const int *,
                          const int *, size_t, size_t);
void zgemm_batch_strided_(const char *, const char *, const int *, const int *, const int *,
                          const void *, const void *, const int *, const int *, const void *,
                          const int *, const int *, const void *, void *, const int *, const int *,
                          const int *, size_t, size_t);
void cblas_sgemm_batch_strided(int, int, int, int, int, int, float, const float *, int, int,
                               const float *, int, int, float, float *, int, int, int);
void cblas_dgemm_batch_strided(int, int, int, int, int, int, double, const double *, int, int,
                               const double *, int, int, double, double *, int, int, int);
void cblas_cgemm_batch_strided(int, int, int, int, int, int, const void *, const void *, int, int,
                               const void *, int, int, const void *, void *, int, int, int);
void cblas_zgemm_batch_strided(int, int, int, int, int, int, const void *, const void *, int, int,
                               const void *, int, int, const void *, void *, int, int, int);

typedef void (*fortran_batch)(const char *, const char *, const int *, const int *, const int *,
                              const void *, const void *, const int *, const int *, const void *,
                              const int *, const int *, const void *, void *, const int *,
                              const int *, const int *, size_t, size_t);
typedef void (*cblas_batch_s)(int, int, int, int, int, int, float, const void *, int, int,
                              const void *, int, int, float, void *, int, int, int);
typedef void (*cblas_batch_d)(int, int, int, int, int, int, double, const void *, int, int,
                              const void *, int, int, double, void *, int, int, int);
typedef void (*cblas_batch_cplx)(int, int, int, int, int, int, const void *, const void *, int,
                                 int, const void *, int, int, const void *, void *, int, int, int);

static const fortran_batch OURS_F[4] = {
    (fortran_batch)sgemm_batch_strided_, (fortran_batch)dgemm_batch_strided_,
    (fortran_batch)cgemm_batch_strided_, (fortran_batch)zgemm_batch_strided_};
static void *const OURS_CBLAS[4] = {
    (void *)cblas_sgemm_batch_strided, (void *)cblas_dgemm_batch_strided,
    (void *)cblas_cgemm_batch_strided, (void *)cblas_zgemm_batch_strided};

/* The integer arguments of one batch call. */
struct dims { int m, n, k, lda, sa, ldb, sb, ldc, sc, count; };

/* One Fortran batch call of type t through ours; alpha and beta in double. */
static void fortran_call(int t, char ta, char tb, const struct dims *d, const double *alpha,
                         const void *a, const void *b, const double *beta, void *c) {
    float fa[2] = {(float)alpha[0], (float)alpha[1]}, fb[2] = {(float)beta[0], (float)beta[1]};
    const void *al = is_double(t) ? (const void *)alpha : fa, *be = is_double(t) ? (const void *)beta : fb;
    OURS_F[t](&ta, &tb, &d->m, &d->n, &d->k, al, a, &d->lda, &d->sa, b, &d->ldb, &d->sb, be, c, &d->ldc,
              &d->sc, &d->count, 1, 1);
}

/* One CBLAS batch call of type t through ours. */
static void cblas_call(int t, int layout, int ta, int tb, const struct dims *d, const double *alpha,
                       const void *a, const void *b, const double *beta, void *c) {
    float fa[2] = {(float)alpha[0], (float)alpha[1]}, fb[2] = {(float)beta[0], (float)beta[1]};
    void *fn = OURS_CBLAS[t];
    switch (t) {
    case 0: ((cblas_batch_s)fn)(layout, ta, tb, d->m, d->n, d->k, fa[0], a, d->lda, d->sa, b, d->ldb, d->sb,
                                fb[0], c, d->ldc, d->sc, d->count); break;
    case 1: ((cblas_batch_d)fn)(layout, ta, tb, d->m, d->n, d->k, alpha[0], a, d->lda, d->sa, b, d->ldb,
                                d->sb, beta[0], c, d->ldc, d->sc, d->count); break;
    case 2: ((cblas_batch_cplx)fn)(layout, ta, tb, d->m, d->n, d->k, fa, a, d->lda, d->sa, b, d->ldb,
                                   d->sb, fb, c, d->ldc, d->sc, d->count); break;
    default: ((cblas_batch_cplx)fn)(layout, ta, tb, d->m, d->n, d->k, alpha, a, d->lda, d->sa, b, d->ldb,
                                    d->sb, beta, c, d->ldc, d->sc, d->count); break;
    }
}

/* Elements before and after the problems, which must keep their bits. */
enum { GUARD = 5 };

static char *at(int t, const void *p, size_t elements) { return (char *)p + ELEM[t] * elements; }

/* Whether element `idx` of the problems' span lies in some problem's rows x cols. */
static int inside_some(size_t idx, const struct dims *d, int rows, int cols) {
    for (int p = 0; p < d->count; p++) {
        size_t first = (size_t)p * (size_t)d->sc;
        if (idx < first) continue;
        size_t off = idx - first;
        if ((int)(off % (size_t)d->ldc) < rows && off / (size_t)d->ldc < (size_t)cols) return 1;
    }
    return 0;
}

/* How the problems are laid out. */
enum layout_kind {
    PACKED_GAPS, /* each matrix its extent plus a gap past the previous one */
    SHARE_A,     /* stridea = 0: every problem reads the one A */
    SHARE_B,     /* strideb = 0 */
    INTERLEAVED, /* the Cs side by side in the rows of one array: stridec = rows, ldc = count rows */
};

/* One batch on every entry point of type t: Fortran, CBLAS column- and row-major. */
static void run_batch(int t, int opa, int opb, int m, int n, int k, const double *alpha,
                      const double *beta, int pad, int count, enum layout_kind kind) {
    for (int api = 0; api < 3; api++) {
        if (api != 0 && !ref_cblas[t]) continue;
        int row = api == 2;
        int a_rows = (opa == 0) ? m : k, a_cols = (opa == 0) ? k : m;
        int b_rows = (opb == 0) ? k : n, b_cols = (opb == 0) ? n : k;
        int c_rows = m, c_cols = n;
        if (row) { int x; x = a_rows; a_rows = a_cols; a_cols = x; x = b_rows; b_rows = b_cols; b_cols = x;
                   x = c_rows; c_rows = c_cols; c_cols = x; }
        struct dims d;
        d.m = m; d.n = n; d.k = k; d.count = count;
        d.lda = (a_rows > 1 ? a_rows : 1) + pad;
        d.ldb = (b_rows > 1 ? b_rows : 1) + pad;
        d.ldc = (c_rows > 1 ? c_rows : 1) + pad;
        if (kind == INTERLEAVED) d.ldc = count * (c_rows > 1 ? c_rows : 1) + pad;
        size_t la = (size_t)d.lda * a_cols, lb = (size_t)d.ldb * b_cols, lc = (size_t)d.ldc * c_cols;
        d.sa = kind == SHARE_A ? 0 : (int)la + 2;
        d.sb = kind == SHARE_B ? 0 : (int)lb + 1;
        d.sc = kind == INTERLEAVED ? (c_rows > 1 ? c_rows : 1) : (int)lc + 3;
        size_t span_a = count > 0 ? (size_t)(count - 1) * d.sa + la : 0;
        size_t span_b = count > 0 ? (size_t)(count - 1) * d.sb + lb : 0;
        size_t span_c = count > 0 ? (size_t)(count - 1) * d.sc + lc : 0;
        size_t total = GUARD + span_c + GUARD;
        void *a = random_matrix(t, span_a), *b = random_matrix(t, span_b);
        /* C: the problems' m x n parts random (NaN for beta = 0), the rest 99 + 99i. */
        int nan_c = beta[0] == 0 && beta[1] == 0;
        void *c = malloc(ELEM[t] * total), *c_ref = malloc(ELEM[t] * total);
        for (size_t i = 0; i < total; i++) {
            int in = i >= GUARD && i - GUARD < span_c && inside_some(i - GUARD, &d, c_rows, c_cols);
            if (!in) set(t, c, i, 99, 99);
            else if (nan_c) set(t, c, i, NAN, NAN);
            else set(t, c, i, small_int(), is_complex(t) ? small_int() : 0);
        }
        memcpy(c_ref, c, ELEM[t] * total);
        char what[200];
        static const char *const KIND[4] = {"gaps", "shared A", "shared B", "interleaved C"};
        snprintf(what, sizeof what,
                 "%s %cgemm_batch_strided %c%c m=%d n=%d k=%d alpha=(%g,%g) beta=(%g,%g) pad=%d count=%d %s",
                 api == 0 ? "fortran" : row ? "cblas row-major" : "cblas col-major", PREFIX[t], OPS[opa],
                 OPS[opb], m, n, k, alpha[0], alpha[1], beta[0], beta[1], pad, count, KIND[kind]);
        float fa[2] = {(float)alpha[0], (float)alpha[1]}, fb[2] = {(float)beta[0], (float)beta[1]};
        const void *al = is_double(t) ? (const void *)alpha : fa, *be = is_double(t) ? (const void *)beta : fb;
        err_calls = 0;
        int layout = row ? RowMajor : ColMajor;
        if (api == 0) fortran_call(t, OPS[opa], OPS[opb], &d, alpha, a, b, beta, at(t, c, GUARD));
        else cblas_call(t, layout, CBLAS_OPS[opa], CBLAS_OPS[opb], &d, alpha, a, b, beta, at(t, c, GUARD));
        /* The reference: one netlib GEMM per problem. */
        for (int p = 0; p < count; p++) {
            const void *pa = at(t, a, (size_t)p * d.sa), *pb = at(t, b, (size_t)p * d.sb);
            void *pc = at(t, c_ref, GUARD + (size_t)p * d.sc);
            if (api == 0)
                ref_f[t](&OPS[opa], &OPS[opb], &m, &n, &k, al, pa, &d.lda, pb, &d.ldb, be, pc, &d.ldc, 1, 1);
            else
                call_cblas(t, ref_cblas[t], layout, CBLAS_OPS[opa], CBLAS_OPS[opb], m, n, k, alpha, pa, d.lda,
                           pb, d.ldb, beta, pc, d.ldc);
        }
        if (err_calls) FAIL("%s: an error was reported for a valid call", what);
        for (size_t i = 0; i < total; i++) {
            int in = i >= GUARD && i - GUARD < span_c && inside_some(i - GUARD, &d, c_rows, c_cols);
            double ore, oim, rre, rim;
            get(t, c, i, &ore, &oim);
            get(t, c_ref, i, &rre, &rim);
            int same = in ? (ore == rre && oim == rim) : memcmp(at(t, c, i), at(t, c_ref, i), ELEM[t]) == 0;
            if (!same) {
                FAIL("%s: element %zu of %zu (%s): ours (%g, %g), reference (%g, %g)", what, i, total,
                     in ? "inside a C" : "outside every C", ore, oim, rre, rim);
                break;
            }
        }
        free(a); free(b); free(c); free(c_ref);
    }
}

static void product_cases(void) {
    const double one[2] = {1, 0}, zero[2] = {0, 0}, two[2] = {2, 0}, odd[2] = {-1.5, 0.5};
    const double half[2] = {0.5, -2};
    for (int t = 0; t < 4; t++) {
        /* Every op pair, three problems with gaps between and inside them. */
        for (int opa = 0; opa < 3; opa++)
            for (int opb = 0; opb < 3; opb++) run_batch(t, opa, opb, 5, 4, 3, odd, half, 1, 3, PACKED_GAPS);
        run_batch(t, 0, 1, 9, 7, 5, one, zero, 0, 4, SHARE_A);   /* broadcast A, beta = 0 over NaN */
        run_batch(t, 1, 0, 6, 8, 4, two, half, 2, 3, SHARE_B);   /* broadcast B */
        run_batch(t, 0, 2, 3, 4, 5, odd, half, 1, 3, INTERLEAVED);
        run_batch(t, 2, 2, 7, 3, 6, odd, one, 0, 1, PACKED_GAPS); /* a batch of one */
        run_batch(t, 0, 0, 37, 33, 21, one, half, 1, 2, PACKED_GAPS); /* past a Table 2 tile */
        run_batch(t, 0, 1, 4, 3, 2, zero, odd, 1, 3, PACKED_GAPS);  /* alpha = 0: C = beta C */
        run_batch(t, 1, 0, 4, 3, 2, zero, zero, 1, 3, SHARE_B);     /* alpha = 0, beta = 0: C = 0 over NaN */
        run_batch(t, 1, 1, 4, 3, 0, two, zero, 0, 2, PACKED_GAPS);  /* k = 0 */
        run_batch(t, 0, 0, 4, 3, 2, zero, one, 0, 3, PACKED_GAPS);  /* alpha = 0, beta = 1: quick return */
        run_batch(t, 0, 0, 0, 3, 2, two, half, 0, 3, PACKED_GAPS);  /* m = 0 */
        run_batch(t, 0, 0, 4, 3, 2, two, half, 0, 0, PACKED_GAPS);  /* no problems */
    }
}

/* ---- argument errors ---- */
struct fortran_err { char ta, tb; struct dims d; int info; };
struct cblas_err { int layout, ta, tb; struct dims d; int pos; };

/* dims: m, n, k, lda, stridea, ldb, strideb, ldc, stridec, batch_size */
static void error_cases(void) {
    static const struct fortran_err F[] = {
        {'X', 'N', {2, 2, 2, 2, 4, 2, 4, 2, 4, 2}, 1},
        {'n', 'Q', {-1, 2, 2, 2, 4, 2, 4, 2, 4, 2}, 2},
        {'t', 'c', {-1, -1, -1, 0, -1, 0, -1, 0, -1, -1}, 3},
        {'N', 'N', {2, -1, -1, 0, -1, 0, -1, 0, -1, -1}, 4},
        {'N', 'N', {2, 2, -1, 0, -1, 0, -1, 0, -1, -1}, 5},
        {'N', 'N', {3, 2, 2, 2, -1, 0, -1, 0, -1, -1}, 8},
        {'T', 'N', {3, 2, 4, 3, -1, 0, -1, 0, -1, -1}, 8},
        {'N', 'N', {3, 2, 4, 3, -1, 3, -1, 0, -1, -1}, 11},
        {'N', 'T', {3, 5, 4, 3, -1, 4, -1, 0, -1, -1}, 11},
        {'N', 'N', {3, 2, 4, 3, -1, 4, -1, 2, -1, -1}, 15},
        /* The batch's rules after the single GEMM's, in the arguments' order. */
        {'N', 'N', {3, 2, 4, 3, -1, 4, -1, 3, -1, -1}, 9},
        {'N', 'N', {3, 2, 4, 3, 12, 4, -1, 3, -1, -1}, 12},
        {'N', 'N', {3, 2, 4, 3, 12, 4, 8, 3, -1, -1}, 16},
        {'N', 'N', {3, 2, 4, 3, 0, 4, 0, 3, 6, -1}, 17},
        /* Cs sharing an element: 3 x 2 with ldc 3 spans 6. */
        {'N', 'N', {3, 2, 4, 3, 0, 4, 0, 3, 5, 2}, 16},
        {'N', 'N', {3, 2, 4, 3, 0, 4, 0, 3, 0, 2}, 16},
        {'N', 'N', {3, 2, 4, 3, 0, 4, 0, 6, 2, 2}, 16},
    };
    static const struct cblas_err C[] = {
        {100, NoTrans, NoTrans, {2, 2, 2, 2, 4, 2, 4, 2, 4, 2}, 1},
        {ColMajor, 110, 0, {2, 2, 2, 2, 4, 2, 4, 2, 4, 2}, 2},
        {RowMajor, Trans, 0, {2, 2, 2, 2, 4, 2, 4, 2, 4, 2}, 3},
        {ColMajor, NoTrans, NoTrans, {-1, -1, -1, 0, -1, 0, -1, 0, -1, -1}, 4},
        {ColMajor, NoTrans, NoTrans, {3, 2, 4, 2, -1, 0, -1, 0, -1, -1}, 9},
        {ColMajor, NoTrans, NoTrans, {3, 2, 4, 3, -1, 3, -1, 0, -1, -1}, 12},
        {ColMajor, NoTrans, NoTrans, {3, 2, 4, 3, -1, 4, -1, 2, -1, -1}, 16},
        {ColMajor, NoTrans, NoTrans, {3, 2, 4, 3, -1, 4, -1, 3, -1, -1}, 10},
        {ColMajor, NoTrans, NoTrans, {3, 2, 4, 3, 0, 4, -1, 3, -1, -1}, 13},
        {ColMajor, NoTrans, NoTrans, {3, 2, 4, 3, 0, 4, 0, 3, -1, -1}, 17},
        {ColMajor, NoTrans, NoTrans, {3, 2, 4, 3, 0, 4, 0, 3, 0, -1}, 18},
        {ColMajor, NoTrans, NoTrans, {3, 2, 4, 3, 0, 4, 0, 3, 5, 2}, 17},
        /* Row-major: the swapped call is checked: N before M, ldb before lda, strideb before stridea. */
        {RowMajor, NoTrans, NoTrans, {-1, -1, 0, 0, -1, 0, -1, 0, -1, -1}, 5},
        {RowMajor, NoTrans, NoTrans, {3, 4, 5, 4, -1, 3, -1, 4, -1, -1}, 12},
        {RowMajor, NoTrans, NoTrans, {3, 4, 5, 4, -1, 4, -1, 4, -1, -1}, 9},
        {RowMajor, NoTrans, NoTrans, {3, 4, 5, 5, -1, 4, -1, 4, -1, -1}, 13},
        {RowMajor, NoTrans, NoTrans, {3, 4, 5, 5, -1, 4, 0, 4, -1, -1}, 10},
        {RowMajor, NoTrans, NoTrans, {3, 4, 5, 5, 0, 4, 0, 4, -1, -1}, 17},
        {RowMajor, NoTrans, NoTrans, {3, 4, 5, 5, 0, 4, 0, 4, 12, -1}, 18},
        {RowMajor, NoTrans, NoTrans, {3, 4, 5, 5, 0, 4, 0, 4, 11, 2}, 17},
    };
    const double alpha[2] = {1, 0}, beta[2] = {0, 0};
    static const char *const FNAME[4] = {"SGEMM_BATCH_STRIDED", "DGEMM_BATCH_STRIDED", "CGEMM_BATCH_STRIDED",
                                         "ZGEMM_BATCH_STRIDED"};
    static const char *const CNAME[4] = {"cblas_sgemm_batch_strided", "cblas_dgemm_batch_strided",
                                         "cblas_cgemm_batch_strided", "cblas_zgemm_batch_strided"};
    for (int t = 0; t < 4; t++) {
        unsigned char buf[64 * 16], before[sizeof buf];
        memset(buf, 42, sizeof buf);
        memcpy(before, buf, sizeof buf);
        for (size_t i = 0; i < sizeof F / sizeof F[0]; i++) {
            const struct fortran_err *e = &F[i];
            err_calls = 0; err_info = -1; err_name[0] = 0;
            fortran_call(t, e->ta, e->tb, &e->d, alpha, buf, buf, beta, buf);
            if (err_calls != 1 || err_info != e->info || strcmp(err_name, FNAME[t]) != 0 ||
                strcmp(err_handler, "xerbla_") != 0)
                FAIL("%cgemm_batch_strided_ error case %zu: xerbla_ called %d times, last ('%s', %d), "
                     "expected ('%s', %d)", PREFIX[t], i, err_calls, err_name, err_info, FNAME[t], e->info);
            if (memcmp(buf, before, sizeof buf) != 0)
                FAIL("%cgemm_batch_strided_ error case %zu: C was written", PREFIX[t], i);
        }
        for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
            const struct cblas_err *e = &C[i];
            err_calls = 0; err_info = -1; err_name[0] = 0;
            cblas_call(t, e->layout, e->ta, e->tb, &e->d, alpha, buf, buf, beta, buf);
            if (err_calls != 1 || err_info != e->pos || strcmp(err_name, CNAME[t]) != 0 ||
                strcmp(err_handler, "cblas_xerbla") != 0)
                FAIL("%s error case %zu: cblas_xerbla called %d times, last ('%s', %d), expected ('%s', %d)",
                     CNAME[t], i, err_calls, err_name, err_info, CNAME[t], e->pos);
            if (memcmp(buf, before, sizeof buf) != 0) FAIL("%s error case %zu: C was written", CNAME[t], i);
        }
    }
    /* A null batch_size (Fortran, 17) or alpha (complex CBLAS, 7) is reported, not read. */
    float one[2] = {1, 0}, c[2] = {5, 5};
    int two = 2, zero = 0;
    err_calls = 0;
    sgemm_batch_strided_("N", "N", &two, &two, &two, one, c, &two, &zero, c, &two, &zero, one, c, &two,
                         &zero, NULL, 1, 1);
    if (err_calls != 1 || err_info != 17) FAIL("null batch_size: xerbla_ info %d, expected 17", err_info);
    err_calls = 0;
    cblas_cgemm_batch_strided(ColMajor, NoTrans, NoTrans, 1, 1, 1, NULL, c, 1, 0, c, 1, 0, one, c, 1, 0, 1);
    if (err_calls != 1 || err_info != 7) FAIL("null alpha: cblas_xerbla position %d, expected 7", err_info);
    if (c[0] != 5 || c[1] != 5) FAIL("null scalars: C was written");
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
