//! Where the time goes: each call kind's figures (extraction, outdated check, key
//! items, plan, action, ...) summed over a run's chat calls: how many, their wall time,
//! their tokens, the share of prompt tokens the server served from its cache, and the
//! server's own time on them (llama.cpp's timings: the least the tokens took). A run's
//! summary and a bench's rows carry them; `bench` and `qa` print them as a table.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::llm::Usage;
use crate::llm::record::CallRecord;

/// One call kind's figures, summed over its calls.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct KindFigures {
    /// Chat calls of this kind.
    pub calls: u64,
    /// Their wall time, milliseconds (each call's successful try).
    pub latency_ms: u64,
    /// Their tokens, cached share and server times.
    pub usage: Usage,
}

/// Figures per call kind (the calls' `purpose`), in name order.
pub type CallKinds = BTreeMap<String, KindFigures>;

/// Count `calls` into `kinds`.
pub fn add_calls(kinds: &mut CallKinds, calls: &[CallRecord]) {
    for c in calls {
        let k = kinds.entry(c.purpose.clone()).or_default();
        k.calls += 1;
        k.latency_ms = k.latency_ms.saturating_add(c.latency_ms);
        k.usage.add_call(c.usage);
    }
}

/// Add `other`'s figures to `kinds`.
pub fn merge(kinds: &mut CallKinds, other: &CallKinds) {
    for (name, f) in other {
        let k = kinds.entry(name.clone()).or_default();
        k.calls += f.calls;
        k.latency_ms = k.latency_ms.saturating_add(f.latency_ms);
        k.usage.add(f.usage);
    }
}

/// The table of where the time goes for each `(label, kinds, per)` row group: per call
/// kind, the calls per `per` unit (a decision, a question), the seconds per call and
/// their share of the group's call time, prompt / completion tokens per call, the cached
/// share of the prompt tokens, and the server's seconds per call on those tokens (its
/// timings: the bound the tokens set, where reported). Empty when no group has a call.
pub fn table(groups: &[(String, CallKinds, f64)], unit: &str) -> String {
    if groups.iter().all(|(_, k, _)| k.is_empty()) {
        return String::new();
    }
    let mut md = format!(
        "\nWhere the time goes, per call kind: calls per {unit}, wall seconds per call and the kind's share of the calls' time, tokens per call, the share of prompt tokens served from the server's cache, and the server's seconds per call on those tokens (its timings, where it reports them: the least the tokens took).\n\n| memory | call kind | calls/{unit} | s/call | share of time | prompt / completion tok/call | cached | server s/call |\n|---|---|---|---|---|---|---|---|\n"
    );
    for (label, kinds, per) in groups {
        let total_ms: u64 = kinds.values().map(|k| k.latency_ms).sum();
        for (name, k) in kinds {
            md.push_str(&row(label, name, k, *per, total_ms));
        }
    }
    md
}

/// One line of [`table`].
fn row(label: &str, name: &str, k: &KindFigures, per: f64, total_ms: u64) -> String {
    let calls = k.calls.max(1) as f64;
    let u = &k.usage;
    let tokens = if u.is_known() {
        format!(
            "{:.0} / {:.0}",
            u.prompt_tokens as f64 / calls,
            u.completion_tokens as f64 / calls
        )
    } else {
        "? / ?".into()
    };
    let cached = u
        .cached_share()
        .map_or_else(|| "-".into(), |s| format!("{:.0}%", 100.0 * s));
    let server = if u.timed_calls > 0 {
        format!(
            "{:.1}",
            (u.prompt_ms + u.completion_ms) as f64 / 1000.0 / u.timed_calls as f64
        )
    } else {
        "-".into()
    };
    let share = if total_ms > 0 {
        format!("{:.0}%", 100.0 * k.latency_ms as f64 / total_ms as f64)
    } else {
        "-".into()
    };
    format!(
        "| {label} | {name} | {:.2} | {:.1} | {share} | {tokens} | {cached} | {server} |\n",
        k.calls as f64 / per.max(1.0),
        k.latency_ms as f64 / 1000.0 / calls,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(purpose: &str, ms: u64, usage: Usage) -> CallRecord {
        serde_json::from_value(serde_json::json!({
            "purpose": purpose, "attempt": 1, "messages": [], "answer": "{}",
            "usage": usage, "latency_ms": ms,
        }))
        .expect("a call record")
    }

    #[test]
    fn kinds_sum_their_calls_and_the_table_shows_them_by_hand() {
        let u = |p, c, cached, pms, cms| Usage {
            prompt_tokens: p,
            completion_tokens: c,
            cached_tokens: cached,
            prompt_ms: pms,
            completion_ms: cms,
            timed_calls: 1,
            ..Usage::default()
        };
        let mut kinds = CallKinds::new();
        add_calls(
            &mut kinds,
            &[
                call("plan", 4000, u(1000, 100, 750, 1000, 2000)),
                call("action", 1000, u(500, 20, 500, 0, 600)),
                call("plan", 2000, u(1000, 100, 250, 1000, 1000)),
            ],
        );
        let plan = kinds["plan"];
        assert_eq!((plan.calls, plan.latency_ms), (2, 6000));
        assert_eq!(plan.usage.cached_tokens, 1000);
        let mut twice = kinds.clone();
        merge(&mut twice, &kinds);
        assert_eq!(twice["action"].calls, 2);
        let md = table(&[("AriGraph".into(), kinds, 2.0)], "decision");
        // 7 s of calls: the plans 6 s (86%), 3 s each, 50% cached, 2.5 s of server time.
        assert!(
            md.contains("| AriGraph | plan | 1.00 | 3.0 | 86% | 1000 / 100 | 50% | 2.5 |"),
            "{md}"
        );
        assert!(
            md.contains("| AriGraph | action | 0.50 | 1.0 | 14% | 500 / 20 | 100% | 0.6 |"),
            "{md}"
        );
        assert_eq!(
            table(&[("x".into(), CallKinds::new(), 1.0)], "question"),
            ""
        );
    }
}
