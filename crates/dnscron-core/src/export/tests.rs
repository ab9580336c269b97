#![allow(clippy::unwrap_used)]

use super::*;

#[test]
fn bind_txt_is_split_at_255_octets_between_characters_and_escaped() {
    assert_eq!(bind::txt(""), "\"\"");
    assert_eq!(
        bind::txt("say \"hi\" \\ ü\t"),
        "\"say \\\"hi\\\" \\\\ \\195\\188\\009\""
    );
    let long = "a".repeat(300);
    assert_eq!(
        bind::txt(&long),
        format!("\"{}\" \"{}\"", "a".repeat(255), "a".repeat(45))
    );
    // 254 octets, then a two-octet character that would straddle the limit: it starts the next.
    let straddle = format!("{}é", "a".repeat(254));
    assert_eq!(
        bind::txt(&straddle),
        format!("\"{}\" \"\\195\\169\"", "a".repeat(254))
    );
}

#[test]
fn octodns_txt_escapes_semicolons_and_refuses_what_it_cannot_hold() {
    assert_eq!(octodns::txt("v=spf1 -all").unwrap(), "v=spf1 -all");
    assert_eq!(
        octodns::txt("v=DMARC1; p=none").unwrap(),
        "v=DMARC1\\; p=none"
    );
    assert_eq!(octodns::txt("\"quoted\" x").unwrap(), "\"\"quoted\" x\"");
    assert_eq!(octodns::txt("grüße"), Err(Unholdable::NonAscii));
    assert_eq!(octodns::txt("a\\;b"), Err(Unholdable::BackslashSemicolon));
    assert_eq!(
        octodns::txt("\"a\" \"b\""),
        Err(Unholdable::QuoteSpaceQuote)
    );
}
