//! DNS names and record content: parsing, validation and the canonical forms that plan compares.
//!
//! One function per concern, used by both sides of the diff: the loader canonicalizes what the
//! user wrote, the planner canonicalizes what the server returned, and two records are equal
//! exactly when their canonical forms are equal. Over-normalizing hides real changes, so only
//! what DNS itself treats as equal is folded (host-name case, final dots, IPv6 spelling, TXT
//! quoting and chunking, spacing between fields); TXT text and CAA values keep their case.

pub mod content;
pub mod name;
pub mod rtype;
pub mod txt;

pub use content::{
    ContentError, MAX_CONTENT_CHARS, canonical_content, canonical_live_content, wire_content,
};
pub use name::{NameError, ZoneName, live_name_to_relative, record_name_to_relative};
pub use rtype::RecordType;
