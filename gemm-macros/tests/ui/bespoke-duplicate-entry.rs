use gemm_macros::gemm_bespoke;

gemm_bespoke! {
    name = DuplicateEntry,
    a = "tests/ui/data/duplicate-entry.mtx",
    precision = f64,
}

fn main() {}
