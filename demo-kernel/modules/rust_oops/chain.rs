// SPDX-License-Identifier: GPL-2.0

//! A call chain of generic functions with long names, shared by the `rust_oops_*` modules, so
//! that one backtrace holds several long v0-mangled symbols.

use core::hint::black_box;

/// The outermost frame: calls the second with `value` and `die`.
#[inline(never)]
pub fn first_frame_of_a_call_chain_whose_names_make_long_v0_symbols_for_kallsyms<T, F>(value: T, die: F)
where
    T: Copy,
    F: FnOnce(T),
{
    second_frame_of_a_call_chain_whose_names_make_long_v0_symbols_for_kallsyms(value, die);
    // Work after the call keeps it a call, not a tail jump, so the frame stays on the stack.
    black_box(());
}

/// The middle frame: calls the third with `value` and `die`.
#[inline(never)]
pub fn second_frame_of_a_call_chain_whose_names_make_long_v0_symbols_for_kallsyms<T, F>(value: T, die: F)
where
    T: Copy,
    F: FnOnce(T),
{
    third_frame_of_a_call_chain_whose_names_make_long_v0_symbols_for_kallsyms(value, die);
    black_box(());
}

/// The innermost frame: calls `die` with `value`.
#[inline(never)]
pub fn third_frame_of_a_call_chain_whose_names_make_long_v0_symbols_for_kallsyms<T, F>(value: T, die: F)
where
    T: Copy,
    F: FnOnce(T),
{
    die(black_box(value));
    black_box(());
}
