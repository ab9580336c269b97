//! The checks every listing goes through while it is paged. A listing is planned on: rows a
//! server repeats across pages (offset pagination under concurrent writes shifts rows), or a
//! listing cut short, would make an unchanged account plan deletes. So a listing that is not
//! one consistent list of distinct rows is refused, never planned on.

use std::collections::HashMap;
use std::fmt::Display;
use std::hash::Hash;

use super::payload;
use super::rows::RecordRows;

/// Why a listing was refused. Pages are 1-based, as a person counts them.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PageFault {
    #[error(
        "page {page} says has_more but gives no next_cursor{}: the server's pagination does not end; report this to the API provider",
        request_id_note(request_id)
    )]
    NoCursor {
        page: usize,
        request_id: Option<String>,
    },
    #[error(
        "page {page} gives next_cursor {cursor:?}, already given by page {first_page}{}: the server's pagination does not end; report this to the API provider",
        request_id_note(request_id)
    )]
    CursorRepeated {
        cursor: String,
        first_page: usize,
        page: usize,
        request_id: Option<String>,
    },
    #[error(
        "page {max} still says has_more{}: the server's pagination does not end (dnscron reads at most {max} pages); report this to the API provider",
        request_id_note(request_id)
    )]
    TooManyPages {
        max: usize,
        request_id: Option<String>,
    },
    #[error(
        "page {page} repeats {what} {id}, already listed on page {first_page}{}: the listing shifted while it was read (rows moved between pages under concurrent writes), so it is not planned on; run again, and report it to the API provider if it persists",
        request_id_note(request_id)
    )]
    RepeatedRow {
        what: &'static str,
        id: String,
        first_page: usize,
        page: usize,
        request_id: Option<String>,
    },
    #[error(
        "page {page} {} yet says has_more{}: the pagination does not advance, so listing stopped at page {page}; report this to the API provider",
        no_new_rows(*rows),
        request_id_note(request_id)
    )]
    NoNewRows {
        page: usize,
        rows: usize,
        request_id: Option<String>,
    },
    #[error(
        "page {page} has {rows} rows, the page size asked for, but no `meta`{}: more pages may follow, and planning on part of a listing would delete the rest; report this to the API provider",
        request_id_note(request_id)
    )]
    FullPageWithoutMeta {
        page: usize,
        rows: usize,
        request_id: Option<String>,
    },
    #[error(
        "page {page} takes the listing past what dnscron can hold (its text passes {max} bytes{}); report this to the API provider",
        request_id.as_deref().map(|r| format!("; request_id {r}")).unwrap_or_default()
    )]
    TooLarge {
        max: u64,
        page: usize,
        request_id: Option<String>,
    },
}

impl PageFault {
    /// The request id of the page at fault, when the server gave one.
    pub fn request_id(&self) -> Option<&str> {
        match self {
            PageFault::NoCursor { request_id, .. }
            | PageFault::CursorRepeated { request_id, .. }
            | PageFault::TooManyPages { request_id, .. }
            | PageFault::RepeatedRow { request_id, .. }
            | PageFault::NoNewRows { request_id, .. }
            | PageFault::FullPageWithoutMeta { request_id, .. }
            | PageFault::TooLarge { request_id, .. } => request_id.as_deref(),
        }
    }
}

fn no_new_rows(rows: usize) -> String {
    match rows {
        0 => "has no rows".into(),
        n => format!("brings no new rows (all {n} were on earlier pages)"),
    }
}

fn request_id_note(request_id: &Option<String>) -> String {
    request_id
        .as_deref()
        .map(|r| format!(" (request_id {r})"))
        .unwrap_or_default()
}

/// What makes a listed row the same row on another page.
pub(super) trait RowId {
    /// How the identity is named in an error (`record id`, `cron job index`).
    const WHAT: &'static str;
    /// A number where the row has one: a zone listing checks every one of its rows.
    type Id: Hash + Ord + Display;
    fn row_id(&self) -> Self::Id;
}

impl RowId for payload::Record {
    const WHAT: &'static str = "record id";
    type Id = i64;
    fn row_id(&self) -> i64 {
        self.id
    }
}

impl RowId for payload::CronJob {
    const WHAT: &'static str = "cron job index";
    type Id = i64;
    fn row_id(&self) -> i64 {
        self.index
    }
}

/// Names compare case-insensitively: a server may echo them in either case.
impl RowId for payload::Site {
    const WHAT: &'static str = "site";
    type Id = String;
    fn row_id(&self) -> String {
        self.slug.to_ascii_lowercase()
    }
}

impl RowId for payload::Domain {
    const WHAT: &'static str = "domain";
    type Id = String;
    fn row_id(&self) -> String {
        self.domain.trim_end_matches('.').to_ascii_lowercase()
    }
}

impl RowId for payload::Zone {
    const WHAT: &'static str = "zone";
    type Id = String;
    fn row_id(&self) -> String {
        self.zone.trim_end_matches('.').to_ascii_lowercase()
    }
}

/// One page's rows as the pager needs them: how many, and each one's identity.
pub(super) trait Batch {
    type Row: RowId;
    fn rows(&self) -> usize;
    fn ids(&self) -> impl Iterator<Item = <Self::Row as RowId>::Id>;
}

impl<T: RowId> Batch for [T] {
    type Row = T;
    fn rows(&self) -> usize {
        self.len()
    }
    fn ids(&self) -> impl Iterator<Item = T::Id> {
        self.iter().map(RowId::row_id)
    }
}

impl<T: RowId> Batch for Vec<T> {
    type Row = T;
    fn rows(&self) -> usize {
        self.len()
    }
    fn ids(&self) -> impl Iterator<Item = T::Id> {
        self.iter().map(RowId::row_id)
    }
}

impl Batch for RecordRows {
    type Row = payload::Record;
    fn rows(&self) -> usize {
        self.len()
    }
    fn ids(&self) -> impl Iterator<Item = i64> {
        self.ids()
    }
}

/// The state of one listing being paged: rows (by their `RowId::Id`) and cursors seen so far.
pub(super) struct Pager<K> {
    /// The page being checked (1-based).
    page: usize,
    /// Every row so far with its first page, while the ids came in ascending order (a server
    /// listing by id): a new row is then one above the last, checked without hashing.
    ascending: Vec<(K, usize)>,
    /// Every row so far with its first page, once an id came out of order.
    first_page_of: HashMap<K, usize>,
    /// Every cursor followed so far, with the page that gave it.
    cursors: HashMap<String, usize>,
    /// The request id of the page being checked: a fault found after `check` quotes it too.
    request_id: Option<String>,
}

impl<K> Default for Pager<K> {
    fn default() -> Self {
        Pager {
            page: 0,
            ascending: Vec::new(),
            first_page_of: HashMap::new(),
            cursors: HashMap::new(),
            request_id: None,
        }
    }
}

/// One page as the pager needs it.
pub(super) struct PageView<'a, B: ?Sized> {
    pub rows: &'a B,
    pub has_meta: bool,
    pub has_more: bool,
    pub request_id: Option<&'a str>,
}

impl<K: Hash + Ord + Display> Pager<K> {
    /// Checks the next page: a full page must say whether more follow, no row may repeat one
    /// already seen, and a page that promises more must bring something new.
    pub(super) fn check<B: Batch + ?Sized>(
        &mut self,
        view: &PageView<'_, B>,
        limit: usize,
    ) -> Result<(), PageFault>
    where
        B::Row: RowId<Id = K>,
    {
        self.page += 1;
        let page = self.page;
        let request_id = view.request_id.map(str::to_string);
        self.request_id.clone_from(&request_id);
        let rows = view.rows.rows();
        if !view.has_meta && rows >= limit {
            return Err(PageFault::FullPageWithoutMeta {
                page,
                rows,
                request_id,
            });
        }
        let mut repeated = None;
        let mut new_rows = 0;
        for id in view.rows.ids() {
            if self.first_page_of.is_empty()
                && self.ascending.last().is_none_or(|(last, _)| *last < id)
            {
                self.ascending.push((id, page));
                new_rows += 1;
                continue;
            }
            if !self.ascending.is_empty() {
                self.first_page_of = self.ascending.drain(..).collect();
            }
            match self.first_page_of.get(&id) {
                Some(&first_page) => {
                    repeated.get_or_insert((id, first_page));
                }
                None => {
                    self.first_page_of.insert(id, page);
                    new_rows += 1;
                }
            }
        }
        if view.has_more && new_rows == 0 {
            return Err(PageFault::NoNewRows {
                page,
                rows,
                request_id,
            });
        }
        match repeated {
            Some((id, first_page)) => Err(PageFault::RepeatedRow {
                what: <B::Row as RowId>::WHAT,
                id: id.to_string(),
                first_page,
                page,
                request_id,
            }),
            None => Ok(()),
        }
    }

    /// The cursor of the next page, refused when missing or already followed.
    pub(super) fn next_cursor(&mut self, cursor: Option<String>) -> Result<String, PageFault> {
        let page = self.page;
        let Some(cursor) = cursor.filter(|c| !c.is_empty()) else {
            return Err(PageFault::NoCursor {
                page,
                request_id: self.request_id.clone(),
            });
        };
        if let Some(&first_page) = self.cursors.get(&cursor) {
            return Err(PageFault::CursorRepeated {
                cursor,
                first_page,
                page,
                request_id: self.request_id.clone(),
            });
        }
        self.cursors.insert(cursor.clone(), page);
        Ok(cursor)
    }

    /// The listing went on past `max` pages.
    pub(super) fn too_many_pages(&self, max: usize) -> PageFault {
        PageFault::TooManyPages {
            max,
            request_id: self.request_id.clone(),
        }
    }

    /// The page just checked took the listing's text past `max` bytes.
    pub(super) fn too_large(&self, max: u64) -> PageFault {
        PageFault::TooLarge {
            max,
            page: self.page,
            request_id: self.request_id.clone(),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn job(index: i64) -> payload::CronJob {
        payload::CronJob {
            index,
            schedule: "* * * * *".into(),
            command: "php a".into(),
        }
    }

    fn view(
        rows: &[payload::CronJob],
        has_meta: bool,
        has_more: bool,
    ) -> PageView<'_, [payload::CronJob]> {
        PageView {
            rows,
            has_meta,
            has_more,
            request_id: Some("req_1"),
        }
    }

    #[test]
    fn distinct_rows_over_pages_pass_and_a_repeat_names_both_pages() {
        let mut pager = Pager::default();
        pager
            .check(&view(&[job(0), job(1)], true, true), 2)
            .unwrap();
        pager.check(&view(&[job(2)], true, false), 2).unwrap();
        let mut pager = Pager::default();
        pager
            .check(&view(&[job(0), job(1)], true, true), 2)
            .unwrap();
        let err = pager
            .check(&view(&[job(1), job(2)], true, false), 2)
            .unwrap_err();
        assert_eq!(
            err,
            PageFault::RepeatedRow {
                what: "cron job index",
                id: "1".into(),
                first_page: 1,
                page: 2,
                request_id: Some("req_1".into()),
            }
        );
    }

    #[test]
    fn rows_out_of_order_are_checked_as_strictly_as_ascending_ones() {
        let mut pager = Pager::default();
        pager
            .check(&view(&[job(5), job(7)], true, true), 2)
            .unwrap();
        pager
            .check(&view(&[job(6), job(2)], true, true), 2)
            .unwrap();
        pager.check(&view(&[job(9)], true, true), 2).unwrap();
        let err = pager
            .check(&view(&[job(8), job(7)], true, false), 2)
            .unwrap_err();
        assert_eq!(
            err,
            PageFault::RepeatedRow {
                what: "cron job index",
                id: "7".into(),
                first_page: 1,
                page: 4,
                request_id: Some("req_1".into()),
            }
        );
    }

    #[test]
    fn a_repeat_within_one_page_is_refused_too() {
        let mut pager = Pager::default();
        let err = pager
            .check(&view(&[job(3), job(3)], true, false), 5)
            .unwrap_err();
        assert!(matches!(
            err,
            PageFault::RepeatedRow {
                first_page: 1,
                page: 1,
                ..
            }
        ));
    }

    #[test]
    fn a_page_without_new_rows_that_promises_more_stops_the_listing() {
        let mut pager = Pager::default();
        pager.check(&view(&[job(0)], true, true), 1).unwrap();
        let err = pager.check(&view(&[job(0)], true, true), 1).unwrap_err();
        assert!(matches!(
            err,
            PageFault::NoNewRows {
                page: 2,
                rows: 1,
                ..
            }
        ));
        let mut pager = Pager::default();
        let err = pager.check(&view(&[], true, true), 1).unwrap_err();
        assert!(matches!(
            err,
            PageFault::NoNewRows {
                page: 1,
                rows: 0,
                ..
            }
        ));
        // An empty last page is the normal end of a listing.
        Pager::default().check(&view(&[], false, false), 1).unwrap();
    }

    #[test]
    fn only_a_full_page_needs_meta() {
        let mut pager = Pager::default();
        pager.check(&view(&[job(0)], false, false), 2).unwrap();
        let err = Pager::default()
            .check(&view(&[job(0), job(1)], false, false), 2)
            .unwrap_err();
        assert!(matches!(
            err,
            PageFault::FullPageWithoutMeta {
                page: 1,
                rows: 2,
                ..
            }
        ));
        Pager::default()
            .check(&view(&[job(0), job(1)], true, false), 2)
            .unwrap();
    }

    /// Issue 22: every fault quotes the request id of the page at fault.
    #[test]
    fn every_fault_names_the_request_id_of_its_page() {
        let mut pager = Pager::<i64>::default();
        pager.check(&view(&[job(0)], true, true), 2).unwrap();
        let faults = [
            pager.next_cursor(None).unwrap_err(),
            pager.too_many_pages(100_000),
            pager.too_large(4_096),
        ];
        let texts: Vec<String> = faults.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            [
                "page 1 says has_more but gives no next_cursor (request_id req_1): the server's pagination does not end; report this to the API provider",
                "page 100000 still says has_more (request_id req_1): the server's pagination does not end (dnscron reads at most 100000 pages); report this to the API provider",
                "page 1 takes the listing past what dnscron can hold (its text passes 4096 bytes; request_id req_1); report this to the API provider",
            ]
        );
        for fault in &faults {
            assert_eq!(fault.request_id(), Some("req_1"));
        }
    }

    #[test]
    fn cursors_must_be_given_and_new() {
        let mut pager = Pager::<i64>::default();
        pager.check(&view(&[job(0)], true, true), 2).unwrap();
        assert_eq!(pager.next_cursor(Some("a".into())).unwrap(), "a");
        pager.check(&view(&[job(1)], true, true), 2).unwrap();
        let no_cursor = PageFault::NoCursor {
            page: 2,
            request_id: Some("req_1".into()),
        };
        assert_eq!(
            pager.next_cursor(Some(String::new())),
            Err(no_cursor.clone())
        );
        assert_eq!(pager.next_cursor(None), Err(no_cursor));
        assert_eq!(
            pager.next_cursor(Some("a".into())),
            Err(PageFault::CursorRepeated {
                cursor: "a".into(),
                first_page: 1,
                page: 2,
                request_id: Some("req_1".into()),
            })
        );
    }
}
