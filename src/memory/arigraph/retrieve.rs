//! Retrieval from the AriGraph memory (paper Algorithm 1): semantic search for each
//! query at its depth, the facts extracted at the same step left out (memory rules 5),
//! bridges and theses when asked for, then episodic search (Eq. 1).

use std::collections::{BTreeSet, HashMap, HashSet};

use anyhow::Result;

use super::AriGraphMemory;
use crate::llm::{CallLog, EmbedKind, Llm};
use crate::memory::VertexKind;
use crate::memory::bridge_discovery::{self, BridgeRecord};
use crate::memory::retrieval::{self, Retrieved};
use crate::memory::strategies::{self, Strategy, water_circles};
use crate::memory::thesis;
use crate::memory::{
    MemorySettings, Retrieval, RetrievedEpisode, RetrievedThesis, RetrievedTriplet, ThesisId,
    TripletId,
};
use crate::memory::{Retire, hyper, paths};

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
            .map(|(q, d)| (q.chars().take(settings.query_chars).collect::<String>(), *d))
            .filter(|(q, _)| !q.trim().is_empty())
            .unzip();
        let mut best: Vec<Retrieved> = Vec::new();
        let mut pos: HashMap<TripletId, usize> = HashMap::new();
        // Queries without a vector are skipped; `asked` keeps each searched query's
        // position in `queries`.
        let (asked, vectors): (Vec<usize>, Vec<&[f32]>) = queries
            .iter()
            .enumerate()
            .filter_map(|(i, q)| self.query_cache.get(q).map(|v| (i, v.as_slice())))
            .unzip();
        // `--exclude object`: no semantic search (no triplet, no bridge).
        let objects = !settings.excludes(VertexKind::Object);
        let per_query = if objects {
            let mut per_query = vec![Vec::new(); vectors.len()];
            let mut levels: Vec<u32> = asked.iter().map(|&i| depths[i]).collect();
            levels.sort_unstable();
            levels.dedup();
            for depth in levels {
                let (slots, group): (Vec<usize>, Vec<&[f32]>) = vectors
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| depths[asked[*k]] == depth)
                    .map(|(k, v)| (k, *v))
                    .unzip();
                let at_depth = MemorySettings {
                    depth,
                    ..settings.clone()
                };
                let found = strategies::search_many(&self.graph, &group, &at_depth);
                for (k, r) in slots.into_iter().zip(found) {
                    per_query[k] = r;
                }
            }
            per_query
        } else {
            vec![Vec::new(); vectors.len()]
        };
        // Each query's terminals: the vertices of the triplets it matched directly.
        let terminals: Vec<Vec<TripletId>> = per_query
            .iter()
            .map(|rs| rs.iter().filter(|r| r.depth == 0).map(|r| r.id).collect())
            .collect();
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
        // From memory rules 5 the facts this step extracted are searched through but
        // not retrieved: the observation holding them is in working memory already
        // (the reference's `update` drops `new_triplets_str` from the subgraph).
        // The step's triplets are its episodic vertex's (an update adds that vertex
        // with every triplet it extracted).
        let mut fresh: HashSet<TripletId> = HashSet::new();
        if settings.revision().drops_fresh_facts()
            && let Some(e) = self
                .graph
                .episodes()
                .last()
                .filter(|e| e.step == current_step)
        {
            fresh = e.triplets.iter().copied().collect();
            best.retain(|r| !fresh.contains(&r.id));
        }
        let mut bridges: Vec<BridgeRecord> = Vec::new();
        let mut bridged: HashSet<TripletId> = HashSet::new();
        let mut paths: Vec<String> = Vec::new();
        let ariadne = settings.ariadnemem;
        if settings.bridge && objects {
            let mut sub: BTreeSet<TripletId> = best.iter().map(|r| r.id).collect();
            let mut budget = settings.width;
            // Each query's terminal names, each once, in the order of its triplets: the
            // bridges join them, the path mining links them.
            let names: Vec<Vec<&str>> = terminals
                .iter()
                .map(|ids| {
                    let mut names: Vec<&str> = Vec::new();
                    for &id in ids {
                        let t = self.graph.triplet(id);
                        for v in [t.subject.as_str(), t.object.as_str()] {
                            if !names.contains(&v) {
                                names.push(v);
                            }
                        }
                    }
                    names
                })
                .collect();
            for (k, (ids, names)) in terminals.iter().zip(&names).enumerate() {
                let choice = if ariadne.bridges_by_similarity() {
                    bridge_discovery::Choice::Similarity {
                        window: bridge_discovery::window(&self.graph, ids),
                    }
                } else {
                    bridge_discovery::Choice::Hops
                };
                let found =
                    bridge_discovery::discover_by(&self.graph, names, &sub, budget, &choice);
                for b in found {
                    budget -= b.triplets.len();
                    for &id in &b.triplets {
                        sub.insert(id);
                        // As AriadneMem runs, a bridge passes through this step's own
                        // facts without retrieving them (memory rules 5).
                        if ariadne.bridges_by_similarity() && fresh.contains(&id) {
                            continue;
                        }
                        bridged.insert(id);
                        best.push(Retrieved {
                            id,
                            depth: 0,
                            similarity: 0.0,
                        });
                    }
                    bridges.push(BridgeRecord {
                        query: asked[k],
                        vertex: b.vertex,
                        joins: b.joins,
                        triplets: b
                            .triplets
                            .iter()
                            .map(|id| self.graph.triplet(*id).text())
                            .collect(),
                    });
                }
            }
            // AriadneMem's path mining over the augmented subgraph, per query.
            if ariadne.mines_paths() {
                for names in &names {
                    for p in paths::mine(&self.graph, &sub, names) {
                        if paths.len() < paths::MAX_PATHS && !paths.contains(&p) {
                            paths.push(p);
                        }
                    }
                }
            }
        }
        // PersonalAI as its paper runs it: WaterCircles ranks theses and episodes by
        // entity intersections; other strategies walk thesis and episodic hyper-edges.
        let form = settings.personalai;
        let can = hyper::Passable {
            objects,
            theses: settings.thesis && !settings.excludes(VertexKind::Thesis),
            episodes: !settings.excludes(VertexKind::Episodic),
        };
        let circles = (form.water_circles_items() && settings.retrieval == Strategy::WaterCircles)
            .then(|| {
                let mut reached = BTreeSet::new();
                for q in &vectors {
                    let seeds =
                        strategies::matched_vertices(&self.graph, q, strategies::MATCHED_VERTICES);
                    reached.extend(water_circles::reached(
                        &self.graph,
                        &seeds,
                        depths.iter().copied().max().unwrap_or(settings.depth),
                    ));
                }
                water_circles::items(
                    &self.graph,
                    &vectors,
                    &reached,
                    &water_circles::Params::PAPER,
                    can.theses,
                    // k = 0 is episodic memory off (the "w/o episodic" ablation).
                    can.episodes && settings.episodes > 0,
                    Some(current_step),
                )
            });
        let walked =
            (circles.is_none() && settings.thesis && form.walks_hyper_edges()).then(|| {
                let anchors = if objects {
                    thesis::anchors(&self.graph, &vectors, best.iter().map(|r| r.id))
                } else {
                    thesis::anchors(&self.graph, &vectors, [])
                };
                let mut known: HashSet<TripletId> = best.iter().map(|r| r.id).collect();
                known.extend(fresh.iter().copied());
                hyper::walk(
                    &self.graph,
                    &vectors,
                    &anchors,
                    &known,
                    hyper::Bounds {
                        depth: settings.depth,
                        width: settings.width,
                        cutoff: settings.cutoff,
                        theses: form.theses_per_step(),
                        can,
                    },
                )
            });
        if let Some(w) = &walked {
            best.extend(w.triplets.iter().cloned());
        }
        let ids: HashSet<TripletId> = best.iter().map(|r| r.id).collect();
        // Thesis vertices (`--thesis`): anchored on the retrieved triplets and matched
        // vertices, or by similarity alone without object vertices.
        let theses: Vec<thesis::Ranked> = if let Some(c) = &circles {
            c.theses.clone()
        } else if let Some(w) = &walked {
            w.theses
                .iter()
                .map(|t| thesis::Ranked {
                    id: t.id,
                    matched: t.anchors,
                    similarity: t.similarity,
                    hop: Some(t.hop),
                })
                .collect()
        } else if settings.thesis && !settings.excludes(VertexKind::Thesis) {
            let anchors =
                objects.then(|| thesis::anchors(&self.graph, &vectors, best.iter().map(|r| r.id)));
            thesis::rank(&self.graph, &vectors, anchors.as_ref(), thesis::MAX_THESES)
        } else {
            Vec::new()
        };
        // As PersonalAI runs, this step's own theses are left out of its retrieval, as
        // its facts are (memory rules 5): the observation holding them is in view.
        let theses: Vec<thesis::Ranked> =
            if form.walks_hyper_edges() && settings.revision().drops_fresh_facts() {
                theses
                    .into_iter()
                    .filter(|r| {
                        self.graph
                            .thesis(r.id)
                            .is_some_and(|t| t.step != current_step)
                    })
                    .collect()
            } else {
                theses
            };
        let scored = if settings.excludes(VertexKind::Episodic) {
            Vec::new()
        } else if let Some(c) = &circles {
            c.episodes
                .iter()
                .map(|&(index, n, total)| retrieval::ScoredEpisode {
                    index,
                    step: self.graph.episodes()[index].step,
                    n,
                    total,
                    score: n as f64,
                })
                .collect()
        } else if objects {
            retrieval::episodic_search(&self.graph, &ids, settings.episodes, Some(current_step))
        } else {
            let found: HashSet<ThesisId> = theses.iter().map(|r| r.id).collect();
            retrieval::episodic_search_by_theses(
                &self.graph,
                &found,
                settings.episodes,
                Some(current_step),
            )
        };
        let episodes = scored
            .into_iter()
            .map(|s| RetrievedEpisode {
                step: s.step,
                score: s.score,
                n: s.n,
                total: s.total,
                observation: self.graph.episodes()[s.index].observation.clone(),
            })
            .collect();
        // AriadneMem's temporal edges into the retrieved facts, shown to the LLM.
        let changes = if settings.retire == Retire::Close && ariadne.shows_temporal_edges() {
            self.graph
                .history()
                .changes(best.iter().map(|r| r.id), settings.width, |id| {
                    self.graph.triplet(id).text()
                })
        } else {
            Vec::new()
        };
        Retrieval {
            queries: queries.to_vec(),
            changes,
            paths,
            triplets: best
                .into_iter()
                .map(|r| RetrievedTriplet {
                    triplet: self.graph.triplet(r.id).text(),
                    depth: r.depth,
                    similarity: r.similarity,
                    bridge: bridged.contains(&r.id),
                })
                .collect(),
            episodes,
            notes: Vec::new(),
            key_items: Vec::new(),
            bridges,
            theses: theses
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
                .collect(),
        }
    }
}
