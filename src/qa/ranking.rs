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

    /// The case by hand: a distractor (paragraph 0, the inventor's daughter)
    /// holds 3 of its 4 triplets among those retrieved, the supporting paragraph
    /// (paragraph 1, the inventor) 2 of 4; the question is closer to the supporting one.
    /// Eq. 1 alone picks the distractor; the reference's ranking the supporting one.
    #[test]
    fn the_question_s_similarity_outweighs_a_distractor_s_extra_triplet() {
        let counts = [(3, 4), (2, 4), (0, 3)];
        let similarities = [0.40, 0.80, 0.20];
        // Eq. 1: 3/4·log2 4 = 1.5 against 2/4·log2 4 = 1.0.
        assert_eq!(episodic_relevance(3, 4), 1.5);
        assert_eq!(episodic_relevance(2, 4), 1.0);
        let ranked = reference_ranking(&counts, &similarities);
        // matches: 1, 2/3, 0; similarity: 0.5, 1, 0.25 (over 0.8).
        let by_hand = [(1, 2.0 / 3.0 + 1.0), (0, 1.0 + 0.5), (2, 0.0 + 0.25)];
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
