//! The kernel instances agree with the library and with Table 2.

use std::collections::HashSet;

use gemm_codegen::{GemmKernel, LoadShape, Op, Precision};
use gemm_kernels::{KernelEntry, TABLE2, all, table2};

#[test]
fn every_entry_validates_and_matches_the_library() {
    for entry in all() {
        let plan = gemm_codegen::validate(&entry.spec)
            .unwrap_or_else(|v| panic!("{} does not validate: {v:?}", entry.name));
        let image = gemm_codegen::emit(&plan);
        // What the macro embedded at compile time is what the library
        // generates at run time, byte for byte.
        assert!(entry.ptx == image.ptx, "{}: the macro's PTX differs from gemm_codegen::emit", entry.name);
        assert_eq!(entry.entry, image.entry, "{}", entry.name);
        assert_eq!(entry.shared_bytes, image.shared_bytes, "{}", entry.name);
        assert_eq!(entry.image(), image, "{}", entry.name);
        assert!(entry.ptx.contains(&format!(".entry {}", entry.entry)), "{}", entry.name);
    }
}

#[test]
fn names_are_unique_and_entries_unique_within_each_set() {
    let names: HashSet<_> = all().map(|e| e.name).collect();
    assert_eq!(names.len(), all().count(), "tuned kernels are named `sm_XY::Name`");
    // A tuned winner may be a Table 2 configuration (same spec, same entry):
    // entries are unique within Table 2 and within each family, where a
    // kernel tuned at several shapes is one name (and entry) listed once per
    // shape.
    let sets =
        std::iter::once(&TABLE2[..]).chain(gemm_kernels::tuned::families::FAMILIES.iter().map(|f| f.kernels));
    for set in sets {
        let entries: HashSet<_> = set.iter().map(|e| e.entry).collect();
        let named: HashSet<_> = set.iter().map(|e| (e.name, e.entry)).collect();
        assert_eq!(entries.len(), named.len(), "one entry per name");
        assert_eq!(
            named.len(),
            set.iter().map(|e| e.name).collect::<HashSet<_>>().len(),
            "one name per entry"
        );
    }
}

#[test]
fn table2_finds_all_36_in_blas_order() {
    assert_eq!(TABLE2.len(), 36);
    let mut seen = HashSet::new();
    for (p, precision) in Precision::ALL.into_iter().enumerate() {
        for (a, op_a) in Op::ALL.into_iter().enumerate() {
            for (b, op_b) in Op::ALL.into_iter().enumerate() {
                let entry = table2(precision, op_a, op_b);
                assert!(std::ptr::eq(entry, &TABLE2[p * 9 + a * 3 + b]));
                assert_eq!((entry.spec.precision, entry.spec.op_a, entry.spec.op_b), (precision, op_a, op_b));
                let letter = precision.blas_letter().to_ascii_uppercase();
                assert_eq!(entry.name, format!("{letter}gemm{op_a}{op_b}"));
                assert!(seen.insert(entry.name));
            }
        }
    }
    assert_eq!(seen.len(), 36);
}

/// The paper's row for a transpose pattern (T standing for T or C):
/// tile, threads, load A, load B.
type Row = ((u32, u32, u32), (u32, u32), (u32, u32), (u32, u32));

fn paper_row(precision: Precision, a_t: bool, b_t: bool) -> Row {
    let t = (a_t, b_t);
    match precision {
        Precision::F32 => {
            let (la, lb) = match t {
                (false, false) => ((32, 8), (8, 32)),
                (false, true) => ((32, 8), (32, 8)),
                (true, true) => ((16, 16), (32, 8)),
                (true, false) => ((16, 16), (16, 16)),
            };
            ((96, 96, 16), (16, 16), la, lb)
        }
        Precision::F64 => ((64, 64, 16), (16, 16), (16, 16), (16, 16)),
        Precision::C32 => {
            let (la, lb) = match t {
                (false, false) => ((32, 8), (16, 16)),
                (true, true) => ((16, 16), (32, 8)),
                _ => ((16, 16), (16, 16)),
            };
            ((64, 64, 16), (16, 16), la, lb)
        }
        Precision::C64 => {
            // The only non-square tiles: 16 × 24 when B is transposed.
            let tile = if b_t { (16, 24, 8) } else { (24, 16, 8) };
            let la = if t == (true, true) { (4, 16) } else { (8, 8) };
            (tile, (8, 8), la, (8, 8))
        }
        Precision::F16 | Precision::Bf16 => unreachable!("Table 2 has no 16-bit kernels"),
    }
}

fn row_of(e: &KernelEntry) -> Row {
    let s = &e.spec;
    let shape = |l: LoadShape| (l.lead, l.cross);
    ((s.m_blk, s.n_blk, s.k_blk), (s.m_dim, s.n_dim), shape(s.load_a), shape(s.load_b))
}

#[test]
fn configurations_are_the_papers_with_c_in_place_of_t() {
    for entry in &TABLE2 {
        let s = entry.spec;
        let expected = paper_row(s.precision, s.op_a != Op::N, s.op_b != Op::N);
        assert_eq!(row_of(entry), expected, "{}", entry.name);
        assert_eq!(
            (s.lds_width, s.ldg),
            (1, gemm_codegen::GlobalLoad::Nc),
            "{}: paper kernels use the defaults",
            entry.name
        );
    }
    // Spot checks against the printed table.
    assert_eq!(row_of(table2(Precision::C64, Op::T, Op::T)), ((16, 24, 8), (8, 8), (4, 16), (8, 8)));
    assert_eq!(row_of(table2(Precision::C64, Op::N, Op::N)), ((24, 16, 8), (8, 8), (8, 8), (8, 8)));
    assert_eq!(row_of(table2(Precision::F32, Op::N, Op::N)), ((96, 96, 16), (16, 16), (32, 8), (8, 32)));
}

#[test]
fn real_c_is_the_t_configuration_and_performs_t() {
    for precision in [Precision::F32, Precision::F64] {
        for op_a in Op::ALL {
            for op_b in Op::ALL {
                let entry = table2(precision, op_a, op_b);
                let t = |op: Op| if op == Op::C { Op::T } else { op };
                let as_t = table2(precision, t(op_a), t(op_b));
                assert_eq!(row_of(entry), row_of(as_t), "{}", entry.name);
                assert_eq!((entry.spec.eff_op_a(), entry.spec.eff_op_b()), (t(op_a), t(op_b)));
            }
        }
    }
    // On complex precisions C stays C (conjugated while loading).
    let z = table2(Precision::C64, Op::C, Op::N);
    assert_eq!(z.spec.eff_op_a(), Op::C);
}

#[test]
fn types_carry_their_element() {
    fn elem<K: GemmKernel>() -> Precision {
        <K::Elem as gemm_codegen::Element>::PRECISION
    }
    assert_eq!(elem::<gemm_kernels::SgemmNN>(), Precision::F32);
    assert_eq!(elem::<gemm_kernels::DgemmCT>(), Precision::F64);
    assert_eq!(elem::<gemm_kernels::CgemmNC>(), Precision::C32);
    assert_eq!(elem::<gemm_kernels::ZgemmCC>(), Precision::C64);
    for entry in &TABLE2 {
        assert_eq!(entry.image().launch().block, entry.spec.block());
    }
    assert_eq!(gemm_kernels::SgemmNN::SPEC, TABLE2[0].spec);
}

#[test]
fn only_tuned_classes_split_and_every_split_is_at_least_two() {
    assert!(TABLE2.iter().chain(&gemm_kernels::SPLIT_SUM).all(|e| e.slices == 1));
    let entries = gemm_kernels::tuned::families::FAMILIES.iter().flat_map(|f| f.kernels);
    for e in entries {
        assert!(e.slices >= 1, "{}: {} slices", e.name, e.slices);
        assert!(
            e.slices == 1 || (!e.batch && e.tuned_for != [0; 3]),
            "{}: a split needs a tuned class",
            e.name
        );
    }
    let split = TABLE2[0].split(3);
    assert_eq!((split.slices, split.name, split.entry), (3, TABLE2[0].name, TABLE2[0].entry));
}

/// The 16-bit defaults: one per precision and op pair, named by the
/// routine's letter, what `table2()` returns for them, all on Hopper's
/// `wgmma` fed by the tensor memory accelerator.
#[test]
fn the_half_kernels_cover_both_16_bit_precisions_and_every_op_pair() {
    let mut seen = std::collections::HashSet::new();
    for precision in Precision::HALF {
        for op_a in Op::ALL {
            for op_b in Op::ALL {
                let entry = gemm_kernels::table2(precision, op_a, op_b);
                let s = entry.spec;
                assert_eq!((s.precision, s.op_a, s.op_b), (precision, op_a, op_b));
                let letter = precision.blas_letter().to_ascii_uppercase();
                assert_eq!(entry.name, format!("{letter}gemm{op_a}{op_b}"));
                assert!(s.wgmma().is_some() && s.ldg == gemm_codegen::GlobalLoad::Tma, "{}", entry.name);
                assert!(seen.insert(entry.name));
            }
        }
    }
    assert_eq!(seen.len(), gemm_kernels::HALF.len());
}
