//! The results of a QA run: a row per memory (official EM and F1, the reference's
//! figures, support, cost), written as `results.md`, `results.json` and `results.csv`.

use std::collections::HashSet;
use std::path::Path;

use anyhow::Result;

use crate::qa::QaRecord;
use crate::qa::run::{QaPlan, QaRow, row};
use crate::trajectory::call_kinds::{self, CallKinds, add_calls};

/// The cells of a row, numbers with `digits` decimals (3 in the table, 4 in the CSV).
fn cells(r: &QaRow, digits: usize) -> Vec<String> {
    let d = digits;
    vec![
        r.memory.name().to_string(),
        r.questions.to_string(),
        format!("{:.d$}", r.em),
        format!("{:.d$}", r.f1),
        format!("{:.d$}", r.reference_em),
        format!("{:.d$}", r.reference_f1),
        r.supporting_recall
            .map(|x| format!("{x:.d$}"))
            .unwrap_or_else(|| "-".into()),
        format!("{:.1}", r.calls_per_question),
        format!("{:.0}", r.prompt_tokens_per_question),
        format!("{:.0}", r.completion_tokens_per_question),
        format!("{:.1}", r.seconds_per_question),
        r.no_answer.to_string(),
    ]
}

/// The columns of the results (Markdown headings, CSV names).
const COLUMNS: [(&str, &str); 12] = [
    ("memory", "memory"),
    ("questions", "questions"),
    ("EM", "em"),
    ("F1", "f1"),
    ("reference EM", "reference_em"),
    ("reference F1", "reference_f1"),
    ("support", "supporting_recall"),
    ("calls/q", "calls_per_question"),
    ("prompt tokens/q", "prompt_tokens_per_question"),
    ("completion tokens/q", "completion_tokens_per_question"),
    ("s/q", "seconds_per_question"),
    ("no answer", "no_answer"),
];

/// The results table as Markdown.
pub fn table(plan: &QaPlan, rows: &[QaRow]) -> String {
    let heads: Vec<&str> = COLUMNS.iter().map(|(h, _)| *h).collect();
    let mut s = format!(
        "# Question answering: {} ({}, {})\n\nProfile `{}`{}; official EM and F1 are the best over the answer and its aliases (SQuAD normalization); the reference's columns are `musique_test_big.py`'s figures (micro-averaged F1 over unique words, aliases ignored); support: the supporting paragraphs among those the answer prompt saw.\n\n| {} |\n|{}\n",
        plan.data.display(),
        plan.format.as_str(),
        crate::text::count(plan.ids.len() as u64, "question"),
        plan.profile.profile.name(),
        if plan.outdated_check {
            ", with the outdated-fact check on each paragraph (`--outdated-check`)"
        } else {
            ""
        },
        heads.join(" | "),
        "---|".repeat(heads.len()),
    );
    for r in rows {
        s.push_str(&format!("| {} |\n", cells(r, 3).join(" | ")));
    }
    s
}

/// Where each memory's time goes, per call kind, over the planned questions' records.
fn kinds_table(plan: &QaPlan, records: &[QaRecord], planned: &HashSet<&str>) -> String {
    let groups: Vec<(String, CallKinds, f64)> = plan
        .memories
        .iter()
        .map(|m| {
            let mut kinds = CallKinds::new();
            let mut questions = 0;
            for r in records
                .iter()
                .filter(|r| r.memory == *m && planned.contains(r.id.as_str()))
            {
                add_calls(&mut kinds, &r.calls);
                questions += 1;
            }
            (m.name().to_string(), kinds, f64::from(questions))
        })
        .collect();
    call_kinds::table(&groups, "question")
}

/// The rows of the planned questions' records, written to `dir` (`results.md`,
/// `results.json`, `results.csv`).
///
/// # Errors
/// A file that cannot be written.
pub fn write_results(dir: &Path, plan: &QaPlan, records: &[QaRecord]) -> Result<Vec<QaRow>> {
    let planned: HashSet<&str> = plan.ids.iter().map(String::as_str).collect();
    let rows: Vec<QaRow> = plan
        .memories
        .iter()
        .map(|m| {
            let mine: Vec<&QaRecord> = records
                .iter()
                .filter(|r| r.memory == *m && planned.contains(r.id.as_str()))
                .collect();
            row(*m, &mine)
        })
        .collect();
    let kinds = kinds_table(plan, records, &planned);
    std::fs::write(dir.join("results.md"), table(plan, &rows) + &kinds)?;
    std::fs::write(
        dir.join("results.json"),
        serde_json::to_string_pretty(&rows)? + "\n",
    )?;
    let mut csv = csv::Writer::from_path(dir.join("results.csv"))?;
    csv.write_record(COLUMNS.iter().map(|(_, n)| *n))?;
    for r in &rows {
        csv.write_record(
            cells(r, 4)
                .into_iter()
                .map(|c| if c == "-" { String::new() } else { c }),
        )?;
    }
    csv.flush()?;
    Ok(rows)
}
