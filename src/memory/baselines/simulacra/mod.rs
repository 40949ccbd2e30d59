//! Simulacra (Generative Agents, Park et al. 2023; paper section 4.1).

use crate::llm::bounds::answer_tokens;
use anyhow::Result;
use minijinja::context;
use serde::Deserialize;
use serde_json::json;

pub use super::scores::normalize_min_max;
use super::scores::summed_scores;
use super::{MEMORY_CHARS, embed_one, first_chars, smart_rag};
use crate::llm::bounds::{self, Bounded};
use crate::llm::{Ask, EmbedKind, Llm};
use crate::memory::similarity::cosine;
use crate::memory::{
    CallLog, MemoryDesign, MemoryModule, MemorySettings, Observed, Queries, Retrieval,
    RetrievedEpisode, UpdateReport,
};

/// Generative Agents' recency decay per step.
pub const RECENCY_DECAY: f64 = 0.995;
pub use crate::memory::settings::REFLECTION_THRESHOLD;

/// One memory of the stream.
#[derive(Debug, Clone)]
struct Entry {
    step: u32,
    /// The last step that retrieved it (its creation step until then).
    last_access: u32,
    text: String,
    importance: f64,
    vector: Vec<f32>,
    reflection: bool,
    /// Memory rules 7: the importance is rated at the next step, under the plan this
    /// step made (the reference rates it after planning).
    pending: bool,
    /// Memory rules 7: the action taken at the memory's step.
    action: String,
}

/// Simulacra's retrieval score for memories given as (recency reference step,
/// importance 1-10, cosine relevance) at step `now`: recency = 0.995^(now - reference),
/// then each of recency, importance, relevance min-max normalized over the candidates,
/// summed with weights 1. Generative Agents decay recency from a memory's last access;
/// runs under memory rules 1 used its creation step.
pub fn simulacra_scores(memories: &[(u32, f64, f64)], now: u32) -> Vec<f64> {
    summed_scores(memories, now, RECENCY_DECAY, normalize_min_max)
}

impl Entry {
    /// The step recency decays from: the last access (memory rules 2, Generative
    /// Agents), or the creation (rules 1).
    fn recency_reference(&self, rules: crate::memory::MemoryRevision) -> u32 {
        if rules.recency_from_access() {
            self.last_access
        } else {
            self.step
        }
    }
}

/// Simulacra: the Generative Agents memory stream.
#[derive(Debug)]
pub struct Simulacra {
    settings: MemorySettings,
    entries: Vec<Entry>,
    since_reflection: f64,
}

impl Simulacra {
    /// An empty stream; k is `settings.episodes`.
    pub fn new(settings: MemorySettings) -> Self {
        Self {
            settings,
            entries: Vec::new(),
            since_reflection: 0.0,
        }
    }
}

#[derive(Deserialize)]
struct ImportanceAnswer {
    importance: i64,
}

#[derive(Deserialize)]
struct Insight {
    insight: String,
    importance: i64,
}

#[derive(Deserialize)]
struct ReflectionAnswer {
    insights: Vec<Insight>,
}

impl Bounded for ImportanceAnswer {
    /// A number, range-checked by the caller's validation.
    fn bound(&mut self) -> Vec<String> {
        Vec::new()
    }
}

impl Bounded for ReflectionAnswer {
    fn bound(&mut self) -> Vec<String> {
        let mut notes = Vec::new();
        bounds::cap(&mut self.insights, bounds::INSIGHTS, "insights", &mut notes);
        for (i, ins) in self.insights.iter_mut().enumerate() {
            let what = format!("insights[{i}].insight");
            bounds::cut(&mut ins.insight, bounds::INSIGHT_CHARS, &what, &mut notes);
        }
        notes
    }
}

#[async_trait::async_trait]
impl MemoryModule for Simulacra {
    fn design(&self) -> MemoryDesign {
        MemoryDesign::Simulacra
    }

    fn layout(&self) -> crate::memory::layout::Layout {
        crate::memory::layout::Layout::Ranked
    }

    async fn update(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        seen: &Observed<'_>,
    ) -> Result<UpdateReport> {
        if self.smart() {
            return self.update_smart(llm, log, seen).await;
        }
        let text = if seen.action.is_empty() {
            first_chars(seen.observation, MEMORY_CHARS)
        } else {
            format!(
                "After \"{}\": {}",
                seen.action,
                first_chars(seen.observation, MEMORY_CHARS)
            )
        };
        let messages = llm.prompts.render(
            "importance",
            context! { goal => seen.goal, memory => &text },
        )?;
        let schema = json!({
            "type": "object",
            "properties": {"importance": {"type": "integer", "minimum": 1, "maximum": 10}},
            "required": ["importance"],
            "additionalProperties": false
        });
        let answer: Option<ImportanceAnswer> = llm
            .ask(
                log,
                Ask::new("importance", messages, schema, answer_tokens::IMPORTANCE),
                |a: &ImportanceAnswer| {
                    if (1..=10).contains(&a.importance) {
                        Ok(())
                    } else {
                        Err(format!("importance {} is not in 1..10", a.importance))
                    }
                },
            )
            .await?;
        // No valid answer: the midpoint, counted as a failure in the log.
        let importance = answer.map_or(super::smart_rag::UNRATED_IMPORTANCE, |a| {
            a.importance as f64
        });
        if let Some(vector) = embed_one(llm, log, &text, EmbedKind::Passage).await? {
            self.entries.push(Entry {
                step: seen.step,
                last_access: seen.step,
                text,
                importance,
                vector,
                reflection: false,
                pending: false,
                action: String::new(),
            });
        }
        self.since_reflection += importance;
        self.reflect_if_due(llm, log, seen).await?;
        Ok(UpdateReport::default())
    }

    fn observe_result(&mut self, step: u32, action: &str, _feedback: &str) {
        if let Some(e) = self
            .entries
            .iter_mut()
            .rev()
            .find(|e| e.step == step && !e.reflection)
        {
            e.action = action.to_string();
        }
    }

    async fn retrieve(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        q: &Queries<'_>,
    ) -> Result<Retrieval> {
        if self.smart() {
            return Ok(self.retrieve_smart(q));
        }
        self.retrieve_stream(llm, log, q).await
    }
}

impl Simulacra {
    /// Memory rules 7: the reference's ranked memory ([`smart_rag`]) with the paper's
    /// reflections.
    fn smart(&self) -> bool {
        self.settings.revision().reference_prompts()
    }

    /// Memory rules 7 ([`smart_rag`]): rate the last memory under the plan its step
    /// made (`seen.plan`), then keep this step's observation with the embedding of the
    /// observation and plan; reflect when due.
    async fn update_smart(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        seen: &Observed<'_>,
    ) -> Result<UpdateReport> {
        if let Some(e) = self.entries.iter_mut().rev().find(|e| e.pending) {
            let importance = smart_rag::rate(llm, log, &e.text, seen.plan).await?;
            e.importance = importance;
            e.pending = false;
            self.since_reflection += importance;
        }
        let observation = seen.as_reference();
        let embedded = smart_rag::embedded_text(&observation, seen.plan);
        if let Some(vector) = embed_one(llm, log, &embedded, EmbedKind::Query).await? {
            self.entries.push(Entry {
                step: seen.step,
                last_access: seen.step,
                text: observation,
                importance: 0.0,
                vector,
                reflection: false,
                pending: true,
                action: String::new(),
            });
        }
        self.reflect_if_due(llm, log, seen).await?;
        Ok(UpdateReport::default())
    }

    /// Memory rules 7: the past memories ranked by [`smart_rag::smart_scores`] against
    /// this step's memory, the best [`MemorySettings::rag_k`] (reflections as notes,
    /// observations with the action taken as episodes).
    fn retrieve_smart(&self, q: &Queries<'_>) -> Retrieval {
        let Some(current) = self
            .entries
            .iter()
            .rev()
            .find(|e| e.step == q.step && !e.reflection)
        else {
            return Retrieval::default();
        };
        let past: Vec<&Entry> = self
            .entries
            .iter()
            .filter(|e| e.step < q.step || e.reflection)
            .collect();
        let inputs: Vec<(u32, f64, f64)> = past
            .iter()
            .map(|e| {
                (
                    e.step,
                    e.importance,
                    f64::from(cosine(&current.vector, &e.vector)),
                )
            })
            .collect();
        let scores = smart_rag::smart_scores(&inputs, q.step);
        let mut ranked: Vec<(f64, &Entry)> = scores.into_iter().zip(past).collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.step.cmp(&a.1.step)));
        ranked.truncate(self.settings.rag_k());
        shown(current.text.clone(), ranked, |e| {
            format!("{}\nAction taken: {}", e.text, e.action)
        })
    }

    /// Generative Agents' reflection (the paper's Simulacra; the reference has none):
    /// when the importance rated since the last reflection reaches the threshold, one
    /// call writes insights over the 15 most recent memories.
    ///
    /// # Errors
    /// Transport errors from the endpoints, prompt rendering errors.
    async fn reflect_if_due(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        seen: &Observed<'_>,
    ) -> Result<()> {
        if self.since_reflection >= self.settings.reflection_threshold {
            self.since_reflection = 0.0;
            let recent: Vec<String> = self
                .entries
                .iter()
                .rev()
                .take(15)
                .rev()
                .map(|e| first_chars(&e.text, 300))
                .collect();
            let messages = llm.prompts.render(
                "reflection",
                context! { goal => seen.goal, memories => recent },
            )?;
            let schema = json!({
                "type": "object",
                "properties": {"insights": {"type": "array", "maxItems": bounds::INSIGHTS, "items": {
                    "type": "object",
                    "properties": {
                        "insight": {"type": "string", "maxLength": bounds::INSIGHT_CHARS},
                        "importance": {"type": "integer", "minimum": 1, "maximum": 10}
                    },
                    "required": ["insight", "importance"],
                    "additionalProperties": false
                }}},
                "required": ["insights"],
                "additionalProperties": false
            });
            let answer: Option<ReflectionAnswer> = llm
                .ask(
                    log,
                    Ask::new("reflection", messages, schema, answer_tokens::REFLECTION),
                    |_: &ReflectionAnswer| Ok(()),
                )
                .await?;
            let insights: Vec<Insight> = answer.map(|a| a.insights).unwrap_or_default();
            let texts: Vec<String> = insights.iter().map(|i| i.insight.clone()).collect();
            let vectors = llm.embed(log, texts, EmbedKind::Passage).await?;
            for (ins, vector) in insights.into_iter().zip(vectors) {
                self.entries.push(Entry {
                    step: seen.step,
                    last_access: seen.step,
                    text: ins.insight,
                    importance: ins.importance.clamp(1, 10) as f64,
                    vector,
                    reflection: true,
                    pending: false,
                    action: String::new(),
                });
            }
        }
        Ok(())
    }

    /// Generative Agents' retrieval (memory rules 1 to 6): recency from the last access,
    /// importance and relevance to the joined queries, the top `episodes`.
    ///
    /// # Errors
    /// Transport errors from the embedding endpoint.
    async fn retrieve_stream(
        &mut self,
        llm: &Llm,
        log: &mut CallLog,
        q: &Queries<'_>,
    ) -> Result<Retrieval> {
        let query = q.joined(self.settings.query_chars);
        let Some(qv) = embed_one(llm, log, &query, EmbedKind::Query).await? else {
            return Ok(Retrieval::default());
        };
        // Candidates: every memory but the current observation (already in working memory).
        let candidates: Vec<usize> = (0..self.entries.len())
            .filter(|&i| self.entries[i].step < q.step || self.entries[i].reflection)
            .collect();
        let inputs: Vec<(u32, f64, f64)> = candidates
            .iter()
            .map(|&i| &self.entries[i])
            .map(|e| {
                (
                    e.recency_reference(self.settings.rules),
                    e.importance,
                    f64::from(cosine(&qv, &e.vector)),
                )
            })
            .collect();
        let scores = simulacra_scores(&inputs, q.step);
        let mut ranked: Vec<(f64, usize)> = scores.into_iter().zip(candidates).collect();
        ranked.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then(self.entries[b.1].step.cmp(&self.entries[a.1].step))
        });
        ranked.truncate(self.settings.episodes);
        for (_, i) in &ranked {
            self.entries[*i].last_access = q.step;
        }
        let ranked: Vec<(f64, &Entry)> = ranked
            .into_iter()
            .map(|(s, i)| (s, &self.entries[i]))
            .collect();
        Ok(shown(query, ranked, |e| e.text.clone()))
    }
}

/// The retrieval of ranked memories asked with `query`: reflections as notes, the
/// others as episodes with their score and the text `observation` makes of them.
fn shown(
    query: String,
    ranked: Vec<(f64, &Entry)>,
    observation: impl Fn(&Entry) -> String,
) -> Retrieval {
    let mut out = Retrieval {
        queries: vec![query],
        ..Retrieval::default()
    };
    for (score, e) in ranked {
        if e.reflection {
            out.notes.push(e.text.clone());
        } else {
            out.episodes.push(RetrievedEpisode {
                step: e.step,
                score,
                n: 0,
                total: 0,
                observation: observation(e),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests;
