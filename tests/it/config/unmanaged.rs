//! `unmanaged:` documents: accepted in both entry forms, across files; refused when a name is
//! listed twice, also declared, or not a name of its kind, each at the entry.

use super::{Files, errors, ok, texts};

#[test]
fn names_and_explained_entries_are_read_normalized_with_their_places() {
    let desired = ok(
        "zone: a.example\n---\nunmanaged:\n  zones:\n    - Portal.Example.\n    - { name: agency.example, reason: \"the agency's\" }\n  domains: [parked.example]\n  sites:\n    - { name: blog }\n",
    );
    let u = &desired.unmanaged;
    let shown: Vec<String> = u
        .zones
        .iter()
        .chain(&u.domains)
        .chain(&u.sites)
        .map(|e| {
            format!(
                "{} {:?} {}:{}",
                e.name, e.reason, e.location.line, e.location.col
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            "portal.example None 5:7",
            "agency.example Some(\"the agency's\") 6:15",
            "parked.example None 7:13",
            "blog None 9:15",
        ]
    );
}

#[test]
fn several_documents_add_up_and_a_name_twice_is_an_error_at_the_second() {
    let files = Files::new(&[
        ("zones.yaml", "zone: a.example\n"),
        ("one.yaml", "unmanaged:\n  sites: [blog]\n"),
        (
            "two.yaml",
            "unmanaged:\n  sites: [shop]\n  zones: [b.example]\n",
        ),
    ]);
    let desired = files.load().unwrap();
    assert_eq!(desired.unmanaged.sites.len(), 2);
    let twice = Files::new(&[
        ("zones.yaml", "zone: a.example\n"),
        ("one.yaml", "unmanaged:\n  sites: [blog]\n"),
        ("two.yaml", "unmanaged:\n  sites: [blog]\n"),
    ]);
    let diags = twice.load().unwrap_err();
    assert_eq!(
        texts(&twice, &diags),
        [
            "2:11 site `blog` is listed twice in `unmanaged.sites`: here and at one.yaml:2:11 [hint: keep one of the two entries]"
        ]
    );
}

#[test]
fn a_listed_name_a_file_declares_is_an_error_at_the_entry() {
    assert_eq!(
        errors(
            "zone: a.example\n---\nsite: blog\n---\nunmanaged:\n  zones: [a.example]\n  domains: [a.example]\n  sites: [blog]\n"
        ),
        [
            "6:11 zone `a.example` is listed in `unmanaged.zones` but is also declared at f.yaml:1:7 [hint: remove it from `unmanaged.zones` to manage it, or remove its declaration to leave it alone]",
            "7:13 domain `a.example` is listed in `unmanaged.domains` but its zone is declared at f.yaml:1:7 [hint: remove it from `unmanaged.domains` to manage it, or remove its declaration to leave it alone]",
            "8:11 site `blog` is listed in `unmanaged.sites` but is also declared at f.yaml:3:7 [hint: remove it from `unmanaged.sites` to manage it, or remove its declaration to leave it alone]",
        ]
    );
}

#[test]
fn bad_names_empty_reasons_unknown_keys_and_wrong_shapes_are_refused() {
    insta::assert_debug_snapshot!(errors(
        "zone: a.example\n---\nunmanaged:\n  zones: [\"not a name\", single]\n  sites: [Blog, { name: shop, reason: \"\" }, 42]\n  domain: [x.example]\n---\nunmanaged: [a.example]\n"
    ));
}
