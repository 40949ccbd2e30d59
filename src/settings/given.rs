//! Which memory options were given, and where (a flag or a config key), for the check
//! that none is given where it changes nothing ([`crate::settings::options`]).

use anyhow::Result;

use super::Resolver;
use crate::cli::{BenchArgs, GameArgs, MemoryArgs};
use crate::memory::MemorySettings;
use crate::rows::Variant;
use crate::settings::options::{Given, MemoryOption, Row};

impl Resolver {
    /// The config keys that choose the agent itself (`profile`, `without`, `prompts`)
    /// and are set: what a resumed or replayed run, which follows its own plan, ignores.
    pub fn agent_keys_given(&self) -> Vec<&'static str> {
        let c = &self.cfg;
        [
            ("the config key profile", c.profile.is_some()),
            ("the config key without", c.without.is_some()),
            ("the config key prompts", c.prompts.is_some()),
        ]
        .into_iter()
        .filter(|(_, set)| *set)
        .map(|(key, _)| key)
        .collect()
    }

    /// What a resumed or replayed run, which follows its own plan, ignores of what was
    /// given beside it: the memory options ([`Resolver::memory_given`], flags and config
    /// keys) and the config keys choosing the agent ([`Resolver::agent_keys_given`]), as
    /// they are named in a note.
    pub fn ignored_beside_plan(&self, args: &MemoryArgs, game: Option<&GameArgs>) -> Vec<String> {
        let mut names: Vec<String> = self
            .memory_given(args, game)
            .iter()
            .map(ToString::to_string)
            .collect();
        names.extend(self.agent_keys_given().into_iter().map(String::from));
        names
    }

    /// The memory options given, each once, with where (a flag wins over its config
    /// key; a config switch set to its default is not given). `game`: the navigation
    /// switches of a game run (`None` in `ariadne qa`, which has none: their config keys
    /// are not read there).
    pub fn memory_given(&self, args: &MemoryArgs, game: Option<&GameArgs>) -> Vec<Given> {
        let c = &self.cfg;
        use MemoryOption as O;
        let pairs = [
            (O::Cutoff, args.cutoff.is_some(), c.cutoff.is_some()),
            (O::Depth, args.depth.is_some(), c.depth.is_some()),
            (O::Width, args.width.is_some(), c.width.is_some()),
            (
                O::EpisodicK,
                args.episodic_k.is_some(),
                c.episodic_k.is_some(),
            ),
            (
                O::OutdatedScope,
                args.outdated_scope.is_some(),
                c.outdated_scope.is_some(),
            ),
            (O::HopScope, args.hop_scope.is_some(), c.hop_scope.is_some()),
            (
                O::Retrieval,
                args.retrieval.is_some(),
                c.retrieval.is_some(),
            ),
            (O::Retire, args.retire.is_some(), c.retire.is_some()),
            (O::Gating, args.gating, c.gating == Some(true)),
            (O::Bridge, args.bridge, c.bridge == Some(true)),
            (O::Thesis, args.thesis, c.thesis == Some(true)),
            (O::Exclude, args.exclude.is_some(), c.exclude.is_some()),
        ];
        let navigation = game.map(|g| {
            [
                (
                    O::Exploration,
                    g.no_exploration,
                    c.exploration == Some(false),
                ),
                (O::GoTo, g.no_go_to, c.go_to == Some(false)),
                (O::Trials, g.trials.is_some(), false),
            ]
        });
        pairs
            .into_iter()
            .chain(navigation.into_iter().flatten())
            .filter(|&(_, flag, key)| flag || key)
            .map(|(option, by_flag, _)| Given { option, by_flag })
            .collect()
    }

    /// A bench's memory settings ([`Resolver::memory`] with the profile's rules left to
    /// each row), checked against its rows, with a note line on stderr for each option
    /// some rows ignore. A resumed bench plays its own plan: nothing is checked.
    ///
    /// # Errors
    /// See [`Resolver::memory`].
    pub fn bench_memory(&self, args: &BenchArgs, variants: &[Variant]) -> Result<MemorySettings> {
        let rows: Vec<Row> = if args.resume.is_some() {
            let names = self.ignored_beside_plan(&args.memory_args, Some(&args.game_args));
            if !names.is_empty() {
                crate::report::notice(format!(
                    "ariadne: note: --resume plays the bench's own plan: {} ignored",
                    names.join(", ")
                ));
            }
            Vec::new()
        } else {
            variants.iter().map(|v| v.reading()).collect()
        };
        let (memory, notes) = self.memory(
            &args.memory_args,
            Some(&args.game_args),
            &crate::profile::Rules::NONE,
            &rows,
        )?;
        for note in notes {
            crate::report::notice(format!("ariadne: note: {note}"));
        }
        Ok(memory)
    }
}
