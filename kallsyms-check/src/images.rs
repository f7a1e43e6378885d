//! The symbol tables of `vmlinux` and the modules, each image opened once for all scenarios
//! and reports, as [`SymbolTable`]s for [`check_log`].

use std::path::Path;

use symbolizer::{Image, ImageError};

use crate::{LogCheck, NothingChecked, Source, SymbolTable, check_log};

/// One image as a [`SymbolTable`].
pub struct Table<'a>(pub &'a Image);

impl SymbolTable for Table<'_> {
    fn size_of(&self, name: &str) -> Option<u64> {
        self.0.symbol(name).map(|(_, size)| size)
    }

    fn starting_with(&self, prefix: &str) -> Option<(String, u64)> {
        self.0.complete(prefix).map(|(name, _, size)| (name.to_owned(), size))
    }

    fn address_of(&self, name: &str) -> Option<u64> {
        self.0.symbol(name).map(|(address, _)| address)
    }

    fn function_at(&self, address: u64) -> Option<String> {
        self.0.function_at(address).map(|(name, ..)| name.to_owned())
    }

    fn source_at(&self, address: u64) -> Option<Source> {
        if !self.0.has_dwarf() {
            return None;
        }
        let locations = self.0.locate(address);
        let location =
            locations.first().and_then(|l| Some(format!("{}:{}", l.file.as_ref()?, l.line?)));
        Some(Source { function: locations.last().and_then(|l| l.function.clone()), location })
    }
}

/// `vmlinux` and the modules of a directory, each opened once for all scenarios and reports.
pub struct Images {
    /// (name, image), `vmlinux` first.
    pub all: Vec<(String, Image)>,
}

impl Images {
    /// `vmlinux` and the modules of `modules_dir`.
    pub fn open(vmlinux: &Path, modules_dir: &Path) -> Result<Images, ImageError> {
        Images::with_vmlinux(vmlinux, Image::open(vmlinux)?, modules_dir)
    }

    /// `vmlinux` already read, and the modules of `modules_dir`.
    pub fn with_vmlinux(
        path: &Path,
        vmlinux: Image,
        modules_dir: &Path,
    ) -> Result<Images, ImageError> {
        let mut all = vec![(path.display().to_string(), vmlinux)];
        for (name, path) in symbolizer::find_modules(modules_dir) {
            all.push((name, Image::open(&path)?));
        }
        Ok(Images { all })
    }

    /// Checks the Rust frames of `reports` against these images.
    pub fn check(&self, reports: &[oops::Report]) -> Result<LogCheck, NothingChecked> {
        let tables: Vec<(&str, Table<'_>)> =
            self.all.iter().map(|(n, i)| (n.as_str(), Table(i))).collect();
        check_log(reports, &mut |module| {
            let table = match module {
                None => tables.first(),
                Some(m) => tables[1..].iter().find(|(n, _)| *n == m.replace('-', "_")),
            };
            table.map(|(_, t)| t as &dyn SymbolTable)
        })
    }
}
