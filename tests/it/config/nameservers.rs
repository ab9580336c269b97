use super::{ok, one_error};
use dnscron_core::config::model::NameserverMode;

fn ns(body: &str) -> String {
    format!("zone: example.com\nnameservers:\n{body}")
}

#[test]
fn hosted_and_custom_accepted() {
    let d = ok(&ns("  mode: hosted\n"));
    assert_eq!(
        d.zones[0].nameservers.as_ref().unwrap().mode,
        NameserverMode::Hosted
    );
    let d = ok(&ns(
        "  mode: custom\n  hosts: [NS1.Other-DNS.net., ns2.other-dns.net]\n",
    ));
    assert_eq!(
        d.zones[0].nameservers.as_ref().unwrap().mode,
        NameserverMode::Custom(vec!["ns1.other-dns.net".into(), "ns2.other-dns.net".into()])
    );
    let six = "[a.ns.net, b.ns.net, c.ns.net, d.ns.net, e.ns.net, f.ns.net]";
    ok(&ns(&format!("  mode: custom\n  hosts: {six}\n")));
    let d = ok("zone: example.com\n");
    assert!(
        d.zones[0].nameservers.is_none(),
        "no key: registrar side unmanaged"
    );
}

#[test]
fn nameserver_rules_rejected() {
    one_error(
        &ns("  mode: hostd\n"),
        "3:9",
        "nameserver `mode` `hostd` is not one of: hosted, custom [hint: did you mean `hosted`?]",
    );
    one_error(
        &ns("  hosts: [a.ns.net, b.ns.net]\n"),
        "3:3",
        "`nameservers` has no `mode`",
    );
    one_error(
        &ns("  mode: hosted\n  hosts: [a.ns.net, b.ns.net]\n"),
        "4:11",
        "`mode: hosted` takes no `hosts` [hint: remove `hosts` to use the service's own nameservers, or write `mode: custom`]",
    );
    one_error(
        &ns("  mode: custom\n"),
        "3:9",
        "`mode: custom` needs `hosts` [hint: list 2 to 6 nameserver host names under `hosts`]",
    );
    one_error(
        &ns("  mode: custom\n  hosts: [a.ns.net]\n"),
        "4:11",
        "`hosts` lists 1 nameservers; the API takes 2 to 6 [hint: list between 2 and 6 host names]",
    );
    let seven = "[a.ns.net, b.ns.net, c.ns.net, d.ns.net, e.ns.net, f.ns.net, g.ns.net]";
    one_error(
        &ns(&format!("  mode: custom\n  hosts: {seven}\n")),
        "4:11",
        "`hosts` lists 7 nameservers; the API takes 2 to 6 [hint: list between 2 and 6 host names]",
    );
    one_error(
        &ns("  mode: custom\n  hosts: [a.ns.net, A.ns.net.]\n"),
        "4:21",
        "nameserver `a.ns.net` is listed twice [hint: list each host once]",
    );
    one_error(
        &ns("  mode: custom\n  hosts: [ns1.example.com, b.ns.net]\n"),
        "4:11",
        "nameserver `ns1.example.com` is inside the zone's own domain `example.com` [hint: the API refuses nameservers inside the domain (they would need glue records); use hosts of another domain]",
    );
    one_error(
        &ns("  mode: custom\n  hosts: [ns1, b.ns.net]\n"),
        "4:11",
        "`ns1` is not a full host name [hint: write the full name, e.g. `ns1.other-dns.net`]",
    );
}
