//! Building the memory a design names: the one place that knows every design's type.

use crate::judge::oracle::OracleMemory;
use crate::memory::{AriGraphMemory, MemoryDesign, MemoryModule, MemorySettings, baselines};

/// Build the memory of a design. `lessons` are Reflexion's lessons from earlier trials.
pub fn memory(
    design: MemoryDesign,
    settings: MemorySettings,
    lessons: Vec<String>,
) -> Box<dyn MemoryModule> {
    match design {
        MemoryDesign::Arigraph => Box::new(AriGraphMemory::new(settings)),
        MemoryDesign::ArigraphNoEpisodic => Box::new(AriGraphMemory::new(MemorySettings {
            episodes: 0,
            ..settings
        })),
        MemoryDesign::Oracle => Box::new(OracleMemory::new(settings)),
        MemoryDesign::FullHistory => Box::new(baselines::FullHistory::default()),
        MemoryDesign::NoMemory => Box::new(baselines::NoMemory),
        MemoryDesign::Summary => Box::new(baselines::Summary::new(
            settings.summary_words,
            settings.revision().reference_prompts(),
        )),
        MemoryDesign::Rag => Box::new(baselines::Rag::new(settings)),
        MemoryDesign::Simulacra => Box::new(baselines::Simulacra::new(settings)),
        MemoryDesign::Reflexion => Box::new(baselines::Reflexion::new(settings, lessons)),
    }
}
