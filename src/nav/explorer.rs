//! The explorer (paper Appendix B): what the agent learned by moving. It keeps the rooms
//! visited (from the game's room header) and the exits taken, writes the moves actually
//! made into the graph as spatial triplets (ground truth: going east from A arrived in
//! B), and offers unexplored exits and `go to` targets for working memory.

use std::collections::{BTreeSet, HashSet};

use super::{Direction, Move, SpatialMap, UnexploredExit, move_triplets, relation_direction};
use crate::memory::names::entity_key;
use crate::memory::{AriGraph, MemoryRevision, MemorySettings, Retire, Triplet, TripletId};

/// Rooms visited and exits taken in one episode.
#[derive(Debug, Clone, Default)]
pub struct Explorer {
    visited: BTreeSet<String>,
    explored: HashSet<(String, Direction)>,
    /// The memory-rules version of the run (see `MemorySettings::rules`).
    revision: Option<MemoryRevision>,
    /// The rule `move-overrides` as the run resolved it (`None`: a run recorded before
    /// profiles, whose memory-rules version decides).
    overrides: Option<bool>,
    /// The rule `admitted-exits`: the exits the game admits are written into the graph
    /// ([`Explorer::record_exits`]).
    admits: bool,
    /// What a move override does to the facts it contradicts (see
    /// `MemorySettings::retire`; the default, delete, is the paper's).
    retire: Option<Retire>,
    /// Routes as the reference makes them ([`SpatialMap::between_visited`]), and no room
    /// of a route counted as visited (agent revision 11 without rule `checked-routes`).
    reference_routes: bool,
}

impl Explorer {
    /// An explorer under memory rules `rules`. From rules 2 on, the triplets of a move
    /// actually made and of the exits the game admits are pinned in the graph (never
    /// offered to the outdated check), every older spatial triplet a move contradicts is
    /// removed, and `go to` targets are rooms the agent has been in; under rules 1 only
    /// the triplets that promised a route move's expected room are removed, and every
    /// name of the map is a target.
    pub fn new(settings: &MemorySettings) -> Self {
        Self {
            revision: Some(settings.revision()),
            overrides: settings.move_overrides,
            admits: settings.admits_exits(),
            ..Self::default()
        }
    }

    /// Follow the rules `move-overrides` and `admitted-exits` of `rules` from now on (a
    /// profile handed over to mid-run).
    pub fn hand_over(&mut self, rules: &crate::profile::Rules) {
        self.overrides = Some(rules.move_overrides);
        self.admits = rules.admitted_exits;
    }

    /// An explorer of a run recorded before profiles, under memory rules `rules`.
    pub fn of_rules(rules: MemoryRevision) -> Self {
        Self::new(&MemorySettings {
            rules,
            move_overrides: None,
            ..MemorySettings::default()
        })
    }

    fn revision(&self) -> MemoryRevision {
        self.revision.unwrap_or(MemoryRevision::V1)
    }

    /// A move removes the older spatial facts it contradicts (rule `move-overrides`;
    /// before profiles, from memory rules 2).
    fn overrides_on_move(&self) -> bool {
        self.overrides.unwrap_or_else(|| self.grounded())
    }

    /// Extracted facts a move contradicts are reconciled, refused route moves retire
    /// their facts (rule `move-overrides`; before profiles, from memory rules 4).
    fn overrides_all(&self) -> bool {
        self.overrides
            .unwrap_or_else(|| self.revision().overrides_moves())
    }

    /// The same explorer, closing the facts a move overrides instead of deleting them
    /// when `retire` is [`Retire::Close`] ([`crate::memory::temporal`]).
    pub fn retiring(mut self, retire: Retire) -> Self {
        self.retire = Some(retire);
        self
    }

    /// The same explorer, routing as the reference does when `reference` holds (see
    /// `AgentSettings::reference_routes`).
    pub fn routing_as_reference(mut self, reference: bool) -> Self {
        self.route_as_reference(reference);
        self
    }

    /// Route as the reference does from now on when `reference` holds.
    pub fn route_as_reference(&mut self, reference: bool) {
        self.reference_routes = reference;
    }

    /// Whether routes are the reference's.
    pub fn routes_as_reference(&self) -> bool {
        self.reference_routes
    }

    fn grounded(&self) -> bool {
        self.revision().grounds_moves()
    }

    /// The `go to` targets from `here` on `map`: reachable rooms (from rules 2, only
    /// rooms the agent has been in, so a door named in a spatial triplet is no target).
    /// Under the reference's routes, every room the agent decided in, the current one
    /// included (`pipeline_arigraph.py:110`: `go to {loc}` for every location).
    pub fn go_to_targets(&self, map: &SpatialMap, here: &str) -> Vec<String> {
        if self.reference_routes {
            return self.visited.iter().cloned().collect();
        }
        map.reachable_from(&entity_key(here))
            .into_iter()
            .filter(|r| !self.grounded() || self.visited.contains(r))
            .collect()
    }

    /// The rooms the agent has been in.
    pub fn visited(&self) -> &BTreeSet<String> {
        &self.visited
    }

    /// The exits taken so far, as (room, direction).
    pub fn explored(&self) -> &HashSet<(String, Direction)> {
        &self.explored
    }

    /// The agent is in `room` now.
    pub fn visit(&mut self, room: &str) {
        self.visited.insert(entity_key(room));
    }

    /// The spatial map as `graph` holds it now (an empty map without a graph).
    pub fn map(&self, graph: Option<&AriGraph>) -> SpatialMap {
        match graph {
            Some(g) if self.reference_routes => SpatialMap::between_visited(g, &self.visited),
            Some(g) => SpatialMap::from_graph(g, &self.visited),
            None => SpatialMap::from_graph(&AriGraph::new(), &BTreeSet::new()),
        }
    }

    /// The route of a `go to` from `from` (a room name as the game shows it).
    pub fn route(&self, graph: Option<&AriGraph>, from: &str, target: &str) -> Option<Vec<Move>> {
        self.map(graph)
            .route(&entity_key(from), &entity_key(target))
    }

    /// Unexplored exits of the map.
    pub fn unexplored(&self, graph: Option<&AriGraph>) -> Vec<UnexploredExit> {
        self.map(graph).unexplored(&self.explored)
    }

    /// The admissible movement commands of `room` as `room, has exit, dir` triplets added
    /// to `graph` (they are ground truth about the room's exits, pinned when grounding);
    /// returns those new to it. Nothing without the rule `admitted-exits`.
    pub fn record_exits(
        &mut self,
        graph: &mut AriGraph,
        room: &str,
        admissible: &[String],
    ) -> Vec<Triplet> {
        let here = entity_key(room);
        let mut added = Vec::new();
        if !self.admits {
            return added;
        }
        for cmd in admissible {
            if let Some(dir) = Direction::of_command(cmd)
                && let Some(t) = Triplet::new(&here, "has exit", dir.as_str())
            {
                let (id, fresh) = graph.add(t.clone());
                if self.grounded() {
                    graph.pin(id);
                }
                if fresh {
                    added.push(t);
                }
            }
        }
        added
    }

    /// Record a movement command's result (ground truth, both ways): going `dir` from
    /// `from` reached `to`. When `expected` names another room, the triplets that
    /// promised it are removed as stale. A move that stayed in the same room (a closed
    /// door) records nothing, except from memory rules 4 on when it was a route move
    /// (`expected` names another room): the game refused it, so every alive triplet not
    /// proven by a move that sends `from` going `dir` to `expected` or to a room visited
    /// is retired (a proven one stays: its door may only be closed; so does a door or
    /// thing said to be that way). From rules 4 on a move also runs
    /// [`Explorer::reconcile`]. Returns the triplets added and removed. Under
    /// [`Retire::Close`] each removed triplet is closed, superseded by the move's own.
    pub fn record_move(
        &mut self,
        mut graph: Option<&mut AriGraph>,
        from: &str,
        dir: Direction,
        to: &str,
        expected: Option<&str>,
    ) -> (Vec<Triplet>, Vec<Triplet>) {
        let (from, to) = (entity_key(from), entity_key(to));
        let exp = expected.map(entity_key).unwrap_or_default();
        if from == to
            && self.overrides_all()
            && !exp.is_empty()
            && exp != from
            && let Some(graph) = graph.as_deref_mut()
        {
            return (Vec::new(), self.refuse_route_move(graph, &from, dir, &exp));
        }
        if from == to || from.is_empty() || to.is_empty() {
            return (Vec::new(), Vec::new());
        }
        self.visited.insert(to.clone());
        self.explored.insert((from.clone(), dir));
        let Some(graph) = graph else {
            return (Vec::new(), Vec::new());
        };
        let (mut removed, retired) = self.remove_overridden(graph, &from, dir, &to, expected);
        let (added, by) = self.add_move(graph, &from, dir, &to);
        if self.retire == Some(Retire::Close) {
            for id in retired {
                graph.supersede(id, &by);
            }
        }
        removed.extend(self.reconcile(graph));
        (added, removed)
    }

    /// A route move the game refused (`from` going `dir` stayed in `from`; `exp`, the
    /// room expected, as an entity key): the unproven facts that promised it (to the
    /// room expected, or to another room the agent knows) go; a door or thing said to be
    /// that way stays (it may be why the move was refused). Returns the triplets retired.
    fn refuse_route_move(
        &self,
        graph: &mut AriGraph,
        from: &str,
        dir: Direction,
        exp: &str,
    ) -> Vec<Triplet> {
        let refuted: Vec<TripletId> = spatial_ids(graph)
            .into_iter()
            .filter(|&id| !graph.is_pinned(id))
            .filter(|&id| {
                leads(graph.triplet(id)).iter().any(|(a, go, b)| {
                    *a == from && *go == dir && (*b == exp || self.visited.contains(b))
                })
            })
            .collect();
        let mut removed = Vec::new();
        for id in refuted {
            if graph.retire(id, self.retire_mode(), &[]) {
                removed.push(graph.triplet(id).clone());
            }
        }
        removed
    }

    /// The facts a move `from` -`dir`-> `to` (entity keys) overrides, removed: when
    /// grounding, the spatial triplets it contradicts (rule `move-overrides`); under rules
    /// 1, the triplets that promised `expected` when it names another room. Returns the
    /// triplets removed and their ids.
    fn remove_overridden(
        &self,
        graph: &mut AriGraph,
        from: &str,
        dir: Direction,
        to: &str,
        expected: Option<&str>,
    ) -> (Vec<Triplet>, Vec<TripletId>) {
        let mut removed = Vec::new();
        let mut retired = Vec::new();
        if self.grounded() {
            let contradicted = if self.overrides_on_move() {
                contradicted(graph, from, dir, to)
            } else {
                Vec::new()
            };
            for id in contradicted {
                if graph.remove(id) {
                    removed.push(graph.triplet(id).clone());
                    retired.push(id);
                }
            }
        } else if let Some(exp) = expected.map(entity_key).filter(|e| *e != to) {
            for stale in move_triplets(from, dir, &exp) {
                if let Some(id) = graph.find(&stale)
                    && graph.remove(id)
                {
                    removed.push(stale);
                    retired.push(id);
                }
            }
        }
        (removed, retired)
    }

    /// The move's own triplets (both ways) added to `graph`, pinned when grounding.
    /// Returns those new to it, and the ids of all of them (what a closed fact is
    /// superseded by).
    fn add_move(
        &self,
        graph: &mut AriGraph,
        from: &str,
        dir: Direction,
        to: &str,
    ) -> (Vec<Triplet>, Vec<TripletId>) {
        let mut added = Vec::new();
        let mut by = Vec::new();
        for t in move_triplets(from, dir, to) {
            let (id, fresh) = graph.add(t.clone());
            if self.grounded() {
                graph.pin(id);
            }
            if fresh {
                added.push(t);
            }
            by.push(id);
        }
        (added, by)
    }

    fn retire_mode(&self) -> Retire {
        self.retire.unwrap_or(Retire::Delete)
    }

    /// From memory rules 4 on, retire every alive spatial triplet not proven by a move
    /// that disagrees with one proven by a move (a pinned `is <dir> of` triplet): it
    /// sends the same room the same way elsewhere, or it joins the same two rooms by
    /// another pair of directions (in a TextWorld map two rooms share at most one
    /// exit). Called after each memory update and each move, so a fact the extractor
    /// misread ("kitchen is north of bathroom" after walking north from the kitchen into
    /// the bathroom) never routes a `go to`. Returns the triplets retired; under
    /// [`Retire::Close`] each is superseded by the proven triplets it contradicts.
    /// Under rules 1-3 this does nothing.
    pub fn reconcile(&self, graph: &mut AriGraph) -> Vec<Triplet> {
        if !self.overrides_all() {
            return Vec::new();
        }
        let spatial = spatial_ids(graph);
        let proven: Vec<(TripletId, Vec<Lead>)> = spatial
            .iter()
            .filter(|&&id| graph.is_pinned(id))
            .map(|&id| (id, leads(graph.triplet(id))))
            .filter(|(_, l)| !l.is_empty())
            .collect();
        let mut doomed: Vec<(TripletId, Vec<TripletId>)> = Vec::new();
        for id in spatial.into_iter().filter(|&id| !graph.is_pinned(id)) {
            let claimed = leads(graph.triplet(id));
            if claimed.is_empty() {
                continue;
            }
            let by: Vec<TripletId> = proven
                .iter()
                .filter(|(_, known)| disagree(&claimed, known))
                .map(|(p, _)| *p)
                .collect();
            if !by.is_empty() {
                doomed.push((id, by));
            }
        }
        let mut removed = Vec::new();
        for (id, by) in doomed {
            if graph.retire(id, self.retire_mode(), &by) {
                removed.push(graph.triplet(id).clone());
            }
        }
        removed
    }
}

/// One way a spatial triplet says a room leads: from room `.0`, going `.1` reaches `.2`.
type Lead = (String, Direction, String);

/// The two leads of `X, is <dir> of, Y` (from Y going dir reaches X; from X going the
/// opposite way reaches Y); none for a triplet that is not spatial.
fn ways_of(t: &Triplet) -> Vec<Lead> {
    match relation_direction(&t.relation) {
        Some(d) => vec![
            (t.object.clone(), d, t.subject.clone()),
            (t.subject.clone(), d.opposite(), t.object.clone()),
        ],
        None => Vec::new(),
    }
}

/// [`ways_of`], and none for a triplet that joins a room to itself (rules 4 compare
/// only facts that join two rooms).
fn leads(t: &Triplet) -> Vec<Lead> {
    if t.subject == t.object {
        Vec::new()
    } else {
        ways_of(t)
    }
}

/// Whether a claimed spatial fact disagrees with a proven one: one of its leads goes
/// from the same room the same way to another room, or it joins the same two rooms
/// with different directions.
fn disagree(claimed: &[Lead], proven: &[Lead]) -> bool {
    let same_exit_elsewhere = claimed.iter().any(|(a, d, b)| {
        proven
            .iter()
            .any(|(pa, pd, pb)| a == pa && d == pd && b != pb)
    });
    let pair = |l: &[Lead]| {
        l.first().map(|(a, _, b)| {
            if a < b {
                (a.clone(), b.clone())
            } else {
                (b.clone(), a.clone())
            }
        })
    };
    let same_rooms_other_way =
        pair(claimed) == pair(proven) && claimed.iter().any(|c| !proven.contains(c));
    same_exit_elsewhere || same_rooms_other_way
}

/// Alive spatial triplets that a move `from` -`dir`-> `to` proves wrong: those that send
/// `from` going `dir` elsewhere, or `to` going back (the opposite way) elsewhere.
fn contradicted(graph: &AriGraph, from: &str, dir: Direction, to: &str) -> Vec<TripletId> {
    spatial_ids(graph)
        .into_iter()
        .filter(|&id| {
            ways_of(graph.triplet(id)).into_iter().any(|(a, go, b)| {
                (a == from && go == dir && b != to)
                    || (a == to && go == dir.opposite() && b != from)
            })
        })
        .collect()
}

/// Ids of the alive triplets whose relation is a direction (`is north of`, ...), oldest
/// first.
fn spatial_ids(graph: &AriGraph) -> Vec<TripletId> {
    graph.alive_ids_with_relation(|r| relation_direction(r).is_some())
}

#[cfg(test)]
mod tests;
