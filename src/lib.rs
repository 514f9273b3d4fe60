//! gemmforge: placeholder facade.
