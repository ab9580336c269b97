//! The benchmark harness at smoke size: the figures that don't depend on timing (request counts
//! against their minimum, convergence under faults) must all meet their targets.

use dnscron::bench::report::Verdict;
use dnscron::bench::{self, Options, Part};

#[test]
fn smoke_sizes_send_the_minimum_requests_and_converge_under_faults() {
    let opts = Options {
        smoke: true,
        only: vec![Part::Efficiency, Part::Faults],
        ..Options::default()
    };
    let report = bench::run(&opts).unwrap();
    assert_eq!(report.sections.len(), 2);
    for section in &report.sections {
        assert!(!section.figures.is_empty(), "{}", section.title);
        for f in &section.figures {
            assert_ne!(
                f.verdict,
                Verdict::Missed,
                "{}: {} = {} (target {}, bound {})",
                section.title,
                f.name,
                f.value,
                f.target,
                f.bound
            );
        }
    }
    let text = report.text();
    assert!(
        text.contains("plan: all requests, ratio to the minimum"),
        "{text}"
    );
    assert!(text.contains("0 target(s) missed"), "{text}");
}
