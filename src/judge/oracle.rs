//! The oracle memory (`--memory oracle`): an upper bound whose semantic layer is the
//! game's true state about what the agent has observed, mapped to triplets by the same
//! table that measures the world model ([`super::mapping`]), with the same
//! episodic layer, retrieval, planning and action as AriGraph. It separates what bad
//! extraction costs from the rest of the loop. It needs a game with ground truth
//! (TextWorld); on other games its semantic layer stays empty.

use std::collections::HashSet;

use anyhow::Result;

use super::{Tracker, mapping};
use crate::llm::{CallLog, Llm};
use crate::memory::names::entity_key;
use crate::memory::{
    AriGraph, AriGraphMemory, MemoryDesign, MemoryModule, MemorySettings, Observed, Queries,
    Retrieval, TripletId, UpdateReport,
};

/// AriGraph with the truth as its semantic layer.
#[derive(Debug)]
pub struct OracleMemory {
    inner: AriGraphMemory,
    tracker: Tracker,
}

impl OracleMemory {
    /// An empty oracle memory.
    pub fn new(settings: MemorySettings) -> Self {
        Self {
            inner: AriGraphMemory::new(settings),
            tracker: Tracker::default(),
        }
    }
}

#[async_trait::async_trait]
impl MemoryModule for OracleMemory {
    fn design(&self) -> MemoryDesign {
        MemoryDesign::Oracle
    }

    /// Make the semantic layer the true facts about what was observed: verifiable
    /// triplets no longer true are removed, true ones added; the episodic edge holds the
    /// true facts about the things this observation names. No LLM call.
    async fn update(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        seen: &Observed<'_>,
    ) -> Result<UpdateReport> {
        let mut report = UpdateReport::default();
        let Some(facts) = seen.facts else {
            return Ok(report);
        };
        let truth = self
            .tracker
            .observed_truth(facts, &[seen.observation, seen.inventory]);
        // What the truth claims; a verifiable triplet claiming anything else is retired
        // (pinned ground truth of moves stays).
        let claims: HashSet<mapping::Claim> = truth.iter().filter_map(mapping::claim_of).collect();
        let g: &mut AriGraph = &mut self.inner.graph;
        let stale: Vec<TripletId> = g
            .alive_ids()
            .filter(|&id| {
                !g.is_pinned(id)
                    && mapping::claim_of(g.triplet(id)).is_some_and(|c| !claims.contains(&c))
            })
            .collect();
        for id in stale {
            if g.remove(id) {
                report.removed.push(g.triplet(id).clone());
            }
        }
        let text = crate::memory::names::fold(seen.observation);
        let mut ids = Vec::new();
        for t in truth {
            let (id, fresh) = g.add(t.clone());
            if fresh {
                report.added.push(t.clone());
            }
            let named = [&t.subject, &t.object]
                .iter()
                .any(|v| text.contains(entity_key(v).as_str()));
            if named {
                report.extracted.push(t);
                ids.push(id);
            }
        }
        self.inner.embed_missing(llm, log).await?;
        self.inner
            .graph
            .add_episode(seen.step, seen.observation.to_string(), ids);
        Ok(report)
    }

    async fn retrieve(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        queries: &Queries<'_>,
    ) -> Result<Retrieval> {
        self.inner.retrieve(llm, log, queries).await
    }

    fn what_if(&self, queries: &Queries<'_>, settings: &MemorySettings) -> Option<Retrieval> {
        self.inner.what_if(queries, settings)
    }

    fn graph(&self) -> Option<&AriGraph> {
        Some(&self.inner.graph)
    }

    fn graph_mut(&mut self) -> Option<&mut AriGraph> {
        Some(&mut self.inner.graph)
    }

    async fn sync(&mut self, llm: &Llm, log: &mut CallLog) -> Result<()> {
        self.inner.sync(llm, log).await
    }
}
