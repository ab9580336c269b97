//! The schema `dnscron schema` prints and the keys the loader accepts are one list.

use super::raw::{json_schema, keys};

#[test]
fn schema_lists_exactly_the_keys_the_loader_accepts() {
    let schema = json_schema();
    for (def, keys) in [
        ("ZoneDoc", keys::ZONE),
        ("Defaults", keys::DEFAULTS),
        ("Nameservers", keys::NAMESERVERS),
        ("IgnoreRule", keys::IGNORE),
        ("Record", keys::RECORD),
        ("Safety", keys::SAFETY),
        ("SiteDoc", keys::SITE),
        ("CronJob", keys::CRON),
        ("RecordSetDoc", keys::RECORD_SET),
        ("Accept", keys::ACCEPT),
    ] {
        let props = schema["definitions"][def]["properties"]
            .as_object()
            .unwrap();
        let names: Vec<&str> = props.keys().map(String::as_str).collect();
        assert_eq!(names, keys, "{def}");
        for (key, prop) in props {
            assert!(
                prop["description"].is_string(),
                "{def}.{key} has no description"
            );
        }
        assert_eq!(
            schema["definitions"][def]["additionalProperties"], false,
            "{def}"
        );
    }
}
