//! `ariadne` binary: parse the command line, run, turn an error into one line and an
//! exit code.

use std::process::ExitCode;

use clap::Parser;

use ariadne::cli::Cli;
use ariadne::commands;

#[tokio::main]
async fn main() -> ExitCode {
    // Output piped into a program that stops reading (`ariadne ... | head`) ends the
    // process quietly, as for any Unix tool, instead of a panic on the broken pipe. Not
    // by SIGPIPE's default action: that would also kill Ariadne, with no summary and no
    // message, when a game bridge dies and its request pipe breaks (that is an error the
    // episode reports, its finished steps kept).
    let report_panic = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.starts_with("failed printing to std") && message.contains("Broken pipe") {
            // 128 + SIGPIPE, what a shell reports for a process the signal ended.
            std::process::exit(141);
        }
        report_panic(info);
    }));
    ariadne::report::install();
    ariadne::report::install_tasks(ariadne::commands::term::spinner_task);
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    match commands::run(cli).await {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {}", ariadne::report::one_line(&format!("{err:#}")));
            commands::exit_code(&err)
        }
    }
}

/// A command line clap refuses, as one line with clap's tips (`error: unexpected argument
/// '--outdated-chek' found (tip: a similar argument exists: '--outdated-check'; see
/// --help)`), exit code 2; `--help` and `--version` print as clap prints them.
fn usage_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
    }
    // A negative number after an option is read by clap as an unknown option, with the
    // tip to write `-- -1`: say what is wrong instead.
    if e.kind() == ErrorKind::UnknownArgument
        && let Some(clap::error::ContextValue::String(arg)) =
            e.get(clap::error::ContextKind::InvalidArg)
        && arg.starts_with('-')
        && arg.parse::<f64>().is_ok()
    {
        // The option it was given to, when it is the word before it.
        let args: Vec<String> = std::env::args().collect();
        let option = args
            .windows(2)
            .find(|w| w[1] == *arg && w[0].starts_with("--"))
            .map(|w| format!("{} ", w[0]))
            .unwrap_or_default();
        refused(&format!(
            "error: {option}{arg}: no option of Ariadne takes a negative number (see --help)"
        ));
        return ExitCode::from(2);
    }
    // What clap says before its usage: the error, the items it lists (missing
    // arguments), its tips.
    let text = e.render().to_string();
    let said = text
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .filter(|l| !l.is_empty());
    let (mut tail, items): (Vec<&str>, Vec<&str>) = said.partition(|l| l.starts_with("tip:"));
    // clap's tip to pass an unknown option as a value (`use '-- --bogus'`) misleads:
    // no positional argument of Ariadne starts with a dash.
    tail.retain(|t| !t.starts_with("tip: to pass"));
    tail.push("see --help");
    let error = match items.join(" ") {
        e if e.is_empty() => "error: the command line was not understood".to_string(),
        e => e,
    };
    refused(&format!("{error} ({})", tail.join("; ")));
    ExitCode::from(2)
}

/// Say why the command line was refused, on stderr; for `ariadne agent`, whose stdout
/// is the harness's protocol, also as its fatal `error` line (docs/agent-protocol.md).
fn refused(line: &str) {
    eprintln!("{line}");
    if std::env::args().nth(1).as_deref() == Some("agent") {
        let why = line.strip_prefix("error: ").unwrap_or(line);
        println!(
            "{}",
            serde_json::json!({"protocol": ariadne::env::harness::PROTOCOL, "type": "error", "fatal": true, "error": why})
        );
    }
}
