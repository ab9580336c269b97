//! Grouping of one zone's declared and live records by (name, type), for `records::diff_zone`.

use std::borrow::Cow;
use std::ptr;

use smallvec::SmallVec;

use crate::dns::RecordType;

use super::{LiveRec, WantRec};

/// Nearly every (name, type) holds one record on each side: one inline slot spares the two
/// allocations per record that a `Vec` per side costs (≈ 29 MB at 100,000 records).
pub(super) type Side<T> = SmallVec<[T; 1]>;
pub(super) type Key<'a> = (Cow<'a, str>, RecordType);

/// Calls `f` for every (name, type) in order, with the declared records (identical declarations
/// once, the first kept) and the live ones of that name and type. Both sides are sorted and
/// merged rather than grouped in a map: a map of 100,000 groups costs more than both lists.
pub(super) fn for_each_group<'a>(
    mut wants: Vec<WantRec<'a>>,
    mut haves: Vec<LiveRec<'a>>,
    mut f: impl FnMut(Key<'a>, Side<WantRec<'a>>, Side<LiveRec<'a>>),
) {
    // Declaration order last, so that among identical declarations the first one is kept: the
    // specs lie in one slice in file order, so their addresses give it. This sort needs no
    // buffer, where a stable sort would allocate a copy of the list.
    wants.sort_unstable_by(|a, b| {
        (&*a.name, a.spec.rtype, ptr::from_ref(a.spec)).cmp(&(
            &*b.name,
            b.spec.rtype,
            ptr::from_ref(b.spec),
        ))
    });
    // Record ids are unique in a listing (the pager refuses repeats), so this order is total.
    haves.sort_unstable_by(|a, b| {
        (&*a.place.0, a.place.1, a.id).cmp(&(&*b.place.0, b.place.1, b.id))
    });
    let mut wants = wants.into_iter().peekable();
    let mut haves = haves.into_iter().peekable();
    loop {
        let key: Key<'a> = match (wants.peek(), haves.peek()) {
            (None, None) => return,
            (Some(w), None) => (w.name.clone(), w.spec.rtype),
            (None, Some(h)) => h.place.clone(),
            (Some(w), Some(h)) => {
                if (&*w.name, w.spec.rtype) <= (&*h.place.0, h.place.1) {
                    (w.name.clone(), w.spec.rtype)
                } else {
                    h.place.clone()
                }
            }
        };
        let mut want: Side<WantRec> = SmallVec::new();
        while let Some(w) = wants.next_if(|w| (&*w.name, w.spec.rtype) == (&*key.0, key.1)) {
            // Two identical declarations are one record.
            if !want.iter().any(|x| x.spec.canonical == w.spec.canonical) {
                want.push(w);
            }
        }
        let mut have: Side<LiveRec> = SmallVec::new();
        while let Some(h) = haves.next_if(|h| (&*h.place.0, h.place.1) == (&*key.0, key.1)) {
            have.push(h);
        }
        f(key, want, have);
    }
}

/// The live record's canonical content, kept as a borrow of the listing when it is the same text
/// (A, AAAA, … usually are), so the diff holds no copy of it.
pub(super) fn borrow_if_same<'a>(canonical: String, content: &'a str) -> Cow<'a, str> {
    if canonical == content {
        Cow::Borrowed(content)
    } else {
        Cow::Owned(canonical)
    }
}
