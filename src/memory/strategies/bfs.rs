//! `--retrieval bfs` (the default): AriGraph's semantic search, Algorithm 2 of
//! arXiv:2407.04363, as [`crate::memory::retrieval::semantic_search_many`] computes it
//! (depth d, width w, hop scope), unchanged: runs recorded before the strategies existed
//! replay with the same triplets.

use crate::memory::MemorySettings;
use crate::memory::graph::AriGraph;
use crate::memory::retrieval::{Retrieved, Scan, SearchBounds, semantic_search_cut};

/// Algorithm 2 for several query vectors (one result per query, in query order), with
/// `settings.depth`, `settings.width`, `settings.hop_scope` and `settings.cutoff`
/// (the reference code's 0.75; none in runs recorded before it).
pub fn search_many(
    g: &AriGraph,
    queries: &[&[f32]],
    settings: &MemorySettings,
) -> Vec<Vec<Retrieved>> {
    let bounds = SearchBounds {
        d: settings.depth,
        w: settings.width,
        scope: settings.hop_scope,
        scan: Scan::Auto,
        cutoff: settings.cutoff,
    };
    semantic_search_cut(g, queries, bounds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::HopScope;
    use crate::memory::retrieval::semantic_search_many;
    use crate::memory::strategies::{Strategy, fixture::house, search};

    #[test]
    fn bfs_is_algorithm_2_unchanged() {
        let g = house();
        let q = [1.0, 0.1, 0.0];
        for scope in [HopScope::All, HopScope::Incident] {
            let settings = MemorySettings {
                hop_scope: scope,
                cutoff: None,
                ..MemorySettings::default()
            };
            let want = semantic_search_many(&g, &[&q], 2, 6, scope).remove(0);
            assert!(!want.is_empty());
            assert_eq!(
                search_many(&g, &[&q], &settings),
                std::slice::from_ref(&want)
            );
            assert_eq!(search(&g, &q, Strategy::Bfs, &settings), want);
        }
    }
}
