//! `linerate mac --check` on `linerate sum`'s machinery ([`crate::sum::verify`]):
//! the line syntax of one MAC ([`MacDialect`], which lives in
//! `linerate-sumfile` so that the fuzz targets reach it) and the check of a
//! listed file, whose tag is compared with the expected one in constant
//! time ([`MacChecker`]).

use linerate_files::read::Reader;
use linerate_files::{FileError, Input, Progress};
use subtle::ConstantTimeEq;

use super::engine::Mac;
use crate::sum::verify::Checker;
use linerate_sumfile::check::LineOf;
pub use linerate_sumfile::mac::MacDialect;

/// Checks files against their expected tags under one keyed MAC.
pub struct MacChecker {
    pub dialect: MacDialect,
    pub mac: Mac,
}

impl Checker for MacChecker {
    type Dialect = MacDialect;

    fn dialect(&self) -> &MacDialect {
        &self.dialect
    }

    fn label(&self) -> String {
        self.dialect.0.tag().to_string()
    }

    fn matches(
        &mut self,
        input: Input<'_>,
        line: &LineOf<MacDialect>,
        reader: &mut Reader,
        progress: &dyn Progress,
    ) -> Result<bool, FileError> {
        let tag = self.mac.tag_input(input, reader, progress)?;
        // Both are the MAC's length (the parser saw to it); `subtle` would
        // call different lengths unequal anyway.
        Ok(bool::from(tag.as_slice().ct_eq(line.digest.as_slice())))
    }
}
