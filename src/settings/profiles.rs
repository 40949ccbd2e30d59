//! The profiles a run plays (`--profile`, config `profile`) and the rules turned off
//! (`--without` and the older switches), checked against each other.

use anyhow::{Result, bail};

use super::{ProfileKey, Resolver};
use crate::cli::MemoryArgs;
use crate::error::UserError;
use crate::profile::{Profile, Rule, parse_rules};

impl Resolver {
    /// The profiles asked for (`--profile`, config `profile`; default: the paper's), in
    /// the order given, without repeats.
    ///
    /// # Errors
    /// An unknown name, or an empty list.
    pub fn profiles(&self, args: &MemoryArgs) -> Result<Vec<Profile>> {
        let names: Vec<String> = match (&args.profile, &self.cfg.profile) {
            (Some(list), _) => list.split(',').map(str::to_string).collect(),
            (None, Some(ProfileKey::One(name))) => name.split(',').map(str::to_string).collect(),
            (None, Some(ProfileKey::Many(names))) => names.clone(),
            (None, None) => vec![Profile::default().name().to_string()],
        };
        let mut out: Vec<Profile> = Vec::new();
        for name in names.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
            let p: Profile = name
                .parse()
                .map_err(|e: String| UserError::new(format!("--profile: {e}")))?;
            if !out.contains(&p) {
                out.push(p);
            }
        }
        if out.is_empty() {
            bail!(UserError::new("--profile: give paper or extended"));
        }
        Ok(out)
    }

    /// The one profile of a run (`play`, `replay --continue-from`).
    ///
    /// # Errors
    /// An unknown name, or more than one.
    pub fn profile(&self, args: &MemoryArgs) -> Result<Profile> {
        match self.profiles(args)?.as_slice() {
            [one] => Ok(*one),
            _ => bail!(UserError::new(
                "--profile: give one profile here (a list is for `ariadne bench`)"
            )),
        }
    }

    /// The rules turned off (`--without`, config `without`, and the older switches
    /// `--no-plan-progress`, `--no-loop-breaking`, `--no-note` and their config keys).
    ///
    /// # Errors
    /// An unknown rule name, or a list that names none; a rule that no profile of the run has (`--without
    /// known-facts` under the paper's profile changes nothing). Each names the flag or
    /// config key it came from.
    pub fn without(&self, args: &MemoryArgs) -> Result<Vec<Rule>> {
        let cfg = &self.cfg;
        let named = |list: Vec<Rule>, source: &str| -> Result<Vec<(Rule, String)>> {
            // A config file's empty list says "no rule off"; an empty flag is a slip.
            if list.is_empty() && source == "--without" {
                let names: Vec<&str> = Rule::ALL.iter().map(|r| r.name()).collect();
                bail!(UserError::new(format!(
                    "{source}: names no rule; the extended profile's: {}",
                    names.join(", ")
                )));
            }
            Ok(list.into_iter().map(|r| (r, source.to_string())).collect())
        };
        let mut off: Vec<(Rule, String)> = match (&args.without, &cfg.without) {
            (Some(list), _) => named(
                parse_rules([list.as_str()])
                    .map_err(|e| UserError::new(format!("--without: {e}")))?,
                "--without",
            )?,
            (None, Some(items)) => named(
                parse_rules(items.iter().map(String::as_str))
                    .map_err(|e| UserError::new(format!("the config key without: {e}")))?,
                "the config key without",
            )?,
            (None, None) => Vec::new(),
        };
        let switches = [
            (
                Rule::PlanProgress,
                args.no_plan_progress,
                cfg.plan_progress == Some(false),
                "--no-plan-progress",
                "plan_progress",
            ),
            (
                Rule::LoopBreaking,
                args.no_loop_breaking,
                cfg.loop_breaking == Some(false),
                "--no-loop-breaking",
                "loop_breaking",
            ),
            (
                Rule::KeptNote,
                args.no_note,
                cfg.show_note == Some(false),
                "--no-note",
                "show_note",
            ),
        ];
        for (rule, by_flag, by_key, flag, key) in switches {
            if by_flag {
                off.push((rule, flag.to_string()));
            } else if by_key {
                off.push((rule, format!("the config key {key}")));
            }
        }
        let profiles = self.profiles(args)?;
        for (rule, source) in &off {
            if !profiles.iter().any(|p| p.rules().has(*rule)) {
                let names: Vec<&str> = profiles.iter().map(|p| p.name()).collect();
                let what = format!(
                    "{} changes nothing under --profile {}: it is a rule of the extended profile (add --profile extended)",
                    rule.name(),
                    names.join(",")
                );
                // A config file serves every run (see `settings::options::check`).
                if source.starts_with("--") {
                    bail!(UserError::new(format!("{source}: {what}")));
                }
                crate::report::notice(format!("ariadne: note: {source}: {what}"));
            }
        }
        let mut off: Vec<Rule> = off.into_iter().map(|(r, _)| r).collect();
        off.sort();
        off.dedup();
        Ok(off)
    }
}
