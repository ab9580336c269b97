use dnscron_emulator::{Gaps, HostnameEcho, RecordNames, TxtFormat};
use serde_json::{Value, json};

use super::demo;
use crate::common::emulator::example_emulator;

async fn records(emu: &dnscron_emulator::EmulatorHandle) -> Vec<Value> {
    demo(emu)
        .get_all("/dns/example.com/records", "records", 100)
        .await
}

fn find<'a>(records: &'a [Value], rtype: &str, prefix: &str) -> &'a Value {
    records
        .iter()
        .find(|r| {
            r["type"] == rtype
                && r["content"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches('"')
                    .starts_with(prefix)
        })
        .unwrap_or_else(|| panic!("no {rtype} {prefix}"))
}

#[tokio::test]
async fn record_names_relative_absolute_or_without_dot() {
    let emu = example_emulator();
    let names = |rs: Vec<Value>| {
        rs.iter()
            .map(|r| r["name"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let relative = names(records(&emu).await);
    assert!(relative.contains(&"@".to_string()) && relative.contains(&"www".to_string()));
    emu.set_gaps(Gaps {
        record_names: RecordNames::Absolute,
        ..Gaps::default()
    });
    let absolute = names(records(&emu).await);
    assert!(absolute.contains(&"example.com.".to_string()));
    assert!(absolute.contains(&"www.example.com.".to_string()));
    emu.set_gaps(Gaps {
        record_names: RecordNames::AbsoluteNoDot,
        ..Gaps::default()
    });
    assert!(names(records(&emu).await).contains(&"www.example.com".to_string()));
}

#[tokio::test]
async fn txt_as_stored_raw_or_quoted_in_255_octet_chunks() {
    let emu = example_emulator();
    let long = "p".repeat(400);
    let body = json!({"name": "default._domainkey", "type": "TXT", "ttl": 3600, "content": format!("v=DKIM1; k=rsa; p={long}")});
    assert_eq!(
        demo(&emu)
            .post("/dns/example.com/records", body)
            .await
            .status,
        201
    );
    let stored = records(&emu).await;
    assert_eq!(
        find(&stored, "TXT", "v=spf1")["content"],
        "\"v=spf1 mx include:_spf.mailhost.example -all\""
    );
    emu.set_gaps(Gaps {
        txt_format: TxtFormat::Raw,
        ..Gaps::default()
    });
    let raw = records(&emu).await;
    assert_eq!(
        find(&raw, "TXT", "v=spf1")["content"],
        "v=spf1 mx include:_spf.mailhost.example -all"
    );
    emu.set_gaps(Gaps {
        txt_format: TxtFormat::Quoted,
        ..Gaps::default()
    });
    let quoted = records(&emu).await;
    let dkim = find(&quoted, "TXT", "v=DKIM1")["content"]
        .as_str()
        .unwrap()
        .to_string();
    let chunks: Vec<&str> = dkim.split("\" \"").collect();
    assert_eq!(chunks.len(), 2, "{dkim}");
    assert_eq!(chunks[0].trim_start_matches('"').len(), 255);
}

#[tokio::test]
async fn extra_fields_can_be_turned_off() {
    let emu = example_emulator();
    let with_extra = records(&emu).await;
    assert!(with_extra[0].as_object().unwrap().len() > 5);
    emu.set_gaps(Gaps {
        extra_fields: false,
        ..Gaps::default()
    });
    let plain = records(&emu).await;
    let keys: Vec<_> = plain[0].as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys, ["id", "name", "type", "ttl", "content"]);
}

#[tokio::test]
async fn hosted_mode_wire_value_is_settable() {
    let emu = example_emulator();
    emu.set_gaps(Gaps {
        hosted_mode_value: "hosted".into(),
        ..Gaps::default()
    });
    let api = demo(&emu);
    let refused = api
        .put(
            "/domains/example.org/nameservers",
            json!({"mode": "veldhost"}),
        )
        .await;
    assert_eq!(refused.status, 422);
    let accepted = api
        .put(
            "/domains/example.org/nameservers",
            json!({"mode": "hosted"}),
        )
        .await;
    assert_eq!(accepted.status, 200);
    let doc = api.get("/openapi.json").await;
    assert_eq!(
        doc.body["components"]["schemas"]["NameserversWrite"]["properties"]["mode"]["enum"],
        json!(["hosted", "custom"])
    );
}

#[tokio::test]
async fn host_names_echoed_upper_case_or_without_final_dot() {
    let emu = example_emulator();
    emu.set_gaps(Gaps {
        hostname_echo: HostnameEcho::Upper,
        ..Gaps::default()
    });
    let upper = records(&emu).await;
    assert_eq!(find(&upper, "MX", "20")["content"], "20 MAIL2.EXAMPLE.COM.");
    let ns = demo(&emu).get("/dns/example.com/records").await;
    assert_eq!(ns.body["nameservers"][0], "NS1.VELDHOST.NET");
    emu.set_gaps(Gaps {
        hostname_echo: HostnameEcho::NoFinalDot,
        ..Gaps::default()
    });
    let no_dot = records(&emu).await;
    assert_eq!(find(&no_dot, "MX", "20")["content"], "20 mail2.example.com");
}
