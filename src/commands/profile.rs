//! `ariadne profile`: print a profile's Fidelity table, or list the profiles and rules.

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::ProfileCommand;
use crate::error::UserError;
use crate::fidelity::fidelity_table;
use crate::profile::{Profile, Rule};

/// Run `ariadne profile show|list`.
///
/// # Errors
/// An unknown profile name.
pub fn run(cmd: ProfileCommand) -> Result<ExitCode> {
    match cmd {
        ProfileCommand::Show { profile } => {
            let p: Profile = profile.parse().map_err(UserError::new)?;
            print!("{}", fidelity_table(p));
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
