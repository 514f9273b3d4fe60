/* A stand-in for a CPU BLAS with the strided-batched extension (MKL's,
 * OpenBLAS's, NVPL's) and an ILP64 SGEMM: sgemm_ ... zgemm_ and
 * sgemm_batch_strided_ ... zgemm_batch_strided_, run on the netlib reference
 * BLAS that FAKE_BLAS_NETLIB names (a batch problem by problem), and
 * sgemm_64_ (naive loops), each batch and ILP64 call said on stderr with its
 * arguments. Built as a shared library by tests/c_program.rs and loaded by
 * libgemmforge_blas.so through GEMMFORGE_BLAS_CPU_LIB, it shows that a batch
 * reaches the CPU BLAS's own symbol whole, and an ILP64 call its ILP64
 * symbol with every integer whole, arguments in order. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef void (*gemm_fn)(const char *, const char *, const int *, const int *, const int *,
                        const void *, const void *, const int *, const void *, const int *,
                        const void *, void *, const int *, size_t, size_t);

/* netlib's `name`, from a private copy (its CBLAS and ours stay apart). */
static gemm_fn netlib(const char *name) {
    static void *h;
    const char *path = getenv("FAKE_BLAS_NETLIB");
    if (!h && path) h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    gemm_fn f = h ? (gemm_fn)dlsym(h, name) : NULL;
    if (!f) {
        fprintf(stderr, "fake BLAS: no %s in FAKE_BLAS_NETLIB=%s\n", name, path ? path : "(unset)");
        abort();
    }
    return f;
}

#define FAKE(p, bytes)                                                                              \
    void p##gemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,          \
                  const void *alpha, const void *a, const int *lda, const void *b, const int *ldb,   \
                  const void *beta, void *c, const int *ldc, size_t la, size_t lb) {                 \
        netlib(#p "gemm_")(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, la, lb);           \
    }                                                                                               \
    void p##gemm_batch_strided_(const char *ta, const char *tb, const int *m, const int *n,        \
                                const int *k, const void *alpha, const void *a, const int *lda,     \
                                const int *sa, const void *b, const int *ldb, const int *sb,        \
                                const void *beta, void *c, const int *ldc, const int *sc,           \
                                const int *count, size_t la, size_t lb) {                           \
        fprintf(stderr,                                                                             \
                "fake BLAS: " #p "gemm_batch_strided_ %c%c m=%d n=%d k=%d lda=%d stridea=%d "      \
                "ldb=%d strideb=%d ldc=%d stridec=%d batch=%d\n",                                  \
                *ta, *tb, *m, *n, *k, *lda, *sa, *ldb, *sb, *ldc, *sc, *count);                     \
        gemm_fn f = netlib(#p "gemm_");                                                             \
        for (int i = 0; i < *count; i++)                                                            \
            f(ta, tb, m, n, k, alpha, (const char *)a + (size_t)i * *sa * bytes, lda,              \
              (const char *)b + (size_t)i * *sb * bytes, ldb, beta, (char *)c + (size_t)i * *sc * bytes, \
              ldc, la, lb);                                                                         \
    }

FAKE(s, 4)
FAKE(d, 8)
FAKE(c, 8)
FAKE(z, 16)

/* SGEMM with INTEGER*8 arguments (netlib has none): the reference's loops,
 * without conjugation or quick returns (the test's calls need neither). */
void sgemm_64_(const char *ta, const char *tb, const int64_t *m, const int64_t *n, const int64_t *k,
               const float *alpha, const float *a, const int64_t *lda, const float *b, const int64_t *ldb,
               const float *beta, float *c, const int64_t *ldc, size_t la, size_t lb) {
    (void)la; (void)lb;
    fprintf(stderr, "fake BLAS: sgemm_64_ %c%c m=%lld n=%lld k=%lld lda=%lld ldb=%lld ldc=%lld\n", *ta, *tb,
            (long long)*m, (long long)*n, (long long)*k, (long long)*lda, (long long)*ldb, (long long)*ldc);
    int a_n = *ta == 'N' || *ta == 'n', b_n = *tb == 'N' || *tb == 'n';
    for (int64_t j = 0; j < *n; j++)
        for (int64_t i = 0; i < *m; i++) {
            float sum = 0;
            for (int64_t l = 0; l < *k; l++)
                sum += (a_n ? a[i + l * *lda] : a[l + i * *lda]) * (b_n ? b[l + j * *ldb] : b[j + l * *ldb]);
            float *cij = &c[i + j * *ldc];
            *cij = *beta == 0 ? *alpha * sum : *alpha * sum + *beta * *cij;
        }
}
