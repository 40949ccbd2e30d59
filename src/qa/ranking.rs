//! Which paragraphs AriGraph gives the answer prompt: its episodic vertices (one per
//! paragraph) ranked by Eq. 1 alone, or as the authors' QA script ranks them, with the
//! question's similarity to each paragraph.

use serde::{Deserialize, Serialize};

/// How AriGraph ranks its episodic vertices in `ariadne qa` (recorded in the run's
/// plan, `qa.json`; runs recorded before the choice existed ranked by [`Self::Eq1`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum EpisodeRanking {
    /// The paper's Eq. 1 alone: `n/max(N,1) · log2(max(N,1))` over the retrieved
    /// triplets, episodes scoring 0 never given ([`crate::memory::retrieval::episodic_search`]).
    #[value(
        help = "the paper's Eq. 1 alone over the retrieved triplets (paragraphs scoring 0 are never given)"
    )]
    Eq1,
    /// The authors' `find_top_episodic_emb` and `top_k_obs` (`utils/utils.py:247-302`),
    /// as `graphs/contriever_graph.py:113-135` (`retrieve`) calls them with the
    /// question: Eq. 1's score and the question's similarity, each divided by its
    /// largest value over the paragraphs, summed ([`reference_ranking`]).
    #[value(
        help = "the authors' QA script: Eq. 1's score plus the question's similarity to the paragraph, each divided by its largest over the paragraphs"
    )]
    Reference,
}

impl EpisodeRanking {
    /// The ranking of runs recorded before the choice existed.
    pub fn recorded_before() -> Self {
        Self::Eq1
    }

    /// The name on the command line and in the plan.
    pub fn name(self) -> &'static str {
        match self {
            Self::Eq1 => "eq1",
            Self::Reference => "reference",
        }
    }
}

/// One paragraph's place in [`reference_ranking`]: its index in the question, its
/// Eq. 1 counts, its two normalized scores and their sum.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankedParagraph {
    /// Index of the paragraph in the question (its episodic vertex's step minus 1).
    pub paragraph: usize,
    /// n: the retrieved triplets among the paragraph's.
    pub n: usize,
    /// N: the paragraph's triplets.
    pub total: usize,
    /// `n/(N+1e-9) · ln(N+1e-9)`, divided by the largest over the paragraphs (0 when
    /// that is 0).
    pub matches: f64,
    /// The question's similarity to the paragraph (inner product of their vectors),
    /// divided by the largest over the paragraphs (0 when that is 0).
    pub similarity: f64,
    /// `matches + similarity`: what ranks the paragraph.
    pub score: f64,
}

/// The authors' QA ranking of episodic vertices (`utils/utils.py:247-302`,
/// `find_top_episodic_emb` then `top_k_obs`), every paragraph scored, best first.
///
/// `counts[i]` is paragraph i's (n, N): how many of its triplets were retrieved and how
/// many it has; `similarities[i]` is the question's inner product with paragraph i's
/// vector. Each paragraph's Eq. 1 score is `n/(N+1e-9) · ln(N+1e-9)` (the reference's
/// natural logarithm and 1e-9; a paragraph with one triplet or none scores about 0); both
/// lists of scores are divided by their largest value unless it is 0, and summed. The
/// order is by that sum, highest first; equal sums keep the paragraphs' order (Python's
/// stable `sorted`). The caller gives the first `topk_episodic` (2 in the reference's
/// `musique_test_big.py`). Paragraphs past the shorter of the two lists are not
/// ranked.
pub fn reference_ranking(counts: &[(usize, usize)], similarities: &[f64]) -> Vec<RankedParagraph> {
    const EPS: f64 = 1e-9;
    let relative: Vec<f64> = counts
        .iter()
        .map(|&(n, total)| (n as f64 / (total as f64 + EPS)) * (total as f64 + EPS).ln())
        .collect();
    let divided = |xs: &[f64]| -> Vec<f64> {
        let max = xs
            .iter()
            .copied()
            .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))));
        match max {
            Some(m) if m != 0.0 => xs.iter().map(|x| x / m).collect(),
            _ => vec![0.0; xs.len()],
        }
    };
    let matches = divided(&relative);
    let similarity = divided(similarities);
    let mut ranked: Vec<RankedParagraph> = counts
        .iter()
        .zip(matches.iter().zip(&similarity))
        .enumerate()
        .map(|(paragraph, (&(n, total), (&m, &s)))| RankedParagraph {
            paragraph,
            n,
            total,
            matches: m,
            similarity: s,
            score: m + s,
        })
        .collect();
    // Stable, and -0.0 equal to 0.0, as Python compares them.
    ranked.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    ranked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::retrieval::episodic_relevance;

    /// The case by hand, on a built graph: paragraph 1 states the inventor's
    /// death (supporting, 2 of its 4 triplets retrieved); paragraphs 0 and 2 are about
    /// his daughter and his workshop (distractors, 3 of 4 retrieved each); paragraph 3
    /// about an aircraft (none). The question is closest to paragraph 1. Eq. 1 alone
    /// (the retrieval's episodic search, top 2) gives the two distractors; the
    /// reference's ranking puts the supporting paragraph first.
    #[test]
    fn the_question_s_similarity_outweighs_a_distractor_s_extra_triplets() {
        use crate::memory::arigraph::AriGraphMemory;
        use crate::memory::{MemorySettings, Triplet};
        let mut m = AriGraphMemory::new(MemorySettings::default());
        let mut retrieved = std::collections::HashSet::new();
        let mut texts = Vec::new();
        for (step, (name, hits)) in [
            ("daughter", 3),
            ("inventor", 2),
            ("workshop", 3),
            ("aircraft", 0),
        ]
        .into_iter()
        .enumerate()
        {
            let mut ids = Vec::new();
            for i in 0..4 {
                let t = Triplet::new(name, &format!("fact {i}"), &format!("{name} value {i}"))
                    .expect("triplet");
                let (id, _) = m.graph.add(t);
                if i < hits {
                    retrieved.insert(id);
                    texts.push(m.graph.triplet(id).text());
                }
                ids.push(id);
            }
            m.graph
                .add_episode(step as u32 + 1, format!("paragraph about the {name}"), ids);
        }
        // Eq. 1 alone: 3/4·log2 4 = 1.5 for each distractor, 2/4·log2 4 = 1.0 for the
        // supporting paragraph: the top 2 are the distractors.
        assert_eq!(episodic_relevance(3, 4), 1.5);
        assert_eq!(episodic_relevance(2, 4), 1.0);
        let eq1 = crate::memory::retrieval::episodic_search(&m.graph, &retrieved, 2, None);
        let mut eq1_steps: Vec<u32> = eq1.iter().map(|e| e.step).collect();
        eq1_steps.sort();
        assert_eq!(eq1_steps, [1, 3], "Eq. 1 alone gives the distractors");
        // The reference's ranking over the same graph and retrieval.
        let counts = m.paragraph_counts(4, &texts);
        assert_eq!(counts, [(3, 4), (2, 4), (3, 4), (0, 4)]);
        let similarities = [0.40, 0.80, 0.35, 0.20];
        let ranked = reference_ranking(&counts, &similarities);
        // matches: 1, 2/3, 1, 0; similarity over 0.8: 0.5, 1, 0.4375, 0.25.
        let by_hand = [
            (1, 2.0 / 3.0 + 1.0),
            (0, 1.0 + 0.5),
            (2, 1.0 + 0.4375),
            (3, 0.0 + 0.25),
        ];
        for (r, (paragraph, score)) in ranked.iter().zip(by_hand) {
            assert_eq!(r.paragraph, paragraph);
            assert!((r.score - score).abs() < 1e-9, "{r:?}");
        }
        assert!((ranked[0].matches - 2.0 / 3.0).abs() < 1e-9);
        assert!((ranked[1].similarity - 0.5).abs() < 1e-9);
    }

    #[test]
    fn zeros_stay_zero_and_ties_keep_the_paragraphs_order() {
        // No triplet retrieved anywhere, equal similarities: the file's order.
        let ranked = reference_ranking(&[(0, 2), (0, 0), (0, 5)], &[0.3, 0.3, 0.3]);
        let order: Vec<usize> = ranked.iter().map(|r| r.paragraph).collect();
        assert_eq!(order, [0, 1, 2]);
        assert!(
            ranked
                .iter()
                .all(|r| r.matches == 0.0 && r.similarity == 1.0)
        );
        // A one-triplet paragraph scores about 0 by Eq. 1 (ln(1 + 1e-9)), as in the
        // reference.
        let ranked = reference_ranking(&[(1, 1), (1, 2)], &[0.0, 0.0]);
        assert_eq!(ranked[0].paragraph, 1);
        assert!(ranked[1].matches < 1e-6);
        // Every similarity 0: no division, 0.
        assert!(ranked.iter().all(|r| r.similarity == 0.0));
    }
}
