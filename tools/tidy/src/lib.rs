//! The repository's invariants: `tests/tidy.rs` checks those of `ARCHITECTURE.md` over the
//! source, and [`readme`] lets each tool's tests check the figures the README states against
//! what they measure.

pub mod readme;
