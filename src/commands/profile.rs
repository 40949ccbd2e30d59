//! `ariadne profile`: print a profile's Fidelity table, or list the profiles and rules.

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::ProfileCommand;
use crate::error::UserError;
use crate::fidelity::{fidelity_table, fidelity_text};
use crate::profile::{Profile, Rule};

/// Run `ariadne profile show|list`.
///
/// # Errors
/// An unknown profile name.
pub fn run(cmd: ProfileCommand) -> Result<ExitCode> {
    match cmd {
        ProfileCommand::Show { profile } => {
            let p: Profile = profile.parse().map_err(UserError::new)?;
            // In a terminal one block per element; piped, the Markdown of docs/fidelity.md.
            if std::io::stdout().is_terminal() {
                print!("{}", fidelity_text(p));
            } else {
                print!("{}", fidelity_table(p));
            }
        }
        ProfileCommand::List => {
            for p in Profile::ALL {
                let rules: Vec<&str> = p.rules().enabled().iter().map(|r| r.name()).collect();
                println!(
                    "{p}{}: {}",
                    if p == Profile::default() {
                        " (default)"
                    } else {
                        ""
                    },
                    if rules.is_empty() {
                        "the paper's agent, no rule".to_string()
                    } else {
                        format!("rules {}", rules.join(", "))
                    }
                );
            }
            println!();
            for r in Rule::ALL {
                println!("{}: {}", r.name(), r.what());
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
