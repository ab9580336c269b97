//! DNS names and record content: parsing, validation and the canonical forms that plan compares.
//!
//! One function per concern, used by both sides of the diff: the loader canonicalizes what the
//! user wrote, the planner canonicalizes what the server returned, and two records are equal
//! exactly when their canonical forms are equal. Over-normalizing hides real changes, so only
//! what DNS itself treats as equal is folded (host-name case, final dots, IPv6 spelling, TXT
//! quoting and chunking, spacing between fields); TXT text and CAA values keep their case.
//!
//! The record types and their typed content are defined once in `record`; the rules about where
//! a record may stand (apex, SRV owners, CNAME alone, TTL range, nameserver count) once in
//! `rules`, shared by validation, import and plan.
//!
//! Adding a record type touches three files: `record.rs` (the `record_types!` list; the
//! compiler then asks for its `RecordData` variant, parser and canonical form there),
//! docs/file-format.md (the type and its content form), and the content description in
//! config/raw.rs, after which `dnscron schema > schema/dnscron.schema.json` regenerates the
//! schema (a test fails until it is). The emulator keeps its own list on purpose: it stands for
//! the server, which is written from the API spec, not from this client.

pub(crate) mod content;
pub(crate) mod name;
pub(crate) mod record;
pub(crate) mod rules;
pub(crate) mod txt;

// The normal forms the plan compares by are public: a test or a front end asks "the same record?"
// the way the planner does.
pub use content::{ContentError, Host, canonical_content, canonical_live_content, wire_content};
pub(crate) use content::{MAX_CONTENT_CHARS, canonical_live_borrowed};
pub(crate) use name::live_name_relative;
pub use name::{NameError, ZoneName, fold_host, live_name_to_relative, record_name_to_relative};
pub use record::{CaaTag, RecordData, RecordType, UnknownRecordType};
