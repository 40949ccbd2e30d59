//! What the variants add to AriGraph's retrieval (paper Algorithm 1), over one search's
//! queries ([`Search`]): AriadneMem's bridge discovery and path mining
//! ([`crate::memory::bridge_discovery`], [`crate::memory::paths`]), and PersonalAI's
//! WaterCircles items, hyper-edge walk and thesis vertices ([`crate::memory::thesis`]).

use std::collections::{BTreeSet, HashSet};

use crate::memory::bridge_discovery::{self, BridgeRecord};
use crate::memory::retrieval::Retrieved;
use crate::memory::strategies::{self, Strategy, water_circles};
use crate::memory::{AriGraph, MemorySettings, TripletId, VertexKind};
use crate::memory::{hyper, paths, thesis};

/// One retrieval's searched queries over the graph, under its settings: what each
/// phase of [`super::AriGraphMemory::retrieve_at`] reads.
pub(super) struct Search<'a> {
    /// The graph searched.
    pub graph: &'a AriGraph,
    /// The settings retrieval runs under (d, w, k, strategy, variants).
    pub settings: &'a MemorySettings,
    /// The step retrieving (its own facts, theses and episode are left out).
    pub current_step: u32,
    /// Each query's search depth, by its position in the retrieval's queries.
    pub depths: Vec<u32>,
    /// Each searched query's position in the retrieval's queries (queries without a
    /// cached vector are skipped).
    pub asked: Vec<usize>,
    /// The searched queries' vectors, in the order of `asked`.
    pub vectors: Vec<&'a [f32]>,
    /// Object vertices are searched (not `--exclude object`).
    pub objects: bool,
}

/// What AriadneMem's bridge discovery and path mining add to a retrieval.
#[derive(Default)]
pub(super) struct Bridged {
    /// The bridges found, in query order.
    pub bridges: Vec<BridgeRecord>,
    /// The triplets the bridges brought into the retrieval.
    pub bridged: HashSet<TripletId>,
    /// The reasoning paths mined, serialized (at most [`paths::MAX_PATHS`]).
    pub paths: Vec<String>,
}

/// What PersonalAI's retrieval found besides semantic search: WaterCircles' items or
/// the walk through hyper-edges (at most one of the two).
pub(super) struct PersonalAi {
    /// WaterCircles' theses and episodes, as the paper runs it.
    pub circles: Option<water_circles::Items>,
    /// The theses and triplets the walk through thesis and episodic hyper-edges reached.
    pub walked: Option<hyper::Walk>,
}

impl Search<'_> {
    /// Each query's terminal names (the subjects and objects of its `terminals`), each
    /// once, in the order of its triplets: the bridges join them, the path mining links
    /// them.
    fn terminal_names(&self, terminals: &[Vec<TripletId>]) -> Vec<Vec<&str>> {
        terminals
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
            .collect()
    }

    /// AriadneMem's bridge discovery (`--bridge`, with object vertices): for each query,
    /// the bridges joining its terminals' components within a budget of
    /// [`MemorySettings::width`] triplets in all, their triplets pushed onto `best` (this
    /// step's `fresh` facts passed through but not retrieved as AriadneMem runs, memory
    /// rules 5); then path mining over the augmented subgraph.
    pub fn bridge(
        &self,
        terminals: &[Vec<TripletId>],
        fresh: &HashSet<TripletId>,
        best: &mut Vec<Retrieved>,
    ) -> Bridged {
        let mut out = Bridged::default();
        if !(self.settings.bridge && self.objects) {
            return out;
        }
        let ariadne = self.settings.ariadnemem;
        let mut sub: BTreeSet<TripletId> = best.iter().map(|r| r.id).collect();
        let mut budget = self.settings.width;
        let names = self.terminal_names(terminals);
        for (k, (ids, names)) in terminals.iter().zip(&names).enumerate() {
            let choice = if ariadne.bridges_by_similarity() {
                bridge_discovery::Choice::Similarity {
                    window: bridge_discovery::window(self.graph, ids),
                }
            } else {
                bridge_discovery::Choice::Hops
            };
            let found = bridge_discovery::discover_by(self.graph, names, &sub, budget, &choice);
            for b in found {
                budget -= b.triplets.len();
                for &id in &b.triplets {
                    sub.insert(id);
                    // As AriadneMem runs, a bridge passes through this step's own
                    // facts without retrieving them (memory rules 5).
                    if ariadne.bridges_by_similarity() && fresh.contains(&id) {
                        continue;
                    }
                    out.bridged.insert(id);
                    best.push(Retrieved {
                        id,
                        depth: 0,
                        similarity: 0.0,
                    });
                }
                out.bridges.push(BridgeRecord {
                    query: self.asked[k],
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
        if ariadne.mines_paths() {
            out.paths = self.mine_paths(&names, &sub);
        }
        out
    }

    /// AriadneMem's path mining over the augmented subgraph `sub`, per query: the paths
    /// linking each query's terminal `names`, each once, at most [`paths::MAX_PATHS`].
    fn mine_paths(&self, names: &[Vec<&str>], sub: &BTreeSet<TripletId>) -> Vec<String> {
        let mut found: Vec<String> = Vec::new();
        for names in names {
            for p in paths::mine(self.graph, sub, names) {
                if found.len() < paths::MAX_PATHS && !found.contains(&p) {
                    found.push(p);
                }
            }
        }
        found
    }

    /// PersonalAI as its paper runs it: WaterCircles ranks theses and episodes by entity
    /// intersections; other strategies walk thesis and episodic hyper-edges, the
    /// triplets the walk reaches pushed onto `best` (the `fresh` facts known, not added).
    pub fn personalai(&self, fresh: &HashSet<TripletId>, best: &mut Vec<Retrieved>) -> PersonalAi {
        let settings = self.settings;
        let form = settings.personalai;
        let can = hyper::Passable {
            objects: self.objects,
            theses: settings.thesis && !settings.excludes(VertexKind::Thesis),
            episodes: !settings.excludes(VertexKind::Episodic),
        };
        let circles = (form.water_circles_items() && settings.retrieval == Strategy::WaterCircles)
            .then(|| self.circles(can));
        let walked = (circles.is_none() && settings.thesis && form.walks_hyper_edges())
            .then(|| self.walk(can, fresh, best));
        if let Some(w) = &walked {
            best.extend(w.triplets.iter().cloned());
        }
        PersonalAi { circles, walked }
    }

    /// WaterCircles' items (PersonalAI section III.D): the vertices the circles of each
    /// query's matched vertices reach over the deepest search depth, and the theses and
    /// episodes (not the current step's) ranked by the entities reached.
    fn circles(&self, can: hyper::Passable) -> water_circles::Items {
        let settings = self.settings;
        let mut reached = BTreeSet::new();
        for q in &self.vectors {
            let seeds = strategies::matched_vertices(self.graph, q, strategies::MATCHED_VERTICES);
            reached.extend(water_circles::reached(
                self.graph,
                &seeds,
                self.depths.iter().copied().max().unwrap_or(settings.depth),
            ));
        }
        water_circles::items(
            self.graph,
            &self.vectors,
            &reached,
            &water_circles::Params::PAPER,
            water_circles::ItemKinds {
                theses: can.theses,
                // k = 0 is episodic memory off (the "w/o episodic" ablation).
                episodes: can.episodes && settings.episodes > 0,
                exclude_step: Some(self.current_step),
            },
        )
    }

    /// The walk through hyper-edges ([`hyper::walk`]) from the anchors of the retrieved
    /// triplets `best` (of the matched vertices alone without object vertices), the
    /// triplets of `best` and `fresh` known already, within d, w, the cutoff and the
    /// form's theses per step.
    fn walk(
        &self,
        can: hyper::Passable,
        fresh: &HashSet<TripletId>,
        best: &[Retrieved],
    ) -> hyper::Walk {
        let settings = self.settings;
        let anchors = if self.objects {
            thesis::anchors(self.graph, &self.vectors, best.iter().map(|r| r.id))
        } else {
            thesis::anchors(self.graph, &self.vectors, [])
        };
        let mut known: HashSet<TripletId> = best.iter().map(|r| r.id).collect();
        known.extend(fresh.iter().copied());
        hyper::walk(
            self.graph,
            &self.vectors,
            &anchors,
            &known,
            hyper::Bounds {
                depth: settings.depth,
                width: settings.width,
                cutoff: settings.cutoff,
                theses: settings.personalai.theses_per_step(),
                can,
            },
        )
    }

    /// Thesis vertices (`--thesis`): WaterCircles' or the walk's when `found`, else
    /// anchored on the retrieved triplets `best` and matched vertices, or by similarity
    /// alone without object vertices. As PersonalAI runs, this step's own theses are
    /// left out, as its facts are (memory rules 5): the observation holding them is in
    /// view.
    pub fn theses(&self, found: &PersonalAi, best: &[Retrieved]) -> Vec<thesis::Ranked> {
        let settings = self.settings;
        let theses: Vec<thesis::Ranked> = if let Some(c) = &found.circles {
            c.theses.clone()
        } else if let Some(w) = &found.walked {
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
            let anchors = self
                .objects
                .then(|| thesis::anchors(self.graph, &self.vectors, best.iter().map(|r| r.id)));
            thesis::rank(
                self.graph,
                &self.vectors,
                anchors.as_ref(),
                thesis::MAX_THESES,
            )
        } else {
            Vec::new()
        };
        if settings.personalai.walks_hyper_edges() && settings.revision().drops_fresh_facts() {
            theses
                .into_iter()
                .filter(|r| {
                    self.graph
                        .thesis(r.id)
                        .is_some_and(|t| t.step != self.current_step)
                })
                .collect()
        } else {
            theses
        }
    }
}
