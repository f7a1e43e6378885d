//! Nothing but tests: see `tests/tidy.rs`, which checks the invariants of `ARCHITECTURE.md`.
