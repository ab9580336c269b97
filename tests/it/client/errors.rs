use dnscron::cli::error::CommandError;
use dnscron_api::{ApiConfig, ApiError, ReadClient, Token, WriteClient};
use serde_json::json;

use super::stub::{CANARY, Reply, Stub, config};

/// Every way a request can fail, with a distinctive token: the token must appear in no error
/// text (Display, Debug, CommandError), in no log line at any level, and in no Debug of the
/// client or its configuration — while the server did receive it.
#[tokio::test(start_paused = true)]
async fn the_token_appears_nowhere_but_the_authorization_header() {
    let (_guard, buf) = super::capture_logs();
    let mut texts = Vec::new();

    let stub = Stub::start(|seen| match seen.path.as_str() {
        "/sites" => Reply::error(401, "unauthenticated", "invalid token"),
        "/domains" => Reply::error(500, "server_error", "boom"),
        "/dns" => Reply::ok(json!({"zones": "not a list"})),
        _ => Reply {
            status: 502,
            headers: vec![],
            body: "<html>bad gateway</html>".into(),
            delay: None,
        },
    })
    .await;
    let api_config = stub.config();
    texts.push(format!("{api_config:?}"));
    let client = WriteClient::new(api_config).unwrap();
    texts.push(format!("{client:?}"));
    let errors = vec![
        client.read().list_sites().await.unwrap_err(),
        client.read().list_domains().await.unwrap_err(),
        client.read().list_zones().await.unwrap_err(),
        client.read().openapi().await.unwrap_err(),
    ];
    assert!(
        stub.requests()
            .iter()
            .all(|s| s.header("authorization") == Some(&format!("Bearer {CANARY}")))
    );

    // Nothing listens on a port just released: connection refused.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let refused = ReadClient::new(config(&format!("http://{closed}/api/v1"))).unwrap();
    let transport = refused.list_sites().await.unwrap_err();
    assert!(
        matches!(transport, ApiError::Transport { attempts: 3, .. }),
        "{transport}"
    );
    assert!(
        transport
            .to_string()
            .starts_with("GET /sites: could not reach the API"),
        "{transport}"
    );

    for err in errors.into_iter().chain([transport]) {
        texts.push(err.to_string());
        texts.push(format!("{err:?}"));
        let command: CommandError = err.into();
        texts.push(command.to_string());
    }
    let insecure = ReadClient::new(ApiConfig {
        allow_insecure_http: false,
        ..config("http://192.0.2.10/api/v1")
    })
    .unwrap_err();
    texts.push(format!("{insecure} {insecure:?}"));
    texts.push(format!("{:?}", Token::new(CANARY).unwrap()));
    texts.push(super::logs(&buf));

    let all = texts.join("\n");
    assert!(all.contains("unauthenticated: invalid token"), "{all}");
    // A proxy's HTML page is named in one line, not quoted.
    assert!(
        all.contains("GET /openapi.json: HTTP 502 Bad Gateway from a proxy (an HTML page, not the API's JSON error)"),
        "{all}"
    );
    assert!(!all.contains("<html>"), "{all}");
    assert!(
        all.contains("GET /dns: the API answered 200 with a body dnscron can't read"),
        "{all}"
    );
    assert!(all.contains("retrying in"), "no retry was logged: {all}");
    assert!(!all.contains(CANARY), "the token leaked:\n{all}");
    assert!(!all.contains("7d1c9e"), "part of the token leaked:\n{all}");
}

#[tokio::test(start_paused = true)]
async fn insecure_urls_are_refused_unless_allowed() {
    let err = ReadClient::new(config("http://api.example.net/api/v1")).unwrap_err();
    assert!(matches!(err, ApiError::InsecureUrl { .. }));
    let mut allowed = config("http://api.example.net/api/v1");
    allowed.allow_insecure_http = true;
    assert!(ReadClient::new(allowed).is_ok());
    assert!(ReadClient::new(config("https://api.example.net/api/v1")).is_ok());
    assert!(ReadClient::new(config("http://localhost:1/api/v1")).is_ok());
}

#[tokio::test(start_paused = true)]
async fn error_hints_say_what_to_do() {
    let stub =
        Stub::start(|_| Reply::error(403, "forbidden", "site not pinned to the token")).await;
    let client = ReadClient::new(stub.config()).unwrap();
    let err = client.list_cron("shop").await.unwrap_err();
    let command: CommandError = err.into();
    assert_eq!(
        command.to_string(),
        "error: GET /sites/shop/cron: HTTP 403 forbidden: site not pinned to the token\n  \
         request_id: req_stub403\nhint: every token has the `read` scope that \
         GET /sites/{slug}/cron needs, so this site is not pinned to the token: add it to the \
         token in the portal under API tokens"
    );
    // A read that names no site: every token may read it, so the scope can't be what is
    // missing, and the hint stays the spec's list of causes.
    let err = client.list_zones().await.unwrap_err();
    assert_eq!(
        CommandError::from(err).hints(),
        [
            "the token lacks a scope or this site is not pinned to it: edit the token in the \
          portal under API tokens"
        ]
    );
}
