//! Who may use the board: only its own page, and on an address other
//! machines can reach, only with the token printed at start.
//!
//! Every request is checked before it is routed ([`Access::check`]):
//! - its `Host` must name the address the server listens on (or, on a
//!   loopback address, `localhost`, `127.0.0.1` or `[::1]`; on every
//!   interface, `0.0.0.0` or `::`, any IP address), with the port: a foreign
//!   name is a page that had its own name point here (DNS rebinding);
//! - an `Origin`, where the browser sends one, must be the board's own;
//! - where a token is required (a non-loopback address, unless the user
//!   opted out), the request carries it: as `?token=` in the URL (the
//!   address printed at start; the answer then sets a cookie, so that the
//!   page's own requests and its event stream carry it), the
//!   `X-Menagerie-Token` header (scripts) or that cookie;
//! - anything but `GET`/`HEAD` must say `Content-Type: application/json`,
//!   which a foreign page cannot send without the browser asking first.
//!
//! A refusal is a one-line message; the server answers it with a 403.
//! Knows nothing of sockets or of the HTTP library: [`RequestHead`] holds
//! the few header values looked at.

use std::net::{IpAddr, SocketAddr};

use rand::RngCore;

/// The header a script may send the token in.
pub const TOKEN_HEADER: &str = "X-Menagerie-Token";

/// Whether requests need a token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenRule {
    /// A fresh random token when the address is not a loopback one.
    Auto,
    /// No token, wherever the server listens (`--no-token`).
    Off,
    /// This token, wherever the server listens (tests).
    Fixed(String),
}

/// The header values of one request that the checks read.
#[derive(Clone, Copy, Debug, Default)]
pub struct RequestHead<'a> {
    /// `GET`, `POST`, ...
    pub method: &'a str,
    /// The request target, with its query string.
    pub url: &'a str,
    /// `Host`.
    pub host: Option<&'a str>,
    /// `Origin`.
    pub origin: Option<&'a str>,
    /// `Content-Type`.
    pub content_type: Option<&'a str>,
    /// [`TOKEN_HEADER`].
    pub token: Option<&'a str>,
    /// `Cookie`.
    pub cookie: Option<&'a str>,
}

/// What a request that passed may need in its answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Granted {
    /// A `Set-Cookie` value keeping the token the URL brought.
    pub set_cookie: Option<String>,
}

/// The rules of one server.
#[derive(Clone, Debug)]
pub struct Access {
    port: u16,
    /// Host names a request may name (lowercase; IPv6 addresses in brackets).
    names: Vec<String>,
    /// Any IP address names this server (it listens on every interface).
    any_ip: bool,
    token: Option<String>,
}

impl Access {
    /// The rules for a server asked to listen on `host`, listening on `addr`.
    pub fn new(host: &str, addr: SocketAddr, rule: TokenRule) -> Access {
        let ip = addr.ip();
        let mut names = vec![name_of(host), ip_name(ip)];
        if ip.is_loopback() || ip.is_unspecified() {
            names.extend(["localhost", "127.0.0.1", "[::1]"].map(String::from));
        }
        let token = match rule {
            TokenRule::Auto if !ip.is_loopback() => Some(new_token()),
            TokenRule::Auto | TokenRule::Off => None,
            TokenRule::Fixed(t) => Some(t),
        };
        Access { port: addr.port(), names, any_ip: ip.is_unspecified(), token }
    }

    /// The token requests need, if any.
    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    /// The cookie that carries the token on this server (cookies do not
    /// tell ports apart, so the name carries it).
    pub fn cookie_name(&self) -> String {
        format!("menagerie-token-{}", self.port)
    }

    /// Lets a request through, or says in one line why not.
    pub fn check(&self, request: &RequestHead<'_>) -> Result<Granted, String> {
        let own = format!("port {} of this board's address", self.port);
        let Some(host) = request.host else {
            return Err("refused: the request has no Host header".to_string());
        };
        if !self.names_this_server(host) {
            return Err(format!("refused: Host {host:?} is not this board's address ({own})"));
        }
        if let Some(origin) = request.origin {
            let authority = origin.strip_prefix("http://").filter(|a| !a.contains('/'));
            if !authority.is_some_and(|a| self.names_this_server(a)) {
                return Err(format!(
                    "refused: requests from {origin:?} are not accepted, only from the board's own page"
                ));
            }
        }
        let mut granted = Granted::default();
        if let Some(token) = &self.token {
            let from_url = query_value(request.url, "token");
            let name = self.cookie_name();
            let from_cookie = request.cookie.and_then(|c| cookie_value(c, &name));
            let presented = [from_url, request.token, from_cookie];
            if !presented.iter().flatten().any(|given| same_text(given, token)) {
                return Err(format!(
                    "refused: this board needs its token: open the address printed at start (/?token=...), \
                     or send the {TOKEN_HEADER} header"
                ));
            }
            if from_url.is_some_and(|given| same_text(given, token)) {
                granted.set_cookie = Some(format!("{name}={token}; Path=/; HttpOnly; SameSite=Strict"));
            }
        }
        if !matches!(request.method, "GET" | "HEAD") && !is_json(request.content_type) {
            return Err(format!("refused: {} needs Content-Type: application/json", request.method));
        }
        Ok(granted)
    }

    /// True when `authority` (`name` or `name:port`, port 80 when left out)
    /// names this server.
    fn names_this_server(&self, authority: &str) -> bool {
        let Some((name, port)) = split_authority(authority) else { return false };
        if port != self.port {
            return false;
        }
        let name = name_of(&name);
        self.names.contains(&name) || (self.any_ip && parse_ip(&name).is_some())
    }
}

/// A fresh token: 128 random bits from the operating system, in hex.
fn new_token() -> String {
    let mut bytes = [0u8; 16];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// How an IP address is written in a `Host` header.
fn ip_name(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => format!("[{v6}]"),
    }
}

/// An address written as in a `Host` header (`[::1]`) or bare (`::1`).
fn parse_ip(name: &str) -> Option<IpAddr> {
    let bare = name.strip_prefix('[').and_then(|n| n.strip_suffix(']')).unwrap_or(name);
    bare.parse().ok()
}

/// A host name as compared: lowercase, an IP address in its usual form.
fn name_of(host: &str) -> String {
    match parse_ip(host) {
        Some(ip) => ip_name(ip),
        None => host.to_ascii_lowercase(),
    }
}

/// `name:port`, `[v6]:port` or a name alone (port 80).
fn split_authority(authority: &str) -> Option<(String, u16)> {
    let (name, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (inside, after) = rest.split_once(']')?;
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':')?),
        };
        (format!("[{inside}]"), port)
    } else {
        match authority.rsplit_once(':') {
            Some((name, port)) => (name.to_string(), Some(port)),
            None => (authority.to_string(), None),
        }
    };
    if name.is_empty() || (!name.starts_with('[') && name.contains(':')) {
        return None;
    }
    let port = match port {
        None => 80,
        Some(p) => p.parse().ok()?,
    };
    Some((name, port))
}

/// The value of `key` in the URL's query string.
fn query_value<'a>(url: &'a str, key: &str) -> Option<&'a str> {
    let query = url.split_once('?')?.1.split('#').next()?;
    query.split('&').find_map(|pair| pair.strip_prefix(key)?.strip_prefix('='))
}

/// The value of the cookie `name` in a `Cookie` header.
fn cookie_value<'a>(header: &'a str, name: &str) -> Option<&'a str> {
    header.split(';').find_map(|pair| pair.trim().strip_prefix(name)?.strip_prefix('='))
}

/// `application/json`, with or without parameters.
fn is_json(content_type: Option<&str>) -> bool {
    content_type.and_then(|t| t.split(';').next()).is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
}

/// Compares in time that depends only on the lengths, not on where they differ.
fn same_text(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head<'a>(method: &'a str, host: &'a str) -> RequestHead<'a> {
        RequestHead {
            method,
            url: "/api/new",
            host: Some(host),
            content_type: Some("application/json"),
            ..RequestHead::default()
        }
    }

    #[test]
    fn a_loopback_board_answers_its_own_names_only() {
        let access = Access::new("127.0.0.1", "127.0.0.1:8080".parse().unwrap(), TokenRule::Auto);
        assert_eq!(access.token(), None);
        for host in ["127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080", "[::1]:8080"] {
            assert!(access.check(&head("POST", host)).is_ok(), "{host}");
        }
        for host in ["evil.example:8080", "127.0.0.1:8081", "127.0.0.1", "localhost", "[::1", "a:b:8080", ""] {
            let e = access.check(&head("POST", host)).unwrap_err();
            assert!(e.starts_with("refused: Host"), "{host}: {e}");
        }
        assert!(access.check(&RequestHead { host: None, ..head("GET", "") }).is_err());
    }

    #[test]
    fn origin_and_content_type() {
        let access = Access::new("localhost", "127.0.0.1:9000".parse().unwrap(), TokenRule::Auto);
        let with =
            |origin, content_type| RequestHead { origin: Some(origin), content_type, ..head("POST", "localhost:9000") };
        assert!(access.check(&with("http://localhost:9000", Some("application/json; charset=utf-8"))).is_ok());
        assert!(access.check(&with("http://127.0.0.1:9000", Some("Application/JSON"))).is_ok());
        for origin in ["http://evil.example", "http://evil.example:9000", "null", "https://localhost:9000"] {
            let e = access.check(&with(origin, Some("application/json"))).unwrap_err();
            assert!(e.contains("only from the board's own page"), "{origin}: {e}");
        }
        for content_type in [Some("text/plain"), Some("application/x-www-form-urlencoded"), None] {
            let mut request = head("POST", "localhost:9000");
            request.content_type = content_type;
            let e = access.check(&request).unwrap_err();
            assert_eq!(e, "refused: POST needs Content-Type: application/json");
            request.method = "GET";
            assert!(access.check(&request).is_ok(), "a GET needs no body type");
        }
    }

    #[test]
    fn every_interface_wants_the_token() {
        let access = Access::new("0.0.0.0", "0.0.0.0:8080".parse().unwrap(), TokenRule::Auto);
        let token = access.token().expect("a token").to_string();
        assert_eq!(token.len(), 32);
        assert_ne!(Access::new("0.0.0.0", "0.0.0.0:8080".parse().unwrap(), TokenRule::Auto).token(), Some(&*token));
        let mut request = head("POST", "192.168.1.5:8080");
        assert!(access.check(&request).unwrap_err().contains("needs its token"));
        request.token = Some("0123");
        assert!(access.check(&request).is_err());
        request.token = Some(&token);
        assert_eq!(access.check(&request), Ok(Granted::default()));
        // A name is refused even with the token: any IP address, but no name.
        request.host = Some("evil.example:8080");
        assert!(access.check(&request).unwrap_err().starts_with("refused: Host"));
        // The token in the URL sets the cookie; the cookie lets the page in.
        let url = format!("/?token={token}");
        let page = RequestHead { method: "GET", url: &url, host: Some("10.0.0.2:8080"), ..RequestHead::default() };
        let cookie = access.check(&page).unwrap().set_cookie.expect("a cookie");
        assert!(cookie.starts_with(&format!("menagerie-token-8080={token};")) && cookie.contains("HttpOnly"));
        let sent = format!("other=1; {}", cookie.split(';').next().unwrap());
        let again = RequestHead { url: "/app.js", cookie: Some(&sent), ..page };
        assert_eq!(access.check(&again), Ok(Granted::default()));
        let off = Access::new("0.0.0.0", "0.0.0.0:8080".parse().unwrap(), TokenRule::Off);
        assert!(off.token().is_none() && off.check(&head("POST", "10.0.0.2:8080")).is_ok());
    }

    #[test]
    fn pieces_of_requests() {
        assert_eq!(split_authority("[::1]:80"), Some(("[::1]".to_string(), 80)));
        assert_eq!(split_authority("example.org"), Some(("example.org".to_string(), 80)));
        assert_eq!(split_authority("x:99999"), None);
        assert_eq!(query_value("/?a=1&token=abc#x", "token"), Some("abc"));
        assert_eq!(query_value("/?tokens=abc", "token"), None);
        assert_eq!(cookie_value("a=1;  b=2", "b"), Some("2"));
        assert!(same_text("abc", "abc") && !same_text("abc", "abd") && !same_text("abc", "ab"));
    }
}
