//! Which network destinations Loupe may call on behalf of a user: webhook receivers, chat and CI
//! endpoints, LLM providers, export targets — URLs people type in, which must not become a way to
//! reach what only the server can reach (cloud metadata at 169.254.169.254, the databases on the
//! private network, the server's own loopback).
//!
//! Public addresses are always allowed. Loopback, private, link-local, shared (CGNAT), unspecified,
//! multicast and other special-purpose addresses are refused unless `LANGFUSE_OUTBOUND_ALLOWED_HOSTS`
//! names them: an IP, a CIDR block, a host name, or `*.` and a domain for its subdomains. The check
//! applies to every address a name resolves to (the HTTP clients resolve through it, so a name
//! that later resolves elsewhere is checked again at connect time).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The setting's name.
pub const ALLOWED_HOSTS: &str = "LANGFUSE_OUTBOUND_ALLOWED_HOSTS";

/// One entry of the allow list.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Allowed {
    Block {
        network: IpAddr,
        prefix: u8,
    },
    Host(String),
    /// `*.example.internal`: any name ending in `.example.internal`.
    Subdomains(String),
}

/// The allow list for non-public destinations (empty: only public addresses are reachable).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OutboundPolicy {
    allowed: Vec<Allowed>,
}

impl OutboundPolicy {
    /// The setting's text: entries separated by commas or white space. The error names the entry.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut allowed = Vec::new();
        for entry in text.split(|c: char| c == ',' || c.is_whitespace()).filter(|e| !e.is_empty()) {
            allowed.push(parse_entry(entry).ok_or_else(|| {
                format!("`{entry}` is not an IP address, a CIDR block (10.0.0.0/8), a host name or `*.` and a domain")
            })?);
        }
        Ok(Self { allowed })
    }

    /// Every destination allowed, for tests whose receivers listen on loopback.
    pub fn allow_all() -> Self {
        Self {
            allowed: vec![
                Allowed::Block { network: IpAddr::V4(Ipv4Addr::UNSPECIFIED), prefix: 0 },
                Allowed::Block { network: IpAddr::V6(Ipv6Addr::UNSPECIFIED), prefix: 0 },
            ],
        }
    }

    /// Whether `address` may be called when reached through `host` (the URL's host name, or the
    /// address itself when the URL names one).
    pub fn permits(&self, host: &str, address: IpAddr) -> bool {
        let address = canonical(address);
        if is_public(address) {
            return true;
        }
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        self.allowed.iter().any(|rule| match rule {
            Allowed::Block { network, prefix } => in_block(address, *network, *prefix),
            Allowed::Host(name) => *name == host,
            Allowed::Subdomains(domain) => {
                host.len() > domain.len() + 1 && host.ends_with(&format!(".{domain}"))
            }
        })
    }
}

fn parse_entry(entry: &str) -> Option<Allowed> {
    if let Some(domain) = entry.strip_prefix("*.") {
        return valid_host(domain).then(|| Allowed::Subdomains(domain.to_ascii_lowercase()));
    }
    if let Some((ip, prefix)) = entry.split_once('/') {
        let network: IpAddr = ip.parse().ok()?;
        let prefix: u8 = prefix.parse().ok()?;
        let max = if network.is_ipv4() { 32 } else { 128 };
        return (prefix <= max).then_some(Allowed::Block { network, prefix });
    }
    let bracketless = entry.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bracketless.parse::<IpAddr>() {
        return Some(Allowed::Block { network: ip, prefix: if ip.is_ipv4() { 32 } else { 128 } });
    }
    valid_host(entry).then(|| Allowed::Host(entry.to_ascii_lowercase()))
}

fn valid_host(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                && !label.starts_with('-')
        })
}

/// An IPv4 address carried in IPv6 (`::ffff:10.0.0.1`) is judged as the IPv4 address it is.
fn canonical(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(address, IpAddr::V4),
        v4 => v4,
    }
}

fn in_block(address: IpAddr, network: IpAddr, prefix: u8) -> bool {
    match (address, canonical(network)) {
        (IpAddr::V4(a), IpAddr::V4(n)) => {
            let mask = if prefix == 0 { 0 } else { u32::MAX << (32 - u32::from(prefix.min(32))) };
            u32::from(a) & mask == u32::from(n) & mask
        }
        (IpAddr::V6(a), IpAddr::V6(n)) => {
            let mask = if prefix == 0 { 0 } else { u128::MAX << (128 - u32::from(prefix.min(128))) };
            u128::from(a) & mask == u128::from(n) & mask
        }
        _ => false,
    }
}

/// Whether an address is on the public internet (not special-purpose per the IANA registries).
pub fn is_public(address: IpAddr) -> bool {
    match canonical(address) {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            !(v4.is_unspecified()
                || v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || a == 0
                || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
                || (a == 192 && b == 0 && v4.octets()[2] == 0) // IETF protocol assignments
                || (a == 198 && (18..20).contains(&b)) // benchmarking
                || a >= 240) // reserved
        }
        IpAddr::V6(v6) => {
            let first = v6.segments()[0];
            !(v6.is_unspecified()
                || v6.is_loopback()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00 // unique local
                || (first & 0xffc0) == 0xfe80 // link-local
                || (first == 0x2001 && v6.segments()[1] == 0x0db8) // documentation
                || (first == 0x0064 && v6.segments()[1] == 0xff9b)) // NAT64, may reach IPv4 inside
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn public_addresses_pass_and_special_ones_are_refused_by_default() {
        let policy = OutboundPolicy::default();
        for public in ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "100.128.0.1"] {
            assert!(policy.permits("example.com", ip(public)), "{public}");
        }
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "224.0.0.1",
            "::1",
            "::",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a9fe:a9fe",
        ] {
            assert!(!policy.permits("metadata.internal", ip(private)), "{private}");
        }
    }

    #[test]
    fn the_allow_list_takes_addresses_blocks_and_names() {
        let policy =
            OutboundPolicy::parse("10.0.0.0/8, 127.0.0.1 llm-gateway.corp *.svc.cluster.local [::1]")
                .unwrap();
        assert!(policy.permits("anything", ip("10.200.3.4")));
        assert!(!policy.permits("anything", ip("192.168.0.1")), "a private address outside the block");
        assert!(policy.permits("localhost", ip("127.0.0.1")));
        assert!(!policy.permits("localhost", ip("127.0.0.2")));
        assert!(policy.permits("::1", ip("::1")));
        assert!(
            policy.permits("LLM-Gateway.corp.", ip("192.168.5.5")),
            "names match any case and a final dot"
        );
        assert!(policy.permits("minio.svc.cluster.local", ip("172.20.0.9")));
        assert!(
            !policy.permits("svc.cluster.local", ip("172.20.0.9")),
            "the domain itself is not a subdomain"
        );
        assert!(!policy.permits("evil.corp", ip("192.168.5.5")));
        assert!(OutboundPolicy::allow_all().permits("x", ip("169.254.169.254")));
        assert!(OutboundPolicy::allow_all().permits("x", ip("::1")));
    }

    #[test]
    fn a_wrong_entry_is_named() {
        assert!(OutboundPolicy::parse("").unwrap() == OutboundPolicy::default());
        for wrong in ["10.0.0.0/33", "exa mple..com", "http://x", "*.", "1.2.3.4/x"] {
            let error = OutboundPolicy::parse(wrong).unwrap_err();
            assert!(error.contains('`'), "{wrong}: {error}");
        }
    }
}
