//! Reading a DKIM public key: the DER of an RSA SubjectPublicKeyInfo (what `p=` holds, RFC 6376
//! §3.6.1) or a bare PKCS #1 RSAPublicKey (which receivers also accept), down to the modulus
//! size. A few lines of DER rather than an ASN.1 crate: only lengths are needed.

/// One DER element: its tag and contents, and what follows it.
fn element(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let len = rest[..n]
            .iter()
            .fold(0usize, |l, b| (l << 8) | usize::from(*b));
        (len, &rest[n..])
    };
    (rest.len() >= len).then(|| (tag, &rest[..len], &rest[len..]))
}

const SEQUENCE: u8 = 0x30;
const INTEGER: u8 = 0x02;
const BIT_STRING: u8 = 0x03;
const OBJECT_ID: u8 = 0x06;
/// 1.2.840.113549.1.1.1, rsaEncryption.
const RSA_OID: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];

/// The RSA modulus size in bits, or `None` when `der` is no RSA public key.
pub(super) fn rsa_bits(der: &[u8]) -> Option<usize> {
    spki_rsa(der).or_else(|| pkcs1_bits(der))
}

fn spki_rsa(der: &[u8]) -> Option<usize> {
    let (SEQUENCE, spki, []) = element(der)? else {
        return None;
    };
    let (SEQUENCE, algorithm, rest) = element(spki)? else {
        return None;
    };
    let (OBJECT_ID, oid, _) = element(algorithm)? else {
        return None;
    };
    if oid != RSA_OID {
        return None;
    }
    let (BIT_STRING, bits, []) = element(rest)? else {
        return None;
    };
    let (0, key) = bits.split_first()? else {
        return None;
    };
    pkcs1_bits(key)
}

fn pkcs1_bits(der: &[u8]) -> Option<usize> {
    let (SEQUENCE, key, []) = element(der)? else {
        return None;
    };
    let (INTEGER, modulus, rest) = element(key)? else {
        return None;
    };
    let (INTEGER, exponent, []) = element(rest)? else {
        return None;
    };
    if exponent.is_empty() {
        return None;
    }
    let significant: &[u8] = match modulus.iter().position(|b| *b != 0) {
        Some(at) => &modulus[at..],
        None => return None,
    };
    let top = usize::try_from(8 - significant[0].leading_zeros()).ok()?;
    Some((significant.len() - 1) * 8 + top)
}
