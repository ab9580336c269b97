//! MX targets: not an alias (RFC 2181 §10.3), and a null MX (RFC 7505) alone at its name.

use crate::config::model::{RecordSpec, ZoneSpec};
use crate::dns::RecordType;
use crate::finding::FindingCode;

use super::Out;
use super::account::{Account, Held, by_name, host};

pub(super) fn findings(account: &Account<'_>, spec: &ZoneSpec, out: &mut Out<'_>) {
    for (name, records) in by_name(spec, RecordType::MX, |_| true) {
        let null = records.iter().find(|r| is_null(&r.canonical));
        if let Some(null) = null
            && records.len() > 1
        {
            out.push(
                FindingCode::MxNullBesideOthers,
                null,
                format!(
                    "{name} has a null MX (`0 .`, \"accepts no mail\", RFC 7505) beside {} other MX record(s): receivers may bounce mail to {name} or deliver it to the others, depending on the sender; keep the null MX alone, or remove it if {name} receives mail",
                    records.len() - 1
                ),
            );
        }
        for record in records.iter().filter(|r| !is_null(&r.canonical)) {
            alias(account, &name, record, out);
        }
    }
}

pub(super) fn is_null(canonical: &str) -> bool {
    let mut parts = canonical.split_whitespace();
    parts.next().is_some_and(|p| p == "0") && parts.next() == Some(".") && parts.next().is_none()
}

fn alias(account: &Account<'_>, name: &str, record: &RecordSpec, out: &mut Out<'_>) {
    let Some(target) = record.canonical.split_whitespace().nth(1).and_then(host) else {
        return;
    };
    let Held::Files { records, .. } = account.records(&target, RecordType::CNAME) else {
        return;
    };
    let Some(cname) = records.first() else {
        return;
    };
    out.push(
        FindingCode::MxTargetIsCname,
        record,
        format!(
            "the MX of {name} points at {target}, which is a CNAME ({}) (RFC 2181 §10.3): some senders refuse or bounce the mail, others loop; point the MX at the host the CNAME names, or make {target} an A/AAAA record",
            cname.location
        ),
    );
}
