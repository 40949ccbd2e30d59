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
