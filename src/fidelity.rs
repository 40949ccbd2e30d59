//! The Fidelity table: per element of the paper, what a profile does, where it comes
//! from (a section of the paper, or a file and line of the reference code at
//! [`REFERENCE_COMMIT`]), and every departure with its reason or switch. Its numbers,
//! word lists and temperatures are formatted from the constants the engine reads
//! ([`elements`]); `docs/fidelity.md` holds the printed tables (a test compares that
//! file with [`fidelity_table`]), and `tests/reference_prompts.rs` checks the claim
//! that each `paper` prompt is the reference's line for line. The later seeds'
//! options, switches on either profile, follow in a table of their own
//! ([`later_table`]).

mod elements;
mod later;
mod step;

pub use elements::elements;
pub use later::{LATER_HEADING, LaterOption, later_options, later_table};

use crate::profile::{Profile, Rule, Rules};

/// The commit of the authors' reference code (AIRI-Institute/AriGraph) whose files and
/// lines the table cites.
pub const REFERENCE_COMMIT: &str = "e884b76";

/// One row of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    /// The element of the paper.
    pub element: &'static str,
    /// Where the paper or the reference code states it.
    pub source: &'static str,
    /// What the profile does.
    pub does: String,
    /// Departures from the paper under this profile, each with its switch ("" when none).
    pub departures: String,
}

pub(crate) fn row(
    element: &'static str,
    source: &'static str,
    does: String,
    departures: &str,
) -> Element {
    Element {
        element,
        source,
        does,
        departures: departures.to_string(),
    }
}

/// The departures of `rule` when `rules` has it on, as "`name` (`--without name`): what".
pub(crate) fn rule_note(rules: &Rules, rule: Rule) -> Option<String> {
    rules.has(rule).then(|| {
        format!(
            "**{}** (`--without {}`): {}",
            rule.name(),
            rule.name(),
            rule.what()
        )
    })
}

pub(crate) fn join(parts: impl IntoIterator<Item = Option<String>>) -> String {
    parts.into_iter().flatten().collect::<Vec<_>>().join("; ")
}

/// The Fidelity table of `profile` as Markdown: a header line, then one row per
/// [`Element`], then (for a profile with rules) the rules with their reasons.
pub fn fidelity_table(profile: Profile) -> String {
    let mut out = format!(
        "Profile `{profile}`. Sources cite the paper's sections or the reference code (AIRI-Institute/AriGraph) at commit {REFERENCE_COMMIT}.\n\n"
    );
    out.push_str("| paper element | source | what it does | departures and switches |\n");
    out.push_str("|---|---|---|---|\n");
    for e in elements(profile) {
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            e.element,
            e.source,
            e.does,
            or_none(&e.departures)
        ));
    }
    let rules = profile.rules();
    if !rules.enabled().is_empty() {
        out.push_str("\n| rule | why | source |\n|---|---|---|\n");
        for r in rules.enabled() {
            out.push_str(&format!(
                "| `{}` | {} | {} |\n",
                r.name(),
                r.reason(),
                r.source()
            ));
        }
    }
    out.push_str(&later_table());
    out
}

/// The Fidelity table of `profile` for reading in a terminal: one block per element
/// (its name, then its source, what it does and its departures, one labelled line
/// each), then the rules and the later seeds' options the same way. The same content
/// as [`fidelity_table`], without Markdown's table rows of a thousand characters.
pub fn fidelity_text(profile: Profile) -> String {
    let mut out = format!(
        "Profile {profile}. Sources cite the paper's sections or the reference code (AIRI-Institute/AriGraph) at commit {REFERENCE_COMMIT}.\n"
    );
    for e in elements(profile) {
        out.push_str(&format!(
            "\n{}\n  source:     {}\n  does:       {}\n  departures: {}\n",
            e.element,
            e.source,
            e.does,
            or_none(&e.departures)
        ));
    }
    for r in profile.rules().enabled() {
        out.push_str(&format!(
            "\nrule {} (--without {})\n  does: {}\n  why:  {}\n",
            r.name(),
            r.name(),
            r.what(),
            r.reason()
        ));
    }
    out.push_str(&format!("\n{LATER_HEADING}\n"));
    for o in later_options() {
        out.push_str(&format!(
            "\n{}\n  source:      {}\n  does:        {}\n  adaptations: {}\n",
            o.switch,
            o.source,
            o.does,
            or_none(&o.adaptations)
        ));
    }
    out
}

/// A table cell that may be empty: the text, or "none".
pub(crate) fn or_none(text: &str) -> &str {
    if text.is_empty() { "none" } else { text }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `docs/fidelity.md`'s copy of a profile's table: the text between
    /// `<!-- fidelity:NAME -->` and `<!-- /fidelity:NAME -->`.
    fn documented_table(readme: &str, profile: Profile) -> Option<&str> {
        let open = format!("<!-- fidelity:{profile} -->\n");
        let close = format!("<!-- /fidelity:{profile} -->");
        let start = readme.find(&open)? + open.len();
        let end = start + readme[start..].find(&close)?;
        Some(&readme[start..end])
    }

    /// The Fidelity tables of `docs/fidelity.md` are what `ariadne profile show` prints.
    #[test]
    fn the_documented_tables_are_the_generated_ones() {
        let readme = include_str!("../docs/fidelity.md");
        for p in Profile::ALL {
            let got = documented_table(readme, p)
                .unwrap_or_else(|| panic!("docs/fidelity.md has no fidelity:{p} block"));
            assert_eq!(
                got,
                fidelity_table(p),
                "docs/fidelity.md's {p} table differs from `ariadne profile show {p}`: paste its output"
            );
        }
    }

    /// A source cell names a section of the paper, or cites each file of the reference
    /// with its line; no cell claims that nothing was added.
    #[test]
    fn every_source_is_a_section_or_a_file_and_line() {
        for p in Profile::ALL {
            for e in elements(p) {
                let cited = e.source.contains("section")
                    || e.source.contains("Algorithm")
                    || e.source.contains("Eq. 1");
                for part in e.source.split('`').skip(1).step_by(2) {
                    if part.ends_with(".py") {
                        panic!("{}: `{part}` without a line", e.element);
                    }
                }
                assert!(
                    cited || e.source.contains(".py:"),
                    "{}: {}",
                    e.element,
                    e.source
                );
                let text = format!("{} {}", e.does, e.departures);
                assert!(!text.contains("nothing added"), "{}", e.element);
            }
        }
        let paper = fidelity_table(Profile::Paper);
        assert!(!paper.contains("nothing added"));
    }

    /// The table's numbers and word lists are the engine's constants.
    #[test]
    fn the_numbers_are_the_engines() {
        use crate::llm::Temperatures;
        use crate::memory::{RECENT_OBSERVATIONS, REFERENCE_EXCLUDED};
        let paper = fidelity_table(Profile::Paper);
        for w in REFERENCE_EXCLUDED {
            assert!(paper.contains(&format!("\"{w}\"")), "{w}");
        }
        let t = Temperatures::REFERENCE;
        assert!(paper.contains(&format!(
            "action {} ({} without exploration and for the baselines)",
            t.action, t.sampled_action
        )));
        assert!(paper.contains(&format!(
            "the episodes of the last {RECENT_OBSERVATIONS} steps are dropped"
        )));
        assert!(paper.contains(&format!(
            "{}^Δsteps",
            crate::memory::baselines::smart_rag::RECENCY_DECAY
        )));
    }

    /// The terminal form carries every element, rule and option of the table, and no
    /// line of it is a Markdown table row.
    #[test]
    fn the_terminal_form_holds_the_same_content() {
        for p in Profile::ALL {
            let text = fidelity_text(p);
            for e in elements(p) {
                assert!(
                    text.contains(&format!("\n{}\n", e.element)),
                    "{}",
                    e.element
                );
                assert!(text.contains(&e.does), "{}", e.element);
            }
            for r in p.rules().enabled() {
                assert!(text.contains(&format!("--without {}", r.name())));
            }
            assert!(!text.lines().any(|l| l.starts_with('|')));
        }
    }

    /// Every rule of the extended profile is named in its table with its switch, and
    /// the paper's table names none.
    #[test]
    fn each_rule_appears_with_its_switch_in_the_extended_table_only() {
        let extended = fidelity_table(Profile::Extended);
        let paper = fidelity_table(Profile::Paper);
        for r in Rule::ALL {
            let switch = format!("`--without {}`", r.name());
            assert!(extended.contains(&switch), "{switch} missing");
            assert!(!paper.contains(&switch), "{switch} in the paper's table");
        }
    }
}
