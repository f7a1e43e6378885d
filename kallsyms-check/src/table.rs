//! The kallsyms table that `scripts/kallsyms` linked into vmlinux: the names the running kernel
//! knows and prints, read from the ELF file's own bytes, so that `scan` says of each long
//! symbol what this vmlinux does with it (held whole, held cut, or left out), not what a kernel
//! with or without some patch would.
//!
//! [`decode_names`] (pure) expands `kallsyms_names` as `kallsyms_expand_symbol()`
//! (`kernel/kallsyms.c`) does; [`read_names`] finds its inputs in an ELF file's bytes.

use object::{Object, ObjectSection, ObjectSymbol};

/// Why the table could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// Not an ELF file `object` reads.
    #[error("not an ELF file: {0}")]
    Elf(String),
    /// A symbol of the table is missing: no `CONFIG_KALLSYMS`, or not a vmlinux.
    #[error(
        "no symbol {0} in its symbol table: not a vmlinux built with CONFIG_KALLSYMS, or a stripped one"
    )]
    NoSymbol(&'static str),
    /// The symbol's address lies in no section with data.
    #[error("{0} lies in no section of the file")]
    NoData(&'static str),
    /// The table ends before its count of symbols does.
    #[error("kallsyms_names ends at symbol {at} of {count}")]
    Short {
        /// The symbol being read.
        at: usize,
        /// How many the table says it has.
        count: usize,
    },
}

/// One name of the table: its type letter (`t`, `T`, `d`, ...) and the name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableName {
    /// The type letter.
    pub kind: char,
    /// The name, as kallsyms holds and prints it.
    pub name: String,
}

/// Expands `count` compressed names: each a length (one byte, or two when the first has its
/// high bit set, for names of 128 tokens or more) and that many token bytes, each token a
/// NUL-terminated string of `token_table` at `token_index[byte]`; a name's first character is
/// its type.
pub fn decode_names(
    count: usize,
    names: &[u8],
    token_table: &[u8],
    token_index: &[u16],
) -> Result<Vec<TableName>, TableError> {
    let mut out = Vec::with_capacity(count);
    let mut at = 0;
    for i in 0..count {
        let short = TableError::Short { at: i, count };
        let mut len = usize::from(*names.get(at).ok_or(short.clone())?);
        at += 1;
        if len & 0x80 != 0 {
            len = (len & 0x7f) | usize::from(*names.get(at).ok_or(short.clone())?) << 7;
            at += 1;
        }
        let tokens = names.get(at..at + len).ok_or(short.clone())?;
        at += len;
        let mut text = Vec::new();
        for &token in tokens {
            let start = usize::from(*token_index.get(usize::from(token)).ok_or(short.clone())?);
            let rest = token_table.get(start..).ok_or(short.clone())?;
            text.extend(rest.iter().take_while(|&&b| b != 0));
        }
        let text = String::from_utf8_lossy(&text);
        let mut chars = text.chars();
        let kind = chars.next().unwrap_or('?');
        out.push(TableName { kind, name: chars.as_str().to_owned() });
    }
    Ok(out)
}

/// What a kallsyms table does with a symbol's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Held {
    /// It holds the whole name.
    Whole,
    /// It holds the name's first `KSYM_NAME_LEN - 1` characters (`scripts/kallsyms` with demo
    /// patch 0006, for a name of `KSYM_NAME_LEN` or more).
    Cut,
    /// It holds neither: `scripts/kallsyms` left it out, and the code of the function is then
    /// reported as part of the symbol before it.
    LeftOut,
}

/// What the table whose names are `held` does with `symbol`.
pub fn held_as(symbol: &str, held: &std::collections::HashSet<&str>) -> Held {
    let cut = crate::head(symbol, crate::KSYM_NAME_LEN - 1);
    if held.contains(symbol) {
        Held::Whole
    } else if cut.len() < symbol.len() && held.contains(cut) {
        Held::Cut
    } else {
        Held::LeftOut
    }
}

/// Reads the names of the kallsyms table of the vmlinux whose bytes are `elf`.
pub fn read_names(elf: &[u8]) -> Result<Vec<TableName>, TableError> {
    let file = object::File::parse(elf).map_err(|e| TableError::Elf(e.to_string()))?;
    // The bytes from a symbol's address to the end of its section.
    let data_at = |name: &'static str| -> Result<&[u8], TableError> {
        let symbol =
            file.symbols().find(|s| s.name() == Ok(name)).ok_or(TableError::NoSymbol(name))?;
        let address = symbol.address();
        let section = file
            .sections()
            .find(|s| (s.address()..s.address() + s.size()).contains(&address))
            .ok_or(TableError::NoData(name))?;
        let data = section.data().map_err(|_| TableError::NoData(name))?;
        let offset =
            usize::try_from(address - section.address()).map_err(|_| TableError::NoData(name))?;
        data.get(offset..).ok_or(TableError::NoData(name))
    };
    let little = file.is_little_endian();
    let u32_at = |bytes: &[u8]| {
        let b: [u8; 4] = bytes.get(..4)?.try_into().ok()?;
        Some(if little { u32::from_le_bytes(b) } else { u32::from_be_bytes(b) })
    };
    let count =
        u32_at(data_at("kallsyms_num_syms")?).ok_or(TableError::NoData("kallsyms_num_syms"))?;
    let index_bytes = data_at("kallsyms_token_index")?;
    let token_index: Vec<u16> = index_bytes
        .chunks_exact(2)
        .take(256)
        .map(|b| {
            if little { u16::from_le_bytes([b[0], b[1]]) } else { u16::from_be_bytes([b[0], b[1]]) }
        })
        .collect();
    if token_index.len() < 256 {
        return Err(TableError::NoData("kallsyms_token_index"));
    }
    decode_names(
        count as usize,
        data_at("kallsyms_names")?,
        data_at("kallsyms_token_table")?,
        &token_index,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two names: `Tmain` as tokens `T`, `ma`, `in`; a long one of 130 tokens, whose length
    /// takes two bytes.
    #[test]
    fn whole_cut_or_left_out() {
        let long = format!("_RNvC4demo{}", "x".repeat(600));
        let cut = &long[..crate::KSYM_NAME_LEN - 1];
        let held: std::collections::HashSet<&str> = ["main", cut].into_iter().collect();
        assert_eq!(held_as("main", &held), Held::Whole);
        assert_eq!(held_as(&long, &held), Held::Cut);
        assert_eq!(held_as(&format!("{long}y"), &held), Held::Cut);
        assert_eq!(held_as(&format!("_RNvC4demo{}", "z".repeat(600)), &held), Held::LeftOut);
        assert_eq!(held_as("other", &held), Held::LeftOut);
    }

    #[test]
    fn names_short_and_long() {
        let token_table = b"T\0ma\0in\0t\0x\0";
        let mut token_index = vec![0u16; 256];
        token_index[..5].copy_from_slice(&[0, 2, 5, 8, 10]);
        let mut names = vec![3, 0, 1, 2];
        names.extend([0x80 | (130 & 0x7f), 130 >> 7, 3]);
        names.extend([4; 129]);
        let table = decode_names(2, &names, token_table, &token_index).unwrap();
        assert_eq!(table[0], TableName { kind: 'T', name: "main".into() });
        assert_eq!((table[1].kind, table[1].name.len()), ('t', 129));
        assert_eq!(
            decode_names(3, &names, token_table, &token_index),
            Err(TableError::Short { at: 2, count: 3 })
        );
        assert_eq!(
            decode_names(2, &names[..20], token_table, &token_index),
            Err(TableError::Short { at: 1, count: 2 })
        );
    }
}
