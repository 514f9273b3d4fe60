use gemm_codegen::Precision;
use gemm_codegen::bespoke::{BespokeKernel, BespokeSpec, BetaMode, Form};
use gemm_macros::gemm_bespoke;

// Given: the walk and its parameters, the rest at BespokeSpec::new's.
gemm_bespoke! {
    name = Given,
    a = "tests/ui/data/good.mtx",
    precision = f32,
    family = cstream,
    width = 4,
    beta = 1,
    arch = sm_90,
}

// Left out: the operator's default spec.
gemm_bespoke! {
    a = r"tests/ui/data/good.mtx",
    precision = f64,
    name = Chosen,
}

fn main() {
    let given = BespokeSpec {
        form: Form::CStream,
        width: 4,
        beta: BetaMode::One,
        arch: gemm_codegen::Target::Sm90,
        ..BespokeSpec::new(Precision::F32)
    };
    assert_eq!(Given::SPEC, given);
    assert_eq!((Given::M, Given::K), (6, 4));
    assert_eq!(Given::DIGEST, Chosen::DIGEST);
    assert_eq!(Chosen::SPEC.precision, Precision::F64);
    assert!(Chosen::PTX.contains(Chosen::ENTRY));
    assert_eq!(Chosen::image().entry, Chosen::ENTRY);
    let _: <Given as BespokeKernel>::Elem = 1.0f32;
}
