//! Reading `--memory`: a bench row's name, and `bench`'s comma-separated list.

use super::{ROWS, Variant};
use crate::error::UserError;

impl Variant {
    /// Parse a `--memory` entry: a design name, `arigraph-no-exploration`, or AriGraph
    /// with a retrieval strategy (`arigraph+astar`, `arigraph+water-circles`,
    /// `arigraph+beam`, `arigraph+mixed`).
    ///
    /// # Errors
    /// A [`UserError`] listing the names.
    pub fn parse(name: &str) -> Result<Self, UserError> {
        ROWS.iter()
            .find(|r| r.name == name.trim())
            .map(|r| r.variant)
            .ok_or_else(|| {
                UserError::new(format!(
                    "unknown memory design {name:?}; known: {}",
                    Variant::names().join(", ")
                ))
            })
    }

    /// Parse `bench --memory`'s entries (already split at commas): empty entries (a
    /// trailing comma) are skipped and a row named twice is played once, in the order
    /// of first mention.
    ///
    /// # Errors
    /// An unknown name ([`Variant::parse`]); no name at all.
    pub fn parse_list(entries: &[String]) -> Result<Vec<Self>, UserError> {
        let mut out: Vec<Variant> = Vec::new();
        for entry in entries.iter().filter(|e| !e.trim().is_empty()) {
            let v = Variant::parse(entry)?;
            if !out.contains(&v) {
                out.push(v);
            }
        }
        if out.is_empty() {
            return Err(UserError::new(format!(
                "--memory names no memory design; known: {}",
                Variant::names().join(", ")
            )));
        }
        Ok(out)
    }

    /// Every bench row's name, in the registry's order (`bench --memory`).
    pub fn names() -> Vec<&'static str> {
        ROWS.iter().map(|r| r.name).collect()
    }
}
