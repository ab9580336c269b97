use serde_json::json;

use super::demo;
use crate::common::emulator::{Api, example_emulator};

#[tokio::test]
async fn openapi_document_describes_the_implemented_endpoints() {
    let emu = example_emulator();
    let resp = demo(&emu).get("/openapi.json").await;
    assert_eq!(resp.status, 200);
    let doc = &resp.body;
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["version"], "1.2");
    assert_eq!(
        doc["components"]["schemas"]["NameserversWrite"]["properties"]["mode"]["enum"],
        json!(["veldhost", "custom"])
    );
    for path in [
        "/sites",
        "/sites/{slug}/health",
        "/sites/{slug}/cron",
        "/sites/{slug}/cron/{index}",
        "/domains",
        "/domains/{domain}",
        "/domains/{domain}/registrar",
        "/domains/{domain}/nameservers",
        "/dns",
        "/dns/zones/probe",
        "/dns/{zone}/records",
        "/dns/{zone}/records/{record}",
    ] {
        assert!(doc["paths"][path].is_object(), "{path} missing");
    }
    // Every $ref points at a schema that exists.
    let text = doc.to_string();
    for part in text.split("#/components/schemas/").skip(1) {
        let name: String = part
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        assert!(
            doc["components"]["schemas"][&name].is_object(),
            "dangling $ref {name}"
        );
    }
    assert_eq!(
        Api::anonymous(&emu.base_url())
            .get("/openapi.json")
            .await
            .status,
        401
    );
}
