//! Device limits: the per-architecture table, architecture names, and what
//! the hard limits and the occupancy model make of them.

use gemm_codegen::Limits;
use gemm_codegen::device::{ArchError, ArchLimits, ComputeCapability, DeviceLimits, DriverLimits, Limiter};

const KIB: u32 = 1024;

#[test]
fn table_matches_the_programming_guide() {
    // (arch, warps/SM, blocks/SM, shared/SM KiB, opt-in KiB, reserved/block)
    let expected = [
        ("sm_70", 64, 32, 96, 96, 0),
        ("sm_72", 64, 32, 96, 96, 0),
        ("sm_75", 32, 16, 64, 64, 0),
        ("sm_80", 64, 32, 164, 163, 1024),
        ("sm_86", 48, 16, 100, 99, 1024),
        ("sm_87", 48, 16, 164, 163, 1024),
        ("sm_89", 48, 24, 100, 99, 1024),
        ("sm_90", 64, 32, 228, 227, 1024),
        ("sm_100", 64, 32, 228, 227, 1024),
        ("sm_120", 48, 24, 100, 99, 1024),
    ];
    assert_eq!(ArchLimits::TABLE.len(), expected.len());
    for (arch, warps, blocks, shared_kib, optin_kib, reserved) in expected {
        let d = DeviceLimits::for_arch(arch).unwrap();
        assert_eq!(d.compute_capability().to_string(), arch);
        assert_eq!(d.arch.compute_capability, d.compute_capability(), "{arch}: exact row");
        assert_eq!(d.arch.max_warps_per_sm, warps, "{arch}");
        assert_eq!(d.arch.max_blocks_per_sm, blocks, "{arch}");
        assert_eq!(d.arch.max_regs_per_thread, 255, "{arch}");
        assert_eq!(d.arch.reserved_shared_per_block, reserved, "{arch}");
        assert_eq!(d.arch.reg_alloc_unit, 256, "{arch}");
        assert_eq!(d.max_threads_per_sm(), warps * 32, "{arch}");
        assert_eq!(d.driver.max_shared_per_sm, shared_kib * KIB, "{arch}");
        assert_eq!(d.driver.max_shared_per_block_optin, optin_kib * KIB, "{arch}");
        assert_eq!(d.driver.max_shared_per_block, 48 * KIB, "{arch}");
        assert_eq!((d.driver.max_regs_per_sm, d.driver.max_regs_per_block), (64 * KIB, 64 * KIB), "{arch}");
        assert_eq!((d.driver.warp_size, d.driver.max_threads_per_block), (32, 1024), "{arch}");
        assert!(d.driver.sm_count > 0 && d.driver.clock_khz > 0, "{arch}");
        // Our kernels' shared memory is static: the hard limit is 48 KiB on
        // every architecture, whatever the opt-in.
        assert_eq!(d.hard(), Limits::PORTABLE, "{arch}");
    }
    let h100 = DeviceLimits::for_arch("sm_90").unwrap();
    assert_eq!((h100.driver.sm_count, h100.driver.clock_khz), (132, 1_980_000));
}

#[test]
fn architecture_names_parse() {
    let cc = |major, minor| Ok(ComputeCapability::new(major, minor));
    for name in ["sm_90", "SM_90", "sm90", "90", "9.0", "compute_90", "sm_90a", " sm_90 "] {
        assert_eq!(name.parse::<ComputeCapability>(), cc(9, 0), "{name}");
    }
    assert_eq!("sm_100".parse(), cc(10, 0));
    assert_eq!("10.0".parse(), cc(10, 0));
    assert_eq!("121".parse(), cc(12, 1));
    assert_eq!("sm_100f".parse(), cc(10, 0));
    assert_eq!("7.5".parse(), cc(7, 5));
    assert_eq!(ComputeCapability::new(8, 6).to_string(), "sm_86");
    assert_eq!(ComputeCapability::new(12, 0).sm(), 120);
    for bad in ["", "sm_", "9", "sm_9x", "9.10", "hopper", "sm_-90", "9.x"] {
        assert!(matches!(bad.parse::<ComputeCapability>(), Err(ArchError::Parse(_))), "{bad:?}");
    }
}

#[test]
fn unknown_architectures() {
    let err = DeviceLimits::for_arch("sm_61").unwrap_err();
    assert_eq!(err, ArchError::Unknown(ComputeCapability::new(6, 1)));
    assert!(err.to_string().contains("sm_70, sm_72, sm_75"), "{err}");
    // No typical part for sm_103, so no defaults by name ...
    assert!(DeviceLimits::for_arch("sm_103").is_err());
    // ... but a driver reporting it gets the nearest row: same major first,
    // else the newest older one.
    let nearest = |major, minor| {
        ArchLimits::nearest(ComputeCapability::new(major, minor)).map(|a| a.compute_capability)
    };
    assert_eq!(nearest(10, 3), Some(ComputeCapability::new(10, 0)));
    assert_eq!(nearest(12, 1), Some(ComputeCapability::new(12, 0)));
    assert_eq!(nearest(8, 8), Some(ComputeCapability::new(8, 7)));
    assert_eq!(nearest(11, 0), Some(ComputeCapability::new(10, 0)));
    assert_eq!(nearest(13, 0), Some(ComputeCapability::new(12, 0)));
    assert_eq!(nearest(9, 0), Some(ComputeCapability::new(9, 0)));
    assert_eq!(nearest(6, 1), None);
    assert_eq!(ArchLimits::exact(ComputeCapability::new(10, 3)), None);
}

/// What `gemm-host` does with the driver's attribute values: a plain struct
/// literal, then `DeviceLimits::new`.
#[test]
fn driver_values_join_the_table() {
    let driver = DriverLimits {
        name: "NVIDIA H100 PCIe".into(),
        compute_capability: ComputeCapability::new(9, 0),
        warp_size: 32,
        max_threads_per_block: 1024,
        max_regs_per_block: 65536,
        max_regs_per_sm: 65536,
        max_shared_per_block: 49152,
        max_shared_per_block_optin: 232448,
        max_shared_per_sm: 233472,
        sm_count: 114,
        clock_khz: 1_755_000,
    };
    let d = DeviceLimits::new(driver.clone()).unwrap();
    assert_eq!(d.driver, driver);
    assert_eq!(d.arch, ArchLimits::exact(ComputeCapability::new(9, 0)).unwrap());
    assert_eq!(d.hard(), Limits::PORTABLE);

    // A device with less static shared memory than 48 KiB caps the hard limit.
    let small = DeviceLimits::new(DriverLimits { max_shared_per_block: 32 * KIB, ..driver.clone() }).unwrap();
    assert_eq!(small.hard().max_shared_per_block, 32 * KIB);
    // More is never usable statically.
    let large = DeviceLimits::new(DriverLimits { max_shared_per_block: 96 * KIB, ..driver.clone() }).unwrap();
    assert_eq!(large.hard().max_shared_per_block, 48 * KIB);

    let old = DriverLimits { compute_capability: ComputeCapability::new(6, 0), ..driver };
    assert!(DeviceLimits::new(old).is_err());
}

#[test]
fn occupancy_uses_per_sm_shared_memory() {
    // 48 KiB blocks: one per SM if shared memory per SM equalled the
    // per-block limit (the paper's Fermi assumption); four on sm_90's
    // 228 KiB, each charged 1 KiB reserved.
    let h100 = DeviceLimits::for_arch("sm_90").unwrap();
    let o = h100.occupancy(128, 48 * KIB - 1024, 32);
    assert_eq!(o.blocks_by_shared, 4);
    assert_eq!(o.limited_by, Limiter::SharedMemory);
    let o = h100.occupancy(128, 48 * KIB, 32);
    assert_eq!(o.blocks_by_shared, 4); // 233472 / 50176 = 4.65

    // sm_86: 100 KiB per SM, 48 warps, 16 blocks.
    let a10 = DeviceLimits::for_arch("sm_86").unwrap();
    let o = a10.occupancy(64, 0, 16);
    assert_eq!(o.blocks_by_warps, 16);
    assert_eq!(o.blocks_per_sm, 16);
    assert_eq!(o.limited_by, Limiter::Warps);
    let o = a10.occupancy(512, 20 * KIB, 32);
    assert_eq!(o.blocks_by_warps, 3);
    assert_eq!(o.blocks_by_shared, 3); // 4 by shared memory alone, within 3 slots
    assert_eq!(o.threads_per_sm(), 1536);
    assert_eq!(o.fraction(), 1.0);
}
