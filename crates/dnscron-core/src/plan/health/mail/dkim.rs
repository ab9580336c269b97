//! DKIM keys (RFC 6376 §3.6.1; Ed25519, RFC 8463) at `selector._domainkey` names: the version
//! if present, and a `p=` that decodes to a public key receivers can verify with.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use crate::config::model::{RecordSpec, ZoneSpec};
use crate::dns::RecordType;
use crate::finding::Figure;
use crate::finding::FindingCode;
use dnscron_api::untrusted::escape;

use super::account::absolute;
use super::{Out, key, tags};

/// Receivers reject signatures of shorter RSA keys (RFC 8301 §3.2).
const RSA_MIN_BITS: usize = 1024;
/// RFC 8301 §3.2: signers should use at least this.
const RSA_GOOD_BITS: usize = 2048;
const ED25519_LEN: usize = 32;

/// What `p=` holds, as far as receivers are concerned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Key {
    Revoked,
    Rsa { bits: usize },
    Ed25519,
}

pub(super) fn findings(spec: &ZoneSpec, out: &mut Out<'_>) {
    for record in spec.records.iter().filter(|r| is_key_name(r)) {
        let name = absolute(&record.name, spec.zone.as_str());
        judge(&name, record, out);
    }
}

/// `selector._domainkey` (in the zone or a subdomain of it), TXT.
fn is_key_name(record: &RecordSpec) -> bool {
    let mut labels = record.name.split('.');
    record.rtype == RecordType::TXT
        && labels.next().is_some_and(|s| !s.is_empty())
        && labels
            .next()
            .is_some_and(|l| l.eq_ignore_ascii_case("_domainkey"))
}

fn judge(name: &str, record: &RecordSpec, out: &mut Out<'_>) {
    let refused = |why: String| {
        format!(
            "the DKIM key at {name} is unusable: {why}; receivers fail every signature made with this selector, so DMARC fails for mail that relies on it; publish the key exactly as the mail provider gives it"
        )
    };
    match read(&record.canonical) {
        Ok(Key::Revoked) => out.push(
            FindingCode::DkimKeyRevoked,
            record,
            format!("the DKIM key at {name} is revoked (empty `p=`): receivers fail signatures made with this selector; remove the record once no mail is signed with it"),
        ),
        Ok(Key::Rsa { bits }) if bits < RSA_MIN_BITS => {
            out.push(
                FindingCode::DkimKeyTooShort,
                record,
                refused(format!("its RSA key has {bits} bits, under the {RSA_MIN_BITS} receivers accept (RFC 8301)")),
            );
            out.measure_last(key_bits(bits));
        }
        Ok(Key::Rsa { bits }) if bits < RSA_GOOD_BITS => {
            out.push(
                FindingCode::DkimKeyWeak,
                record,
                format!("the DKIM key at {name} is RSA of {bits} bits: receivers still accept it, but keys under {RSA_GOOD_BITS} bits can be broken; have the mail provider issue a {RSA_GOOD_BITS}-bit key under a new selector, then retire this one"),
            );
            out.measure_last(key_bits(bits));
        }
        Ok(_) => {}
        Err(why) => out.push(FindingCode::DkimKeyUnusable, record, refused(why)),
    }
}

fn key_bits(bits: impl TryInto<u32>) -> Figure {
    Figure::KeyBits(bits.try_into().unwrap_or(u32::MAX))
}

/// The key a DKIM record publishes, or why receivers can't use it.
pub(super) fn read(text: &str) -> Result<Key, String> {
    let tags = tags::parse(text)?;
    if let Some(v) = tags::get(&tags, "v")
        && (v != "DKIM1" || tags.first().is_some_and(|(n, _)| n != "v"))
    {
        return Err(format!(
            "`v={}` must be `v=DKIM1` and come first",
            escape(v)
        ));
    }
    let Some(p) = tags::get(&tags, "p") else {
        return Err("it has no `p=` (the public key)".into());
    };
    let p: String = p.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    if p.is_empty() {
        return Ok(Key::Revoked);
    }
    let der = STANDARD
        .decode(p.as_bytes())
        .map_err(|e| format!("`p=` is not base64 ({e})"))?;
    match tags::get(&tags, "k").unwrap_or("rsa") {
        "rsa" => key::rsa_bits(&der)
            .map(|bits| Key::Rsa { bits })
            .ok_or_else(|| "`p=` decodes to no RSA public key".to_string()),
        "ed25519" if der.len() == ED25519_LEN => Ok(Key::Ed25519),
        "ed25519" => Err(format!(
            "an Ed25519 key is {ED25519_LEN} bytes, `p=` decodes to {} bytes",
            der.len()
        )),
        other => Err(format!(
            "`k={}` is not a key type receivers know (rsa, ed25519)",
            escape(other)
        )),
    }
}
