//! Retrieval from the AriGraph memory (paper Algorithm 1): semantic search for each
//! query at its depth, the facts extracted at the same step left out (memory rules 5),
//! bridges and theses when asked for, then episodic search (Eq. 1).

use std::collections::{HashMap, HashSet};

use anyhow::Result;

use super::AriGraphMemory;
use super::retrieve_variants::{PersonalAi, Search};
use crate::llm::{CallLog, EmbedKind, Llm};
use crate::memory::VertexKind;
use crate::memory::retrieval::{self, Retrieved};
use crate::memory::strategies;
use crate::memory::temporal::Change;
use crate::memory::thesis;
use crate::memory::{
    MemorySettings, Retire, Retrieval, RetrievedEpisode, RetrievedThesis, RetrievedTriplet,
    ThesisId, TripletId,
};

impl AriGraphMemory {
    /// Two-step retrieval (Algorithm 1): semantic search for each query (by the
    /// strategy of [`MemorySettings::retrieval`]), union of the triplets, then episodic
    /// search over that union (excluding `current_step`).
    ///
    /// # Errors
    /// Transport errors while embedding the queries.
    pub async fn retrieve_list(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        queries: &[String],
        current_step: u32,
    ) -> Result<Retrieval> {
        let depth = self.settings.depth;
        let at: Vec<(String, u32)> = queries.iter().map(|q| (q.clone(), depth)).collect();
        self.retrieve_list_at(llm, log, &at, current_step).await
    }

    /// [`AriGraphMemory::retrieve_list`] with a search depth per query (the key items
    /// of the paper's profile, each at its relevance). The retrieved facts are kept as
    /// the next extraction's example (memory rules 5).
    ///
    /// # Errors
    /// Transport errors from the embedding endpoint.
    pub async fn retrieve_list_at(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        queries_at: &[(String, u32)],
        current_step: u32,
    ) -> Result<Retrieval> {
        let queries: Vec<String> = queries_at
            .iter()
            .map(|(q, _)| {
                q.chars()
                    .take(self.settings.query_chars)
                    .collect::<String>()
            })
            .filter(|q| !q.trim().is_empty())
            .collect();
        let missing: Vec<String> = {
            let mut m: Vec<String> = queries
                .iter()
                .filter(|q| !self.query_cache.contains_key(*q))
                .cloned()
                .collect();
            m.dedup();
            m
        };
        let vectors = llm.embed(log, missing.clone(), EmbedKind::Query).await?;
        for (q, v) in missing.into_iter().zip(vectors) {
            self.query_cache.insert(q, v);
        }
        let retrieval = self.retrieve_at(queries_at, current_step, &self.settings);
        self.last_retrieved = retrieval
            .triplets
            .iter()
            .map(|t| t.triplet.clone())
            .collect();
        Ok(retrieval)
    }

    /// For each of the first `steps` steps, its episodic vertex's (n, N): how many of
    /// its triplets are among `retrieved` (matched by their text `subject, relation,
    /// object`, as the reference matches `find_top_episodic_emb`'s strings) and how many
    /// it holds; (0, 0) for a step without one. Question answering reads paragraph i
    /// as step i + 1.
    pub fn paragraph_counts(&self, steps: usize, retrieved: &[String]) -> Vec<(usize, usize)> {
        let retrieved: HashSet<&str> = retrieved.iter().map(String::as_str).collect();
        (1..=steps as u32)
            .map(|step| {
                self.graph
                    .episodes()
                    .iter()
                    .find(|e| e.step == step)
                    .map_or((0, 0), |e| {
                        let n = e
                            .triplets
                            .iter()
                            .filter(|id| {
                                retrieved.contains(self.graph.triplet(**id).text().as_str())
                            })
                            .count();
                        (n, e.triplets.len())
                    })
            })
            .collect()
    }

    /// The pure part of retrieval, over cached query vectors (queries without a vector
    /// are skipped).
    pub fn retrieve_with(&self, queries: &[String], current_step: u32) -> Retrieval {
        self.retrieve_with_settings(queries, current_step, &self.settings)
    }

    /// [`AriGraphMemory::retrieve_with`] under other d, w, k or strategy (no network:
    /// cached vectors only).
    pub fn retrieve_with_settings(
        &self,
        queries: &[String],
        current_step: u32,
        settings: &MemorySettings,
    ) -> Retrieval {
        let at: Vec<(String, u32)> = queries
            .iter()
            .map(|q| (q.clone(), settings.depth))
            .collect();
        self.retrieve_at(&at, current_step, settings)
    }

    /// [`AriGraphMemory::retrieve_with_settings`] with a search depth per query
    /// (cached vectors only). Queries of one depth are searched together, so with a
    /// single depth the result is that of one search over every query.
    pub fn retrieve_at(
        &self,
        queries_at: &[(String, u32)],
        current_step: u32,
        settings: &MemorySettings,
    ) -> Retrieval {
        let (queries, depths): (Vec<String>, Vec<u32>) = queries_at
            .iter()
            .map(|(q, d)| (crate::text::first_chars(q, settings.query_chars), *d))
            .filter(|(q, _)| !q.trim().is_empty())
            .unzip();
        // Queries without a vector are skipped; `asked` keeps each searched query's
        // position in `queries`.
        let (asked, vectors): (Vec<usize>, Vec<&[f32]>) = queries
            .iter()
            .enumerate()
            .filter_map(|(i, q)| self.query_cache.get(q).map(|v| (i, v.as_slice())))
            .unzip();
        let search = Search {
            graph: &self.graph,
            settings,
            current_step,
            depths,
            asked,
            vectors,
            // `--exclude object`: no semantic search (no triplet, no bridge).
            objects: !settings.excludes(VertexKind::Object),
        };
        let per_query = search.semantic();
        let terminals = terminals(&per_query);
        let mut best = union(per_query);
        let fresh = search.drop_fresh(&mut best);
        let bridged = search.bridge(&terminals, &fresh, &mut best);
        let found = search.personalai(&fresh, &mut best);
        let theses = search.theses(&found, &best);
        let episodes = search.episodes(&found, &best, &theses);
        Retrieval {
            queries: queries.to_vec(),
            changes: search.changes(&best),
            paths: bridged.paths,
            triplets: search.triplets_out(best, &bridged.bridged),
            episodes,
            notes: Vec::new(),
            key_items: Vec::new(),
            bridges: bridged.bridges,
            theses: search.theses_out(theses),
        }
    }
}

/// Each query's terminals: the triplets it matched directly (depth 0), whose vertices
/// the bridges join.
fn terminals(per_query: &[Vec<Retrieved>]) -> Vec<Vec<TripletId>> {
    per_query
        .iter()
        .map(|rs| rs.iter().filter(|r| r.depth == 0).map(|r| r.id).collect())
        .collect()
}

/// The union of the queries' triplets (Algorithm 1): each triplet once, where the first
/// query found it, with its least depth and its greatest similarity over the queries.
fn union(per_query: Vec<Vec<Retrieved>>) -> Vec<Retrieved> {
    let mut best: Vec<Retrieved> = Vec::new();
    let mut pos: HashMap<TripletId, usize> = HashMap::new();
    for results in per_query {
        for r in results {
            match pos.get(&r.id) {
                Some(&i) => {
                    let b = &mut best[i];
                    b.depth = b.depth.min(r.depth);
                    b.similarity = b.similarity.max(r.similarity);
                }
                None => {
                    pos.insert(r.id, best.len());
                    best.push(r);
                }
            }
        }
    }
    best
}

impl Search<'_> {
    /// Semantic search (Algorithm 1, first step): each searched query's triplets (one
    /// list per vector, by the strategy of [`MemorySettings::retrieval`]), the queries of
    /// one depth searched together; empty lists under `--exclude object`.
    fn semantic(&self) -> Vec<Vec<Retrieved>> {
        if !self.objects {
            return vec![Vec::new(); self.vectors.len()];
        }
        let mut per_query = vec![Vec::new(); self.vectors.len()];
        let mut levels: Vec<u32> = self.asked.iter().map(|&i| self.depths[i]).collect();
        levels.sort_unstable();
        levels.dedup();
        for depth in levels {
            let (slots, group): (Vec<usize>, Vec<&[f32]>) = self
                .vectors
                .iter()
                .enumerate()
                .filter(|(k, _)| self.depths[self.asked[*k]] == depth)
                .map(|(k, v)| (k, *v))
                .unzip();
            let at_depth = MemorySettings {
                depth,
                ..self.settings.clone()
            };
            let found = strategies::search_many(self.graph, &group, &at_depth);
            for (k, r) in slots.into_iter().zip(found) {
                per_query[k] = r;
            }
        }
        per_query
    }

    /// The facts this step extracted, taken out of `best` and returned. From memory
    /// rules 5 they are searched through but not retrieved: the observation holding
    /// them is in working memory already (the reference's `update` drops
    /// `new_triplets_str` from the subgraph). The step's triplets are its episodic
    /// vertex's (an update adds that vertex with every triplet it extracted).
    fn drop_fresh(&self, best: &mut Vec<Retrieved>) -> HashSet<TripletId> {
        let mut fresh: HashSet<TripletId> = HashSet::new();
        if self.settings.revision().drops_fresh_facts()
            && let Some(e) = self
                .graph
                .episodes()
                .last()
                .filter(|e| e.step == self.current_step)
        {
            fresh = e.triplets.iter().copied().collect();
            best.retain(|r| !fresh.contains(&r.id));
        }
        fresh
    }

    /// Episodic search (Algorithm 1, second step; Eq. 1) over the retrieved triplets
    /// `best`: WaterCircles' episodes as PersonalAI runs it, else the episodes scored by
    /// the triplets, or by the `theses` without object vertices; none under `--exclude
    /// episodic`. At most [`MemorySettings::episodes`], the current step's left out.
    fn episodes(
        &self,
        found: &PersonalAi,
        best: &[Retrieved],
        theses: &[thesis::Ranked],
    ) -> Vec<RetrievedEpisode> {
        let (g, settings) = (self.graph, self.settings);
        let ids: HashSet<TripletId> = best.iter().map(|r| r.id).collect();
        let scored = if settings.excludes(VertexKind::Episodic) {
            Vec::new()
        } else if let Some(c) = &found.circles {
            c.episodes
                .iter()
                .map(|&(index, n, total)| retrieval::ScoredEpisode {
                    index,
                    step: g.episodes()[index].step,
                    n,
                    total,
                    score: n as f64,
                })
                .collect()
        } else if self.objects {
            retrieval::episodic_search(g, &ids, settings.episodes, Some(self.current_step))
        } else {
            let by: HashSet<ThesisId> = theses.iter().map(|r| r.id).collect();
            retrieval::episodic_search_by_theses(g, &by, settings.episodes, Some(self.current_step))
        };
        scored
            .into_iter()
            .map(|s| RetrievedEpisode {
                step: s.step,
                score: s.score,
                n: s.n,
                total: s.total,
                observation: g.episodes()[s.index].observation.clone(),
            })
            .collect()
    }

    /// AriadneMem's temporal edges into the retrieved facts (`--retire close`), at most
    /// [`MemorySettings::width`], shown to the LLM.
    fn changes(&self, best: &[Retrieved]) -> Vec<Change> {
        if self.settings.retire == Retire::Close && self.settings.ariadnemem.shows_temporal_edges()
        {
            self.graph
                .history()
                .changes(best.iter().map(|r| r.id), self.settings.width, |id| {
                    self.graph.triplet(id).text()
                })
        } else {
            Vec::new()
        }
    }

    /// The retrieved triplets as the retrieval shows them: their text, depth and
    /// similarity, and whether a bridge (one of `bridged`) brought them in.
    fn triplets_out(
        &self,
        best: Vec<Retrieved>,
        bridged: &HashSet<TripletId>,
    ) -> Vec<RetrievedTriplet> {
        best.into_iter()
            .map(|r| RetrievedTriplet {
                triplet: self.graph.triplet(r.id).text(),
                depth: r.depth,
                similarity: r.similarity,
                bridge: bridged.contains(&r.id),
            })
            .collect()
    }

    /// The ranked theses as the retrieval shows them (their text and step), those no
    /// longer in the graph left out.
    fn theses_out(&self, theses: Vec<thesis::Ranked>) -> Vec<RetrievedThesis> {
        theses
            .into_iter()
            .filter_map(|r| {
                self.graph.thesis(r.id).map(|t| RetrievedThesis {
                    text: t.text.clone(),
                    step: t.step,
                    matched: r.matched,
                    similarity: r.similarity,
                    hop: r.hop,
                })
            })
            .collect()
    }
}
