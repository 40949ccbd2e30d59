//! One of N disjoint slices of a bench's episodes (`--shard K/N`, or `--shard auto` from
//! a cluster scheduler's task index), so that several machines play one bench.

use serde::{Deserialize, Serialize};

/// One of N disjoint slices of a bench's episodes (`--shard K/N`, 1 <= K <= N).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// This slice, 1-based.
    pub k: u32,
    /// Slices in all.
    pub n: u32,
}

impl Shard {
    /// The slice a cluster scheduler hands this task (`--shard auto`), read through
    /// `var` (the process environment in use):
    /// - Slurm job arrays: `SLURM_ARRAY_TASK_ID` among `SLURM_ARRAY_TASK_COUNT` tasks,
    ///   counted from `SLURM_ARRAY_TASK_MIN` (`sbatch --array=1-4` or `0-3`);
    /// - Kubernetes Indexed Jobs: `JOB_COMPLETION_INDEX` (from 0), with the count in
    ///   `ARIADNE_SHARDS` (the Job's `completions`, which Kubernetes does not pass on).
    ///
    /// # Errors
    /// One line when no index is set, when a count is missing or not a number, or when
    /// the index falls outside the count (a Slurm array with gaps, `--array=1,3`).
    pub fn from_scheduler(var: impl Fn(&str) -> Option<String>) -> Result<Self, String> {
        let number = |name: &str| -> Result<Option<u32>, String> {
            var(name)
                .map(|v| {
                    v.trim()
                        .parse::<u32>()
                        .map_err(|_| format!("{name}={v:?} is not a whole number"))
                })
                .transpose()
        };
        let (index, count, source) = if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
            let count = number("SLURM_ARRAY_TASK_COUNT")?
                .ok_or("SLURM_ARRAY_TASK_ID is set but not SLURM_ARRAY_TASK_COUNT")?;
            let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            (id.checked_sub(min), count, "Slurm's array task")
        } else if let Some(index) = number("JOB_COMPLETION_INDEX")? {
            let count = number("ARIADNE_SHARDS")?.ok_or(
                "JOB_COMPLETION_INDEX is set but not ARIADNE_SHARDS (set it to the Job's completions)",
            )?;
            (Some(index), count, "the Indexed Job's completion index")
        } else {
            return Err("auto: no scheduler index in the environment (SLURM_ARRAY_TASK_ID, or JOB_COMPLETION_INDEX with ARIADNE_SHARDS); give K/N".into());
        };
        match index {
            Some(i) if i < count => Ok(Shard { k: i + 1, n: count }),
            _ => Err(format!(
                "auto: {source} is not one of 1..{count} counted from its first (an array with gaps?); give K/N"
            )),
        }
    }
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| format!("{s:?} is not K/N (for example 2/4)"))?;
        let (k, n): (u32, u32) = (
            k.trim()
                .parse()
                .map_err(|_| format!("{k:?} is not a number"))?,
            n.trim()
                .parse()
                .map_err(|_| format!("{n:?} is not a number"))?,
        );
        if n == 0 || k == 0 || k > n {
            return Err(format!("shard {k}/{n}: K must be between 1 and N"));
        }
        Ok(Shard { k, n })
    }
}
