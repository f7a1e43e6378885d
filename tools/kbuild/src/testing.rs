//! Test support shared by the suite's parser tests: generated garbage for no-panic checks.

/// `count` deterministic strings, each up to 40 of `pieces` in a pseudo-random order
/// (xorshift from `seed`): the tokens a parser looks for, in orders it does not expect.
pub fn garbage(seed: u64, pieces: &[&str], count: usize) -> Vec<String> {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count)
        .map(|_| {
            let len = next() % 40;
            (0..len).map(|_| pieces[(next() % pieces.len() as u64) as usize]).collect()
        })
        .collect()
}
