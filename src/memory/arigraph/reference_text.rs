//! How the reference reads and filters fact texts (a leaf): its `words_to_exclude`
//! filter (`graphs/contriever_graph.py`) and its reading of an outdated-check answer
//! (`utils/utils.py`, `parse_triplets_removing`).

use crate::memory::{REFERENCE_EXCLUDED, Triplet};

/// Whether a fact's text (`subject, relation, object`) holds one of
/// [`REFERENCE_EXCLUDED`] (the reference's `words_to_exclude`, matched as substrings of
/// the lowercased text, as `graphs/contriever_graph.py` matches them).
pub(crate) fn reference_excluded(text: &str) -> bool {
    let text = text.to_lowercase();
    REFERENCE_EXCLUDED.iter().any(|w| text.contains(w))
}

/// The triplet an outdated-check answer names, read as the reference reads it
/// (`utils/utils.py`, `parse_triplets_removing`): exactly three comma-separated parts,
/// each trimmed of spaces and quotes; `None` otherwise.
pub(crate) fn named_triplet(text: &str) -> Option<Triplet> {
    let parts: Vec<&str> = text.split(',').collect();
    let [s, r, o] = parts.as_slice() else {
        return None;
    };
    let clean = |p: &str| p.trim_matches([' ', '\'', '"', '\n']).to_string();
    Triplet::new(&clean(s), &clean(r), &clean(o))
}
