use gemm_macros::gemm_bespoke;

gemm_bespoke! {
    name = EntryOutOfRange,
    a = "tests/ui/data/entry-out-of-range.mtx",
    precision = f64,
}

fn main() {}
