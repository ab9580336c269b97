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
    fn only_writes_are_idempotent() {
        for e in Endpoint::ALL.iter().filter(|e| e.idempotent()) {
            assert_ne!(e.method(), Method::Get, "{e:?}");
        }
    }
}
