//! The token scopes and the endpoints that need them (spec, Endpoints and Authentication).

use std::fmt;

use serde::{Deserialize, Serialize};

/// A capability a token is created with (spec, Authentication 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Every GET endpoint; always on.
    Read,
    Deploy,
    /// Staging, cron, backups and restore.
    Manage,
    /// DNS writes, nameserver changes and the zone probe.
    Dns,
}

impl Scope {
    pub const ALL: [Scope; 4] = [Scope::Read, Scope::Deploy, Scope::Manage, Scope::Dns];

    /// The name as the portal and the spec spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::Deploy => "deploy",
            Scope::Manage => "manage",
            Scope::Dns => "dns",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The HTTP methods the API uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Post,
    Put,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
        }
    }
}

/// Defines [`Endpoint`] from one table: variant, method, path (relative to `/api/v1`, `{}` around
/// a parameter, as the spec writes it), scope (`None` where the spec doesn't show it) and
/// whether it accepts an `Idempotency-Key` (spec, Idempotency 2).
macro_rules! endpoints {
    ($($v:ident: $m:ident $path:literal, $scope:expr, $idem:literal;)+) => {
        /// Every endpoint of the spec, in its order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Endpoint {
            $($v),+
        }

        impl Endpoint {
            pub const ALL: &'static [Endpoint] = &[$(Endpoint::$v),+];

            pub fn method(self) -> Method {
                match self {
                    $(Endpoint::$v => Method::$m),+
                }
            }

            pub fn path(self) -> &'static str {
                match self {
                    $(Endpoint::$v => $path),+
                }
            }

            /// The scope a token needs; `None`: the spec doesn't show it (POST /sites).
            pub fn scope(self) -> Option<Scope> {
                match self {
                    $(Endpoint::$v => $scope),+
                }
            }

            /// Whether a write with an `Idempotency-Key` is replayed rather than run twice.
            pub fn idempotent(self) -> bool {
                match self {
                    $(Endpoint::$v => $idem),+
                }
            }
        }
    };
}

const READ: Option<Scope> = Some(Scope::Read);
const DEPLOY: Option<Scope> = Some(Scope::Deploy);
const MANAGE: Option<Scope> = Some(Scope::Manage);
const DNS: Option<Scope> = Some(Scope::Dns);

endpoints! {
    ListSites: Get "/sites", READ, false;
    QuoteSite: Post "/sites", None, false;
    Deploy: Post "/sites/{slug}/deploy", DEPLOY, true;
    ListDeploys: Get "/sites/{slug}/deploys", READ, false;
    SiteLogs: Get "/sites/{slug}/logs", READ, false;
    SiteHealth: Get "/sites/{slug}/health", READ, false;
    SiteTraffic: Get "/sites/{slug}/traffic", READ, false;
    SiteAnalytics: Get "/sites/{slug}/analytics", READ, false;
    ListBackups: Get "/sites/{slug}/backups", READ, false;
    CreateBackup: Post "/sites/{slug}/backups", MANAGE, true;
    Restore: Post "/sites/{slug}/restore", MANAGE, true;
    GetStaging: Get "/sites/{slug}/staging", READ, false;
    SetStaging: Post "/sites/{slug}/staging", MANAGE, true;
    ListCronJobs: Get "/sites/{slug}/cron", READ, false;
    CreateCronJob: Post "/sites/{slug}/cron", MANAGE, true;
    DeleteCronJob: Delete "/sites/{slug}/cron/{index}", MANAGE, true;
    ListDomains: Get "/domains", READ, false;
    SearchDomains: Get "/domains/search", READ, false;
    GetDomain: Get "/domains/{domain}", READ, false;
    GetRegistrar: Get "/domains/{domain}/registrar", READ, false;
    SetNameservers: Put "/domains/{domain}/nameservers", DNS, true;
    ListZones: Get "/dns", READ, false;
    ProbeZone: Post "/dns/zones/probe", DNS, false;
    ListRecords: Get "/dns/{zone}/records", READ, false;
    CreateRecord: Post "/dns/{zone}/records", DNS, true;
    UpdateRecord: Put "/dns/{zone}/records/{record}", DNS, true;
    DeleteRecord: Delete "/dns/{zone}/records/{record}", DNS, true;
    ListApps: Get "/apps", READ, false;
    GetApp: Get "/apps/{app}", READ, false;
    AppIncidents: Get "/apps/{app}/incidents", READ, false;
}

impl Endpoint {
    /// The endpoint at `method` and `path` (written as [`Endpoint::path`] writes it).
    pub fn find(method: Method, path: &str) -> Option<Endpoint> {
        Endpoint::ALL
            .iter()
            .copied()
            .find(|e| e.method() == method && e.path() == path)
    }

    /// The endpoint a request went to: `method` as on the wire (`POST`), `path` relative to
    /// [`crate::BASE_PATH`] with its parameters filled in (`/dns/example.com/records`). A literal
    /// segment wins over a parameter (`/domains/search` is not a domain named `search`).
    pub fn of_request(method: &str, path: &str) -> Option<Endpoint> {
        let path = path.split(['?', '#']).next().unwrap_or_default();
        let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        Endpoint::ALL
            .iter()
            .copied()
            .filter(|e| e.method().as_str().eq_ignore_ascii_case(method))
            .filter_map(|e| Some((literal_segments(e.path(), &segments)?, e)))
            .max_by_key(|(literals, _)| *literals)
            .map(|(_, e)| e)
    }
}

/// How many of `template`'s segments `segments` matches literally; `None` when they don't match
/// (a `{parameter}` matches any one non-empty segment).
fn literal_segments(template: &str, segments: &[&str]) -> Option<usize> {
    let parts: Vec<&str> = template.trim_start_matches('/').split('/').collect();
    if parts.len() != segments.len() {
        return None;
    }
    let mut literals = 0;
    for (part, segment) in parts.iter().zip(segments) {
        if part.starts_with('{') {
            if segment.is_empty() {
                return None;
            }
        } else if part == segment {
            literals += 1;
        } else {
            return None;
        }
    }
    Some(literals)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_get_needs_read_and_every_write_another_scope() {
        for e in Endpoint::ALL {
            match (e.method(), e.scope()) {
                (Method::Get, scope) => assert_eq!(scope, Some(Scope::Read), "{e:?}"),
                (Method::Post | Method::Put | Method::Delete, Some(Scope::Read)) => {
                    panic!("{e:?} writes with the read scope")
                }
                (Method::Post | Method::Put | Method::Delete, _) => {}
            }
        }
    }

    #[test]
    fn each_method_and_path_is_one_endpoint_and_reads_back() {
        for e in Endpoint::ALL {
            assert_eq!(Endpoint::find(e.method(), e.path()), Some(*e));
        }
        assert_eq!(Endpoint::find(Method::Get, "/dns/{zone}"), None);
    }

    #[test]
    fn a_request_finds_its_endpoint_by_its_filled_in_path() {
        let of = Endpoint::of_request;
        assert_eq!(
            of("POST", "/dns/example.com/records"),
            Some(Endpoint::CreateRecord)
        );
        assert_eq!(
            of("DELETE", "/dns/example.com/records/rec_1"),
            Some(Endpoint::DeleteRecord)
        );
        assert_eq!(of("POST", "/dns/zones/probe"), Some(Endpoint::ProbeZone));
        assert_eq!(of("get", "/sites/shop/cron"), Some(Endpoint::ListCronJobs));
        assert_eq!(
            of("GET", "/sites/shop/cron?page=2"),
            Some(Endpoint::ListCronJobs)
        );
        // The literal segment wins over the parameter.
        assert_eq!(of("GET", "/domains/search"), Some(Endpoint::SearchDomains));
        assert_eq!(of("GET", "/domains/example.com"), Some(Endpoint::GetDomain));
        // Refused: another method, a segment more or less, an empty parameter.
        assert_eq!(of("PATCH", "/dns/example.com/records"), None);
        assert_eq!(of("POST", "/dns/example.com"), None);
        assert_eq!(of("POST", "/dns/example.com/records/x/y"), None);
        assert_eq!(of("POST", "/dns//records"), None);
        for e in Endpoint::ALL {
            let filled = e
                .path()
                .replace("{slug}", "shop")
                .replace("{zone}", "example.com");
            let filled = filled
                .replace("{domain}", "example.com")
                .replace("{index}", "0");
            let filled = filled
                .replace("{record}", "rec_1")
                .replace("{app}", "app_1");
            assert_eq!(of(e.method().as_str(), &filled), Some(*e), "{filled}");
        }
    }

    #[test]
    fn only_writes_are_idempotent() {
        for e in Endpoint::ALL.iter().filter(|e| e.idempotent()) {
            assert_ne!(e.method(), Method::Get, "{e:?}");
        }
    }
}
