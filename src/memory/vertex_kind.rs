//! The kinds of vertices a traversal constraint can leave out (`--exclude`; PersonalAI,
//! arXiv:2506.17001, section III): a setting's value, read by the settings and the
//! retrieval alike (a leaf).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

/// A kind of vertex a traversal constraint can exclude (`--exclude`; recorded as
/// `memory.exclude` in the manifest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VertexKind {
    /// Object vertices and their triplets (the semantic search).
    Object,
    /// Thesis vertices (`--thesis`).
    Thesis,
    /// Episodic vertices (the episodic search, Eq. 1).
    Episodic,
}

impl VertexKind {
    /// Every kind, in the order of their names in messages.
    pub const ALL: [VertexKind; 3] = [VertexKind::Object, VertexKind::Thesis, VertexKind::Episodic];

    /// The name on the command line, in config files and manifests.
    pub fn name(self) -> &'static str {
        match self {
            VertexKind::Object => "object",
            VertexKind::Thesis => "thesis",
            VertexKind::Episodic => "episodic",
        }
    }
}

impl std::str::FromStr for VertexKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        VertexKind::ALL
            .into_iter()
            .find(|k| k.name() == s.trim())
            .ok_or_else(|| format!("unknown vertex kind {s:?}; use object, thesis or episodic"))
    }
}

/// Parse a traversal constraint: names of [`VertexKind`]s (each item may itself be a
/// comma-separated list, as `--exclude object,episodic` is). Returns the kinds sorted
/// and without repeats; blank items are ignored.
///
/// # Errors
/// An unknown name (the message lists the valid ones), or all three kinds excluded
/// (nothing would be left to retrieve).
pub fn parse_exclude<'a>(
    items: impl IntoIterator<Item = &'a str>,
) -> Result<Vec<VertexKind>, String> {
    let mut kinds = BTreeSet::new();
    for item in items {
        for name in item.split(',').filter(|n| !n.trim().is_empty()) {
            kinds.insert(name.parse::<VertexKind>()?);
        }
    }
    if kinds.len() == VertexKind::ALL.len() {
        return Err(
            "cannot exclude object, thesis and episodic vertices all at once: nothing would be retrieved"
                .into(),
        );
    }
    Ok(kinds.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exclude_parses_lists_and_refuses_unknown_names_and_everything() {
        assert_eq!(
            parse_exclude(["episodic,object", "episodic"]).unwrap(),
            [VertexKind::Object, VertexKind::Episodic]
        );
        assert_eq!(parse_exclude([" thesis "]).unwrap(), [VertexKind::Thesis]);
        assert!(parse_exclude([""]).unwrap().is_empty());
        let err = parse_exclude(["objects"]).unwrap_err();
        assert!(
            err.contains("\"objects\"") && err.contains("object, thesis or episodic"),
            "{err}"
        );
        let err = parse_exclude(["object,thesis", "episodic"]).unwrap_err();
        assert!(err.contains("all at once") && !err.contains('\n'), "{err}");
        assert_eq!(
            serde_json::to_value(VertexKind::Episodic).unwrap(),
            serde_json::Value::from("episodic")
        );
    }
}
