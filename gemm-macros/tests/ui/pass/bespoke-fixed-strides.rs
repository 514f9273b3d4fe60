use gemm_codegen::bespoke::BespokeKernel;
use gemm_macros::gemm_bespoke;

// Strides fixed at compile time: the kernel's spec and entry name carry them.
gemm_bespoke! {
    name = Fixed,
    a = "tests/ui/data/good.mtx",
    precision = f64,
    family = bstream,
    width = 2,
    ldb = 1024,
    ldc = 2048,
}

fn main() {
    assert_eq!((Fixed::SPEC.ldb, Fixed::SPEC.ldc), (Some(1024), Some(2048)));
    assert!(Fixed::ENTRY.contains("_ldb1024_ldc2048_"), "{}", Fixed::ENTRY);
}
