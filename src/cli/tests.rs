use clap::CommandFactory;

/// `--without`'s help names every rule of the extended profile.
#[test]
fn the_without_help_names_every_rule() {
    let mut cmd = super::Cli::command();
    let play = cmd.find_subcommand_mut("play").expect("play");
    let help = play
        .get_arguments()
        .find(|a| a.get_id() == "without")
        .and_then(|a| a.get_help())
        .expect("--without has a help")
        .to_string();
    for rule in crate::profile::Rule::ALL {
        assert!(help.contains(rule.name()), "{rule} is not in: {help}");
    }
}

/// The `--memory` helps name every design (`play`) and every bench row (`bench`).
#[test]
fn the_memory_helps_name_every_design_and_row() {
    let mut cmd = super::Cli::command();
    let help = |cmd: &mut clap::Command, sub: &str| {
        cmd.find_subcommand_mut(sub)
            .expect("subcommand")
            .get_arguments()
            .find(|a| a.get_id() == "memory")
            .and_then(|a| a.get_help())
            .expect("--memory has a help")
            .to_string()
    };
    let play = help(&mut cmd, "play");
    for d in crate::memory::MemoryDesign::all() {
        assert!(play.contains(d.name()), "{} is not in: {play}", d.name());
    }
    let bench = help(&mut cmd, "bench");
    for name in crate::rows::Variant::names() {
        assert!(
            bench.split([',', ' ', ':', '.']).any(|w| w == name),
            "{name} is not in: {bench}"
        );
    }
}

/// `setup --llm-build` takes the two builds by name; with `--games-only`, which
/// installs no LLM server, it is refused.
#[test]
fn setup_takes_the_llm_build_by_name() {
    use crate::pyenv::llm_build::LlmBuild;
    use clap::Parser;
    let build = |args: &[&str]| match super::Cli::try_parse_from(args) {
        Ok(super::Cli {
            command: super::Command::Setup(a),
            ..
        }) => Ok(a.llm_build),
        Ok(_) => panic!("not setup"),
        Err(e) => Err(e.kind()),
    };
    assert_eq!(build(&["ariadne", "setup"]), Ok(None));
    assert_eq!(
        build(&["ariadne", "setup", "--llm-build", "native"]),
        Ok(Some(LlmBuild::Native))
    );
    assert_eq!(
        build(&["ariadne", "setup", "--llm-build", "wheel"]),
        Ok(Some(LlmBuild::Wheel))
    );
    assert_eq!(
        build(&["ariadne", "setup", "--llm-build", "cuda"]),
        Err(clap::error::ErrorKind::InvalidValue)
    );
    assert_eq!(
        build(&["ariadne", "setup", "--games-only", "--llm-build", "native"]),
        Err(clap::error::ErrorKind::ArgumentConflict)
    );
}

/// A subcommand whose required flag may be replaced by another (`qa`: `--data`, or
/// `--resume DIR`, or `--replay DIR`; `bench`: `--games`, or `--resume DIR`) names every
/// choice when none is given, and takes each alone.
#[test]
fn required_flags_that_another_can_replace_are_named_together() {
    use clap::Parser;
    let parse = |args: &[&str]| super::Cli::try_parse_from(args).map(|_| ());
    for (args, named) in [
        (
            &["ariadne", "qa"][..],
            &["--data", "--resume", "--replay"][..],
        ),
        (&["ariadne", "bench"][..], &["--games", "--resume"][..]),
    ] {
        let e = parse(args).expect_err("a required flag is missing");
        assert_eq!(e.kind(), clap::error::ErrorKind::MissingRequiredArgument);
        let said = e.render().to_string();
        for flag in named {
            assert!(said.contains(flag), "{flag} is not named in: {said}");
        }
    }
    for args in [
        &["ariadne", "qa", "--replay", "runs/qa"][..],
        &["ariadne", "qa", "--resume", "runs/qa"],
        &["ariadne", "qa", "--data", "d.jsonl"],
        &["ariadne", "bench", "--resume", "b"],
        &["ariadne", "bench", "--games", "simple"],
        &["ariadne", "bench", "merge", "a", "b", "--out", "c"],
    ] {
        assert!(parse(args).is_ok(), "{args:?}: {:?}", parse(args));
    }
    assert!(parse(&["ariadne", "qa", "--replay", "a", "--data", "b"]).is_err());
}
