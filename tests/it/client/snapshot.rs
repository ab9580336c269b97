use std::path::Path;

use dnscron::cli::error::CommandError;
use dnscron_api::ReadClient;
use dnscron_core::config::model::{
    CronJobSpec, Desired, Location, NameserverMode, NameserversSpec, SafetyLimits, SiteSpec,
    ZoneSpec,
};
use dnscron_core::dns::ZoneName;
use dnscron_core::plan::snapshot::{self, SnapshotError};
use serde_json::json;

use super::stub::{Reply, Seen, Stub};

fn loc(file: &str, line: usize) -> Location {
    Location {
        file: Path::new(file).into(),
        line,
        col: 1,
    }
}

fn zone(name: &str, nameservers: bool) -> ZoneSpec {
    let file = format!("zones/{name}.yaml");
    ZoneSpec {
        accept: Vec::new(),
        zone: ZoneName::parse(name).unwrap(),
        location: loc(&file, 1),
        nameservers: nameservers.then(|| NameserversSpec {
            mode: NameserverMode::Hosted,
            location: loc(&file, 2),
        }),
        prune: true,
        ignore: vec![],
        records: vec![],
        uses: Vec::new(),
        safety: SafetyLimits::default(),
        registrar: None,
    }
}

fn site(slug: &str, cron: bool) -> SiteSpec {
    SiteSpec {
        accept: Vec::new(),
        slug: slug.into(),
        location: loc(&format!("sites/{slug}.yaml"), 1),
        cron: cron.then(|| {
            vec![CronJobSpec {
                schedule: "0 * * * *".into(),
                command: "php a".into(),
                location: loc(&format!("sites/{slug}.yaml"), 3),
            }]
        }),
    }
}

/// An account with zones a.com (150 records) and b.com (3), domain a.com, sites shop (active)
/// and blog (suspended), listed one per page.
fn account(seen: &Seen) -> Reply {
    let records = |zone: &str, n: usize, from: usize| -> Vec<serde_json::Value> {
        (from..n.min(from + 100))
            .map(|i| json!({"id": i, "name": format!("h{i}.{zone}."), "type": "TXT", "ttl": 300, "content": "\"v\""}))
            .collect()
    };
    let page = |items: Vec<serde_json::Value>, next: Option<&str>| {
        json!({"records": items, "nameservers": ["ns1.veldhost.net"],
               "meta": {"next_cursor": next, "has_more": next.is_some()}})
    };
    let cursor = seen.query_param("cursor");
    match (seen.path.as_str(), cursor.as_deref()) {
        ("/dns/a.com/records", None) => Reply::ok(page(records("a.com", 150, 0), Some("p2"))),
        ("/dns/a.com/records", Some("p2")) => Reply::ok(page(records("a.com", 150, 100), None)),
        ("/dns/b.com/records", None) => Reply::ok(page(records("b.com", 3, 0), None)),
        ("/domains/a.com/registrar", _) => Reply::ok(json!({
            "nameservers": {"registry": ["NS1.VELDHOST.NET."], "resolver": []},
            "dnssec": {"state": "inactive"}})),
        ("/sites", None) => Reply::ok(json!({"sites": [{"slug": "shop", "state": "active"}],
            "meta": {"next_cursor": "s2", "has_more": true}})),
        ("/sites", Some("s2")) => {
            Reply::ok(json!({"sites": [{"slug": "blog", "state": "suspended"}],
            "meta": {"has_more": false}}))
        }
        ("/sites/shop/cron", None) => Reply::ok(json!({"cron_jobs": [
            {"index": 1, "schedule": "0 * * * *", "command": "php a"}]})),
        ("/sites/blog/cron", None) => Reply::ok(json!({"cron_jobs": []})),
        _ => Reply::error(404, "not_found", "no such thing"),
    }
}

#[tokio::test(start_paused = true)]
async fn fetch_reads_exactly_what_the_files_name() {
    let stub = Stub::start(account).await;
    let client = ReadClient::new(stub.config()).unwrap();
    let desired = Desired {
        unmanaged: Default::default(),
        zones: vec![zone("a.com", true), zone("b.com", false)],
        sites: vec![site("shop", true), site("blog", false)],
    };
    let live = snapshot::fetch(&client, &desired).await.unwrap();
    assert_eq!(live.zones.len(), 2);
    assert_eq!(live.zones[0].records.len(), 150);
    assert_eq!(live.zones[1].zone.as_str(), "b.com");
    assert_eq!(live.zones[1].records.len(), 3);
    assert_eq!(live.domains.len(), 1);
    assert_eq!(
        live.domains[0].registrar.nameservers.registry,
        ["NS1.VELDHOST.NET."]
    );
    assert_eq!(live.domains[0].service_nameservers, ["ns1.veldhost.net"]);
    assert_eq!(live.sites[0].state.as_deref(), Some("active"));
    assert_eq!(live.sites[0].cron.as_ref().unwrap()[0].index, 1);
    assert_eq!(live.sites[1].state.as_deref(), Some("suspended"));
    assert_eq!(live.sites[1].cron, None);

    // ceil(150/100) + ceil(3/100) record pages, one registrar, two /sites pages, one cron list.
    let stats = client.stats().snapshot();
    assert_eq!(stats.total_requests(), 2 + 1 + 1 + 2 + 1, "{stats:?}");
    assert_eq!(stats.non_get_requests(), 0);
    assert_eq!(stub.requests().len(), 7);
}

#[tokio::test(start_paused = true)]
async fn what_the_account_lacks_is_an_error_at_its_declaration() {
    let cases: Vec<(Desired, &str, &str)> = vec![
        (
            Desired {
                unmanaged: Default::default(),
                zones: vec![zone("a.com", false), zone("missing.com", false)],
                sites: vec![],
            },
            "zones/missing.com.yaml:1:1: the account has no DNS zone `missing.com`",
            "add the zone",
        ),
        (
            Desired {
                unmanaged: Default::default(),
                zones: vec![zone("b.com", true)],
                sites: vec![],
            },
            "zones/b.com.yaml:2:1: `nameservers` is set but the account has no registered domain `b.com`",
            "remove the `nameservers` key",
        ),
        (
            Desired {
                unmanaged: Default::default(),
                zones: vec![],
                sites: vec![site("shop", false), site("gone", true)],
            },
            "sites/gone.yaml:1:1: the account has no site `gone`",
            "check the slug",
        ),
    ];
    let mut texts = Vec::new();
    for (desired, message, _hint) in cases {
        let stub = Stub::start(account).await;
        let client = ReadClient::new(stub.config()).unwrap();
        let err = snapshot::fetch(&client, &desired).await.unwrap_err();
        assert!(!matches!(err, SnapshotError::Api { .. }), "{err}");
        assert!(err.to_string().starts_with(message), "{err}");
        texts.push(CommandError::from(err).body());
    }
    // Each message and hint in full.
    insta::assert_snapshot!(texts.join("\n\n"));
}

#[tokio::test(start_paused = true)]
async fn other_api_failures_name_the_declaration_too() {
    let stub = Stub::start(|_| Reply::error(403, "forbidden", "missing scope")).await;
    let client = ReadClient::new(stub.config()).unwrap();
    let desired = Desired {
        unmanaged: Default::default(),
        zones: vec![zone("a.com", false)],
        sites: vec![],
    };
    let err = snapshot::fetch(&client, &desired).await.unwrap_err();
    assert!(matches!(err, SnapshotError::Api { .. }));
    assert!(
        err.to_string().starts_with("zones/a.com.yaml:1:1: reading the records of zone a.com failed: GET /dns/a.com/records: HTTP 403 forbidden"),
        "{err}"
    );
}
