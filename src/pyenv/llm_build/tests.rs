use super::*;

fn cpu(model: &str, flags: &str) -> Cpu {
    Cpu {
        model: model.to_string(),
        flags: flags.split_whitespace().map(str::to_string).collect(),
    }
}

fn native(on: Cpu) -> Installed {
    Installed {
        req: LLM_REQ.to_string(),
        build: LlmBuild::Native,
        built_on: Some(on),
    }
}

fn wheel() -> Installed {
    Installed {
        req: LLM_REQ.to_string(),
        build: LlmBuild::Wheel,
        built_on: None,
    }
}

#[test]
fn cpuinfo_gives_the_first_processors_model_and_flags() {
    let text = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9B14\nflags\t\t: fpu sse2 avx2 avx512f avx512_vnni\n\nprocessor\t: 1\nmodel name\t: other\nflags\t\t: fpu\n";
    assert_eq!(
        Cpu::parse(text),
        Some(cpu("AMD EPYC 9B14", "fpu sse2 avx2 avx512f avx512_vnni"))
    );
    assert_eq!(Cpu::parse("processor\t: 0\nmodel name\t: x\n"), None);
}

#[test]
fn stamps_read_back_as_written() {
    for installed in [
        wheel(),
        native(cpu("AMD EPYC 9B14", "avx2 avx512f avx512_vnni")),
        Installed {
            built_on: None,
            ..native(cpu("", ""))
        },
    ] {
        assert_eq!(Installed::parse(&installed.stamp()), Some(installed));
    }
    // A stamp written before the choice existed: the requirement alone is the wheel.
    assert_eq!(Installed::parse(LLM_REQ), Some(wheel()));
    assert_eq!(Installed::parse(""), None);
}

#[test]
fn what_to_install_follows_what_is_there_and_what_is_asked() {
    let here = cpu("A", "avx2 avx512f");
    let elsewhere = cpu("B", "avx2");
    let old = Installed {
        req: "xllamacpp==0.0.1".to_string(),
        ..wheel()
    };
    let old_native = Installed {
        req: "xllamacpp==0.0.1".to_string(),
        ..native(here.clone())
    };
    let cases = [
        // Nothing there: the wheel unless native is asked for.
        (None, None, Some(LlmBuild::Wheel)),
        (None, Some(LlmBuild::Native), Some(LlmBuild::Native)),
        // Another version there: the new one, in the build that was there.
        (Some(old.clone()), None, Some(LlmBuild::Wheel)),
        (
            Some(old.clone()),
            Some(LlmBuild::Native),
            Some(LlmBuild::Native),
        ),
        (Some(old_native.clone()), None, Some(LlmBuild::Native)),
        (
            Some(old_native),
            Some(LlmBuild::Wheel),
            Some(LlmBuild::Wheel),
        ),
        // Not asked: what is there stays, native on another CPU too (refused at start).
        (Some(wheel()), None, None),
        (Some(native(elsewhere.clone())), None, None),
        // Asked: installed unless it is there, a native build for this CPU.
        (Some(wheel()), Some(LlmBuild::Wheel), None),
        (
            Some(wheel()),
            Some(LlmBuild::Native),
            Some(LlmBuild::Native),
        ),
        (Some(native(here.clone())), Some(LlmBuild::Native), None),
        (
            Some(native(here.clone())),
            Some(LlmBuild::Wheel),
            Some(LlmBuild::Wheel),
        ),
        (
            Some(native(elsewhere)),
            Some(LlmBuild::Native),
            Some(LlmBuild::Native),
        ),
    ];
    for (have, want, expected) in cases {
        assert_eq!(
            to_install(have.as_ref(), want, Some(&here)),
            expected,
            "{have:?}, asked {want:?}"
        );
    }
}

#[test]
fn a_native_build_starts_only_where_every_flag_of_its_cpu_is() {
    let built = native(cpu("AMD EPYC 9B14", "avx2 avx512f avx512_vnni avx512_bf16"));
    let superset = cpu("Next", "avx2 avx512f avx512_vnni avx512_bf16 amx_tile");
    assert!(check_cpu(&built, Some(&superset)).is_ok());
    assert!(
        check_cpu(&built, None).is_ok(),
        "no /proc/cpuinfo: not refused"
    );
    assert!(check_cpu(&wheel(), Some(&cpu("Old", "sse2"))).is_ok());
    // A kernel or microcode update on the same CPU that hides a flag naming no
    // instruction set: still started.
    let with_tsx = native(cpu("AMD EPYC 9B14", "avx2 avx512f rtm hypervisor"));
    assert!(check_cpu(&with_tsx, Some(&cpu("AMD EPYC 9B14", "avx2 avx512f"))).is_ok());
    let older = cpu("Intel Xeon E5-2680 v4", "avx2 fma");
    let err = check_cpu(&built, Some(&older)).unwrap_err().to_string();
    assert!(
        err.contains("compiled for another CPU (AMD EPYC 9B14)")
            && err.contains(
                "this one (Intel Xeon E5-2680 v4) lacks its avx512_bf16, avx512_vnni, avx512f"
            )
            && err.contains("ariadne setup --llm-build native")
            && err.contains("--llm-build wheel"),
        "{err}"
    );
}

#[test]
fn the_manifest_names_the_build() {
    assert_eq!(describe(&wheel()), "wheel");
    assert_eq!(
        describe(&native(cpu("AMD EPYC 9B14", "avx2"))),
        "native (AMD EPYC 9B14)"
    );
    assert_eq!(describe(&native(cpu("", "avx2"))), "native");
    assert_eq!(in_words(&wheel()), "the prebuilt wheel (built for AVX2)");
    assert_eq!(
        in_words(&native(cpu("AMD EPYC 9B14", "avx2"))),
        "compiled for this CPU (AMD EPYC 9B14)"
    );
}
